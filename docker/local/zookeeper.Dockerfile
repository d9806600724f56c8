# zookeeper:3.8, made on a machine that cannot pull it (scripts/docker-images.sh): Debian
# bookworm's ZooKeeper 3.8 package, started in the foreground like the official image, with the
# parts of its contract docker/compose.ha.yaml uses: port 2181, data in /data and /datalog,
# ZOO_4LW_COMMANDS_WHITELIST, and `nc` for the healthcheck.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends zookeeper netcat-openbsd \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data /datalog /conf \
 && chown zookeeper:zookeeper /data /datalog /conf
COPY zookeeper-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME ["/data", "/datalog"]
EXPOSE 2181
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
