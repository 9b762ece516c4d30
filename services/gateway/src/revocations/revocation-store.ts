import type { Collection, Db } from 'mongodb';
import { orUnavailable } from '@rm/store';
import { revocationDigest, type RevocationList } from '@rm/service-kit';

/** Whose tokens a revocation takes back: one client's, or every client's of a tenant. */
export type RevocationKind = 'client' | 'tenant';

interface RevocationDocument {
  _id: string;
  kind: RevocationKind;
  /** SHA-256 of the client id or tenant, as the list names it. */
  digest: string;
  /** Tokens issued in this second (`iat`, epoch seconds) or before are refused. */
  issuedUpTo: number;
}

/** Tokens live at most this long (TOKEN_LIFETIME_SECONDS' maximum), plus a margin for clocks: older revocations matter no more. */
const LONGEST_TOKEN_LIFE_SECONDS = 3_600 + 60;

/** The revocations in the gateway's database (`npm run clients -- revoke` writes them). */
export interface RevocationStore {
  /** Refuses every token of the client or tenant issued until now; returns that second. */
  revoke(kind: RevocationKind, subject: string, now?: Date): Promise<number>;
  /** The revocations that may still concern a living token. */
  list(now?: Date): Promise<RevocationList>;
}

export function createRevocationStore(db: Db): RevocationStore {
  const revocations: Collection<RevocationDocument> = db.collection('revocations');
  return {
    async revoke(kind, subject, now = new Date()) {
      const digest = revocationDigest(subject);
      const issuedUpTo = Math.floor(now.getTime() / 1_000);
      await orUnavailable(() => revocations.updateOne({ _id: `${kind}:${digest}` }, { $set: { kind, digest, issuedUpTo } }, { upsert: true }));
      // the few that no token can concern any more go; the collection stays as small as an hour's revocations
      const expired = issuedUpTo - LONGEST_TOKEN_LIFE_SECONDS;
      await orUnavailable(() => revocations.deleteMany({ issuedUpTo: { $lt: expired } }));
      return issuedUpTo;
    },
    async list(now = new Date()) {
      const oldest = Math.floor(now.getTime() / 1_000) - LONGEST_TOKEN_LIFE_SECONDS;
      const list: RevocationList = { clients: {}, tenants: {} };
      for (const { kind, digest, issuedUpTo } of await orUnavailable(() => revocations.find({}).toArray())) {
        if (issuedUpTo >= oldest) (kind === 'client' ? list.clients : list.tenants)[digest] = issuedUpTo;
      }
      return list;
    },
  };
}
