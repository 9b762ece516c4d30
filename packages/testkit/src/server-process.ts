import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServerStartError } from './errors.js';
import { SERVER_STOP_GRACE_MS, SUPERVISOR_SOURCE } from './server-supervisor.js';

const READY_TIMEOUT_MS = 30_000;
const OUTPUT_TAIL_CHARS = 4_000;

export interface ServerProcess {
  /** Recent stdout and stderr of the server, for error messages. */
  outputTail(): string;
  /** SIGTERM, then SIGKILL when the server has not exited after a few seconds. */
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  /** For messages: 'ferretdb', 'nats-server', … */
  name: string;
  command: string;
  args: string[];
  /** The port on 127.0.0.1 that accepts connections once the server is ready. */
  port: number;
  /** Throw-away directories to remove if the server outlives this process. */
  removeWhenOrphaned?: string[];
  /** Commands (command and arguments) to run after the server stopped, if it outlived this process. */
  runWhenOrphaned?: string[][];
}

/**
 * Starts a server under a supervisor (see server-supervisor.ts) that stops it when this process
 * ends, and resolves once the server's port accepts connections.
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const supervisorOptions = JSON.stringify({
    removeWhenOrphaned: options.removeWhenOrphaned ?? [],
    runWhenOrphaned: options.runWhenOrphaned ?? [],
  });
  const child = spawn(
    process.execPath,
    ['-e', SUPERVISOR_SOURCE, supervisorOptions, options.command, ...options.args],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  const keepTail = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const serverProcess: ServerProcess = {
    outputTail: () => output.trim(),
    stop: () => stopSupervisor(child, exited),
  };

  const describe = `${options.name} (${options.command} ${options.args.join(' ')})`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await acceptsConnections(options.port))) {
    const failure = hasExited(child)
      ? `${describe} exited with ${child.exitCode ?? child.signalCode} before accepting connections`
      : Date.now() > deadline
        ? `${describe} did not accept connections on 127.0.0.1:${options.port} within ${READY_TIMEOUT_MS / 1000} s`
        : undefined;
    if (failure !== undefined) {
      await serverProcess.stop();
      const tail = serverProcess.outputTail();
      throw new ServerStartError(tail === '' ? failure : `${failure}; its output ends with:\n${tail}`);
    }
    await sleep(100);
  }
  return serverProcess;
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stopSupervisor(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (!hasExited(child)) {
    child.kill('SIGTERM');
    // The supervisor kills the server after its grace period; this is the last resort.
    const giveUp = new AbortController();
    const stoppedInTime = await Promise.race([
      exited.then(() => true),
      sleep(SERVER_STOP_GRACE_MS + 5_000, false, { signal: giveUp.signal }).catch(() => true),
    ]);
    giveUp.abort();
    if (!stoppedInTime) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  child.stdin?.destroy();
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 1_000 });
    const done = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}
