// @rm/matching/testing: what the tests' yardsticks, the bench and its instances reach of the matching
// engine besides running it (@rm/matching/service). Never imported by the service.
export type { Combination } from '../domain/combination.js';
export { combinationsOf, DEFAULT_EXACT_MAX_NONZEROS } from '../domain/exact.js';
export { transportResourceView, type TransportResourceView } from '../domain/feasibility.js';
export { compareObjectives, objectiveOf, type Objective } from '../domain/objective.js';
export { buildAvailableEmployee, type AvailableEmployee } from '../domain/snapshot.js';
export { INPUT_ENTITY, TenantMatching, type Input } from '../domain/tenant-matching.js';
export { INPUT_EVENTS, INPUTS_STREAM } from '../events.js';
export { createExactWorker, type ExactWorker } from '../resolve/exact-worker.js';
export { feasibilityViolations, greedy, isFeasible } from './yardsticks.js';
