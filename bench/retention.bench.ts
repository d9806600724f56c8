/**
 * A ledger that lives for years (reported as measured, not asserted): `npm run bench --
 * retention`.
 *
 * For each store (SQLite file; PostgreSQL, a private server with fsync on started from Debian's
 * postgresql as the tests do) and each size, a ledger is generated with bulk SQL inserts (not
 * the API): RECENT closed jobs of the last day, and the rest closed in the 400 days before the
 * last 31, each with the rows a recorded submission leaves (`jobs`, one decision or three, its
 * submit action, its app, its idempotent answer: templates copied from a run of the sidecar
 * beside the emulated RM, about 5.7 rows and 4.9 KB a job). The sizes: 10,000 (RECENT alone) and
 * 1,000,000 (990,000 old beside the same RECENT). Every size sits beside an emulated RM of its own
 * (this tree's, at 60x), and the sizes are measured side by side, in three phases:
 *
 *   history  as after an upgrade, or with ledger.retention just turned on: the old jobs still in
 *            the live tables. On PostgreSQL, a new process loads each ledger as a writer taking
 *            it over and as a follower (bench/ledger-load-child.ts): the load in ms, the live
 *            jobs it took, the jobs it counts, its RSS.
 *   archive  the larger ledger's sidecar with retention on (archiveAfterDays 30, batchJobs BATCH)
 *            until its Archiver has moved the old jobs: how long, its batches
 *            (yss_ledger_archive_batch_seconds), recorded submissions meanwhile, the longest hold
 *            of the event loop (nodejs_eventloop_lag_max_seconds, read every second), its RSS
 *            and peak RSS.
 *   archived on PostgreSQL, VACUUM ANALYZE (what autovacuum does in the hour after a drain) and the
 *            same loads again; then each size's instances: on SQLite one
 *            sidecar, on PostgreSQL two with ha.enabled (a real ZooKeeper, as test/ha starts
 *            it: the leader, then a follower), started one after the other: the start to
 *            /readyz (SQLite) or to leading (PostgreSQL: the election and the takeover's load);
 *            once the RMs run no app, QUIET_SECONDS together: the poll cycle
 *            (yss_poll_duration_seconds, sum over count) and each instance's RSS; then RUNS runs
 *            of PHASE_SECONDS of recorded submissions at CLIENTS clients each, the sizes taking
 *            turns (the median p50 and p99), and each instance's RSS again; a page of the
 *            archive (GET /api/v1/jobs?archived=true, the first and the last 100) and an
 *            archived job by id (medians of 5). On PostgreSQL the leader is then killed
 *            (SIGKILL): the time until the follower leads (the ZooKeeper session, 5 s, included)
 *            and its own takeover (the `takeOverMs` of its `leading` line), and its RSS after.
 *
 * Environment: YSS_BENCH_CLOSED (default "10000,1000000": the sizes; each above RECENT has
 * size - RECENT old jobs), YSS_BENCH_LEDGERS (default "sqlite,postgres"), YSS_BENCH_RUNS (3),
 * YSS_BENCH_PHASE_SECONDS (5), YSS_BENCH_CLIENTS (4), YSS_BENCH_QUIET_SECONDS (30),
 * YSS_BENCH_BATCH (ledger.retention.batchJobs; its default unless set).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import {
  answersOf,
  benchSubmission,
  build,
  deployedEnv,
  freePort,
  int,
  memoryOf,
  startEmulatorProcess,
  stop,
  waitFor,
  writeSidecarConfig,
} from './processes';
import { recordResult } from './results';
import { median, recordFigure, ROOT, TOKEN } from './support';
import { buildConfig } from '../src/config/load';
import { SqliteLedger } from '../src/store/ledger';
import { openPostgresLedger } from '../src/store/postgres';
import { startTestPostgres, type TestPostgres } from '../test/support/postgres';
import { startZooKeeper, type RunningZooKeeper } from '../test/support/zookeeper';

const DAY = 86_400_000;
const RECENT = 10_000;
const SIZES = (process.env.YSS_BENCH_CLOSED || '10000,1000000').split(',').map((c) => {
  const n = Number(c);
  if (!Number.isInteger(n) || n < RECENT)
    throw new Error(`YSS_BENCH_CLOSED: ${c} is not a size of ${RECENT} or more`);
  return n;
});
const STORES = (process.env.YSS_BENCH_LEDGERS || 'sqlite,postgres').split(',').map((s) => {
  if (s !== 'sqlite' && s !== 'postgres')
    throw new Error(`YSS_BENCH_LEDGERS: ${s} is not sqlite or postgres`);
  return s;
});
const RUNS = int('YSS_BENCH_RUNS', 3);
const PHASE_SECONDS = int('YSS_BENCH_PHASE_SECONDS', 5);
const CLIENTS = int('YSS_BENCH_CLIENTS', 4);
const QUIET_SECONDS = int('YSS_BENCH_QUIET_SECONDS', 30);
/** Jobs per batch of archiving: ledger.retention.batchJobs's default unless set. */
const BATCH = int('YSS_BENCH_BATCH', buildConfig({}).ledger.retention.batchJobs);
const SPEED = 60;
/** How long a start (a takeover loading a million jobs) or the archiving may take. */
const START_TIMEOUT_MS = 30 * 60_000;
const ARCHIVE_TIMEOUT_MS = 120 * 60_000;

