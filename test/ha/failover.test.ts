/**
 * Failover between two sidecars (ha.enabled) on a real ZooKeeper and a real PostgreSQL, beside
 * the emulated RM, while clients submit recorded jobs with idempotency keys.
 *
 * 1. The leader is killed with SIGKILL mid-stream, again and again (HA_KILLS, 20 by default);
 *    the follower takes over, and the killed one comes back as a follower. Every admitted
 *    answer is a job in the ledger and an app on the RM exactly once; no key has two jobs; no
 *    app is submitted twice; every request got an answer or a retryable error. The takeover
 *    times are printed, and the longest must stay within 10 s.
 * 2. A partitioned leader (SIGSTOP for longer than its session): the other takes over; the old
 *    one, resumed, writes nothing more to the RM or to the ledger and exits with code 4.
 */
import { decodeTags } from '../../src/yarn/tags';
import { EXIT } from '../../src/cli/exit-codes';
import type { TestPostgres } from '../support/postgres';
import type { RunningZooKeeper } from '../support/zookeeper';
import { MB, startEmulatorProc, tempDir, waitFor, type EmulatorProc } from '../e2e/support/procs';
import { SLEEP_AM } from '../yarn-submission';
import {
  leaderOf,
  post,
  query,
  signal,
  startHaServers,
  startHaSidecar,
  waitLeading,
  type HaCluster,
  type HaServers,
  type HaSidecar,
} from './support';

const KILLS = Number(process.env.HA_KILLS ?? 20);
const CLIENTS = 3;
const TAKEOVER_LIMIT_MS = 10_000;

let zk: RunningZooKeeper;
let pg: TestPostgres;
let emu: EmulatorProc;
let tmp: ReturnType<typeof tempDir>;

let servers: HaServers | undefined;

beforeAll(async () => {
  // 100 ms on every RM answer: writes are in flight when a leader dies.
  servers = await startHaServers('ha-failover', ['--speed', '1', '--latency-ms', '100']);
  ({ zk, pg, emu, tmp } = servers);
}, 600_000);

afterAll(async () => {
  await servers?.stop();
});

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** A client's job: its name is its idempotency key, so the ledger shows one job per key at most. */
function jobFor(key: string, i: number) {
  return {
    name: key,
    user: 'carol',
    deadline: i % 4 === 3 ? 3 : 900,
    maps: 2,
    reduces: 1,
    inputBytes: 16 * MB,
    yarnSubmission: SLEEP_AM,
  };
}

interface Outcome {
  key: string;
  status: number;
  id: string;
  decision: string;
}

/**
 * Clients that submit until told to stop, each request retried (same key) until it gets an
 * answer: after a connection error or a retryable 503, against the leader named, else the other
 * instance. Anything else (a 500, a 4xx) is counted as a failure.
 */
