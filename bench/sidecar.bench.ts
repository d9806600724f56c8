/**
 * The live sidecar under load (issue 7, benchmarks; reported as measured, not asserted).
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
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../src/config/load';
import { startEmulator } from '../src/emulator/server';
import { silentLogger } from '../src/log';
import { startSidecar, type RunningSidecar } from '../src/loop/service';
import { HttpResourceManagerClient } from '../src/yarn/client';
import { amCommand } from '../src/yarn/submission';
import { SLEEP_AM } from '../test/yarn-submission';

const RUNS = 3;
const QUEUED = 1000;
const REQUESTS = 400;
const CLIENTS = 4;
const CPU_NODES = 4000;
const GPU_NODES = 1000;
const APPS = 10_000;
const MB = 1024 * 1024;
const TOKEN = 'bench-token-0123456789abcdef';

interface Templates {
  info: string;
  scheduler: string;
  cpuNode: Record<string, unknown>;
  gpuNode: Record<string, unknown>;
  app: Record<string, unknown>;
  clusterTimestamp: number;
}

/** The RM's own answers, taken once from an emulated RM. */
async function captureTemplates(): Promise<Templates> {
  const emu = await startEmulator({ speed: 1 });
  try {
    const rm = new HttpResourceManagerClient({ urls: [emu.url], format: 'json', timeoutMs: 5000 });
    const { applicationId } = await rm.newApplication();
    await rm.submitApp({
      applicationId,
      name: 'template',
      queue: 'default',
      tags: ['type:cpu'],
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('true'),
    });
    const get = async (path: string) =>
      (await fetch(`${emu.url}${path}`, { headers: { accept: 'application/json' } })).text();
    const nodes = (
      JSON.parse(await get('/ws/v1/cluster/nodes')) as { nodes: { node: Array<Record<string, unknown>> } }
    ).nodes.node;
    const labelled = (n: Record<string, unknown>) =>
      ((n.nodeLabels as string[] | undefined) ?? []).length > 0;
    const apps = JSON.parse(await get('/ws/v1/cluster/apps')) as {
      apps: { app: Array<Record<string, unknown>> };
    };
    return {
      info: await get('/ws/v1/cluster/info'),
      scheduler: await get('/ws/v1/cluster/scheduler'),
      cpuNode: nodes.find((n) => !labelled(n))!,
      gpuNode: nodes.find(labelled)!,
      app: apps.apps.app[0]!,
      clusterTimestamp: emu.rm.clusterTimestamp,
    };
  } finally {
    await emu.close();
  }
}

interface Submitted {
  id: string;
  name: string;
  tags: string;
  priority: number;
  label: string;
}

/** A stand-in RM: reads from the templates, new-application, submit and priority writes. */
class StubRm {
  readonly submitted = new Map<string, Submitted>();
  private seq = 0;
  private server!: Server;
  url = '';
  nodesBody = '';
  metricsBody = '';
  /** Apps beyond the submitted ones, to reach APPS in the listing. */
  fillers = 0;
  lastAppsBody = '';

  constructor(private readonly t: Templates) {
    const nodes: Array<Record<string, unknown>> = [];
    for (let i = 0; i < CPU_NODES + GPU_NODES; i++) {
      const gpu = i >= CPU_NODES;
      const host = gpu ? `gpu-${i}` : `cpu-${i}`;
      nodes.push({
        ...(gpu ? t.gpuNode : t.cpuNode),
        id: `${host}:45454`,
        nodeHostName: host,
        nodeHTTPAddress: `${host}:8042`,
      });
    }
    this.nodesBody = JSON.stringify({ nodes: { node: nodes } });
    // The cluster metrics the client requires; only the node counts matter to the poll.
    const zero =
      'appsSubmitted appsCompleted appsPending appsRunning appsFailed appsKilled totalMB availableMB allocatedMB reservedMB totalVirtualCores availableVirtualCores allocatedVirtualCores containersAllocated containersPending containersReserved lostNodes unhealthyNodes decommissionedNodes rebootedNodes';
    const metrics: Record<string, number> = Object.fromEntries(zero.split(' ').map((k) => [k, 0]));
    metrics.totalNodes = metrics.activeNodes = nodes.length;
    this.metricsBody = JSON.stringify({ clusterMetrics: metrics });
  }

