// The short import scenario on a stack of its own: it kills services, which the other scenarios' shared
// stack must not see.
import { describe, expect, it } from 'vitest';
import { stackPerFile } from './suite-per-file.ts';
import { importUnderCrashes } from '../scenarios/import-under-crashes.ts';

const suite = stackPerFile();

describe('a bulk load while services crash (short version)', () => {
  it('applies every line once and shows each change on the feed once, in order, when employees and the gateway crash', async () => {
    const report = await importUnderCrashes(suite(), 'short');
    expect(report.findings).toEqual([]);
    // the kills the scenario asked for are not unexpected exits
    expect(suite().exits).toEqual([]);
  });
});