// --- the rows of a recorded submission, as the sidecar wrote them (ids replaced) --------------

const SPEC =
  '{"name":"@NAME@","user":"bench","deadline":"2026-11-22T08:13:59.000Z","maps":2,"reduces":2,"inputBytes":268435456,"jobType":"cpu","resubmitIfLost":false,"dryRun":false,"deadlineMs":1795335239000,"deadlineSource":"request","profileKey":"b@bench/realtime","estimateFrom":{"source":"default","profile":"b@bench/realtime","workloadClass":"cpu","factor":1.25,"text":"no history for profile b@bench/realtime: class cpu default + margin 25 %"}}';
const REASON =
  '{"kind":"new-job-misses","message":"this job would miss its deadline 2026-11-22T08:01:00.000Z by 131.3 s","jobId":"@ID@","deadline":"2026-11-22T08:01:00.000Z","estimatedFinish":"2026-11-22T08:03:11.250Z","lateBySeconds":131.25,"partition":null}';
const ESTIMATES =
  '"workloadClass":"cpu","estimates":{"eta":1,"mapCostMax":0.625,"reduceCostMax":0.625,"mapTaskSeconds":6.25,"reduceTaskSeconds":6.25,"setupSeconds":12.5,"commitSeconds":6.25,"amContainers":1},"estimateFrom":{"source":"default","profile":"b@bench/realtime","workloadClass":"cpu","factor":1.25,"text":"no history for profile b@bench/realtime: class cpu default + margin 25 %"},"placement":{"locality":"uniform (no input paths)","partitions":[{"label":null,"dop":1,"ef":1,"h":1}]},"deadlineSource":"request"';
const DECISION_ADMITTED = `{"lane":"realtime|","position":1,"estimatedFinish":"2026-11-22T08:03:11.250Z",${ESTIMATES}}`;
const DECISION_REJECTED = `{"reason":${REASON},"earliestAdmissibleDeadline":"2026-11-22T08:03:12.000Z",${ESTIMATES}}`;
const DECISION_ENDED =
  '{"app":"@APP@","state":"FINISHED","finalStatus":"SUCCEEDED","finishedAt":"2026-11-22T08:00:14.031Z"}';
const DECISION_LEARNED =
  '{"workloadClass":"cpu","before":{"eta":1,"mapCostMax":0.5,"reduceCostMax":0.5,"mapTaskSeconds":5,"reduceTaskSeconds":5,"setupSeconds":10,"commitSeconds":5,"amContainers":1},"after":{"eta":1,"mapCostMax":0.5,"reduceCostMax":0.5,"mapTaskSeconds":5,"reduceTaskSeconds":5,"setupSeconds":10,"commitSeconds":5,"amContainers":1}}';
const SUBMIT =
  '{"sidecarId":"@ID@","name":"@NAME@","user":"bench","queue":"realtime","priority":0,"labelExpression":null,"tags":["sidecar-id:@ID@","deadline:2026-11-22T08:13:59.000Z","maps:2","reduces:2","input-bytes:268435456","type:cpu"],"applicationType":"MAPREDUCE","request":{"am":{"command":"sleep 300","localResources":{},"environment":{},"serviceData":{},"applicationAcls":{}}}}';
const SUBMIT_RESULT = '{"appId":"@APP@","status":202}';
const ANSWER_ADMITTED = `{"id":"@ID@","decision":"admitted","deadline":"2026-11-22T08:13:59.000Z","estimatedFinish":"2026-11-22T08:03:11.250Z","slackSeconds":647.75,"position":1,"queue":"realtime","priority":0,"label":null,"energyJoules":null,${ESTIMATES},"dryRun":false}`;
const ANSWER_REJECTED = `{"id":"@ID@","decision":"rejected","deadline":"2026-11-22T08:01:00.000Z","reason":${REASON},"earliestAdmissibleDeadline":"2026-11-22T08:03:12.000Z",${ESTIMATES},"dryRun":false}`;

/**
 * The generated jobs: i from 1 to n, every third rejected. Job i was created at created(i) ms
 * and last written ten minutes later. Its id and app are named from i; its decisions are
 * numbered 3i to 3i + 2, its action i.
 */
interface Span {
  from: number;
  to: number;
  /** created_ms of job `from`, and the ms between two jobs. */
  startMs: number;
  stepMs: number;
}

/**
 * The INSERT ... SELECT statements filling a span, for SQLite (a recursive CTE; `@pN` parameters)
 * or PostgreSQL (generate_series; `$n`, with row_id and seq). Each is [sql, values].
 */
