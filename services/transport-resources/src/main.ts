// Runs the transport-resources service: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { transportResourcesService } from './app.js';

await runMain(transportResourcesService);
