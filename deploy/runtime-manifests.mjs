// Prepares the production install of one workspace for the image (see deploy/Dockerfile).
//
//   node deploy/runtime-manifests.mjs <workspace name> <out dir>
//
// Run from the repository root after the build. Writes
//   <out>/manifests/  the root package.json and package-lock.json plus the package.json of the
//                     workspace and of every workspace it depends on at run time;
//   <out>/dist/       the dist/ folder of each of those workspaces, at the same paths.
//
// `npm ci --omit=dev` alone would not do: npm counts every workspace as a production dependency of
// the root, so a workspace reached only through devDependencies (@rm/testkit, with testcontainers
// and its Docker client) would still be installed. Leaving such workspaces out of the root
// `workspaces` list, and devDependencies out of the manifests, keeps them out of the image.
// The lockfile is copied unchanged: `npm ci` still installs exactly the locked versions.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [target, outDir] = process.argv.slice(2);
if (target === undefined || outDir === undefined) {
  console.error('usage: node deploy/runtime-manifests.mjs <workspace name> <out dir>');
  process.exit(2);
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const writeJson = (path, value) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
};

// npm records each workspace in the lockfile as a link from node_modules/<name> to its folder.
const lock = readJson('package-lock.json');
const folderOf = new Map();
for (const [key, entry] of Object.entries(lock.packages ?? {})) {
  if (entry.link === true && key.startsWith('node_modules/')) folderOf.set(key.slice('node_modules/'.length), entry.resolved);
}
if (!folderOf.has(target)) {
  console.error(`${target} is not a workspace of this repository (known: ${[...folderOf.keys()].join(', ')})`);
  process.exit(2);
}

// The target and every workspace it needs at run time; devDependencies are not followed.
const needed = new Map();
const pending = [target];
while (pending.length > 0) {
  const name = pending.pop();
  if (needed.has(name)) continue;
  const folder = folderOf.get(name);
  const manifest = readJson(join(folder, 'package.json'));
  needed.set(name, { folder, manifest });
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const dep of Object.keys(manifest[field] ?? {})) if (folderOf.has(dep)) pending.push(dep);
  }
}

const unbuilt = [...needed.values()].filter(({ folder }) => !existsSync(join(folder, 'dist')));
if (unbuilt.length > 0) {
  console.error(`not built: ${unbuilt.map(({ folder }) => folder).join(', ')}; build ${target} and its dependencies first`);
  process.exit(1);
}

const withoutDevelopmentFields = ({ devDependencies, scripts, ...rest }) => rest;
const folders = [...needed.values()].map(({ folder }) => folder).sort();

writeJson(join(outDir, 'manifests/package.json'), { ...withoutDevelopmentFields(readJson('package.json')), workspaces: folders });
cpSync('package-lock.json', join(outDir, 'manifests/package-lock.json'));
for (const { folder, manifest } of needed.values()) {
  writeJson(join(outDir, 'manifests', folder, 'package.json'), withoutDevelopmentFields(manifest));
  cpSync(join(folder, 'dist'), join(outDir, 'dist', folder, 'dist'), { recursive: true });
}
console.log(`${target}: runtime workspaces ${folders.join(', ')}`);
