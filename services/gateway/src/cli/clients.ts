// npm run clients -- <command>: manages the gateway's tenants and OAuth clients in its database.
// Also runs in the gateway's container (working directory services/gateway): node dist/cli/clients.js <command>.
import { parseArgs } from 'node:util';
import { TENANT_LIMIT_NAMES } from '@rm/contracts';
import { commandLine, ConfigError, createLogger, readConfig } from '@rm/service-kit';
import { connectMongo } from '@rm/store';
import { DEFAULT_SECRET_HASH_COST } from '../domain/client-secret.js';
import type { Db } from 'mongodb';
import { createRevocationStore, type RevocationStore } from '../revocations/revocation-store.js';
import { ClientRegistryError, createClientRegistry, type ClientRegistry, type TenantLimitChanges } from '../store/client-registry.js';
import { hasSigningKey, removeSigningKey } from '../store/signing-key-store.js';

/** The limit options of set-limits, by the name of the limit each sets. */
const LIMIT_OPTIONS = {
  'requests-per-second': 'requestsPerSecond',
  employees: 'employees',
  'transport-resources': 'transportResources',
  availabilities: 'availabilities',
} as const;

const USAGE = `usage: npm run clients -- <command>
  create-tenant <tenant>                  a tenant (1 to 64 letters, digits, _ or -)
  set-limits <tenant> [--requests-per-second <n>] [--employees <n>]
             [--transport-resources <n>] [--availabilities <n>]
                                          the tenant's own limits; 'default' gives one back to the
                                          gateway's setting (TENANT_*); in force with its next tokens
  list-tenants                            the tenants and their own limits
  create-client --tenant <t> [--id <id>]  a client of the tenant; prints its secret once
  list [--tenant <t>]                     the clients, without secrets
  rotate-secret <client-id>               a new secret (printed once); the old one stops working
  disable <client-id> | enable <client-id>
                                          disable also revokes the client's tokens
  revoke --client <id> | --tenant <t>     refuses every token of the client, or of all the tenant's
                                          clients, issued until now: in every service within 30 s
  revoke --key <kid>                      refuses every token the signing key signed, and takes the key
                                          out: the replicas sign with the key before it or a new one
  ensure --tenant <t> --id <id>           the tenant and client exist, enabled, with the secret in
                                          RM_CLIENT_SECRET (dev and demo seeding; idempotent)
environment: MONGO_URL (required), MONGO_DB (default gateway), CLIENT_SECRET_HASH_COST (default ${DEFAULT_SECRET_HASH_COST})`;
const { fail, required } = commandLine(USAGE, (code) => process.exit(code));

const config = (() => {
  try {
    return readConfig({
      MONGO_URL: { type: 'url', protocols: ['mongodb:', 'mongodb+srv:'], required: true },
      MONGO_DB: { type: 'string', default: 'gateway' },
      CLIENT_SECRET_HASH_COST: { type: 'int', min: 10, max: 18, default: DEFAULT_SECRET_HASH_COST },
      RM_CLIENT_SECRET: { type: 'secret', minLength: 16 },
    });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
})();

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        tenant: { type: 'string' },
        id: { type: 'string' },
        client: { type: 'string' },
        key: { type: 'string' },
        help: { type: 'boolean' },
        ...Object.fromEntries(Object.keys(LIMIT_OPTIONS).map((option) => [option, { type: 'string' as const }])),
      },
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();
const [command, argument] = positionals;
if (values.help === true || command === undefined) fail(USAGE, values.help === true ? 0 : 2);

const logger = createLogger({ level: 'warn', name: 'gateway-clients' });
const mongo = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, logger, appName: 'gateway-clients', attempts: 3, retryDelayMs: 1_000 });
try {
  await run(createClientRegistry(mongo.db, { hashCost: config.CLIENT_SECRET_HASH_COST }), createRevocationStore(mongo.db), mongo.db);
} catch (error) {
  if (error instanceof ClientRegistryError) fail(error.message, 1);
  throw error;
} finally {
  await mongo.client.close();
}

