// Runs the employees service: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { employeesService } from './app.js';

await runMain(employeesService);
