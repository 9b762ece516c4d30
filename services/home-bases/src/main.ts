// Runs the home-bases service: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { homeBasesService } from './app.js';

await runMain(homeBasesService);
