import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { MongoNetworkError } from 'mongodb';

/** The part of the driver's internal Connection that the mend touches. */
interface DriverConnection extends EventEmitter {
  id: number | string;
  address: string;
  error?: Error;
  writeCommand(command: unknown, options: unknown): Promise<void>;
}

type WriteCommand = DriverConnection['writeCommand'] & { mended?: true };

/**
 * Mends a hang in the MongoDB driver (seen in 7.9.0, the latest): a command whose connection closes while
 * the driver serializes it is then written to the closed socket, and the driver waits for a 'drain' that
 * never comes, with no timeout. When a server stops, it closes every connection; the error on the first
 * makes the driver check the server at once on its monitoring connection, which is closing too, and that
 * check then never ends: the driver never finds the server again, and every call fails with a server
 * selection error until the process restarts (1 run in 3 of the reliability suite's FerretDB restart). The
 * write now fails with the connection's error when the connection closes first, as a read already does.
 * Remove it once `closed-connection-writes.test.ts` passes without it.
 */
export function mendClosedConnectionWrites(): void {
  const require = createRequire(import.meta.url);
  const { Connection } = require('mongodb/lib/cmap/connection.js') as { Connection: { prototype: DriverConnection } };
  const write: WriteCommand = Connection.prototype.writeCommand;
  if (write.mended) return;
  const mended: WriteCommand = function (this: DriverConnection, command, options) {
    const written = write.call(this, command, options);
    return new Promise<void>((resolve, reject) => {
      const onClose = () => reject(this.error ?? new MongoNetworkError(`connection ${this.id} to ${this.address} closed`));
      this.once('close', onClose);
      written.then(resolve, reject).finally(() => this.off('close', onClose));
    });
  };
  mended.mended = true;
  Connection.prototype.writeCommand = mended;
}
