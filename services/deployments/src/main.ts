// Runs the deployments service: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { deploymentsService } from './app.js';

await runMain(deploymentsService);
