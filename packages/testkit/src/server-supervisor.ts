/** How long the supervisor waits after SIGTERM before it kills the server. */
export const SERVER_STOP_GRACE_MS = 5_000;

/**
 * A small Node program that runs a server process on behalf of the test process. Servers have no way
 * to notice that the process that started them has gone, and vitest ends its workers without running
 * `exit` handlers; the supervisor notices through its stdin, which closes whenever the parent ends,
 * however it ends. It then stops the server and removes the server's throw-away directories.
 *
 * argv: <JSON {"removeWhenOrphaned": string[]}> <command> <args…>. Exits with the server's status.
 * SIGTERM/SIGINT are passed on to the server, followed by SIGKILL when it has not exited in time.
 */
export const SUPERVISOR_SOURCE = `
const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const { constants } = require('node:os');
const [options, command, ...args] = process.argv.slice(1);
const { removeWhenOrphaned } = JSON.parse(options);
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
  if (orphaned) for (const dir of removeWhenOrphaned) rmSync(dir, { recursive: true, force: true });
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