function startClients(instances: () => HaSidecar[], db: string) {
  const answers: Outcome[] = [];
  const failures: string[] = [];
  let retries = 0;
  let stopping = false;
  let target = instances()[0]!.url;
  const client = async (c: number) => {
    for (let i = 0; !stopping; i++) {
      const key = `${db}-c${c}-${i}`;
      for (;;) {
        let res: Response;
        try {
          res = await post(target, '/api/v1/jobs', jobFor(key, i), key);
        } catch {
          retries++;
          const others = instances().filter((s) => s.url !== target);
          target = others[retries % Math.max(1, others.length)]?.url ?? target;
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        const body = (await res.json()) as {
          id?: string;
          decision?: string;
          error?: { code: string; leader?: string | null };
        };
        if (res.status === 200 || res.status === 201) {
          answers.push({ key, status: res.status, id: body.id!, decision: body.decision! });
          break;
        }
        if (res.status === 503 && res.headers.get('retry-after') !== null) {
          retries++;
          if (body.error?.leader) target = body.error.leader;
          else {
            const others = instances().filter((s) => s.url !== target);
            if (others.length > 0) target = others[retries % others.length]!.url;
          }
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        failures.push(`${key}: ${res.status} ${JSON.stringify(body)}`);
        break;
      }
    }
  };
  const running = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  return {
    answers,
    failures,
    retries: () => retries,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
}

/** Which of the two leads now, by their own word. */
async function currentLeader(instances: HaSidecar[]): Promise<HaSidecar | undefined> {
  for (const s of instances) {
    try {
      if ((await leaderOf(s)).role === 'leader') return s;
    } catch {
      /* down */
    }
  }
  return undefined;
}

test(`the leader killed ${KILLS} times mid-stream: no admitted job lost or doubled, takeover within 10 s`, async () => {
  const db = await pg.createDatabase();
  const cluster: HaCluster = { zookeeper: zk.connect, pgUrl: db, emu, dir: tmp.dir };
  const root = `/failover-${Date.now()}`;
  const start = (id: string) => startHaSidecar(cluster, id, { path: root });
  const live = new Map<string, HaSidecar>();
  live.set('sc-a', await start('sc-a'));
  await waitLeading(live.get('sc-a')!, [emu.proc]);
  live.set('sc-b', await start('sc-b'));
  const instances = () => [...live.values()];
  const clients = startClients(instances, 'k');
  const takeovers: number[] = [];

  for (let k = 0; k < KILLS; k++) {
    const leader = await waitFor('a leader', () => currentLeader(instances()), { timeoutMs: 30_000 });
    const other = instances().find((s) => s !== leader)!;
    // Mid-stream: two more answers since the last kill, and an RM write of the leader's just out.
    const before = clients.answers.length;
    await waitFor(
      'answers from the leader',
      () => (clients.answers.length >= before + 2 ? true : undefined),
      {
        timeoutMs: 60_000,
        procs: [leader.proc, emu.proc],
      },
    );
    const killedAt = Date.now();
    await leader.proc.kill9();
    await waitLeading(other, [other.proc, emu.proc], 30_000);
    const took = Date.now() - killedAt;
    takeovers.push(took);
    process.stderr.write(`[ha] kill ${k + 1}: ${leader.id} killed, ${other.id} leads after ${took} ms\n`);
    // The killed one comes back as a follower, as a restart policy would start it.
    live.set(leader.id, await start(leader.id));
  }
  await clients.stop();

  const leader = await waitFor('a leader', () => currentLeader(instances()), { timeoutMs: 30_000 });
  // Everything admitted gets its submission carried out by the last leader.
  await waitFor(
    'every admitted job submitted',
    async () => {
      const open = await query<{ n: string }>(
        db,
        `SELECT count(*) AS n FROM jobs j WHERE j.decision = 'admitted' AND NOT EXISTS
           (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status = 'done')`,
      );
      return Number(open[0]!.n) === 0 ? true : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 500, procs: [leader.proc, emu.proc] },
  );

  const jobs = await query<{ id: string; name: string; decision: string; app_id: string | null }>(
    db,
    'SELECT id, name, decision, app_id FROM jobs',
  );
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const admitted = clients.answers.filter((a) => a.decision === 'admitted');
  const rejected = clients.answers.filter((a) => a.decision === 'rejected');

  // Apps on the RM by their sidecar-id tag, and the submissions the RM handled per job.
  const apps = await emu.rm.apps();
  const appsOf = new Map<string, string[]>();
  for (const app of apps) {
    const id = decodeTags(app.applicationTags).sidecarId;
    if (id !== undefined) appsOf.set(id, [...(appsOf.get(id) ?? []), app.id]);
  }
  const handled = (await emu.writes()).log.filter(
    (w) =>
      w.method === 'POST' &&
      w.endpoint === '/ws/v1/cluster/apps' &&
      !w.injected &&
      (w.status === 202 || w.status === undefined),
  );
  const handledFor = (id: string) => handled.filter((w) => w.body.includes(`sidecar-id:${id}`)).length;

  // Every admitted answer: a job of the ledger, on the RM exactly once.
  for (const a of admitted) {
    expect([a.key, byId.get(a.id)?.decision]).toEqual([a.key, 'admitted']);
    expect([a.key, appsOf.get(a.id)?.length]).toEqual([a.key, 1]);
    expect([a.key, handledFor(a.id)]).toEqual([a.key, 1]);
  }
  for (const r of rejected) expect([r.key, appsOf.has(r.id)]).toEqual([r.key, false]);
  // No key has two jobs (a job's name is its key), and each answered key is its own job.
  const names = jobs.map((j) => j.name);
  expect(names.length).toBe(new Set(names).size);
  for (const a of clients.answers) expect(byId.get(a.id)?.name).toBe(a.key);
  // No app submitted twice.
  for (const [id, list] of appsOf) expect([id, list.length]).toEqual([id, 1]);
  // Every request got an answer or a retryable error.
  expect(clients.failures).toEqual([]);
  // The RM writes named their writer: only the two instances wrote.
  expect(new Set((await emu.writes()).log.map((w) => w.instance))).toEqual(new Set(['sc-a', 'sc-b']));

  const sorted = [...takeovers].sort((a, b) => a - b);
  process.stderr.write(
    `[ha] takeover after SIGKILL over ${takeovers.length} kills: median ${median(takeovers)} ms, ` +
      `min ${sorted[0]} ms, max ${sorted.at(-1)} ms (session timeout 5000 ms)\n` +
      `[ha] answers: ${clients.answers.length} (${admitted.length} admitted, ${rejected.length} rejected), ` +
      `retried requests: ${clients.retries()}, jobs in the ledger: ${jobs.length}, apps on the RM: ${appsOf.size}, ` +
      `submissions handled by the RM: ${handled.length}\n`,
  );
  expect(takeovers).toHaveLength(KILLS);
  expect(Math.max(...takeovers)).toBeLessThanOrEqual(TAKEOVER_LIMIT_MS);
  expect(admitted.length).toBeGreaterThan(KILLS);
  for (const s of instances()) await s.proc.stop();
}, 1_800_000);

test('a partitioned leader, resumed after the other took over, writes nothing more and exits deposed', async () => {
  const db = await pg.createDatabase();
  // A cluster of its own: the first test's apps fill the other one.
  const emu = await startEmulatorProc('emulator-partition', ['--speed', '1', '--latency-ms', '100']);
  const cluster: HaCluster = { zookeeper: zk.connect, pgUrl: db, emu, dir: tmp.dir };
  const root = `/partition-${Date.now()}`;
  const old = await startHaSidecar(cluster, 'sc-p1', { path: root });
  const epochOld = await waitLeading(old, [old.proc, emu.proc]);
  const next = await startHaSidecar(cluster, 'sc-p2', { path: root });
  await waitFor(
    'the follower to know the leader',
    async () => ((await leaderOf(next)).leader?.id === 'sc-p1' ? true : undefined),
    {
      procs: [old.proc, next.proc],
    },
  );
  // Some work for the old leader, so that it has a loop and RM writes to go on with.
  for (let i = 0; i < 4; i++) {
    const res = await post(old.url, '/api/v1/jobs', jobFor(`p-before-${i}`, 0), `p-before-${i}`);
    expect(res.status).toBe(201);
  }

  // The partition: the old leader stops (its session expires), a request to it in flight.
  signal(old.proc, 'SIGSTOP');
  const probe = post(old.url, '/api/v1/jobs', jobFor('p-probe', 0), 'p-probe').then(
    (r) => r.status,
    () => 'connection closed',
  );
  const epochNext = await waitLeading(next, [next.proc, emu.proc], 30_000);
  const tookOverAt = Date.now();
  expect(epochNext).toBeGreaterThan(epochOld);
  // The new leader works: it admits and submits.
  const admitted = await post(next.url, '/api/v1/jobs', jobFor('p-after', 0), 'p-after');
  expect(admitted.status).toBe(201);
  // Well past the session timeout, the old one resumes.
  await new Promise((r) => setTimeout(r, 2000));
  signal(old.proc, 'SIGCONT');
  const code = await old.proc.exited;
  expect(code).toBe(EXIT.deposed);
  expect(await probe).not.toBe(201);

  // No RM write by the old leader after the takeover; the new leader's went through.
  await waitFor(
    'the new leader to submit',
    async () =>
      (await emu.writes()).log.some((w) => w.instance === 'sc-p2' && w.endpoint === '/ws/v1/cluster/apps')
        ? true
        : undefined,
    { procs: [next.proc, emu.proc], timeoutMs: 30_000 },
  );
  const late = (await emu.writes()).log.filter((w) => w.instance === 'sc-p1' && w.receivedMs >= tookOverAt);
  expect(late).toEqual([]);
  // No ledger write by the old leader after it: the request it took in while stopped left no
  // job, and the fence is the new leader's.
  expect(await query(db, `SELECT id FROM jobs WHERE name = 'p-probe'`)).toEqual([]);
  expect(await query(db, 'SELECT epoch::int AS epoch, holder FROM fence')).toEqual([
    { epoch: epochNext, holder: 'sc-p2' },
  ]);
  expect(old.proc.output()).toMatch(/"message":"deposed: stopped writing; stopping"/);
  process.stderr.write(
    `[ha] partition: old leader epoch ${epochOld} exited ${code}; new leader epoch ${epochNext}\n`,
  );
  await next.proc.stop();
  await emu.proc.stop();
}, 300_000);