function inserts(store: 'sqlite' | 'postgres', s: Span): Array<[string, unknown[]]> {
  const pg = store === 'postgres';
  const p = (n: number) => (pg ? `$${n}` : `@p${n}`);
  // Every statement reads the span and the templates as parameters 1.. of its own.
  const series = pg
    ? `FROM generate_series(${p(1)}::bigint, ${p(2)}::bigint) AS n(i)`
    : `FROM (WITH RECURSIVE n(i) AS (SELECT ${p(1)} UNION ALL SELECT i + 1 FROM n WHERE i < ${p(2)}) SELECT i FROM n) AS n`;
  const id = pg ? `'hist-' || i::text` : `'hist-' || i`;
  const app = pg ? `'application_1700000000000_' || i::text` : `'application_1700000000000_' || i`;
  const created = pg ? `(${p(3)}::bigint + i * ${p(4)}::bigint)` : `(${p(3)} + i * ${p(4)})`;
  const sub = (t: string) =>
    `replace(replace(replace(${t}, '@ID@', ${id}), '@APP@', ${app}), '@NAME@', 'job ' || ${id})`;
  const admitted = '(i % 3 <> 0)';
  const extra = (cols: string) => (pg ? `row_id, ${cols}, seq` : cols);
  const extraValues = (rowId: string, values: string) =>
    pg ? `${rowId}, ${values}, nextval('ledger_seq')` : values;
  const span = [s.from, s.to, s.startMs - s.from * s.stepMs, s.stepMs];
  const text = (n: number) => (pg ? `${p(n)}::text` : p(n));
  const out: Array<[string, unknown[]]> = [
    [
      `INSERT INTO jobs (${extra('id, name, "user", submitter, source, job_type, maps, reduces, input_bytes, arrival_ms, deadline_ms, decision, reason, estimated_finish_ms, earliest_deadline_ms, queue, label, priority, app_id, state, outcome, finished_ms, energy_joules, spec, created_ms, updated_ms, predicted_finish_ms')})
       SELECT ${extraValues(
         'i',
         `${id}, 'job ' || ${id}, 'bench', 'bench', 'api', 'cpu', 2, 2, 268435456, ${created}, ${created} + 839000,
         CASE WHEN ${admitted} THEN 'admitted' ELSE 'rejected' END,
         CASE WHEN ${admitted} THEN NULL ELSE ${sub(text(5))} END,
         CASE WHEN ${admitted} THEN ${created} + 191250 ELSE NULL END,
         CASE WHEN ${admitted} THEN NULL ELSE ${created} + 192000 END,
         'realtime', NULL, CASE WHEN ${admitted} THEN 0 ELSE NULL END,
         CASE WHEN ${admitted} THEN ${app} ELSE NULL END,
         CASE WHEN ${admitted} THEN 'finished' ELSE 'rejected' END,
         CASE WHEN ${admitted} THEN 'met' ELSE NULL END,
         CASE WHEN ${admitted} THEN ${created} + 14031 ELSE NULL END,
         NULL, ${sub(text(6))}, ${created}, ${created} + 600000, NULL`,
       )} ${series}`,
      [...span, REASON, SPEC],
    ],
    [
      `INSERT INTO decisions (${extra('id, job_id, at_ms, policy, decision, detail')})
       SELECT ${extraValues(
         '3 * i',
         `3 * i, ${id}, ${created}, 'rtmr', CASE WHEN ${admitted} THEN 'admitted' ELSE 'rejected' END,
         CASE WHEN ${admitted} THEN ${sub(text(5))} ELSE ${sub(text(6))} END`,
       )} ${series}`,
      [...span, DECISION_ADMITTED, DECISION_REJECTED],
    ],
    [
      `INSERT INTO decisions (${extra('id, job_id, at_ms, policy, decision, detail')})
       SELECT ${extraValues('3 * i + 1', `3 * i + 1, ${id}, ${created} + 300000, 'reconcile', 'app-ended', ${sub(text(5))}`)}
       ${series} WHERE ${admitted}`,
      [...span, DECISION_ENDED],
    ],
    [
      `INSERT INTO decisions (${extra('id, job_id, at_ms, policy, decision, detail')})
       SELECT ${extraValues('3 * i + 2', `3 * i + 2, ${id}, ${created} + 300000, 'estimates', 'learned', ${text(5)}`)}
       ${series} WHERE ${admitted}`,
      [...span, DECISION_LEARNED],
    ],
    [
      `INSERT INTO actions (${extra('id, job_id, kind, payload, status, attempts, result, error, created_ms, updated_ms')})
       SELECT ${extraValues('i', `i, ${id}, 'submit', ${sub(text(5))}, 'done', 1, ${sub(text(6))}, NULL, ${created}, ${created} + 300000`)}
       ${series} WHERE ${admitted}`,
      [...span, SUBMIT, SUBMIT_RESULT],
    ],
    [
      `INSERT INTO job_apps (${extra('app_id, job_id, ordinal, state, final_status, queue, started_ms, finished_ms, created_ms, updated_ms')})
       SELECT ${extraValues('i', `${app}, ${id}, 1, 'FINISHED', 'SUCCEEDED', 'root.realtime', ${created}, ${created} + 14031, ${created} + 300000, ${created} + 300000`)}
       ${series} WHERE ${admitted}`,
      span,
    ],
    [
      `INSERT INTO idempotency (${extra('submitter, key, request_hash, job_id, status, response, created_ms')})
       SELECT ${extraValues(
         'i',
         `'bench', 'key-' || ${id}, '6010ee0a60a2b18e616efea016d0eaa6065c5cd7f6509b0a9e41265027c2124a', ${id},
         CASE WHEN ${admitted} THEN 201 ELSE 200 END,
         CASE WHEN ${admitted} THEN ${sub(text(5))} ELSE ${sub(text(6))} END, ${created}`,
       )} ${series}`,
      [...span, ANSWER_ADMITTED, ANSWER_REJECTED],
    ],
  ];
  return out;
}

