#!/usr/bin/env bash
# Installs the servers the tests need (ferretdb, nats-server) into a per-user cache shared by every
# clone, unless they are already there at the pinned version or the tests will not need them.
set -euo pipefail

NATS_VERSION=v2.12.8
FERRETDB_VERSION=v1.24.2
SERVERS_DIR=${RM_SERVERS_DIR:-$HOME/.cache/resource-management/servers}
BIN_DIR=$SERVERS_DIR/bin

say() { echo "ensure-servers: $*"; }

# Succeeds when $BIN_DIR/<name> --version reports the pinned version. The output is read whole first:
# piped into `grep -q`, which exits at the first match, the server could die of SIGPIPE while still
# writing, and pipefail would turn that into "not the pinned version" (seen in CI under load).
has_pinned() {
  local bin=$BIN_DIR/$1 version=$2 reported
  [[ -x $bin ]] && reported=$("$bin" --version 2>/dev/null) && grep -qF -- "$version" <<<"$reported"
}

need_ferretdb=false
need_nats=false

if [[ -n ${MONGO_URL:-} ]]; then
  say "MONGO_URL is set, ferretdb not needed"
elif command -v mongod >/dev/null 2>&1; then
  say "mongod found on PATH, ferretdb not needed"
elif has_pinned ferretdb "$FERRETDB_VERSION"; then
  say "ferretdb $FERRETDB_VERSION ready"
else
  need_ferretdb=true
fi

if [[ -n ${NATS_URL:-} ]]; then
  say "NATS_URL is set, nats-server not needed"
elif has_pinned nats-server "$NATS_VERSION"; then
  say "nats-server $NATS_VERSION ready"
else
  need_nats=true
fi

if [[ $need_ferretdb == false && $need_nats == false ]]; then
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  say "Go is not installed (needed to build the missing test servers into $BIN_DIR)." >&2
  say "Install Go (https://go.dev/dl/), or set MONGO_URL and NATS_URL to running servers." >&2
  exit 1
fi

mkdir -p "$BIN_DIR"

if [[ $need_nats == true ]]; then
  say "installing nats-server $NATS_VERSION into $BIN_DIR  (about a minute)"
  GOBIN=$BIN_DIR go install "github.com/nats-io/nats-server/v2@$NATS_VERSION"
  has_pinned nats-server "$NATS_VERSION" || { say "nats-server build did not report $NATS_VERSION" >&2; exit 1; }
  say "nats-server $NATS_VERSION ready"
fi

if [[ $need_ferretdb == true ]]; then
  say "building ferretdb $FERRETDB_VERSION into $BIN_DIR  (about a minute)"
  # `go install …/cmd/ferretdb@version` fails through proxies that refuse the module's version list,
  # and a build without build/version/version.txt panics at start; so build from a writable copy.
  module_dir=$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  if [[ -z $module_dir || ! -d $module_dir ]]; then
    say "could not download the FerretDB $FERRETDB_VERSION module" >&2
    exit 1
  fi
  work_dir=$(mktemp -d "${TMPDIR:-/tmp}/ferretdb-build.XXXXXX")
  trap 'rm -rf "$work_dir"' EXIT
  cp -R "$module_dir/." "$work_dir"
  chmod -R u+w "$work_dir"
  echo "$FERRETDB_VERSION" > "$work_dir/build/version/version.txt"
  (cd "$work_dir" && CGO_ENABLED=0 go build -trimpath -o "$BIN_DIR/ferretdb" ./cmd/ferretdb)
  rm -rf "$work_dir"
  trap - EXIT
  has_pinned ferretdb "$FERRETDB_VERSION" || { say "ferretdb build did not report $FERRETDB_VERSION" >&2; exit 1; }
  say "ferretdb $FERRETDB_VERSION ready"
fi
