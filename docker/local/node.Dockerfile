# node:20-bookworm, made on a machine that cannot pull it (scripts/docker-images.sh): the local
# node:20-bookworm-slim plus what the official full image carries for native addons and fetches
# (a compiler, make, Python, git, curl, CA certificates).
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl git python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
