import { randomBytes } from 'node:crypto';
import type { Collection, Db, UpdateFilter } from 'mongodb';
import { isTenantId, type TenantLimits } from '@rm/contracts';
import { isDuplicateKeyError, orUnavailable } from '@rm/store';
import { DEFAULT_SECRET_HASH_COST, generateClientSecret, hashClientSecret, hashCostOf, verifyClientSecret } from '../domain/client-secret.js';
import { createVerifiedSecrets } from '../domain/verified-secrets.js';

interface TenantDocument {
  _id: string;
  createdAt: Date;
  /** The tenant's own limits; the gateway's settings stand for those not here. */
  limits?: Partial<TenantLimits>;
}

/** A change of a tenant's limits: a number sets one, null gives it back to the gateway's setting. */
export type TenantLimitChanges = Partial<Record<keyof TenantLimits, number | null>>;

interface ClientDocument {
  _id: string;
  tenant: string;
  /** scrypt hash (client-secret.ts); the secret itself is never stored. */
  secretHash: string;
  disabled: boolean;
  createdAt: Date;
  secretChangedAt: Date;
}

export interface ClientSummary {
  clientId: string;
  tenant: string;
  disabled: boolean;
  createdAt: Date;
  secretChangedAt: Date;
}

/** Who the credentials belong to, when they are right and the client is enabled, with its tenant's own limits. */
export interface AuthenticatedClient {
  clientId: string;
  tenant: string;
  limits: Partial<TenantLimits>;
}

export interface ClientRegistry {
  createTenant(tenant: string): Promise<void>;
  setTenantLimits(tenant: string, changes: TenantLimitChanges): Promise<void>;
  listTenants(): Promise<{ tenant: string; limits: Partial<TenantLimits> }[]>;
  /** A new client of an existing tenant; the secret is returned once, and only its hash is kept. */
  createClient(options: { tenant: string; clientId?: string; secret?: string }): Promise<{ clientId: string; secret: string }>;
  listClients(tenant?: string): Promise<ClientSummary[]>;
  /** A new secret; the old one stops working at once. */
  rotateSecret(clientId: string, secret?: string): Promise<string>;
  setDisabled(clientId: string, disabled: boolean): Promise<void>;
  /**
   * Checks the credentials with the same work whether or not the client exists (a secret is
   * always hashed, an unknown client's against a decoy of the current cost), so that neither the
   * answer nor its time tells a wrong id from a wrong secret. A secret hashed at another cost is
   * hashed again at the current one once it has been presented right, so all converge to it. A
   * secret this replica verified lately is recognised without hashing (verified-secrets.ts). Each
   * hash runs through `hashSlot` (the token endpoint's bound on concurrent hashes).
   */
  authenticate(clientId: string, secret: string, hashSlot?: HashSlot): Promise<AuthenticatedClient | undefined>;
}

/** Runs one secret hash: at once, or when a slot is free (hash-slots.ts). */
export type HashSlot = <T>(hash: () => Promise<T>) => Promise<T>;

/** A mistake of the operator using the clients command; its message says what to fix. */
export class ClientRegistryError extends Error {
  readonly reason: 'exists' | 'missing' | 'invalid';
  constructor(reason: ClientRegistryError['reason'], message: string) {
    super(message);
    this.name = 'ClientRegistryError';
    this.reason = reason;
  }
}

/** Client ids travel in HTTP Basic credentials (no `:`) and logs. */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;

export interface ClientRegistryOptions {
  /** scrypt cost (log2 N) of the secrets it hashes and of the decoy (CLIENT_SECRET_HASH_COST). */
  hashCost?: number;
}

