export { DEAD_LETTER_STREAM, NATS_GRANTS, serviceStream, type NatsGrant, type StreamAccess } from './grants.js';
export { inboxPrefix, natsPermissions, type NatsPermissions } from './permissions.js';
export { DEVELOPMENT_ADMIN, developmentAuthorization, natsAuthorization, type NatsCredential, type NatsPassword } from './server-config.js';
