// Runs the webhooks service: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { webhooksService } from './app.js';

await runMain(webhooksService);
