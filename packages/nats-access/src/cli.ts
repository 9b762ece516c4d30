// npm run nats-users -- keys <dir> | development
//   keys <dir>: an nkey per NATS user (NATS_GRANTS), its seed in <dir>/<user>.nk (kept when it is
//     there, made otherwise), and <dir>/authorization.conf: the `authorization` block of nats-server's
//     configuration with each user's public key and permissions (deploy/k8s/README.md, section 1).
//   development: the same block for a development stack, on stdout: every user's password, and the
//     admin's, is nats-server's environment variable NATS_PASSWORD (deploy/compose/nats-authorization.conf).
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createUser, fromSeed } from '@nats-io/nkeys';
import { NATS_GRANTS } from './grants.js';
import { developmentAuthorization, natsAuthorization } from './server-config.js';

const USAGE = 'usage: npm run nats-users -- keys <dir> | development';
const [command, argument] = process.argv.slice(2);

if (command === 'keys' && argument !== undefined) await writeKeys(argument);
else if (command === 'development' && argument === undefined) process.stdout.write(developmentAuthorization({ variable: 'NATS_PASSWORD' }));
else {
  console.error(USAGE);
  process.exit(2);
}

async function writeKeys(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const publicKeys = new Map<string, string>();
  for (const user of Object.keys(NATS_GRANTS)) publicKeys.set(user, await userKey(join(dir, `${user}.nk`)));
  await writeFile(join(dir, 'authorization.conf'), natsAuthorization((user) => ({ user, nkey: publicKeys.get(user)! })));
  console.log(`${dir}/authorization.conf: the authorization of ${publicKeys.size} users; each seed <user>.nk goes into`);
  console.log('the Secret of its service as NATS_NKEY_SEED (planning.nk to the planning platform); keep them out of Git.');
}

/** The public key of the user whose seed is in the file, made and written (readable by its owner only) if missing. */
async function userKey(file: string): Promise<string> {
  const existing = await readFile(file).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  if (existing !== undefined) return fromSeed(new TextEncoder().encode(existing.toString('utf8').trim())).getPublicKey();
  const pair = createUser();
  await writeFile(file, `${new TextDecoder().decode(pair.getSeed())}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return pair.getPublicKey();
}