/** The spans of a ledger of `size` jobs: the old ones (if any), then RECENT of the last day. */
function spans(size: number, nowMs: number): Span[] {
  const old = size - RECENT;
  const out: Span[] = [];
  if (old > 0) {
    // From 431 to 31 days ago: all older than archiveAfterDays (30).
    const startMs = nowMs - 431 * DAY;
    out.push({ from: 1, to: old, startMs, stepMs: Math.floor((400 * DAY) / old) });
  }
  // The last day but its last hour: younger than archiveAfterDays, last written before now.
  out.push({ from: old + 1, to: size, startMs: nowMs - DAY, stepMs: Math.floor((DAY - 3_600_000) / RECENT) });
  return out;
}

/** Rows per INSERT statement (a transaction each on PostgreSQL; one for all on SQLite). */
const CHUNK = 100_000;

function chunks(s: Span): Span[] {
  const out: Span[] = [];
  for (let from = s.from; from <= s.to; from += CHUNK)
    out.push({
      ...s,
      from,
      to: Math.min(s.to, from + CHUNK - 1),
      startMs: s.startMs + (from - s.from) * s.stepMs,
    });
  return out;
}

export async function generateSqlite(file: string, size: number, nowMs: number): Promise<void> {
  SqliteLedger.open(file).close();
  const db = new Database(file);
  db.pragma('synchronous = OFF');
  try {
    for (const span of spans(size, nowMs))
      for (const c of chunks(span))
        db.transaction(() => {
          for (const [sql, values] of inserts('sqlite', c))
            db.prepare(sql).run(Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v])));
        })();
    // Written without syncs, then made durable once, as a ledger written long ago is: else the
    // sidecar's first checkpoint would sync gigabytes the generation left in the page cache.
    db.pragma('synchronous = FULL');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  await Promise.resolve();
}

export async function generatePostgres(url: string, size: number, nowMs: number): Promise<void> {
  const ledger = await openPostgresLedger(url, { writer: 'later' });
  ledger.close();
  await ledger.closed;
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const span of spans(size, nowMs))
      for (const c of chunks(span)) {
        await client.query('BEGIN');
        for (const [sql, values] of inserts('postgres', c)) await client.query(sql, values);
        await client.query('COMMIT');
      }
    // As autovacuum leaves a table written long ago: its statistics and visibility map up to date.
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

// --- the instances --------------------------------------------------------------------------

/** One size's ledger, beside an emulated RM of its own. */
interface Side {
  size: number;
  old: number;
  label: string;
  ledger: { path: string } | { url: string };
  rm: { rmPort: number; jhsPort: number; url: string };
  emulator: ChildProcess;
}

/** A sidecar process of this tree (`start`), its log read as it comes. */
interface Instance {
  url: string;
  pid: number;
  spawnedAt: number;
  /** Its `leading` line's takeOverMs, once it has led (ha.enabled). */
  takeOverMs: number | undefined;
  /** SIGKILL: a crash, as far as the others can tell. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function spawnInstance(
  work: string,
  side: Side,
  o: { retention: boolean; ha?: { zookeeper: string; path: string; id: string } },
): Promise<Instance> {
  const port = await freePort();
  const config = writeSidecarConfig(work, {
    rmPort: side.rm.rmPort,
    jhsPort: side.rm.jhsPort,
    port,
    file: `sidecar-${port}.yaml`,
    ...('path' in side.ledger ? { ledgerPath: side.ledger.path } : { ledgerUrl: side.ledger.url }),
    ledger: [
      '  flushTimeoutMs: 60000',
      `  retention: { enabled: ${o.retention}, archiveAfterDays: 30, batchJobs: ${BATCH} }`,
    ],
    extra: o.ha
      ? [
          'ha:',
          '  enabled: true',
          `  zookeeper: '${o.ha.zookeeper}'`,
          `  path: '${o.ha.path}'`,
          `  id: ${o.ha.id}`,
        ]
      : [],
    // The `leading` line is logged at info.
    level: o.ha ? 'info' : 'warn',
  });
  const spawnedAt = performance.now();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'yarn-sched-sidecar.js'), 'start', '--config', config],
    {
      cwd: ROOT,
      env: { ...process.env, ...deployedEnv(ROOT) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const instance: Instance = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    spawnedAt,
    takeOverMs: undefined,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    },
    stop: () => stop(child),
  };
  // The sidecar logs to stderr, a JSON object a line.
  let out = '';
  let tail = '';
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
    out += d.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (!line.includes('"leading"')) continue;
      const entry = JSON.parse(line) as { message?: string; takeOverMs?: number };
      if (entry.message === 'leading') instance.takeOverMs = entry.takeOverMs;
    }
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) console.error(`a sidecar exited ${code}: ${tail}`);
  });
  return instance;
}

/** Polls `probe` every 20 ms until it holds; the ms waited. */
async function until(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = START_TIMEOUT_MS,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      if (await probe()) return performance.now() - started;
    } catch {
      // not answering yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const json = async <T>(url: string): Promise<T> => {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return (await r.json()) as T;
};
const roleOf = async (i: Instance) => (await json<{ role: string }>(`${i.url}/api/v1/leader`)).role;
const liveJobsOf = async (i: Instance) =>
  (await json<{ total: number }>(`${i.url}/api/v1/jobs?limit=1`)).total;

/** A metric's value (the first series of `name`) from /metrics. */
async function metric(url: string, name: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Recorded submissions at CLIENTS clients for `seconds`. */
async function submissions(url: string, tag: string, seconds = PHASE_SECONDS) {
  let i = 0;
  const r = await autocannon({
    url,
    connections: CLIENTS,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/jobs',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: benchSubmission(`${tag}-${i}`, i++) }),
      },
    ],
  });
  return answersOf(r);
}

