#!/usr/bin/env bash
# Validates docker-compose.yml (default services and the postgres profile) with whichever
# Compose client the machine has: the `docker compose` plugin, or the standalone docker-compose.
set -euo pipefail
cd "$(dirname "$0")/.."
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  echo "compose-check: neither 'docker compose' nor 'docker-compose' is installed" >&2
  exit 1
fi
"${compose[@]}" -f docker-compose.yml config --quiet
"${compose[@]}" -f docker-compose.yml --profile postgres config --quiet
echo "compose-check: docker-compose.yml is valid (${compose[*]})"
