import { fileURLToPath } from 'node:url';
import { packageTestConfig } from './src/vitest-config.js';

export default packageTestConfig({ globalSetup: fileURLToPath(new URL('./src/global-setup.ts', import.meta.url)) });
