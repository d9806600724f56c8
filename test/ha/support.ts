import { join } from 'node:path';
import { Client } from 'pg';
import {
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  TOKEN,
  waitFor,
  type EmulatorProc,
  type Proc,
  type SidecarProc,
} from '../e2e/support/procs';
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../support/postgres';
import { startZooKeeper, type RunningZooKeeper } from '../support/zookeeper';

/** Sidecar processes with ha.enabled beside the emulated RM, on one ZooKeeper and one PostgreSQL. */
export interface HaCluster {
  zookeeper: string;
  pgUrl: string;
  emu: EmulatorProc;
  dir: string;
}

export interface HaSidecar extends SidecarProc {
  id: string;
}

export async function startHaSidecar(
  c: HaCluster,
  id: string,
  extra: { sessionTimeoutMs?: number; path?: string } = {},
): Promise<HaSidecar> {
  const sc = await startSidecarProc(id, {
    rmUrls: [c.emu.url],
    jhsUrl: c.emu.jhsUrl,
    ledgerPath: join(c.dir, 'ledger'),
    config: {
      ledger: { url: c.pgUrl, flushTimeoutMs: 3000 },
      ha: {
        enabled: true,
        zookeeper: c.zookeeper,
        id,
        sessionTimeoutMs: extra.sessionTimeoutMs ?? 5000,
        ...(extra.path === undefined ? {} : { path: extra.path }),
      },
      admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    },
  });
  return { ...sc, id };
}

export interface LeaderAnswer {
  role: 'leader' | 'follower';
  id: string;
  leader: { id: string; url: string; epoch: number } | null;
}

export async function leaderOf(sc: SidecarProc): Promise<LeaderAnswer> {
  const res = await fetch(`${sc.url}/api/v1/leader`);
  return (await res.json()) as LeaderAnswer;
}

/** Waits until `sc` says it leads; resolves with its epoch. */
export async function waitLeading(sc: HaSidecar, procs: Proc[], timeoutMs = 30_000): Promise<number> {
  return waitFor(
    `${sc.id} to lead`,
    async () => {
      const l = await leaderOf(sc);
      return l.role === 'leader' ? l.leader!.epoch : undefined;
    },
    { procs, timeoutMs, intervalMs: 50 },
  );
}

export function post(url: string, path: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${TOKEN}`,
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });
}

/** SIGSTOP / SIGCONT a process (a partition, as far as its peers can tell). */
export function signal(proc: Proc, sig: 'SIGSTOP' | 'SIGCONT'): void {
  proc.child.kill(sig);
}

/** One query's rows on the shared ledger's PostgreSQL. */
export async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** What an HA test runs its sidecars beside: ZooKeeper, PostgreSQL and the emulated RM. */
export interface HaServers {
  zk: RunningZooKeeper;
  pg: TestPostgres;
  emu: EmulatorProc;
  tmp: ReturnType<typeof tempDir>;
  cluster: HaCluster;
  /** Stops every process the test started, then the servers, and removes their files. */
  stop(): Promise<void>;
}

/** Starts a real ZooKeeper, a private PostgreSQL and the emulated RM (with `emulatorArgs`). */
export async function startHaServers(name: string, emulatorArgs: string[]): Promise<HaServers> {
  if (postgresAvailability() !== 'run')
    throw new Error('PostgreSQL is not installed (Debian package postgresql)');
  const tmp = tempDir(name);
  const [zk, pg, emu] = await Promise.all([
    startZooKeeper(),
    startTestPostgres(),
    startEmulatorProc('emulator', emulatorArgs),
  ]);
  return {
    zk,
    pg,
    emu,
    tmp,
    cluster: { zookeeper: zk.connect, pgUrl: pg.url, emu, dir: tmp.dir },
    async stop() {
      await stopAll();
      await zk.stop();
      pg.destroy();
      tmp.cleanup();
    },
  };
}
