// Runs the matching engine: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { matchingService } from './app.js';

await runMain(matchingService);
