import { MongoNetworkError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, isOutage, ResourceNotFoundError } from '../src/index.js';

describe('isOutage', () => {
  it('takes the driver\'s connection failures, the store\'s own outage error, and errors they caused for outages', () => {
    const network = new MongoNetworkError('connection refused');
    expect(isOutage(network)).toBe(true);
    expect(isOutage(new DatabaseUnavailableError('the database cannot be reached', { cause: network }))).toBe(true);
    expect(isOutage(new Error('handler failed', { cause: new DatabaseUnavailableError('gone') }))).toBe(true);
  });

  it('does not take a refused write or a bug for an outage', () => {
    expect(isOutage(new ResourceNotFoundError('employee', 'e-1'))).toBe(false);
    expect(isOutage(new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).toBe(false);
    expect(isOutage(new Error('bug', { cause: new TypeError('undefined is not a function') }))).toBe(false);
    const loop = new Error('cause of itself');
    (loop as { cause?: unknown }).cause = loop;
    expect(isOutage(loop)).toBe(false);
  });
});
