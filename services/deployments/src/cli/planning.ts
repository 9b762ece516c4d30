// npm run planning -- release|unrelease …: publishes the planning platform's messages, for demos and tests.
// Also runs in the deployments container (working directory services/deployments): node dist/cli/planning.js.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { PLANNED_ROUTE_EVENTS, type PlannedDeployment } from '@rm/contracts';
import { connectNats, declareServiceStream, natsAccess } from '@rm/bus';
import { commandLine, ConfigError, createLogger, NATS_URL_PROTOCOLS, natsConfigSpec, readConfig } from '@rm/service-kit';
import { planningMessage, publishPlanningMessage } from '../planning-messages.js';

const USAGE = `usage: npm run planning -- <command>
  release <tenant> <planning_id> <file.json> [--revision <n>]
      the route is released: its deployments become those of the file (a JSON array of deployments:
      id, employee_id, transport_resource_ids, start {at, location}, end {at}, total_break_time?,
      resource_combination_id?, availability_id?), replacing those of an earlier release
  unrelease <tenant> <planning_id> [--revision <n>]
      the route is unreleased: its deployments are removed
  --revision orders the messages of one route (the latest wins); default: now in milliseconds
environment: NATS_URL (default nats://127.0.0.1:4222); NATS_USER (default planning: the planning
  platform's user, which may publish its messages only) with NATS_PASSWORD or NATS_NKEY_SEED;
  NATS_TLS_CA_FILE`;
const { fail, required } = commandLine(USAGE, (code) => process.exit(code));

const config = (() => {
  try {
    return readConfig({
      NATS_URL: { type: 'url', protocols: NATS_URL_PROTOCOLS, default: 'nats://127.0.0.1:4222' },
      ...natsConfigSpec({ NATS_USER: 'planning' }),
    });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
})();

const { positionals, values } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: { revision: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();
const [command, tenant, planningId, file] = positionals;
if (values.help === true || command === undefined) fail(USAGE, values.help === true ? 0 : 2);
const revision = values.revision === undefined ? Date.now() : Number(values.revision);
if (!Number.isSafeInteger(revision) || revision < 1) fail(`--revision must be a positive integer\n${USAGE}`);

const deployments = await (async (): Promise<PlannedDeployment[] | 'unreleased'> => {
  if (command === 'unrelease') return 'unreleased';
  if (command !== 'release') return fail(`unknown command '${command}'\n${USAGE}`);
  const text = await readFile(required(file, 'the file of deployments'), 'utf8').catch((error: Error) => fail(error.message, 1));
  return JSON.parse(text) as PlannedDeployment[];
})();
const message = (() => {
  try {
    return planningMessage(required(tenant, 'the tenant'), required(planningId, 'the planning_id'), revision, deployments);
  } catch (error) {
    return fail((error as Error).message, 1);
  }
})();

const logger = createLogger({ level: 'warn', name: 'planning' });
const nc = await connectNats({ servers: config.NATS_URL, access: natsAccess(config), name: 'planning-cli', logger, attempts: 3, retryDelayMs: 1_000 });
try {
  await declareServiceStream(await jetstreamManager(nc), PLANNED_ROUTE_EVENTS.service);
  await publishPlanningMessage(jetstream(nc), message);
  console.log(`${command}d route ${planningId} of tenant ${tenant} at revision ${revision} (${message.subject})`);
} finally {
  await nc.drain();
}
