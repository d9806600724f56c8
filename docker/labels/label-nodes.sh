#!/usr/bin/env bash
# One-shot service of docker/compose.yaml: create the GPU node label in the ResourceManager and
# give it to the GPU NodeManager(s), then check that the RM reports it. Safe to run again: an
# existing label is left as it is and replacing a node's labels with the same set is a no-op.
#
# Runs in the apache/hadoop image with the cluster's configuration mounted, so `yarn rmadmin`
# reaches the RM's admin port (yarn.resourcemanager.admin.address in yarn-site.xml).
# The RM is healthy before this starts (compose depends_on), but a NodeManager registers a few
# seconds later and the admin port can lag the web port, so every step is retried.
set -euo pipefail

LABEL="${NODE_LABEL:-gpu}"
# Space-separated host names of the NodeManagers that get the label.
NODES="${LABELLED_NODES:-nodemanager-gpu}"
RM_WEB="${RM_WEB:-http://resourcemanager:8088}"
ATTEMPTS="${ATTEMPTS:-60}"
DELAY="${DELAY_SECONDS:-5}"

log() { printf '%s label-nodes: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }

# retry DESCRIPTION COMMAND...: run COMMAND until it succeeds, ATTEMPTS times at most.
retry() {
  local what=$1
  shift
  local i
  for ((i = 1; i <= ATTEMPTS; i++)); do
    if "$@"; then
      log "$what: done"
      return 0
    fi
    log "$what: attempt $i/$ATTEMPTS failed, next in ${DELAY}s"
    sleep "$DELAY"
  done
  log "$what: gave up after $ATTEMPTS attempts"
  return 1
}

rm_answers() { curl -fsS -o /dev/null "$RM_WEB/ws/v1/cluster/info"; }

# The node id (host:port) of a RUNNING NodeManager on HOST, from the RM's nodes list.
node_id() {
  curl -fsS "$RM_WEB/ws/v1/cluster/nodes?states=RUNNING" |
    grep -Eo "\"id\" *: *\"$1:[0-9]+\"" | head -n 1 | sed -E 's/.*"([^"]+)"$/\1/'
}
node_running() { [ -n "$(node_id "$1")" ]; }

label_exists() { curl -fsS "$RM_WEB/ws/v1/cluster/get-node-labels" | grep -Eq "\"name\" *: *\"$LABEL\""; }
add_label() { label_exists || yarn rmadmin -addToClusterNodeLabels "$LABEL(exclusive=true)"; }

map_nodes() {
  local mapping="" host
  for host in $NODES; do mapping="$mapping $host=$LABEL"; done
  yarn rmadmin -replaceLabelsOnNode "${mapping# }"
}

node_has_label() {
  local id
  id="$(node_id "$1")"
  [ -n "$id" ] && yarn node -status "$id" 2>/dev/null | grep -Eq "Node-Labels *: *(.*,)? *$LABEL *(,.*)?$"
}

log "label '$LABEL' for: $NODES (RM $RM_WEB)"
retry "ResourceManager answers" rm_answers
for host in $NODES; do
  retry "NodeManager $host registered" node_running "$host"
done
retry "add cluster label $LABEL" add_label
retry "map $NODES to $LABEL" map_nodes
for host in $NODES; do
  retry "RM reports $host with label $LABEL" node_has_label "$host"
done
yarn node -list -showDetails || true
log "finished"
