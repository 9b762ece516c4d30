import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError, orUnavailable } from '@rm/store';

/** A signing key as the gateway's database keeps it: the private half encrypted. */
interface SigningKeyDocument {
  /** The key's place in the chain (key-schedule.ts): `first`, or `after:<kid of its predecessor>`. */
  _id: string;
  kid: string;
  alg: string;
  activeFrom: Date;
  createdAt: Date;
  /** For people reading the database; the public key in use is derived from the private one. */
  publicJwk: JWK;
  /**
   * AES-256-GCM of the private JWK, authenticated together with the kid, alg and activeFrom (`bound`):
   * a record whose alg or start was changed does not decrypt. Without `bound`, a record of before:
   * bound to its kid only, and sealed again bound when it is read.
   */
  privateJwk: Sealed;
}

interface Sealed {
  iv: string;
  tag: string;
  ciphertext: string;
  bound?: true;
}

export interface StoredSigningKey {
  link: string;
  kid: string;
  alg: string;
  activeFrom: number;
  publicJwk: JWK;
  privateJwk: JWK;
}

export interface SigningKeyStore {
  /** Every key; those sealed by the previous encryption key, or before the binding, are sealed again as they are read. */
  all(): Promise<StoredSigningKey[]>;
  /** Adds the key unless its link is taken (another replica planned the same key first): then false. */
  add(key: StoredSigningKey): Promise<boolean>;
  remove(kids: readonly string[]): Promise<void>;
}

/** A key that does not decrypt: the environment's encryption key is not the one the keys were stored with, or the record was changed. */
export class SigningKeyDecryptionError extends Error {
  constructor(kid: string, options?: ErrorOptions) {
    super(
      `signing key ${kid} cannot be decrypted: SIGNING_KEY_ENCRYPTION_KEY (or SIGNING_KEY_PREVIOUS_ENCRYPTION_KEY) differs from the one it was stored with, or its record was changed`,
      options,
    );
    this.name = 'SigningKeyDecryptionError';
  }
}

const COLLECTION = 'signing_keys';

/**
 * Private keys are encrypted with a key derived from `encryptionSecret`, so every replica with the same
 * secret signs alike. With `previousSecret` (while the encryption key is replaced), keys sealed under it
 * are read and sealed again under the new one.
 */
export function createSigningKeyStore(db: Db, encryptionSecret: string, previousSecret?: string): SigningKeyStore {
  const keys: Collection<SigningKeyDocument> = db.collection(COLLECTION);
  const current = derivedKey(encryptionSecret);
  const previous = previousSecret === undefined ? undefined : derivedKey(previousSecret);

  /** The private JWK, sealing it again when it was sealed under the previous key or without the binding. */
  async function open(document: SigningKeyDocument): Promise<JWK> {
    const underCurrent = tryDecrypt(current, document);
    if (underCurrent !== undefined && document.privateJwk.bound === true) return underCurrent;
    const jwk = underCurrent ?? (previous === undefined ? undefined : tryDecrypt(previous, document));
    if (jwk === undefined) throw new SigningKeyDecryptionError(document.kid);
    // only if no one sealed it meanwhile: the record stays one replica's writing
    await keys.updateOne({ _id: document._id, 'privateJwk.ciphertext': document.privateJwk.ciphertext }, { $set: { privateJwk: encrypt(current, document, jwk) } });
    return jwk;
  }

  return {
    all: () =>
      orUnavailable(async () => {
        const documents = await keys.find({}).toArray();
        return Promise.all(
          documents.map(async (document) => {
            const privateJwk = await open(document);
            return {
              link: document._id,
              kid: document.kid,
              alg: document.alg,
              activeFrom: document.activeFrom.getTime(),
              publicJwk: publicHalf(privateJwk, document),
              privateJwk,
            };
          }),
        );
      }),
    add: (key) =>
      orUnavailable(async () => {
        const activeFrom = new Date(key.activeFrom);
        try {
          await keys.insertOne({
            _id: key.link,
            kid: key.kid,
            alg: key.alg,
            activeFrom,
            createdAt: new Date(),
            publicJwk: key.publicJwk,
            privateJwk: encrypt(current, { kid: key.kid, alg: key.alg, activeFrom }, key.privateJwk),
          });
          return true;
        } catch (error) {
          if (isDuplicateKeyError(error)) return false;
          throw error;
        }
      }),
    remove: (kids) =>
      orUnavailable(async () => {
        if (kids.length > 0) await keys.deleteMany({ kid: { $in: [...kids] } });
      }),
  };
}

/** Whether the database holds the signing key (no encryption key needed). */
export async function hasSigningKey(db: Db, kid: string): Promise<boolean> {
  return (await orUnavailable(() => db.collection<SigningKeyDocument>(COLLECTION).countDocuments({ kid }))) > 0;
}

/**
 * Takes a signing key out of the database, as `npm run clients -- revoke --key` does: every replica
 * drops it at its next reload, and signs with the key before it or a new one.
 */
export async function removeSigningKey(db: Db, kid: string): Promise<void> {
  await orUnavailable(() => db.collection<SigningKeyDocument>(COLLECTION).deleteOne({ kid }));
}

function derivedKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'rm-gateway', 'signing-key-encryption', 32));
}

/** What the encryption authenticates beside the private key: the record's kid, alg and start. */
function binding({ kid, alg, activeFrom }: Pick<SigningKeyDocument, 'kid' | 'alg' | 'activeFrom'>): Buffer {
  return Buffer.from(JSON.stringify([kid, alg, activeFrom.getTime()]));
}

function encrypt(key: Buffer, record: Pick<SigningKeyDocument, 'kid' | 'alg' | 'activeFrom'>, jwk: JWK): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(binding(record));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64'), bound: true };
}

/** The private JWK, or undefined when this key does not open the record as it is. */
function tryDecrypt(key: Buffer, document: SigningKeyDocument): JWK | undefined {
  const { privateJwk } = document;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(privateJwk.iv, 'base64'))
      .setAAD(privateJwk.bound === true ? binding(document) : Buffer.from(document.kid))
      .setAuthTag(Buffer.from(privateJwk.tag, 'base64'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(privateJwk.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plaintext.toString('utf8')) as JWK;
  } catch {
    return undefined;
  }
}

/** The public key, from the private key itself: a public key put in the record cannot be made to verify. */
function publicHalf({ kty, crv, x, y }: JWK, { kid, alg }: SigningKeyDocument): JWK {
  return { kty, crv, x, y, kid, alg, use: 'sig' };
}