/** The mean poll cycle (ms) over `seconds` of the instance that polls. */
async function pollCycle(url: string, seconds = QUIET_SECONDS): Promise<number> {
  const sum = () => metric(url, 'yss_poll_duration_seconds_sum');
  const count = () => metric(url, 'yss_poll_duration_seconds_count');
  const [sum0, n0] = [await sum(), await count()];
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const [sum1, n1] = [await sum(), await count()];
  return ((sum1 - sum0) / Math.max(1, n1 - n0)) * 1000;
}

/** Waits until the emulated RM runs no app (the earlier phases' admitted jobs have ended). */
async function rmIdle(rmUrl: string, timeoutMs = 10 * 60_000): Promise<void> {
  await until(
    'the emulated RM to run out of apps',
    async () => {
      const m = await json<{ clusterMetrics: { appsRunning: number; appsPending: number } }>(
        `${rmUrl}/ws/v1/cluster/metrics`,
      );
      return m.clusterMetrics.appsRunning + m.clusterMetrics.appsPending === 0;
    },
    timeoutMs,
  );
}

/** The median of five answers of `url` (ms), each read whole. */
async function answerMs(url: string): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t = performance.now();
    const r = await fetch(url);
    await r.text();
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    times.push(performance.now() - t);
  }
  return median(times);
}

// --- the phases -----------------------------------------------------------------------------

interface Load {
  loadMs: number;
  jobs: number;
  counted: number;
  rssMB: number;
  peakMB: number;
}

/** bench/ledger-load-child.ts in a process of its own: a new instance loading the PostgreSQL ledger. */
function loadInChild(url: string, role: 'writer' | 'follower', archiveAfterDays: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--require',
        require.resolve('tsx/cjs'),
        join(__dirname, 'ledger-load-child.ts'),
        url,
        role,
        String(archiveAfterDays),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...deployedEnv(ROOT) } },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Load) : reject(new Error(`the load child exited ${code}`)),
    );
  });
}

/** On PostgreSQL: each side's ledger loaded by a new writer and a new follower, one after the other. */
async function loads(sides: Side[], phase: string): Promise<Map<Side, { writer: Load; follower: Load }>> {
  const out = new Map<Side, { writer: Load; follower: Load }>();
  for (const side of sides) {
    const url = (side.ledger as { url: string }).url;
    const writer = await loadInChild(url, 'writer', 30);
    const follower = await loadInChild(url, 'follower', 30);
    out.set(side, { writer, follower });
    for (const [role, l] of [
      ['writer', writer],
      ['follower', follower],
    ] as const) {
      console.log(
        `  ${side.label}, ${phase}: a new ${role} loads in ${l.loadMs.toFixed(0)} ms, ${l.jobs.toLocaleString('en')} live jobs ` +
          `(${l.counted.toLocaleString('en')} counted), RSS ${l.rssMB.toFixed(0)} MB, peak ${l.peakMB.toFixed(0)} MB`,
      );
      recordFigure(`retention postgres, ${side.label}, ${phase}: a new ${role}'s load`, 'ms', l.loadMs, {
        rssMB: l.peakMB,
      });
    }
  }
  return out;
}

