/** NODE_OPTIONS as deploy/k8s/base/service gives the services' pods, so that benches size heaps, and resident memory, as deployed. */
export const POD_NODE_OPTIONS = '--max-old-space-size=256';

/** The gateway's, as deploy/k8s/base/gateway patches them; BENCH_GATEWAY_NODE_OPTIONS overrides them, to compare. */
export const GATEWAY_NODE_OPTIONS = process.env.BENCH_GATEWAY_NODE_OPTIONS ?? '--max-old-space-size=256 --max-semi-space-size=4';
