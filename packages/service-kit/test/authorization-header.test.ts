import { describe, expect, it } from 'vitest';
import { credentialsOf } from '../src/index.js';

describe('credentialsOf: the credentials of an Authorization header', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc  ', 'abc'],
    ['Bearer a b', 'a b'],
  ])('reads %j as %j', (header, credentials) => {
    expect(credentialsOf(header, 'Bearer')).toBe(credentials);
  });

  it.each([
    ['no credentials', 'Bearer'],
    ['only spaces after the scheme', 'Bearer    '],
    ['no space after the scheme', 'Bearerabc'],
    ['another scheme', 'Basic abc'],
    ['a scheme that starts alike', 'Bearers abc'],
    ['nothing', ''],
  ])('finds none in %s', (_case, header) => {
    expect(credentialsOf(header, 'Bearer')).toBeUndefined();
  });

  // the pattern it replaced took 380 ms over this header; a test cannot assert a time, but it checks the answer
  it('reads a header of spaces around two characters, whose spaces inside are the credentials\'', () => {
    expect(credentialsOf(`Bearer a${' '.repeat(15_000)}b   `, 'Bearer')).toBe(`a${' '.repeat(15_000)}b`);
  });
});