/** The side's sidecar with retention on, until its Archiver has moved the old jobs. */
async function archive(side: Side, work: string, store: string): Promise<void> {
  const s = await spawnInstance(work, side, { retention: true });
  try {
    await waitFor(`${s.url}/readyz`, 'sidecar', START_TIMEOUT_MS);
    // The first batch comes 5 s after the start: the holds of the event loop are counted from
    // then, after the start's own work.
    await until('the first batch', async () => (await metric(s.url, 'yss_ledger_archived_jobs_total')) > 0);
    const started = performance.now();
    await metric(s.url, 'nodejs_eventloop_lag_max_seconds');
    const during = await submissions(s.url, 'during', PHASE_SECONDS);
    let lagMaxMs = 0;
    for (;;) {
      lagMaxMs = Math.max(lagMaxMs, (await metric(s.url, 'nodejs_eventloop_lag_max_seconds')) * 1000);
      if ((await metric(s.url, 'yss_ledger_archived_jobs_total')) >= side.old) break;
      if (performance.now() - started > ARCHIVE_TIMEOUT_MS) throw new Error('archiving did not end in time');
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const ms = performance.now() - started;
    const batches = await metric(s.url, 'yss_ledger_archive_batch_seconds_count');
    const batchMs = ((await metric(s.url, 'yss_ledger_archive_batch_seconds_sum')) / batches) * 1000;
    const mem = memoryOf(s.pid);
    const label = `retention ${store}, ${side.label}`;
    console.log(
      `  ${side.label}: archiving ${side.old.toLocaleString('en')} jobs took ${(ms / 1000).toFixed(0)} s from its first batch ` +
        `(${((side.old / ms) * 1000).toFixed(0)} jobs/s), ${batches} batches of ${batchMs.toFixed(1)} ms on average; ` +
        `submissions meanwhile p50 ${during.p50.toFixed(1)} ms p99 ${during.p99.toFixed(1)} ms (${during.perSecond.toFixed(0)}/s); ` +
        `event loop held ${lagMaxMs.toFixed(0)} ms at most; RSS ${mem.rss.toFixed(0)} MB, peak ${mem.peak.toFixed(0)} MB`,
    );
    recordFigure(`${label}: archiving`, 'jobs/s', (side.old / ms) * 1000, { rssMB: mem.peak });
    recordFigure(`${label}: archive batch`, 'ms', batchMs, { rssMB: mem.rss });
    recordFigure(`${label}: longest event-loop delay while archiving`, 'ms', lagMaxMs, { rssMB: mem.rss });
    recordResult({
      name: `${label}: submission while archiving`,
      unit: 'ms',
      median: during.p50,
      p99: during.p99,
      rssMB: mem.rss,
    });
  } finally {
    await s.stop();
  }
}

interface Measured {
  /** SQLite: spawn to /readyz; PostgreSQL: the leader's spawn to leading. */
  startMs: number;
  /** PostgreSQL: the follower's spawn to its copy holding the leader's live jobs. */
  followerLoadMs: number;
  rssQuiet: number[];
  rssAfter: number[];
  /** Each instance's peak RSS (VmHWM) over its start, the quiet poll, the submissions and the pages. */
  peak: number[];
  p50: number;
  p99: number;
  perSecond: number;
  pollMs: number;
  liveJobs: number;
  archivedJobs: number;
  pageFirstMs: number;
  pageLastMs: number;
  byIdMs: number;
  failoverMs: number;
  takeOverMs: number;
  rssAfterFailover: number;
  /** The new leader's peak RSS: its start as a follower, its load, its takeover. */
  peakAfterFailover: number;
}

/**
 * Each side's instances (SQLite: a sidecar; PostgreSQL: a leader and a follower with ha.enabled),
 * started one side after the other, then measured side by side.
 */
async function measureSides(
  sides: Side[],
  work: string,
  zk: RunningZooKeeper | undefined,
): Promise<Map<Side, Measured>> {
  const instances = new Map<Side, Instance[]>();
  const out = new Map<Side, Measured>();
  const starts = new Map<Side, { startMs: number; followerLoadMs: number }>();
  try {
    for (const [k, side] of sides.entries()) {
      if (zk === undefined) {
        const s = await spawnInstance(work, side, { retention: true });
        instances.set(side, [s]);
        await waitFor(`${s.url}/readyz`, 'sidecar', START_TIMEOUT_MS);
        starts.set(side, { startMs: performance.now() - s.spawnedAt, followerLoadMs: NaN });
        continue;
      }
      // An elected instance's epoch is its election node's sequence (+ 1), from 1 on a new
      // ha.path; the processes of the earlier phases, each taking the ledger over as one sidecar
      // on its own does, raised the fence past it. Set back, as a ledger only ever led through
      // this election would hold it.
      const client = new Client({ connectionString: (side.ledger as { url: string }).url });
      await client.connect();
      await client.query('UPDATE fence SET epoch = 0, holder = NULL');
      await client.end();
      const ha = (id: string) => ({ zookeeper: zk.connect, path: `/bench-retention-${k}`, id });
      const leader = await spawnInstance(work, side, { retention: true, ha: ha('a') });
      instances.set(side, [leader]);
      const startMs = await until('the leader to lead', async () => (await roleOf(leader)) === 'leader');
      const follower = await spawnInstance(work, side, { retention: true, ha: ha('b') });
      instances.get(side)!.push(follower);
      const live = await liveJobsOf(leader);
      const followerLoadMs = await until(
        'the follower to load',
        async () => (await roleOf(follower)) === 'follower' && (await liveJobsOf(follower)) === live,
      );
      starts.set(side, { startMs, followerLoadMs });
    }
    await Promise.all(sides.map((side) => rmIdle(side.rm.url)));
    await new Promise((r) => setTimeout(r, 10_000));
    const polls = await Promise.all(sides.map((side) => pollCycle(instances.get(side)![0]!.url)));
    const rssQuiet = sides.map((side) => instances.get(side)!.map((i) => memoryOf(i.pid).rss));
    const runs = sides.map(() => [] as Array<Awaited<ReturnType<typeof submissions>>>);
    for (let r = 0; r < RUNS; r++)
      for (const k of r % 2 === 0 ? sides.keys() : [...sides.keys()].reverse())
        runs[k]!.push(await submissions(instances.get(sides[k]!)![0]!.url, `after${r}`));
    for (const [k, side] of sides.entries()) {
      const [first] = instances.get(side)!;
      const page = await json<{ jobs: Array<{ id: string }>; total: number }>(
        `${first!.url}/api/v1/jobs?archived=true&limit=100`,
      );
      out.set(side, {
        ...starts.get(side)!,
        rssQuiet: rssQuiet[k]!,
        rssAfter: instances.get(side)!.map((i) => memoryOf(i.pid).rss),
        peak: [],
        p50: median(runs[k]!.map((x) => x.p50)),
        p99: median(runs[k]!.map((x) => x.p99)),
        perSecond: median(runs[k]!.map((x) => x.perSecond)),
        pollMs: polls[k]!,
        liveJobs: await liveJobsOf(first!),
        archivedJobs: page.total,
        pageFirstMs: await answerMs(`${first!.url}/api/v1/jobs?archived=true&limit=100`),
        pageLastMs: await answerMs(
          `${first!.url}/api/v1/jobs?archived=true&limit=100&offset=${Math.max(0, page.total - 100)}`,
        ),
        byIdMs: page.jobs[0] ? await answerMs(`${first!.url}/api/v1/jobs/${page.jobs[0].id}`) : NaN,
        failoverMs: NaN,
        takeOverMs: NaN,
        rssAfterFailover: NaN,
        peakAfterFailover: NaN,
      });
      out.get(side)!.peak = instances.get(side)!.map((i) => memoryOf(i.pid).peak);
    }
    if (zk !== undefined)
      for (const side of sides) {
        const [leader, follower] = instances.get(side)!;
        await leader!.kill();
        const m = out.get(side)!;
        m.failoverMs = await until(
          'the follower to lead',
          async () => (await roleOf(follower!)) === 'leader',
        );
        await until(
          'its leading line',
          () => Promise.resolve(follower!.takeOverMs !== undefined),
          5_000,
        ).catch((err: unknown) => console.error(`  ${side.label}: ${String(err)}`));
        m.takeOverMs = follower!.takeOverMs ?? NaN;
        const mem = memoryOf(follower!.pid);
        m.rssAfterFailover = mem.rss;
        m.peakAfterFailover = mem.peak;
      }
  } finally {
    for (const list of instances.values()) for (const i of list) await i.stop();
  }
  return out;
}

const f0 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(0));
const f1 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));

