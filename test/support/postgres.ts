/**
 * A private PostgreSQL server for tests: initdb and pg_ctl in a temporary folder, listening on a
 * free loopback port (no Unix socket), with one database. Run as the `postgres` OS user when the
 * tests run as root (initdb refuses root). Binaries are found under /usr/lib/postgresql/<n>/bin
 * (Debian's postgresql package), else on PATH.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export interface TestPostgres {
  /** postgres://user:password@127.0.0.1:port/db */
  url: string;
  port: number;
  /** Stops the server (fast shutdown); the data stay, start() brings it back on the same port. */
  stop(): void;
  start(): void;
  /** Stops the server and removes its folder. */
  destroy(): void;
  /** A new empty database on this server (owned by the same user); its URL. */
  createDatabase(): Promise<string>;
}

/** The folder holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')) && existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(root, versions[0]!, 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  return found ? join(found, '..') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a private server and creates database `yss` owned by user `yss` with a password.
 * `durable`: fsync on, as a real server (the benches); off by default, for the tests' speed.
 */
export async function startTestPostgres(settings: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian package postgresql)');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'yss-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const run = (cmd: string, args: string[]): string => {
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, cmd), ...args] : args;
    return execFileSync(asRoot ? 'runuser' : join(bin, cmd), argv, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  };
  if (asRoot) {
    chmodSync(dir, 0o777);
    execFileSync('chown', ['postgres', dir]);
  }
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  // Only the superuser connects without a password (the set-up below); everyone else by password.
  const hba = 'host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n';
  writeFileSync(join(data, 'pg_hba.conf'), hba);
  if (asRoot) execFileSync('chown', ['postgres', join(data, 'pg_hba.conf')]);
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='' -c fsync=${settings.durable ? 'on' : 'off'} -c max_connections=40`;
  const start = (): void => {
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(data, 'server.log'), '-w', '-t', '60', 'start']);
  };
  const stop = (): void => {
    run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  start();
  const psql = (sql: string): void => {
    run('psql', [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      sql,
    ]);
  };
  psql("CREATE USER yss WITH PASSWORD 's3cret-pw' CREATEDB");
  psql('CREATE DATABASE yss OWNER yss');
  let running = true;
  let databases = 0;
  const url = `postgres://yss:s3cret-pw@127.0.0.1:${port}/yss`;
  return {
    url,
    port,
    stop: () => {
      if (running) stop();
      running = false;
    },
    start: () => {
      if (!running) start();
      running = true;
    },
    createDatabase: async () => {
      const name = `yss_${++databases}`;
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url.replace(/\/yss$/, `/${name}`);
    },
    destroy: () => {
      try {
        if (running) stop();
      } finally {
        running = false;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Whether tests needing PostgreSQL run: under CI its absence is a failure (CI installs it),
 * elsewhere those tests are skipped and say so.
 */
export function postgresAvailability(): 'run' | 'missing-ci' | 'skip' {
  if (postgresBinaries()) return 'run';
  return process.env.CI ? 'missing-ci' : 'skip';
}
