import { parentPort } from 'node:worker_threads';
import type { SolveRequest, SolveReply } from './exact-worker.js';

/* The worker thread of exact-worker.ts: it loads HiGHS once and solves one job at a time, as the main thread sends them. */

// run from the .ts sources (vitest), the relative imports name the .js files of the build: Node loads the .ts beside them
if (import.meta.url.endsWith('.ts')) {
  const { registerHooks } = await import('node:module');
  registerHooks({
    resolve: (specifier, context, nextResolve) => {
      const fromSource = specifier.startsWith('.') && context.parentURL?.endsWith('.ts') === true;
      return nextResolve(fromSource ? specifier.replace(/\.js$/, '.ts') : specifier, context);
    },
  });
}
const { solveAll } = await import('../domain/exact.js');

parentPort?.on('message', async ({ id, inputs, limits }: SolveRequest) => {
  let reply: SolveReply;
  try {
    const solved = await solveAll(inputs.shifts, inputs.resources, { frozen: inputs.frozen, existing: inputs.existing, ...limits });
    // the joined assignment is enough: the components' own would be sent twice
    reply = { id, assignment: solved.assignment, components: solved.components.map(({ assignment: _, ...component }) => component) };
  } catch (error) {
    reply = { id, error };
  }
  parentPort?.postMessage(reply);
});