/** The sides' figures in one table, a column a side, and one row each in bench/results.json. */
function report(store: string, sides: Side[], m: Map<Side, Measured>): void {
  const pg = store === 'postgres';
  type Row = [string, (x: Measured) => string];
  const rows: Row[] = [
    [pg ? "the leader's start to leading (s)" : 'start to /readyz (s)', (x) => f1(x.startMs / 1000)],
    ...(pg
      ? [["the follower's start to its copy loaded (s)", (x) => f1(x.followerLoadMs / 1000)] as Row]
      : []),
    [
      'live jobs / archived jobs',
      (x) => `${x.liveJobs.toLocaleString('en')} / ${x.archivedJobs.toLocaleString('en')}`,
    ],
    [pg ? 'RSS quiet, leader / follower (MB)' : 'RSS quiet (MB)', (x) => x.rssQuiet.map(f0).join(' / ')],
    [
      pg ? 'RSS after submissions, leader / follower (MB)' : 'RSS after submissions (MB)',
      (x) => x.rssAfter.map(f0).join(' / '),
    ],
    [pg ? 'peak RSS, leader / follower (MB)' : 'peak RSS (MB)', (x) => x.peak.map(f0).join(' / ')],
    [`submission p50 / p99 (ms), ${CLIENTS} clients`, (x) => `${f1(x.p50)} / ${f1(x.p99)}`],
    ['submissions a second', (x) => f0(x.perSecond)],
    ['poll cycle (ms)', (x) => f1(x.pollMs)],
    ['archive page: first / last 100 (ms)', (x) => `${f1(x.pageFirstMs)} / ${f1(x.pageLastMs)}`],
    ['archived job by id (ms)', (x) => f1(x.byIdMs)],
    ...(pg
      ? [
          ['SIGKILL of the leader to the follower leading (s)', (x) => f1(x.failoverMs / 1000)] as Row,
          ["the follower's takeover (ms)", (x) => f0(x.takeOverMs)] as Row,
          [
            'RSS / peak RSS of the new leader (MB)',
            (x) => `${f0(x.rssAfterFailover)} / ${f0(x.peakAfterFailover)}`,
          ] as Row,
        ]
      : []),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`\n  ${''.padEnd(width)}  ${sides.map((s) => s.label.padStart(24)).join('  ')}`);
  for (const [name, cell] of rows)
    console.log(`  ${name.padEnd(width)}  ${sides.map((s) => cell(m.get(s)!).padStart(24)).join('  ')}`);
  for (const side of sides) {
    const x = m.get(side)!;
    const label = `retention ${store}, ${side.label}`;
    const rss = Math.max(...x.rssAfter);
    recordFigure(`${label}: start`, 'ms', x.startMs, { rssMB: x.rssQuiet[0] });
    recordFigure(`${label}: peak RSS (the largest of its instances)`, 'MB', Math.max(...x.peak), {
      rssMB: Math.max(...x.peak),
    });
    recordResult({ name: `${label}: submission`, unit: 'ms', median: x.p50, p99: x.p99, rssMB: rss });
    recordFigure(`${label}: poll cycle`, 'ms', x.pollMs, { rssMB: x.rssQuiet[0] });
    recordFigure(`${label}: archive page (last)`, 'ms', x.pageLastMs, { rssMB: rss });
    if (pg) {
      recordFigure(`${label}: follower's load`, 'ms', x.followerLoadMs, { rssMB: x.rssQuiet[1] });
      recordFigure(`${label}: failover`, 'ms', x.failoverMs, { rssMB: x.rssAfterFailover });
      recordFigure(`${label}: takeover`, 'ms', x.takeOverMs, { rssMB: x.peakAfterFailover });
    }
  }
}

