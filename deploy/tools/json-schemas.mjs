// Writes the JSON Schemas kubeconform validates against, in its naming ({kind}-{group}-{version}.json,
// lower case, group cut at its first dot, none for the core group), standalone (no remote $ref) and
// strict (an object with `properties` admits no other key), like kubeconform's own
// openapi2jsonschema output: int-or-string becomes string or integer, a quantity string or number.
//   node json-schemas.mjs kubernetes <swagger.json> <out dir>   every kind of a Kubernetes OpenAPI v2 spec
//   node json-schemas.mjs crd <out dir> <crd.yaml>...           every version of each CustomResourceDefinition
// check-deploy.sh takes both from Go modules: k8s.io/kubernetes (api/openapi-spec/swagger.json) and
// github.com/kedacore/keda/v2 (config/crd/bases).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const [mode, ...args] = process.argv.slice(2);
if (mode === 'kubernetes' && args.length === 2) fromSwagger(args[0], args[1]);
else if (mode === 'crd' && args.length >= 2) fromCrds(args[0], args.slice(1));
else {
  console.error('usage: json-schemas.mjs kubernetes <swagger.json> <out dir> | crd <out dir> <crd.yaml>...');
  process.exit(2);
}

function fileName(kind, group, version) {
  const suffix = group === '' ? `-${version}` : `-${group.split('.')[0]}-${version}`;
  return `${kind}${suffix}.json`.toLowerCase();
}

function apiVersion(group, version) {
  return group === '' ? version : `${group}/${version}`;
}

/** Every definition with a group-version-kind, with the definitions it reaches under `definitions`. */
function fromSwagger(specPath, outDir) {
  const definitions = JSON.parse(readFileSync(specPath, 'utf8')).definitions;
  const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
  const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
  definitions[INT_OR_STRING] = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  definitions[QUANTITY] = { oneOf: [{ type: 'string' }, { type: 'number' }] };
  for (const definition of Object.values(definitions)) strict(definition);
  mkdirSync(outDir, { recursive: true });
  let count = 0;
  for (const definition of Object.values(definitions)) {
    for (const { group, version, kind } of definition['x-kubernetes-group-version-kind'] ?? []) {
      const reached = {};
      collect(definition, definitions, reached);
      const schema = withKind(structuredClone(definition), group, version, kind);
      schema.definitions = reached;
      writeFileSync(join(outDir, fileName(kind, group, version)), JSON.stringify(schema));
      count += 1;
    }
  }
  console.log(`json-schemas: ${count} Kubernetes kinds written to ${outDir}`);
}

function collect(node, definitions, reached) {
  if (Array.isArray(node)) for (const item of node) collect(item, definitions, reached);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.replace('#/definitions/', '');
        if (!(name in reached)) {
          reached[name] = definitions[name];
          collect(definitions[name], definitions, reached);
        }
      } else collect(value, definitions, reached);
    }
  }
}

/** Only this kind and version: kubeconform picks the file by them, the schema holds them to it. */
function withKind(schema, group, version, kind) {
  schema.properties ??= {};
  schema.properties.apiVersion = { type: 'string', enum: [apiVersion(group, version)] };
  schema.properties.kind = { type: 'string', enum: [kind] };
  return schema;
}

/** additionalProperties: false wherever an object lists its properties and says nothing else. */
function strict(node) {
  if (Array.isArray(node)) for (const item of node) strict(item);
  else if (node !== null && typeof node === 'object') {
    if ('properties' in node && !('additionalProperties' in node) && node['x-kubernetes-preserve-unknown-fields'] !== true) {
      node.additionalProperties = false;
    }
    for (const value of Object.values(node)) strict(value);
  }
}

/** Each served version's openAPIV3Schema of each CustomResourceDefinition in the files. */
function fromCrds(outDir, files) {
  mkdirSync(outDir, { recursive: true });
  let count = 0;
  for (const file of files) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const crd = document.toJS();
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      const { group, names } = crd.spec;
      for (const version of crd.spec.versions) {
        const schema = version.schema?.openAPIV3Schema;
        if (schema === undefined) continue;
        const intOrString = replaceIntOrString(structuredClone(schema));
        strict(intOrString);
        const file = join(outDir, fileName(names.kind, group, version.name));
        writeFileSync(file, JSON.stringify(withKind(intOrString, group, version.name, names.kind)));
        count += 1;
      }
    }
  }
  console.log(`json-schemas: ${count} custom resource versions written to ${outDir}`);
}

function replaceIntOrString(node) {
  if (Array.isArray(node)) return node.map(replaceIntOrString);
  if (node === null || typeof node !== 'object') return node;
  if (node['x-kubernetes-int-or-string'] === true) return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replaceIntOrString(value)]));
}
