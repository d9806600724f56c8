#!/usr/bin/env bash
# Schemathesis against the live API: the emulated RM and the sidecar as processes on loopback
# (the compiled CLI, dist/), then `schemathesis run` on the sidecar's own /api/v1/openapi.json,
# with a write token, bounded in examples. Installs schemathesis into a venv outside the
# repository (SCHEMATHESIS_VENV, default $TMPDIR/yss-schemathesis-venv) when it is missing.
# Findings it is told to leave aside, and why: scripts/schemathesis.toml.
#   scripts/schemathesis.sh [extra schemathesis options]
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SCHEMATHESIS_VENV:-${TMPDIR:-/tmp}/yss-schemathesis-venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  if ! python3 -m venv "$venv"; then
    # Debian keeps venv in its own package.
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q 'schemathesis>=4,<5'
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The first line of a process's output that matches a pattern, waited for up to 60 s.
wait_for() {
  local file="$1" pattern="$2" i
  for i in $(seq 1 600); do
    if grep -Eo "$pattern" "$file" 2>/dev/null | head -1 | grep -q .; then
      grep -Eo "$pattern" "$file" | head -1
      return 0
    fi
    sleep 0.1
  done
  echo "schemathesis.sh: timed out waiting for $pattern in $file:" >&2
  cat "$file" >&2
  return 1
}

node bin/yarn-sched-sidecar.js emulator --port 0 --jhs-port 0 --speed 10 --max-priority 10 >"$work/emulator.log" 2>&1 &
pids+=($!)
rm_url="$(wait_for "$work/emulator.log" 'ResourceManager: http://[0-9.:]+' | sed 's/^ResourceManager: //')"
jhs_url="$(wait_for "$work/emulator.log" 'JobHistory server: http://[0-9.:]+' | sed 's/^JobHistory server: //')"

token="schemathesis-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
cat >"$work/config.yaml" <<YAML
rm:
  addresses: ['$rm_url']
  jobHistoryAddress: '$jhs_url'
server:
  port: 0
  host: 127.0.0.1
ledger:
  path: '$work/ledger.db'
loop:
  pollCron: '*/2 * * * * *'
log:
  level: warn
  format: json
YAML
YSS_TOKENS="schemathesis:$token" YSS_LOG_LEVEL=info node bin/yarn-sched-sidecar.js start --config "$work/config.yaml" >"$work/sidecar.log" 2>&1 &
pids+=($!)
api="$(wait_for "$work/sidecar.log" '"url":"http://[0-9.:]+' | sed 's/^"url":"//')"
# Ready once the first poll has read the cluster (503 NOT_READY before).
for i in $(seq 1 300); do
  node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$api/readyz" && break
  sleep 0.1
done

echo "schemathesis against $api (RM $rm_url)"
# Schemathesis draws its headings as pytest does (`==== 2 warnings in 7.69s ====`), which a
# reader of CI's log could take for a pytest run that executed no test: the headings are printed
# plain, the closing one as `schemathesis finished after 7.69 s: 2 warnings`. Its exit status
# stands (pipefail).
"$venv/bin/schemathesis" --config-file scripts/schemathesis.toml run "$api/api/v1/openapi.json" \
  --header "Authorization: Bearer $token" \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-20}" \
  --seed "${SCHEMATHESIS_SEED:-1}" \
  --request-timeout 10 \
  --max-response-time 10 \
  --no-color \
  "$@" |
  sed -u -E -e 's/^=+ (.*) in ([0-9.]+)s =+$/schemathesis finished after \2 s: \1/' -e 's/^=+ (.*) =+$/\1/'
