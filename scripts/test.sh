#!/usr/bin/env bash
# npm test: ensures the test servers, builds and type-checks every workspace, runs every package's
# tests once against one shared MongoDB-compatible server and nats-server (each test file isolates
# itself with its own database and stream names), and ends with one summary line for the whole run.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-servers.sh || exit 1
npm run build || exit 1
rm -rf packages/*/.test-results services/*/.test-results reliability/.test-results
node packages/testkit/dist/with-servers.js turbo run test --concurrency=1 --continue
status=$?
node scripts/test-summary.ts || status=1
exit $status
