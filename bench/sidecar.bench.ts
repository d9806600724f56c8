/**
 * The live sidecar under load (reported as measured, not asserted).
 *
 * 1. Submission answers per second and p99 latency with 1,000 admitted jobs queued: the sidecar
 *    (startSidecar, the service `yarn-sched-sidecar start` runs) listens on loopback; 1,000 jobs
 *    are admitted first, then a fixed number of requests comes from 4 concurrent clients. Two
 *    loads: recorded submissions (admitted, written to the ledger and enforced in the background,
 *    so the queue grows from 1,000 to 1,000 + N during the run) and dry runs (decided and answered,
 *    nothing recorded, so the queue stays at exactly 1,000).
 * 2. One poll-and-reconcile cycle (Sidecar.runOnce: read info, nodes, scheduler and apps over
 *    HTTP, map them, size the lanes, follow the apps, reconcile priorities, drain the outbox)
 *    over 10,000 apps and 5,000 nodes, as a ratio to a bare JSON.parse of the same bytes, and
 *    the process's resident memory after it.
 *
 * The RM is a stub HTTP server in this process that answers in the RM's JSON shape: its bodies
 * are built from what the emulated RM answers (one CPU node, one GPU node, one app, the
 * scheduler), copied with new ids, so the sidecar's client parses exactly the RM's shapes. Every
 * figure is the median of RUNS runs, each on a fresh sidecar and ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, recordResult } from './results';
import * as rm from './stub-rm';
import { MB, median, msSince, recordFigure, sidecarConfigInput, TOKEN } from './support';
import { buildConfig } from '../src/config/load';
import { silentLogger } from '../src/log';
import { startSidecar, type RunningSidecar } from '../src/service/start';
import { SLEEP_AM } from '../test/yarn-submission';

const RUNS = 3;
const QUEUED = 1000;
const REQUESTS = 400;
const CLIENTS = 4;
const CPU_NODES = 4000;
const GPU_NODES = 1000;
const APPS = 10_000;

/** A stand-in RM: reads from the templates, new-application, submit and priority writes. */
class StubRm {
  readonly submitted = new Map<string, rm.Submission>();
  private seq = 0;
  private readonly server = new rm.StubServer((req, res) => this.handle(req, res));
  readonly nodesBody: string;
  readonly metricsBody: string;
  /** Apps beyond the submitted ones, to reach APPS in the listing. */
  fillers = 0;
  lastAppsBody = '';

  constructor(private readonly t: rm.Templates) {
    ({ nodesBody: this.nodesBody, metricsBody: this.metricsBody } = rm.clusterBodies(
      t,
      CPU_NODES,
      GPU_NODES,
    ));
  }

  get url(): string {
    return this.server.url;
  }

  start(): Promise<void> {
    return this.server.start();
  }

  close(): Promise<void> {
    return this.server.close();
  }

  appsBody(): string {
    const apps: Array<Record<string, unknown>> = [];
    for (const s of this.submitted.values()) apps.push(rm.submittedApp(this.t, s));
    for (let i = 0; i < this.fillers; i++) apps.push(rm.otherApp(this.t, i));
    this.lastAppsBody = JSON.stringify({ apps: { app: apps } });
    return this.lastAppsBody;
  }

