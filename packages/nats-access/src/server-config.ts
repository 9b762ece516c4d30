import { NATS_GRANTS } from './grants.js';
import { natsPermissions, type NatsPermissions } from './permissions.js';

/** A password, or the environment variable nats-server reads it from when it loads the configuration. */
export type NatsPassword = string | { variable: string };

/**
 * How a user proves who it is: a password (in development and tests; nats-server also takes its
 * bcrypt hash) or an nkey, whose public key the server holds and whose seed only the user has.
 */
export type NatsCredential = { user: string; password: NatsPassword } | { user: string; nkey: string };

/** The development stack's and tests' user that may do anything (never in production's configuration). */
export const DEVELOPMENT_ADMIN = 'rm-admin';

interface ServerUser {
  user?: string;
  password?: string;
  nkey?: string;
  permissions?: NatsPermissions;
}

/** Stands for a variable reference in the JSON text until it is written out unquoted. */
const VARIABLE_MARK = '\u0000variable:';

/**
 * The `authorization` block of nats-server's configuration: every user of NATS_GRANTS with its
 * credential and permissions, plus `unrestricted` users with no limits (an operator's, a test run's).
 * No `no_auth_user`: a client without credentials is refused.
 */
export function natsAuthorization(credential: (user: string) => NatsCredential, unrestricted: readonly NatsCredential[] = []): string {
  const users: ServerUser[] = [
    ...Object.entries(NATS_GRANTS).map(([user, grant]) => ({ ...serverCredential(credential(user)), permissions: natsPermissions(user, grant) })),
    ...unrestricted.map(serverCredential),
  ];
  // nats-server reads JSON as its own configuration format, and `$NAME` (unquoted) from the environment
  const text = JSON.stringify({ users }, null, 2).replace(/"\\u0000variable:([A-Za-z_][A-Za-z0-9_]*)"/g, '$$$1');
  return `authorization: ${text}\n`;
}

/** Every user with the one password, and DEVELOPMENT_ADMIN: the test servers' and the development stacks'. */
export function developmentAuthorization(password: NatsPassword): string {
  return natsAuthorization((user) => ({ user, password }), [{ user: DEVELOPMENT_ADMIN, password }]);
}

function serverCredential(credential: NatsCredential): ServerUser {
  if ('nkey' in credential) return { nkey: credential.nkey };
  const { user, password } = credential;
  return { user, password: typeof password === 'string' ? password : `${VARIABLE_MARK}${password.variable}` };
}