async function run(registry: ClientRegistry, revocations: RevocationStore, db: Db): Promise<void> {
  switch (command) {
    case 'create-tenant':
      await registry.createTenant(required(argument, 'the tenant'));
      console.log(`tenant ${argument} created`);
      return;
    case 'set-limits':
      await registry.setTenantLimits(required(argument, 'the tenant'), limitChanges());
      console.log(`limits of tenant ${argument} set`);
      return;
    case 'list-tenants':
      for (const { tenant, limits } of await registry.listTenants()) {
        const own = TENANT_LIMIT_NAMES.filter((name) => limits[name] !== undefined).map((name) => `${name}=${limits[name]}`);
        console.log([tenant, ...own].join('\t'));
      }
      return;
    case 'create-client': {
      const created = await registry.createClient({ tenant: required(values.tenant, '--tenant'), ...(values.id === undefined ? {} : { clientId: values.id }) });
      console.log(`client_id:     ${created.clientId}\nclient_secret: ${created.secret}\n(the secret is shown only now)`);
      return;
    }
    case 'list':
      for (const client of await registry.listClients(values.tenant)) {
        console.log(`${client.clientId}\ttenant=${client.tenant}\t${client.disabled ? 'disabled' : 'enabled'}\tsecret set ${client.secretChangedAt.toISOString()}`);
      }
      return;
    case 'rotate-secret': {
      const secret = await registry.rotateSecret(required(argument, 'the client id'));
      console.log(`client_secret: ${secret}\n(the secret is shown only now; the old one no longer works)`);
      return;
    }
    case 'disable':
    case 'enable':
      await registry.setDisabled(required(argument, 'the client id'), command === 'disable');
      // a disabled client gets no token, and the ones it has stop working too
      if (command === 'disable') await revocations.revoke('client', argument!);
      console.log(`client ${argument} ${command}d${command === 'disable' ? ', its tokens revoked' : ''}`);
      return;
    case 'revoke':
      await revoke(registry, revocations, db);
      return;
    case 'ensure':
      await ensure(registry, required(values.tenant, '--tenant'), required(values.id, '--id'), required(config.RM_CLIENT_SECRET, 'RM_CLIENT_SECRET'));
      console.log(`client ${values.id} of tenant ${values.tenant} is ready`);
      return;
    default:
      fail(`unknown command '${command}'\n${USAGE}`);
  }
}

async function ensure(registry: ClientRegistry, tenant: string, clientId: string, secret: string): Promise<void> {
  await registry.createTenant(tenant).catch(ignoreExisting);
  const existing = (await registry.listClients(tenant)).find((client) => client.clientId === clientId);
  if (existing === undefined) {
    await registry.createClient({ tenant, clientId, secret });
    return;
  }
  await registry.rotateSecret(clientId, secret);
  await registry.setDisabled(clientId, false);
}

async function revoke(registry: ClientRegistry, revocations: RevocationStore, db: Db): Promise<void> {
  const { client, tenant, key } = values;
  if ([client, tenant, key].filter((named) => named !== undefined).length !== 1) fail(`revoke takes one of --client, --tenant and --key\n${USAGE}`);
  if (key !== undefined) {
    if (!(await hasSigningKey(db, key))) throw new ClientRegistryError('missing', `there is no signing key '${key}'`);
    // refused first, so that no token of the key is good while it is taken out
    await revocations.revoke('key', key);
    await removeSigningKey(db, key);
    console.log(`every token of signing key ${key} revoked; the key is taken out`);
    return;
  }
  if (client !== undefined && !(await registry.listClients()).some((known) => known.clientId === client)) {
    throw new ClientRegistryError('missing', `there is no client '${client}'`);
  }
  if (tenant !== undefined && !(await registry.listTenants()).some((known) => known.tenant === tenant)) {
    throw new ClientRegistryError('missing', `there is no tenant '${tenant}'`);
  }
  const second = await revocations.revoke(client === undefined ? 'tenant' : 'client', (client ?? tenant)!);
  console.log(`tokens of ${client === undefined ? `tenant ${tenant}` : `client ${client}`} issued until ${new Date(second * 1_000).toISOString()} revoked`);
}

function limitChanges(): TenantLimitChanges {
  const changes: TenantLimitChanges = {};
  for (const [option, limit] of Object.entries(LIMIT_OPTIONS)) {
    const value = (values as Record<string, string | undefined>)[option];
    if (value === undefined) continue;
    if (value === 'default') changes[limit] = null;
    else if (/^[1-9][0-9]{0,14}$/.test(value)) changes[limit] = Number(value);
    else fail(`--${option} is a whole number of at least 1, or 'default'; got '${value}'`);
  }
  return changes;
}

function ignoreExisting(error: unknown): void {
  if (!(error instanceof ClientRegistryError && error.reason === 'exists')) throw error;
}
