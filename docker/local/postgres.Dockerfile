# postgres:15, made on a machine that cannot pull it (scripts/docker-images.sh): Debian bookworm's
# PostgreSQL 15 with the parts of the official image's contract docker/compose.ha.yaml uses:
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB on first start, data in
# /var/lib/postgresql/data, password logins from the network, and pg_isready.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
