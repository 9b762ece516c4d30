import type { Collection, Db } from 'mongodb';
import { orUnavailable } from '@rm/store';
import { revocationDigest, type RevocationList } from '@rm/service-kit';

/** Whose tokens a revocation takes back: one client's, every client's of a tenant, or every token one signing key signed. */
export type RevocationKind = 'client' | 'tenant' | 'key';

interface RevocationDocument {
  _id: string;
  kind: RevocationKind;
  /** SHA-256 of the client id or tenant, as the list names it; a key's `kid` as it is (the key set shows it anyway). */
  digest: string;
  /** Tokens issued in this second (`iat`, epoch seconds) or before are refused; a key's, all of them. */
  issuedUpTo: number;
}

/** Tokens live at most this long (TOKEN_LIFETIME_SECONDS' maximum), plus a margin for clocks: older revocations matter no more. */
const LONGEST_TOKEN_LIFE_SECONDS = 3_600 + 60;

/** The revocations in the gateway's database (`npm run clients -- revoke` writes them). */
export interface RevocationStore {
  /** Refuses every token of the client or tenant issued until now, or every token of the key; returns that second. */
  revoke(kind: RevocationKind, subject: string, now?: Date): Promise<number>;
  /** The revocations that may still concern a living token. */
  list(now?: Date): Promise<RevocationList>;
}

export function createRevocationStore(db: Db): RevocationStore {
  const revocations: Collection<RevocationDocument> = db.collection('revocations');
  return {
    async revoke(kind, subject, now = new Date()) {
      const digest = kind === 'key' ? subject : revocationDigest(subject);
      const issuedUpTo = Math.floor(now.getTime() / 1_000);
      await orUnavailable(() => revocations.updateOne({ _id: `${kind}:${digest}` }, { $set: { kind, digest, issuedUpTo } }, { upsert: true }));
      // the few that no token can concern any more go; the collection stays as small as an hour's revocations
      const expired = issuedUpTo - LONGEST_TOKEN_LIFE_SECONDS;
      await orUnavailable(() => revocations.deleteMany({ issuedUpTo: { $lt: expired } }));
      return issuedUpTo;
    },
    async list(now = new Date()) {
      const oldest = Math.floor(now.getTime() / 1_000) - LONGEST_TOKEN_LIFE_SECONDS;
      const list: RevocationList = { clients: {}, tenants: {}, keys: {} };
      const byKind = { client: list.clients, tenant: list.tenants, key: list.keys };
      for (const { kind, digest, issuedUpTo } of await orUnavailable(() => revocations.find({}).toArray())) {
        // a key's tokens could be made by whoever holds it, with any iat: its revocation lasts as long as
        // a service may still know the key (its key set's cache, well under the hour)
        if (issuedUpTo >= oldest) byKind[kind][digest] = issuedUpTo;
      }
      return list;
    },
  };
}