  private handle(req: rm.StubRequest, res: ServerResponse): void {
    const { body } = req;
    const path = req.url.pathname;
    const json = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(text);
    };
    if (req.method === 'GET' && path === '/ws/v1/cluster/info') return json(200, this.t.info);
    if (req.method === 'GET' && path === '/ws/v1/cluster/scheduler') return json(200, this.t.scheduler);
    if (req.method === 'GET' && path === '/ws/v1/cluster/nodes') return json(200, this.nodesBody);
    // Read each cycle since the poll reads the nodes only when these change (src/loop/observe.ts).
    if (req.method === 'GET' && path === '/ws/v1/cluster/metrics') return json(200, this.metricsBody);
    if (req.method === 'GET' && path === '/ws/v1/cluster/apps') return json(200, this.appsBody());
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps/new-application')
      return json(200, rm.newApplication(this.t, ++this.seq).body);
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps') {
      const s = rm.parseSubmission(body);
      this.submitted.set(s.id, s);
      return json(202, '', { location: `${this.url}/ws/v1/cluster/apps/${s.id}` });
    }
    const prio = rm.priorityWrite(req);
    if (prio !== null) {
      const app = this.submitted.get(prio.id);
      if (app) app.priority = prio.priority;
      return json(200, JSON.stringify({ priority: prio.priority }));
    }
    json(404, rm.notFoundBody(path));
  }
}

function job(i: number, deadlineS: number, dryRun = false) {
  return {
    name: `bench-${i}`,
    user: 'bench',
    deadline: deadlineS,
    maps: 4,
    reduces: 1,
    inputBytes: 4 * 128 * MB,
    yarnSubmission: SLEEP_AM,
    jobType: 'cpu',
    ...(dryRun ? { dryRun: true } : {}),
  };
}

