// Checks docker-compose.yml without a Docker engine: what `docker compose config -q` would refuse.
// The file, its anchors merged and its ${VAR:-default} interpolated from the environment, must match
// the Compose specification's JSON Schema (compose-go's schema/compose-spec.json, which Docker Compose
// itself validates with), and what its services name must exist: services they depend on, volumes,
// networks, and the files they mount.
//   node check-compose.mjs <compose-spec.json> <docker-compose.yml>
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';

const [schemaPath, composePath] = process.argv.slice(2);
if (composePath === undefined) {
  console.error('usage: check-compose.mjs <compose-spec.json> <docker-compose.yml>');
  process.exit(2);
}

const problems = [];
const raw = parse(readFileSync(composePath, 'utf8'), { merge: true, uniqueKeys: true, maxAliasCount: 1000 });
const project = interpolate(raw, '');

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
// Go durations, as compose-go's "duration" format (time.ParseDuration).
ajv.addFormat('duration', /^-?((\d+(\.\d+)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$/);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const validate = ajv.compile(schema);
if (!validate(project)) {
  // A failing value makes its parent call every sibling "unevaluated" too: report only the names that
  // the specification does not know anywhere (a typo), beside the real failures.
  const known = new Set();
  (function names(node) {
    if (node === null || typeof node !== 'object') return;
    if (node.properties !== null && typeof node.properties === 'object') {
      for (const key of Object.keys(node.properties)) known.add(key);
    }
    for (const value of Object.values(node)) names(value);
  })(schema);
  const noise = (error) => error.keyword === 'unevaluatedProperties' && known.has(error.params.unevaluatedProperty);
  for (const error of validate.errors.filter((item) => !noise(item))) {
    problems.push(`${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
  }
}

const services = project.services ?? {};
for (const [name, service] of Object.entries(services)) {
  const dependsOn = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
  for (const dependency of dependsOn) {
    if (!(dependency in services)) problems.push(`services.${name}.depends_on: no service ${dependency}`);
    const profiles = services[dependency]?.profiles ?? [];
    if (profiles.length > 0 && !(service.profiles ?? []).some((profile) => profiles.includes(profile))) {
      problems.push(`services.${name}.depends_on: ${dependency} only runs with profile ${profiles.join('|')}`);
    }
  }
  for (const volume of service.volumes ?? []) {
    const source = typeof volume === 'string' ? volume.split(':')[0] : volume.source;
    if (source === undefined) continue;
    if (source.startsWith('.') || source.startsWith('/')) {
      if (!existsSync(resolve(dirname(composePath), source))) problems.push(`services.${name}.volumes: ${source} does not exist`);
    } else if (!(source in (project.volumes ?? {}))) problems.push(`services.${name}.volumes: no top-level volume ${source}`);
  }
  const networks = Array.isArray(service.networks) ? service.networks : Object.keys(service.networks ?? {});
  for (const network of networks) {
    if (network !== 'default' && !(network in (project.networks ?? {}))) problems.push(`services.${name}.networks: no network ${network}`);
  }
  if (service.build === undefined && service.image === undefined) problems.push(`services.${name}: neither image nor build`);
}

if (problems.length > 0) {
  console.error(`${composePath}: ${problems.length} problem(s)`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(`${composePath}: valid (${Object.keys(services).length} services, Compose specification schema)`);

/** ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, $$ as Compose does, in every string. */
function interpolate(value, path) {
  if (typeof value === 'string') {
    const pattern = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
    return value.replace(pattern, (match, name, operator, argument, bare) => {
      if (match === '$$') return '$';
      const variable = name ?? bare;
      const set = process.env[variable];
      if (operator === ':-') return set === undefined || set === '' ? argument : set;
      if (operator === '-') return set ?? argument;
      if (operator?.endsWith('?') && (set === undefined || (operator === ':?' && set === ''))) {
        problems.push(`${path}: ${variable} is required (${argument})`);
        return '';
      }
      return set ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, path === '' ? key : `${path}.${key}`)]));
  }
  return value;
}
