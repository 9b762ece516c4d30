import { MongoBulkWriteError, MongoNetworkError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, ignoreNotFound, isOutage, ResourceNotFoundError } from '../src/index.js';

describe('isOutage', () => {
  it('takes the driver\'s connection failures, the store\'s own outage error, and errors they caused for outages', () => {
    const network = new MongoNetworkError('connection refused');
    expect(isOutage(network)).toBe(true);
    expect(isOutage(new DatabaseUnavailableError('the database cannot be reached', { cause: network }))).toBe(true);
    expect(isOutage(new Error('handler failed', { cause: new DatabaseUnavailableError('gone') }))).toBe(true);
    // a bulk write (many inserts at once) stopped by the network: the driver wraps the error
    expect(isOutage(new MongoBulkWriteError(network, {} as never))).toBe(true);
    expect(isOutage(new MongoBulkWriteError({ message: 'E11000 duplicate key', code: 11000, writeErrors: [] }, {} as never))).toBe(false);
  });

  it('takes a server that cannot serve right now: MongoDB shutting down or stepping down, FerretDB without PostgreSQL', () => {
    expect(isOutage(new MongoServerError({ message: 'The server is in quiesce mode and will shut down', code: 91 }))).toBe(true);
    expect(isOutage(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    // FerretDB answers InternalError (1) with PostgreSQL's SQLSTATE: 53300 too many clients, 57P01 admin shutdown, 08006 connection failure
    for (const sqlState of ['53300', '57P01', '08006']) {
      const error = new MongoServerError({ message: `failed to connect: FATAL: sorry, too many clients already (SQLSTATE ${sqlState})`, code: 1 });
      expect(isOutage(error), sqlState).toBe(true);
    }
  });

  it('takes FerretDB cut off from PostgreSQL for an outage: connections refused, reset or ended mid-answer', () => {
    // as FerretDB v1.24 answered while the reliability suite kept its PostgreSQL away (pgx's errors, in InternalError)
    const answers = [
      '[msg_insert.go:98 handler.(*Handler).MsgInsert] failed to connect to `user=postgres database=rm_test_1`:\n\t' +
        '127.0.0.1:41237 (127.0.0.1): dial error: dial tcp 127.0.0.1:41237: connect: connection refused',
      '[collection.go:163 postgresql.(*collection).Query] write failed: write tcp 127.0.0.1:5050->127.0.0.1:41237: write: connection reset by peer',
      '[query_iterator.go:170 postgresql.(*queryIterator).Next] read tcp 127.0.0.1:5050->127.0.0.1:41237: read: connection reset by peer',
      '[collection.go:163 postgresql.(*collection).Query] unexpected EOF',
    ];
    for (const message of answers) expect(isOutage(new MongoServerError({ message, code: 1 })), message).toBe(true);
  });

  it('does not take a refused write or a bug for an outage', () => {
    // an internal error of another kind (23505: a unique violation) is not PostgreSQL being away
    expect(isOutage(new MongoServerError({ message: 'duplicate key value (SQLSTATE 23505)', code: 1 }))).toBe(false);
    expect(isOutage(new MongoServerError({ message: '[msg_update.go:140 handler.updateDocument] unknown operator $foo', code: 1 }))).toBe(false);
    expect(isOutage(new ResourceNotFoundError('employee', 'e-1'))).toBe(false);
    expect(isOutage(new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).toBe(false);
    expect(isOutage(new Error('bug', { cause: new TypeError('undefined is not a function') }))).toBe(false);
    const loop = new Error('cause of itself');
    (loop as { cause?: unknown }).cause = loop;
    expect(isOutage(loop)).toBe(false);
  });
});

describe('ignoreNotFound', () => {
  it('lets a removal that found its resource gone already end quietly, and throws anything else', async () => {
    await expect(Promise.reject(new ResourceNotFoundError('deployment', 'd-1')).catch(ignoreNotFound)).resolves.toBeUndefined();
    const outage = new DatabaseUnavailableError('down');
    await expect(Promise.reject(outage).catch(ignoreNotFound)).rejects.toBe(outage);
  });
});