  appsBody(): string {
    const ts = this.t.clusterTimestamp;
    const apps: Array<Record<string, unknown>> = [];
    for (const s of this.submitted.values()) {
      apps.push({
        ...this.t.app,
        id: s.id,
        name: s.name,
        queue: 'root.realtime',
        state: 'RUNNING',
        finalStatus: 'UNDEFINED',
        finishedTime: 0,
        applicationTags: s.tags,
        priority: s.priority,
        appNodeLabelExpression: s.label,
      });
    }
    for (let i = 0; i < this.fillers; i++) {
      apps.push({
        ...this.t.app,
        id: `application_${ts}_${String(900000 + i)}`,
        name: `batch-${i}`,
        queue: 'root.default',
        state: i % 3 === 0 ? 'RUNNING' : 'FINISHED',
        finalStatus: i % 3 === 0 ? 'UNDEFINED' : 'SUCCEEDED',
        applicationTags: 'team:analytics',
      });
    }
    this.lastAppsBody = JSON.stringify({ apps: { app: apps } });
    return this.lastAppsBody;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0]!;
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
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps/new-application') {
      const id = `application_${this.t.clusterTimestamp}_${String(++this.seq).padStart(4, '0')}`;
      return json(
        200,
        JSON.stringify({
          'application-id': id,
          'maximum-resource-capability': { memory: 16384, vCores: 8 },
        }),
      );
    }
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps') {
      const s = JSON.parse(body) as {
        'application-id': string;
        'application-name': string;
        priority?: number;
        'application-tags'?: { tag: string[] };
        'app-node-label-expression'?: string;
      };
      this.submitted.set(s['application-id'], {
        id: s['application-id'],
        name: s['application-name'],
        tags: (s['application-tags']?.tag ?? []).join(',').toLowerCase(),
        priority: s.priority ?? 0,
        label: s['app-node-label-expression'] ?? '',
      });
      return json(202, '', { location: `${this.url}/ws/v1/cluster/apps/${s['application-id']}` });
    }
    const prio = /^\/ws\/v1\/cluster\/apps\/(application_\d+_\d+)\/priority$/.exec(path);
    if (prio && req.method === 'PUT') {
      const p = (JSON.parse(body) as { priority: number }).priority;
      const app = this.submitted.get(prio[1]!);
      if (app) app.priority = p;
      return json(200, JSON.stringify({ priority: p }));
    }
    json(
      404,
      JSON.stringify({
        RemoteException: {
          exception: 'NotFoundException',
          message: `no ${path}`,
          javaClassName: 'NotFoundException',
        },
      }),
    );
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
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
        if (r.status >= 300) throw new Error(`request ${i}: ${r.status}`);
        if (r.decision === 'admitted') admitted++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]!;
  return { perSecond: total / seconds, p50: q(0.5), p99: q(0.99), admitted };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function oneRun(t: Templates) {
  const stub = new StubRm(t);
  await stub.start();
  const dir = mkdtempSync(join(tmpdir(), 'yss-bench-'));
  let sc: RunningSidecar | undefined;
  try {
    const config = buildConfig({
      rm: { addresses: [stub.url], jobHistoryAddress: stub.url, timeoutMs: 30_000 },
      auth: { tokens: [{ name: 'bench', token: TOKEN }] },
      server: { port: 0, host: '127.0.0.1' },
      ledger: { path: join(dir, 'ledger.db') },
      enforcement: { maxWritesPerCycle: 100_000 },
      log: { level: 'error' },
    });
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
      cycles.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
    const bytes = [t.info, t.scheduler, stub.nodesBody, stub.lastAppsBody];
    const parses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = process.hrtime.bigint();
      for (const b of bytes) JSON.parse(b);
      parses.push(Number(process.hrtime.bigint() - s) / 1e6);
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
  const t = await captureTemplates();
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
}
