/**
 * NODE_OPTIONS as deploy/k8s/base/service gives every service's pod, so that benches size heaps, and
 * resident memory, as deployed; BENCH_POD_NODE_OPTIONS overrides them, to compare.
 */
export const POD_NODE_OPTIONS = process.env.BENCH_POD_NODE_OPTIONS ?? '--max-old-space-size=256 --max-semi-space-size=4';
