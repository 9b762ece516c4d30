#!/usr/bin/env bash
# Checks what deploys the services, without a cluster and without a Docker engine (CI runs it):
#   1. renders deploy/k8s/base and each overlay with kustomize and validates every object strictly
#      (no unknown field, no duplicate key) with kubeconform against the JSON Schemas of Kubernetes
#      KUBERNETES_VERSION (the oldest we support) and of KEDA's ScaledObject; the Secret templates too;
#   2. docker-compose.yml against the Compose specification (deploy/tools/check-compose.mjs);
#   3. deploy/observability: alert rules, runbook links, dashboard (deploy/tools/check-observability.mjs).
# What it needs it installs once into RM_TOOLS_DIR (~/.cache/resource-management/tools), through the
# Go module proxy only: kustomize and kubeconform with `go install`, the Kubernetes OpenAPI spec from
# the k8s.io/kubernetes module, KEDA's CRDs from its module, the Compose schema from compose-go; the
# schemas are converted by deploy/tools/json-schemas.mjs. Node and its packages (yaml, ajv) come from
# `npm ci`. About two minutes the first time (building kustomize), seconds after.
set -euo pipefail
cd "$(dirname "$0")/.."

KUSTOMIZE_VERSION=v5.8.1
KUBECONFORM_VERSION=v0.7.0
KUBERNETES_VERSION=v1.30.14
KEDA_VERSION=v2.21.0
COMPOSE_GO_VERSION=v2.16.2

TOOLS=${RM_TOOLS_DIR:-$HOME/.cache/resource-management/tools}
mkdir -p "$TOOLS"
started=$SECONDS

if command -v go >/dev/null 2>&1; then GO=go; elif [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; else
  echo 'check-deploy: Go is needed to install kustomize and kubeconform (https://go.dev/doc/install)' >&2
  exit 1
fi
if [ -x node_modules/.bin/node ]; then NODE=node_modules/.bin/node; else NODE=node; fi
if [ ! -d node_modules/yaml ] || [ ! -d node_modules/ajv ]; then
  echo 'check-deploy: run `npm ci` first (the checks use the yaml and ajv packages)' >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# `go install <module>@<version>` into the cache, as <name>-<version>, unless it is there.
install_tool() {
  local name=$1 package=$2 version=$3
  local target="$TOOLS/$name-$version"
  [ -x "$target" ] && return 0
  echo "check-deploy: installing $name $version"
  mkdir -p "$work/bin-$name"
  (cd "$work" && GOBIN="$work/bin-$name" "$GO" install -trimpath "$package@$version")
  mv "$work/bin-$name/$name" "$target"
}

# The directory of a Go module's source, downloaded through the module proxy.
module_dir() {
  (cd "$work" && "$GO" mod download -json "$1@$2") | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# The tools build while the schemas download; each job's failure fails the check.
install_tool kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION" &
kustomize_job=$!
install_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION" &
kubeconform_job=$!

SCHEMAS="$TOOLS/schemas/kubernetes-$KUBERNETES_VERSION-keda-$KEDA_VERSION"
if [ ! -f "$SCHEMAS/.complete" ]; then
  echo "check-deploy: writing the JSON Schemas of Kubernetes $KUBERNETES_VERSION and KEDA $KEDA_VERSION"
  rm -rf "$SCHEMAS"
  kubernetes=$(module_dir k8s.io/kubernetes "$KUBERNETES_VERSION")
  keda=$(module_dir github.com/kedacore/keda/v2 "$KEDA_VERSION")
  "$NODE" deploy/tools/json-schemas.mjs kubernetes "$kubernetes/api/openapi-spec/swagger.json" "$SCHEMAS"
  "$NODE" deploy/tools/json-schemas.mjs crd "$SCHEMAS" "$keda"/config/crd/bases/keda.sh_*.yaml
  touch "$SCHEMAS/.complete"
fi
COMPOSE_SCHEMA="$TOOLS/schemas/compose-spec-$COMPOSE_GO_VERSION.json"
if [ ! -f "$COMPOSE_SCHEMA" ]; then
  compose_go=$(module_dir github.com/compose-spec/compose-go/v2 "$COMPOSE_GO_VERSION")
  cp "$compose_go/schema/compose-spec.json" "$COMPOSE_SCHEMA.tmp" && mv "$COMPOSE_SCHEMA.tmp" "$COMPOSE_SCHEMA"
fi

wait "$kustomize_job"
wait "$kubeconform_job"
KUSTOMIZE="$TOOLS/kustomize-$KUSTOMIZE_VERSION"
KUBECONFORM="$TOOLS/kubeconform-$KUBECONFORM_VERSION"

failed=0
kubeconform() {
  "$KUBECONFORM" -strict -summary -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"
}

# 1. Kubernetes: the base, every overlay and the NATS namespace's policy, as `kubectl apply -k` would send them.
for dir in deploy/k8s/base deploy/k8s/overlays/*/ deploy/k8s/nats; do
  dir=${dir%/}
  out="$work/$(echo "$dir" | tr / _).yaml"
  echo "== $dir"
  if ! "$KUSTOMIZE" build "$dir" >"$out"; then failed=1; continue; fi
  # The shared shape's placeholder (deploy/k8s/base/service) must be replaced everywhere.
  if grep -n '\bSERVICE\b' "$out"; then
    echo "$dir: the placeholder SERVICE is left (is the service's components: list missing ../components/named?)"
    failed=1
  fi
  kubeconform "$out" || failed=1
done
echo "== deploy/k8s/base/*/secret.example.yaml"
kubeconform deploy/k8s/base/*/secret.example.yaml || failed=1

# 2. Compose: the engine-free `docker compose config -q` where the plugin exists, the schema otherwise.
echo "== docker-compose.yml"
if docker compose version >/dev/null 2>&1; then
  docker compose -f docker-compose.yml config -q || failed=1
fi
"$NODE" deploy/tools/check-compose.mjs "$COMPOSE_SCHEMA" docker-compose.yml || failed=1

# 3. Observability.
echo "== deploy/observability"
"$NODE" deploy/tools/check-observability.mjs deploy/observability || failed=1

if [ "$failed" -ne 0 ]; then
  echo "check-deploy: FAILED ($((SECONDS - started)) s)" >&2
  exit 1
fi
echo "check-deploy: all valid ($((SECONDS - started)) s)"
