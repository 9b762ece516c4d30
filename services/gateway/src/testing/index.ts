// @rm/gateway/testing: what the tests, the bench, the reliability suite and the dev stack reach of the
// gateway besides running it (@rm/gateway/service): its clients and tenants, its signing keys, its
// secret hashing, and which owner serves which path. Never imported by the gateway itself.
export { DEFAULT_SECRET_HASH_COST, hashClientSecret, verifyClientSecret } from '../domain/client-secret.js';
export { createClientRegistry, type ClientRegistry } from '../store/client-registry.js';
export { createSigningKeyStore } from '../store/signing-key-store.js';
export { PATH_OWNERS } from '../upstreams.js';
