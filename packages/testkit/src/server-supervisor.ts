/** How long the supervisor waits after SIGTERM before it kills the server. */
export const SERVER_STOP_GRACE_MS = 5_000;

/** How long the supervisor lets each cleanup command run once orphaned. */
export const ORPHAN_CLEANUP_TIMEOUT_MS = 30_000;

/**
 * A small Node program that runs a server process on behalf of the test process. Servers have no way
 * to notice that the process that started them has gone, and vitest ends its workers without running
 * `exit` handlers; the supervisor notices through its stdin, which closes whenever the parent ends,
 * however it ends. It then stops the server, removes the server's throw-away directories and runs the
 * cleanup commands (such as dropping a database the server kept its data in), one after the other.
 *
 * argv: <JSON {"removeWhenOrphaned": string[], "runWhenOrphaned": string[][]}> <command> <args…>;
 * each entry of runWhenOrphaned is a command and its arguments. Exits with the server's status.
 * SIGTERM/SIGINT are passed on to the server, followed by SIGKILL when it has not exited in time.
 */
export const SUPERVISOR_SOURCE = `
const { spawn, spawnSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { constants } = require('node:os');
const [options, command, ...args] = process.argv.slice(1);
const { removeWhenOrphaned, runWhenOrphaned } = JSON.parse(options);
const server = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let orphaned = false;
const stop = (signal) => {
  server.kill(signal);
  setTimeout(() => server.kill('SIGKILL'), ${SERVER_STOP_GRACE_MS}).unref();
};
server.on('error', (error) => {
  console.error(error.message);
  process.exit(127);
});
server.on('exit', (code, signal) => {
  if (orphaned) {
    for (const dir of removeWhenOrphaned) rmSync(dir, { recursive: true, force: true });
    // stdout and stderr led to the parent, which is gone
    for (const [cleanup, ...cleanupArgs] of runWhenOrphaned) {
      spawnSync(cleanup, cleanupArgs, { stdio: 'ignore', timeout: ${ORPHAN_CLEANUP_TIMEOUT_MS} });
    }
  }
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.stdin.on('error', () => {});
process.stdin.on('close', () => {
  orphaned = true;
  stop('SIGTERM');
});
process.stdin.resume();
`;