/** One store: a ledger per size beside its own emulated RM, through the three phases. */
async function runStore(
  store: 'sqlite' | 'postgres',
  pg: TestPostgres | undefined,
  zk: RunningZooKeeper | undefined,
): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), `yss-retention-${store}-`));
  const sides: Side[] = [];
  try {
    for (const size of SIZES) {
      const label = `${size.toLocaleString('en')} closed jobs`;
      const [rmPort, jhsPort] = [await freePort(), await freePort()];
      const emulator = startEmulatorProcess(ROOT, rmPort, jhsPort, SPEED);
      const rmUrl = `http://127.0.0.1:${rmPort}`;
      const genStart = performance.now();
      let ledger: Side['ledger'];
      if (store === 'sqlite') {
        ledger = { path: join(work, `ledger-${size}.db`) };
        await generateSqlite(ledger.path, size, Date.now());
      } else {
        ledger = { url: await pg!.createDatabase() };
        await generatePostgres(ledger.url, size, Date.now());
      }
      sides.push({ size, old: size - RECENT, label, ledger, rm: { rmPort, jhsPort, url: rmUrl }, emulator });
      await waitFor(`${rmUrl}/ws/v1/cluster/info`, 'emulated RM');
      console.log(
        `  ${store}, ${label}: generated in ${((performance.now() - genStart) / 1000).toFixed(0)} s`,
      );
    }
    if (store === 'postgres') {
      console.log(`\n${store}, the old jobs still in the live tables:`);
      await loads(sides, 'history in the live tables');
    }
    console.log(`\n${store}, archiving:`);
    for (const side of sides) if (side.old > 0) await archive(side, work, store);
    console.log(`\n${store}, archived:`);
    if (store === 'postgres') {
      // The drain left each live table's old rows dead and the archive's new ones unvacuumed:
      // what autovacuum works through in the hour after it, done here before the measures.
      for (const side of sides) {
        const started = performance.now();
        const client = new Client({ connectionString: (side.ledger as { url: string }).url });
        await client.connect();
        await client.query('VACUUM ANALYZE');
        await client.end();
        console.log(
          `  ${side.label}: VACUUM ANALYZE after the drain took ${((performance.now() - started) / 1000).toFixed(0)} s`,
        );
      }
      await loads(sides, 'archived');
    }
    report(store, sides, await measureSides(sides, work, zk));
  } finally {
    for (const side of sides) await stop(side.emulator);
    rmSync(work, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<void> {
  build(ROOT);
  console.log(
    `the ledger over the years: ${SIZES.map((n) => n.toLocaleString('en')).join(' and ')} closed jobs on ${STORES.join(' and ')}; ` +
      `submissions at ${CLIENTS} clients, median p99 of ${RUNS} runs of ${PHASE_SECONDS} s; poll cycle over ${QUIET_SECONDS} s; ` +
      `batches of ${BATCH} jobs`,
  );
  const pg = STORES.includes('postgres') ? await startTestPostgres({ durable: true }) : undefined;
  const zk = STORES.includes('postgres') ? await startZooKeeper() : undefined;
  try {
    for (const store of STORES)
      await runStore(store, store === 'postgres' ? pg : undefined, store === 'postgres' ? zk : undefined);
  } finally {
    await zk?.stop();
    pg?.destroy();
  }
}
