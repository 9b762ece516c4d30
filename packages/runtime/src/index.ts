export { defineService, type CommonConfigSpec, type ConsumerDefinition, type ServiceConfig, type ServiceContext, type ServiceDefinition } from './service-definition.js';
export { startService, type RunningService, type StartServiceOptions } from './start-service.js';
export { runMain } from './run-main.js';
export type { TracingOptions } from './tracing.js';
