/**
 * Poll + reconcile at cluster scale, side by side with an earlier commit (issue 17, points 1 and
 * 4; reported as measured, not asserted).
 *
 * Clusters of 1k apps / 500 nodes, 10k / 5k and 50k / 10k, each with 500 deadline apps the
 * sidecar submitted (admitted, running) and the rest other users' apps (a third running, the
 * others finished). The RM is a stub HTTP server in this process answering in the RM's JSON
 * shapes (bodies built from what the emulated RM answers, copied with new ids), applying the
 * filters of GET /apps as a real RM does (test/yarn/app-filters.ts), or ignoring every filter as
 * an old or odd RM might. The sidecar runs in a child process (bench/poll-child.ts) so its
 * resident memory is its own; the trees alternate (base, this, base, this, ...) so both see the
 * same machine.
 *
 * Per run: CYCLES steady cycles (after the deadline apps were submitted, shown by the stub as
 * started a second apart over the 10 minutes before, and two cycles settled): each cycle's time, and beside it JSON.parse of exactly the bytes that cycle fetched
 * (timed here, after the run). Figures are medians over every cycle of every run; the ratio is the
 * median cycle over the median parse of its bytes.
 *
 * Environment: YSS_BENCH_BASE (the commit to compare with; default HEAD when the working tree
 * has changes, HEAD~1 when it has none), YSS_BENCH_RUNS (default 2), YSS_BENCH_CYCLES (default
 * 12), YSS_BENCH_SIZES (e.g. `10000x5000`; default `1000x500,10000x5000,50000x10000`),
 * YSS_BENCH_RMS (`filters,ignoring`); YSS_BENCH_PROFILE=FILE writes a CPU profile of the sidecar's timed
 * cycles, YSS_BENCH_TRACE=1 prints each request the stub gets in them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from '../src/emulator/server';
import { HttpResourceManagerClient } from '../src/yarn/client';
import { amCommand } from '../src/yarn/submission';

const ROOT = resolve(__dirname, '..');
const MB = 1024 * 1024;
const DEADLINE_APPS = 500;
const env = (name: string, fallback: string) => process.env[name] || fallback;
const RUNS = Number(env('YSS_BENCH_RUNS', '2'));
const CYCLES = Number(env('YSS_BENCH_CYCLES', '12'));
const SIZES = env('YSS_BENCH_SIZES', '1000x500,10000x5000,50000x10000')
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number]);
const RMS = env('YSS_BENCH_RMS', 'filters,ignoring').split(',') as Array<'filters' | 'ignoring'>;

/** One figure, as bench/results.json takes it. */
export interface BenchRow {
  name: string;
  unit: string;
  median: number;
  p99: number;
  /** This tree's median over the base's (or, for a cycle, over JSON.parse of its bytes). */
  ratio: number | null;
  rssMB: number | null;
}

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
    const apps = JSON.parse(await get('/ws/v1/cluster/apps?deSelects=resourceRequests')) as {
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

type App = Record<string, unknown> & {
  id: string;
  state: string;
  startedTime: number;
  finishedTime: number;
  applicationTags: string;
};

/** The stand-in RM: reads (filtered as a real RM filters, or not at all), submissions, priorities. */
class StubRm {
  private server!: Server;
  url = '';
  private readonly apps = new Map<string, App>();
  private readonly nodesBody: string;
  private readonly metricsBody: string;
  private readonly cache = new Map<string, string>();
  private seq = 0;
  /** The cycle being timed (bench/mark), and the bodies each cycle fetched. */
  private cycle = -1;
  readonly fetched: string[][] = [];

  constructor(
    private readonly t: Templates,
    private readonly size: { apps: number; nodes: number },
    private readonly honoursFilters: boolean,
  ) {
    const nodes: Array<Record<string, unknown>> = [];
    const gpus = Math.floor(size.nodes / 5);
    for (let i = 0; i < size.nodes; i++) {
      const gpu = i >= size.nodes - gpus;
      const host = gpu ? `gpu-${i}` : `cpu-${i}`;
      nodes.push({
        ...(gpu ? t.gpuNode : t.cpuNode),
        id: `${host}:45454`,
        nodeHostName: host,
        nodeHTTPAddress: `${host}:8042`,
      });
    }
    this.nodesBody = JSON.stringify({ nodes: { node: nodes } });
    const total = (n: Record<string, unknown>, k: string) =>
      Number((n.totalResource as Record<string, number>)[k]);
    this.metricsBody = JSON.stringify({
      clusterMetrics: {
        appsSubmitted: 0,
        appsCompleted: 0,
        appsPending: 0,
        appsRunning: 0,
        appsFailed: 0,
        appsKilled: 0,
        totalMB: nodes.reduce((a, n) => a + total(n, 'memory'), 0),
        availableMB: 0,
        allocatedMB: 0,
        reservedMB: 0,
        reservedVirtualCores: 0,
        totalVirtualCores: nodes.reduce((a, n) => a + total(n, 'vCores'), 0),
        availableVirtualCores: 0,
        allocatedVirtualCores: 0,
        containersAllocated: 0,
        containersPending: 0,
        containersReserved: 0,
        totalNodes: nodes.length,
        activeNodes: nodes.length,
        lostNodes: 0,
        unhealthyNodes: 0,
        decommissioningNodes: 0,
        decommissionedNodes: 0,
        rebootedNodes: 0,
        shutdownNodes: 0,
      },
    });
  }

  /** The other users' apps, older than the deadline apps: a third running, the rest finished. */
  fill(): void {
    const ts = this.t.clusterTimestamp;
    const n = this.size.apps - this.apps.size;
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < n; i++) {
      const running = i % 3 === 0;
      const id = `application_${ts}_${String(900000 + i)}`;
      this.apps.set(id, {
        ...this.t.app,
        id,
        name: `batch-${i}`,
        queue: 'root.default',
        state: running ? 'RUNNING' : 'FINISHED',
        finalStatus: running ? 'UNDEFINED' : 'SUCCEEDED',
        startedTime: start + i * 10,
        finishedTime: running ? 0 : start + i * 10 + 60_000,
        applicationTags: 'team:analytics',
      });
    }
    this.cache.clear();
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }

  /** GET /apps as a real RM answers it (ClientRMService.getApplications), or every app. */
  private appsBody(q: URLSearchParams): string {
    const list = (k: string) =>
      q
        .getAll(k)
        .flatMap((v) => v.split(','))
        .map((v) => v.trim().toLowerCase())
        .filter((v) => v !== '');
    const num = (k: string, d: number) => (q.get(k) ? Number(q.get(k)) : d);
    let out = [...this.apps.values()];
    if (this.honoursFilters) {
      const states = new Set(list('states'));
      const tags = new Set(list('applicationTags'));
      const [sb, se] = [num('startedTimeBegin', 0), num('startedTimeEnd', Number.MAX_VALUE)];
      const [fb, fe] = [num('finishedTimeBegin', 0), num('finishedTimeEnd', Number.MAX_VALUE)];
      out = out.filter(
        (a) =>
          (states.size === 0 || states.has(a.state.toLowerCase())) &&
          a.startedTime >= sb &&
          a.startedTime <= se &&
          a.finishedTime >= fb &&
          a.finishedTime <= fe &&
          (tags.size === 0 || a.applicationTags.split(',').some((t) => tags.has(t))),
      );
      const limit = num('limit', Number.MAX_SAFE_INTEGER);
      out = out.slice(0, limit);
    }
    return JSON.stringify({ apps: out.length === 0 ? null : { app: out } });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = url.pathname;
    const json = (status: number, text: string, headers: Record<string, string> = {}) => {
      if (this.cycle >= 0 && status === 200) (this.fetched[this.cycle] ??= []).push(text);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(text);
    };
    const cached = (make: () => string) => {
      const key = req.url ?? '';
      let text = this.cache.get(key);
      if (text === undefined) this.cache.set(key, (text = make()));
      return text;
    };
    if (path === '/bench/fill') {
      this.fill();
      return json(200, '{}');
    }
    if (path === '/bench/mark') {
      this.cycle = Number(url.searchParams.get('cycle'));
      res.writeHead(200).end();
      return;
    }
    if (process.env.YSS_BENCH_TRACE && this.cycle >= 0)
      console.error(`cycle ${this.cycle}: ${req.method} ${(req.url ?? '').slice(0, 120)}`);
    if (req.method === 'GET') {
      if (path === '/ws/v1/cluster/info') return json(200, this.t.info);
      if (path === '/ws/v1/cluster/metrics') return json(200, this.metricsBody);
      if (path === '/ws/v1/cluster/scheduler') return json(200, this.t.scheduler);
      if (path === '/ws/v1/cluster/nodes') return json(200, this.nodesBody);
      if (path === '/ws/v1/cluster/apps')
        return json(
          200,
          cached(() => this.appsBody(url.searchParams)),
        );
      const one = /^\/ws\/v1\/cluster\/apps\/(application_\d+_\d+)$/.exec(path);
      if (one && this.apps.has(one[1]!)) return json(200, JSON.stringify({ app: this.apps.get(one[1]!) }));
    }
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps/new-application') {
      const id = `application_${this.t.clusterTimestamp}_${String(++this.seq).padStart(4, '0')}`;
      return json(
        200,
        JSON.stringify({ 'application-id': id, 'maximum-resource-capability': { memory: 16384, vCores: 8 } }),
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
      const id = s['application-id'];
      this.apps.set(id, {
        ...this.t.app,
        id,
        name: s['application-name'],
        queue: 'root.realtime',
        state: 'RUNNING',
        finalStatus: 'UNDEFINED',
        // Started over the last 10 minutes, a second apart, as a steady stream of deadline apps.
        startedTime: Date.now() - 600_000 + this.seq * 1000,
        finishedTime: 0,
        applicationTags: (s['application-tags']?.tag ?? []).join(',').toLowerCase(),
        priority: s.priority ?? 0,
        appNodeLabelExpression: s['app-node-label-expression'] ?? '',
      });
      this.cache.clear();
      return json(202, '', { location: `${this.url}/ws/v1/cluster/apps/${id}` });
    }
    const prio = /^\/ws\/v1\/cluster\/apps\/(application_\d+_\d+)\/priority$/.exec(path);
    if (prio && req.method === 'PUT') {
      const p = (JSON.parse(body) as { priority: number }).priority;
      const app = this.apps.get(prio[1]!);
      if (app) app.priority = p;
      this.cache.clear();
      return json(200, JSON.stringify({ priority: p }));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
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

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** The base commit's tree, exported beside this one (run from its src/ with this tree's modules). */
function baseTree(dir: string): { root: string; commit: string } {
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const ref = process.env.YSS_BENCH_BASE || (dirty ? 'HEAD' : 'HEAD~1');
  const commit = git('rev-parse', '--short', ref);
  const root = join(dir, `base-${commit}`);
  mkdirSync(root, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${root}"`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return { root, commit };
}

function child(root: string, rmUrl: string): Promise<{ cycles: number[]; rssMb: number }> {
  return new Promise((ok, fail) => {
    const p = spawn(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [join(__dirname, 'poll-child.ts'), root, rmUrl, String(DEADLINE_APPS), String(CYCLES)],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    p.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) ok(JSON.parse(line) as { cycles: number[]; rssMb: number });
      else fail(new Error(`poll-child exited ${code}: ${err}`));
    });
  });
}

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};

