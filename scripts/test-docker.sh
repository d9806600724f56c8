#!/usr/bin/env bash
# npm run test:docker: the Docker deployment run for real. Makes the base images when no registry
# serves them (scripts/docker-images.sh, which starts this project's dockerd when none answers),
# then test/compose/ brings docker/compose.yaml up with --build, runs a job through the
# containerised sidecar, restarts it, adds the HA overlay, kills its leader, and takes it all down.
# Without a Docker engine: under CI (CI set) one line and exit 1; elsewhere one line and exit 0.
set -uo pipefail
cd "$(dirname "$0")/.."

err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$(bash scripts/docker-images.sh 2> >(tee "$err" >&2))
status=$?
if [ $status -ne 0 ]; then
  why=$(grep '^docker-images: ' "$err" | tail -n 1 | sed 's/^docker-images: //')
  if [ -n "${CI:-}" ]; then
    echo "test:docker: failed, no Docker engine and images: ${why:-scripts/docker-images.sh exited $status}" >&2
    exit 1
  fi
  echo "test:docker: skipped, no Docker engine and images: ${why:-scripts/docker-images.sh exited $status}" >&2
  exit 0
fi
export "$(tail -n 1 <<<"$out")"
export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0
npx jest -c jest.docker.config.js "$@"