export function createClientRegistry(db: Db, { hashCost: cost = DEFAULT_SECRET_HASH_COST }: ClientRegistryOptions = {}): ClientRegistry {
  const tenants: Collection<TenantDocument> = db.collection('tenants');
  const clients: Collection<ClientDocument> = db.collection('clients');
  // Compared against when the client does not exist; its secret is thrown away.
  const decoyHash = hashClientSecret(generateClientSecret(), cost);
  const verified = createVerifiedSecrets();

  async function requireClient(clientId: string): Promise<ClientDocument> {
    const client = await orUnavailable(() => clients.findOne({ _id: clientId }));
    if (client === null) throw new ClientRegistryError('missing', `there is no client '${clientId}'`);
    return client;
  }

  return {
    async createTenant(tenant) {
      if (!isTenantId(tenant)) throw new ClientRegistryError('invalid', `tenant ids are 1 to 64 letters, digits, _ or -; got '${tenant}'`);
      try {
        await orUnavailable(() => tenants.insertOne({ _id: tenant, createdAt: new Date() }));
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new ClientRegistryError('exists', `tenant '${tenant}' exists already`);
        throw error;
      }
    },

    async setTenantLimits(tenant, changes) {
      const set = Object.entries(changes).filter(([, value]) => value !== null && value !== undefined);
      const unset = Object.entries(changes).filter(([, value]) => value === null);
      if (set.length + unset.length === 0) throw new ClientRegistryError('invalid', 'name at least one limit to change');
      for (const [name, value] of set) {
        if (!Number.isSafeInteger(value) || (value as number) < 1) throw new ClientRegistryError('invalid', `the limit ${name} is a whole number of at least 1; got ${String(value)}`);
      }
      const update: UpdateFilter<TenantDocument> = {
        ...(set.length === 0 ? {} : { $set: Object.fromEntries(set.map(([name, value]) => [`limits.${name}`, value])) }),
        ...(unset.length === 0 ? {} : { $unset: Object.fromEntries(unset.map(([name]) => [`limits.${name}`, true as const])) }),
      };
      const { matchedCount } = await orUnavailable(() => tenants.updateOne({ _id: tenant }, update));
      if (matchedCount === 0) throw new ClientRegistryError('missing', `there is no tenant '${tenant}'`);
    },

    async listTenants() {
      const found = await orUnavailable(() => tenants.find({}).sort({ _id: 1 }).toArray());
      return found.map(({ _id, limits = {} }) => ({ tenant: _id, limits }));
    },

    async createClient({ tenant, clientId = `${tenant}-${randomBytes(8).toString('hex')}`, secret = generateClientSecret() }) {
      if (!CLIENT_ID_PATTERN.test(clientId)) throw new ClientRegistryError('invalid', `client ids are 1 to 128 letters, digits, '.', '_', '~' or '-'; got '${clientId}'`);
      if ((await orUnavailable(() => tenants.findOne({ _id: tenant }))) === null) {
        throw new ClientRegistryError('missing', `there is no tenant '${tenant}': create it first`);
      }
      const now = new Date();
      try {
        await orUnavailable(async () =>
          clients.insertOne({ _id: clientId, tenant, secretHash: await hashClientSecret(secret, cost), disabled: false, createdAt: now, secretChangedAt: now }),
        );
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new ClientRegistryError('exists', `client '${clientId}' exists already`);
        throw error;
      }
      return { clientId, secret };
    },

    async listClients(tenant) {
      const found = await orUnavailable(() => clients.find(tenant === undefined ? {} : { tenant }).sort({ _id: 1 }).toArray());
      return found.map(({ _id, tenant: owner, disabled, createdAt, secretChangedAt }) => ({ clientId: _id, tenant: owner, disabled, createdAt, secretChangedAt }));
    },

    async rotateSecret(clientId, secret = generateClientSecret()) {
      await requireClient(clientId);
      const secretHash = await hashClientSecret(secret, cost);
      await orUnavailable(() => clients.updateOne({ _id: clientId }, { $set: { secretHash, secretChangedAt: new Date() } }));
      return secret;
    },

    async setDisabled(clientId, disabled) {
      await requireClient(clientId);
      await orUnavailable(() => clients.updateOne({ _id: clientId }, { $set: { disabled } }));
    },

    async authenticate(clientId, secret, hashSlot = (hash) => hash()) {
      const client = CLIENT_ID_PATTERN.test(clientId) ? await orUnavailable(() => clients.findOne({ _id: clientId })) : null;
      const recognised = client !== null && !client.disabled && verified.recognises(client._id, client.secretHash, secret);
      const matches = recognised || (await hashSlot(async () => verifyClientSecret(secret, client?.secretHash ?? (await decoyHash))));
      if (client === null || !matches || client.disabled) return undefined;
      let secretHash = client.secretHash;
      if (hashCostOf(secretHash) !== cost) {
        secretHash = await hashSlot(() => hashClientSecret(secret, cost));
        await orUnavailable(() => clients.updateOne({ _id: client._id, secretHash: client.secretHash }, { $set: { secretHash } }));
      }
      verified.remember(client._id, secretHash, secret);
      const owner = await orUnavailable(() => tenants.findOne({ _id: client.tenant }));
      return { clientId: client._id, tenant: client.tenant, limits: owner?.limits ?? {} };
    },
  };
}