async function post(url: string, body: unknown): Promise<{ status: number; decision?: string }> {
  const res = await fetch(`${url}/api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const b = (await res.json()) as { decision?: string };
  return { status: res.status, decision: b.decision };
}

/** `total` requests from `clients` concurrent clients; latencies in ms. */
async function load(
  url: string,
  total: number,
  clients: number,
  make: (i: number) => unknown,
): Promise<{ perSecond: number; p50: number; p99: number; admitted: number }> {
  let next = 0;
  let admitted = 0;
  const latencies: number[] = [];
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        const i = next++;
        const s = process.hrtime.bigint();
        const r = await post(url, make(i));
        latencies.push(msSince(s));
        if (r.status >= 300) throw new Error(`request ${i}: ${r.status}`);
        if (r.decision === 'admitted') admitted++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return {
    perSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    admitted,
  };
}

async function oneRun(t: rm.Templates) {
  const stub = new StubRm(t);
  await stub.start();
  const dir = mkdtempSync(join(tmpdir(), 'yss-bench-'));
  let sc: RunningSidecar | undefined;
  try {
    const config = buildConfig(
      sidecarConfigInput({
        rmUrl: stub.url,
        ledgerPath: join(dir, 'ledger.db'),
        timeoutMs: 30_000,
        maxWritesPerCycle: 10_000,
      }),
    );
    sc = await startSidecar(config, { logger: silentLogger(), manualPolling: true });
    await sc.sidecar.runOnce();
    // 1,000 admitted jobs queued in the realtime lane (deadlines a day out).
    const pre = await load(sc.url, QUEUED, CLIENTS, (i) => job(i, 86_400 + i));
    if (pre.admitted !== QUEUED) throw new Error(`only ${pre.admitted} of ${QUEUED} admitted`);
    await sc.sidecar.enforcer.drain();
    const dry = await load(sc.url, REQUESTS, CLIENTS, (i) => job(i, 86_400 + 500 + i, true));
    const recorded = await load(sc.url, REQUESTS, CLIENTS, (i) => job(QUEUED + i, 90_000 + i));
    await sc.sidecar.runOnceSettled();
    await sc.sidecar.enforcer.drain();

    // The cycle over 10,000 apps (the submitted ones plus fillers) and 5,000 nodes.
    stub.fillers = APPS - stub.submitted.size;
    const cycles: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = process.hrtime.bigint();
      await sc.sidecar.runOnce();
      cycles.push(msSince(s));
    }
    const bytes = [t.info, t.scheduler, stub.nodesBody, stub.lastAppsBody];
    const parses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = process.hrtime.bigint();
      for (const b of bytes) JSON.parse(b);
      parses.push(msSince(s));
    }
    const appCount = (JSON.parse(stub.lastAppsBody) as { apps: { app: unknown[] } }).apps.app.length;
    return {
      dry,
      recorded,
      firstCycleMs: cycles[0]!,
      steadyCycleMs: median(cycles.slice(1)),
      parseMs: median(parses),
      mb: bytes.reduce((a, b) => a + Buffer.byteLength(b), 0) / MB,
      rssMb: process.memoryUsage().rss / MB,
      appCount,
      queued: sc.sidecar.listJobs({ decision: 'admitted', limit: 1 }).total,
    };
  } finally {
    await sc?.close();
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function bench(): Promise<void> {
  const t = await rm.captureTemplates();
  const runs: Array<Awaited<ReturnType<typeof oneRun>>> = [];
  for (let r = 0; r < RUNS; r++) runs.push(await oneRun(t));
  const m = (f: (x: (typeof runs)[number]) => number) => median(runs.map(f));
  const f1 = (x: number) => x.toFixed(1);
  console.log(
    `median of ${RUNS} runs; ${CLIENTS} concurrent clients, ${REQUESTS} requests per load, on loopback`,
  );
  console.log(
    `dry-run submissions with ${QUEUED} admitted jobs queued: ${f1(m((x) => x.dry.perSecond))} answers/s, ` +
      `p50 ${f1(m((x) => x.dry.p50))} ms, p99 ${f1(m((x) => x.dry.p99))} ms`,
  );
  console.log(
    `recorded submissions, queue ${QUEUED} -> ${QUEUED + REQUESTS} admitted: ${f1(m((x) => x.recorded.perSecond))} answers/s, ` +
      `p50 ${f1(m((x) => x.recorded.p50))} ms, p99 ${f1(m((x) => x.recorded.p99))} ms ` +
      `(${m((x) => x.recorded.admitted)} admitted)`,
  );
  console.log(
    `poll-and-reconcile over ${m((x) => x.appCount)} apps and ${CPU_NODES + GPU_NODES} nodes (${f1(m((x) => x.mb))} MB of JSON), ` +
      `${m((x) => x.queued)} admitted jobs in the ledger: first cycle ${f1(m((x) => x.firstCycleMs))} ms, ` +
      `steady ${f1(m((x) => x.steadyCycleMs))} ms; bare JSON.parse ${f1(m((x) => x.parseMs))} ms; ` +
      `ratio ${f1(m((x) => x.steadyCycleMs / x.parseMs))}x (first cycle ${f1(m((x) => x.firstCycleMs / x.parseMs))}x)`,
  );
  console.log(`resident memory after the cycles: ${f1(m((x) => x.rssMb))} MB`);
  const rssMB = m((x) => x.rssMb);
  for (const [load, of] of [
    ['dry-run', (x: (typeof runs)[number]) => x.dry],
    ['recorded', (x: (typeof runs)[number]) => x.recorded],
  ] as const) {
    const name = `sidecar ${load} submissions, ${QUEUED} queued, ${CLIENTS} clients`;
    recordResult({
      name: `${name}: latency`,
      unit: 'ms',
      median: m((x) => of(x).p50),
      p99: m((x) => of(x).p99),
      rssMB,
    });
    recordFigure(
      `${name}: throughput`,
      'answers/s',
      m((x) => of(x).perSecond),
      { rssMB },
    );
  }
  // One steady cycle per run beside its bare JSON.parse (ratio: cycle over parse, as printed).
  const poll = `sidecar poll-and-reconcile ${APPS / 1000}k apps ${CPU_NODES + GPU_NODES} nodes`;
  for (const [cycle, ms] of [
    ['steady', (x: (typeof runs)[number]) => x.steadyCycleMs],
    ['first', (x: (typeof runs)[number]) => x.firstCycleMs],
  ] as const)
    recordFigure(`${poll}: ${cycle} cycle`, 'ms', m(ms), { ratio: m((x) => ms(x) / x.parseMs), rssMB });
}
