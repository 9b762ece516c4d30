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
  publicJwk: JWK;
  /** AES-256-GCM of the private JWK, bound to the kid. */
  privateJwk: { iv: string; tag: string; ciphertext: string };
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
  all(): Promise<StoredSigningKey[]>;
  /** Adds the key unless its link is taken (another replica planned the same key first): then false. */
  add(key: StoredSigningKey): Promise<boolean>;
  remove(kids: readonly string[]): Promise<void>;
}

/** A key that does not decrypt: the environment's encryption key is not the one the keys were stored with. */
export class SigningKeyDecryptionError extends Error {
  constructor(kid: string, options?: ErrorOptions) {
    super(`signing key ${kid} cannot be decrypted: SIGNING_KEY_ENCRYPTION_KEY differs from the one it was stored with`, options);
    this.name = 'SigningKeyDecryptionError';
  }
}

const COLLECTION = 'signing_keys';

/** Private keys are encrypted with a key derived from `encryptionSecret`, so every replica with the same secret signs alike. */
export function createSigningKeyStore(db: Db, encryptionSecret: string): SigningKeyStore {
  const keys: Collection<SigningKeyDocument> = db.collection(COLLECTION);
  const encryptionKey = Buffer.from(hkdfSync('sha256', encryptionSecret, 'rm-gateway', 'signing-key-encryption', 32));

  return {
    all: () =>
      orUnavailable(async () => {
        const documents = await keys.find({}).toArray();
        return documents.map((document) => ({
          link: document._id,
          kid: document.kid,
          alg: document.alg,
          activeFrom: document.activeFrom.getTime(),
          publicJwk: document.publicJwk,
          privateJwk: decrypt(encryptionKey, document),
        }));
      }),
    add: (key) =>
      orUnavailable(async () => {
        try {
          await keys.insertOne({
            _id: key.link,
            kid: key.kid,
            alg: key.alg,
            activeFrom: new Date(key.activeFrom),
            createdAt: new Date(),
            publicJwk: key.publicJwk,
            privateJwk: encrypt(encryptionKey, key.kid, key.privateJwk),
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

function encrypt(key: Buffer, kid: string, jwk: JWK): SigningKeyDocument['privateJwk'] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(kid));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

function decrypt(key: Buffer, { kid, privateJwk }: SigningKeyDocument): JWK {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(privateJwk.iv, 'base64'))
      .setAAD(Buffer.from(kid))
      .setAuthTag(Buffer.from(privateJwk.tag, 'base64'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(privateJwk.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plaintext.toString('utf8')) as JWK;
  } catch (error) {
    throw new SigningKeyDecryptionError(kid, { cause: error });
  }
}
