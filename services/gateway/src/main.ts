// Runs the gateway: configuration from the environment, then the runtime does the rest.
import { runMain } from '@rm/runtime';
import { gatewayService } from './app.js';

await runMain(gatewayService);