/** JSON.parse of each cycle's bytes, the median of 3 timings each. */
function parseTimes(fetched: readonly string[][]): { ms: number[]; mb: number[] } {
  const ms: number[] = [];
  const mb: number[] = [];
  for (const bodies of fetched) {
    const t: number[] = [];
    for (let r = 0; r < 3; r++) {
      const s = process.hrtime.bigint();
      for (const b of bodies) if (b !== '') JSON.parse(b);
      t.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
    ms.push(quantile(t, 0.5));
    mb.push(bodies.reduce((a, b) => a + Buffer.byteLength(b), 0) / MB);
  }
  return { ms, mb };
}

interface Measured {
  cycles: number[];
  parses: number[];
  mb: number[];
  rss: number[];
}

/** Every scenario, base and this tree alternating; the rows of bench/results.json. */
export async function pollRows(): Promise<BenchRow[]> {
  const t = await captureTemplates();
  const dir = mkdtempSync(join(tmpdir(), 'yss-poll-bench-'));
  const rows: BenchRow[] = [];
  try {
    const base = baseTree(dir);
    const trees = [
      { label: `base ${base.commit}`, root: base.root },
      { label: 'this', root: ROOT },
    ].filter((x) => !process.env.YSS_BENCH_THIS_ONLY || x.root === ROOT);
    for (const [apps, nodes] of SIZES) {
      for (const rmKind of RMS) {
        const m = new Map<string, Measured>(
          trees.map((x) => [x.label, { cycles: [], parses: [], mb: [], rss: [] }]),
        );
        for (let run = 0; run < RUNS; run++) {
          for (const tree of trees) {
            const stub = new StubRm(t, { apps, nodes }, rmKind === 'filters');
            await stub.start();
            try {
              const r = await child(tree.root, stub.url);
              const p = parseTimes(stub.fetched);
              const into = m.get(tree.label)!;
              into.cycles.push(...r.cycles);
              into.parses.push(...p.ms);
              into.mb.push(...p.mb);
              into.rss.push(r.rssMb);
            } finally {
              await stub.close();
            }
          }
        }
        const baseMedian = quantile(m.get(trees[0]!.label)!.cycles, 0.5);
        for (const tree of trees) {
          const x = m.get(tree.label)!;
          const name = `poll ${apps / 1000}k apps ${nodes} nodes, RM ${rmKind === 'filters' ? 'with filters' : 'ignoring filters'}`;
          const cycle = quantile(x.cycles, 0.5);
          rows.push({
            name: `${name}: cycle (${tree.label})`,
            unit: 'ms',
            median: cycle,
            p99: quantile(x.cycles, 0.99),
            ratio: tree.label === 'this' ? cycle / baseMedian : null,
            rssMB: quantile(x.rss, 0.5),
          });
          rows.push({
            name: `${name}: JSON.parse of the bytes fetched (${tree.label}, ${quantile(x.mb, 0.5).toFixed(2)} MB)`,
            unit: 'ms',
            median: quantile(x.parses, 0.5),
            p99: quantile(x.parses, 0.99),
            ratio: cycle / quantile(x.parses, 0.5),
            rssMB: null,
          });
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function printRows(rows: readonly BenchRow[]): void {
  const f = (x: number | null, d = 1) => (x === null ? '' : x.toFixed(d));
  console.log(
    `median and p99 over ${CYCLES} steady cycles x ${RUNS} runs per tree (alternating); ratio: cycle / base cycle, or cycle / JSON.parse of its bytes`,
  );
  for (const r of rows)
    console.log(
      `${r.name.padEnd(100)} ${f(r.median).padStart(8)} ${r.unit}  p99 ${f(r.p99).padStart(8)}  ratio ${f(r.ratio, 2).padStart(6)}  rss ${f(r.rssMB, 0).padStart(5)} MB`,
    );
}

export default async function bench(): Promise<void> {
  printRows(await pollRows());
}
