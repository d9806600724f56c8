/**
 * Poll + reconcile at cluster scale, side by side with an earlier commit (reported as measured,
 * not asserted).
 *
 * Clusters of 1k apps / 500 nodes, 10k / 5k and 50k / 10k, each with 500 deadline apps the
 * sidecar submitted (admitted, running) and the rest other users' apps (a third running, the
 * others finished). The RM is a stub HTTP server in this process answering in the RM's JSON
 * shapes (bodies built from what the emulated RM answers, copied with new ids), applying the
 * filters of GET /apps as a real RM does (test/yarn/app-filters.ts), or ignoring every filter as
 * an old or odd RM might. The sidecar runs in a child process (bench/poll-child.ts, compiled, both
 * trees built with tsc and run with plain node, in the environment of each tree's image) so its resident memory is its own; the trees alternate (base, this, base, this, ...) so both see the
 * same machine.
 *
 * Per run: CYCLES steady cycles (after the deadline apps were submitted, shown by the stub as
 * started a second apart over the 10 minutes before, and two cycles settled): each cycle's time, and beside it JSON.parse of exactly the bytes that cycle fetched
 * (timed here, after the run), and each cycle's longest stretch without a turn of the event loop
 * (what a request to the sidecar waits at worst; its p99 is a capacity read's cycle). Figures are
 * medians over every cycle of every run; the ratio is the median cycle over the median parse of its
 * bytes. Beside them, each cycle's floor: its GET requests sent again from the sidecar's process
 * with node:http, each answer parsed, nothing else (what any Node client pays for the same reads).
 *
 * The same cycles with `rm.format: xml`: the stub answers the sidecar that asks for XML in the
 * RM's XML (the same bodies, bench/stub-rm.ts asXml; the scheduler and info as the emulated RM
 * writes them) and reads its XML writes, against the RM with filters only (one ignoring them
 * sends every app's text every cycle: a tree that parsed XML whole took minutes a cycle at 10k
 * apps). No parse or floor rows for XML (those are JSON.parse's). Every scenario gives the
 * sidecar's peak RSS too (VmHWM over its start, the deadline apps' submission and the cycles).
 *
 * Environment: YSS_BENCH_BASE (the commit to compare with, or the folder of its checkout with its
 * node_modules, bench/support.ts; default HEAD when the working tree has changes, HEAD~1 when it
 * has none), YSS_BENCH_RUNS (default 2), YSS_BENCH_CYCLES (default
 * 12), YSS_BENCH_SIZES (e.g. `10000x5000`; default `1000x500,10000x5000,50000x10000`),
 * YSS_BENCH_XML_SIZES (the sizes read in XML; default `10000x5000`, `none` for none),
 * YSS_BENCH_RMS (`filters,ignoring`), YSS_BENCH_HISTORY (N ended jobs and a full series of dashboard
 * samples in the ledger before the sidecar starts, as after a long run; default 0, a new ledger);
 * YSS_BENCH_PROFILE=FILE writes a CPU profile of the sidecar's timed
 * cycles, YSS_BENCH_TRACE=1 prints each request the stub gets in them, YSS_BENCH_CAPACITY_EVERY=N
 * sets the sidecar's `loop.capacityReadEvery` (100000: steady cycles only, no capacity read among
 * them, to profile those).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, deployedEnv } from './processes';
import { percentile, recordResult } from './results';
import * as rm from './stub-rm';
import { exportBaseTree, MB, msSince, ROOT } from './support';

const DEADLINE_APPS = 500;
const env = (name: string, fallback: string) => process.env[name] || fallback;
const RUNS = Number(env('YSS_BENCH_RUNS', '2'));
const CYCLES = Number(env('YSS_BENCH_CYCLES', '12'));
const SIZES = env('YSS_BENCH_SIZES', '1000x500,10000x5000,50000x10000')
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number]);
const RMS = env('YSS_BENCH_RMS', 'filters,ignoring').split(',') as Array<'filters' | 'ignoring'>;
/**
 * The same cycle with `rm.format: xml`, against the RM with filters, at these sizes: an RM that
 * ignores the filters sends every app's text every cycle, which a tree that parsed XML whole
 * took minutes a cycle to read at 10k apps.
 */
const XML_SIZES = env('YSS_BENCH_XML_SIZES', '10000x5000')
  .split(',')
  .filter((x) => x !== 'none')
  .map((s) => s.split('x').map(Number) as [number, number]);

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

type App = rm.StubApp & { startedTime: number; finishedTime: number };

/** The members the RM 3.4's deSelects leaves out (its DeSelectFields.DeSelectType, lower-cased). */
const DESELECTABLE = new Set([
  'resourcerequests',
  'timeouts',
  'appnodelabelexpression',
  'amnodelabelexpression',
  'resourceinfo',
]);

/** `app` without the members named (lower-cased) in `gone`. */
const omit = (app: App, gone: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(app).filter(([k]) => !gone.includes(k.toLowerCase())));

/** The stand-in RM: reads (filtered as a real RM filters, or not at all), submissions, priorities. */
class StubRm {
  private readonly server = new rm.StubServer((req, res) => this.handle(req, res), 60_000);
  private readonly apps = new Map<string, App>();
  private readonly nodesBody: string;
  private readonly metricsBody: string;
  /** The bodies in XML, made when first asked for. */
  private nodesXml: string | undefined;
  private metricsXml: string | undefined;
  private readonly cache = new Map<string, string>();
  private seq = 0;
  /** The cycle being timed (bench/mark), and the bodies each cycle fetched. */
  private cycle = -1;
  readonly fetched: string[][] = [];
  /** The GET requests (path and query) each timed cycle sent, for the child's floor (bench/reads). */
  private readonly reads: string[][] = [];

  constructor(
    private readonly t: rm.Templates,
    private readonly size: { apps: number; nodes: number },
    private readonly honoursFilters: boolean,
  ) {
    const gpus = Math.floor(size.nodes / 5);
    ({ nodesBody: this.nodesBody, metricsBody: this.metricsBody } = rm.clusterBodies(
      t,
      size.nodes - gpus,
      gpus,
    ));
  }

  /** The other users' apps, older than the deadline apps: a third running, the rest finished. */
  fill(): void {
    const n = this.size.apps - this.apps.size;
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < n; i++) {
      const app = rm.otherApp(this.t, i);
      const running = app.state === 'RUNNING';
      this.apps.set(app.id, {
        ...app,
        startedTime: start + i * 10,
        finishedTime: running ? 0 : start + i * 10 + 60_000,
      });
    }
    this.cache.clear();
  }

  start(): Promise<void> {
    return this.server.start();
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
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
    // deSelects as the RM 3.4 takes them: each member named is left out of every app.
    const gone = list('deSelects').filter((k) => this.honoursFilters && DESELECTABLE.has(k));
    const shown = gone.length === 0 ? out : out.map((a) => omit(a, gone));
    return JSON.stringify({ apps: shown.length === 0 ? null : { app: shown } });
  }

  private handle(req: rm.StubRequest, res: ServerResponse): void {
    const { url, body } = req;
    const path = url.pathname;
    const xml = rm.wantsXml(req);
    // `text` is JSON; a sidecar that asks for XML gets it in XML (`xmlText` when given: made once).
    const json = (status: number, text: string, headers: Record<string, string> = {}, xmlText?: string) => {
      const body = xml && text !== '' && status < 300 ? (xmlText ?? rm.asXml(text)) : text;
      if (this.cycle >= 0 && status === 200) {
        (this.fetched[this.cycle] ??= []).push(body);
        if (req.method === 'GET') (this.reads[this.cycle] ??= []).push(req.rawUrl);
      }
      res.writeHead(status, { 'content-type': xml ? 'application/xml' : 'application/json', ...headers });
      res.end(body);
    };
    const cached = (make: () => string) => {
      const key = `${xml ? 'xml' : 'json'} ${req.rawUrl}`;
      let text = this.cache.get(key);
      if (text === undefined) this.cache.set(key, (text = xml ? rm.asXml(make()) : make()));
      return text;
    };
    if (path === '/bench/fill') {
      this.fill();
      return json(200, '{}');
    }
    if (path === '/bench/reads') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.reads));
      return;
    }
    if (path === '/bench/mark') {
      this.cycle = Number(url.searchParams.get('cycle'));
      res.writeHead(200).end();
      return;
    }
    if (process.env.YSS_BENCH_TRACE && this.cycle >= 0)
      console.error(`cycle ${this.cycle}: ${req.method} ${req.rawUrl.slice(0, 120)}`);
    if (req.method === 'GET') {
      if (path === '/ws/v1/cluster/info') return json(200, this.t.info, {}, this.t.xml.info);
      if (path === '/ws/v1/cluster/metrics')
        return json(
          200,
          this.metricsBody,
          {},
          xml ? (this.metricsXml ??= rm.asXml(this.metricsBody)) : undefined,
        );
      if (path === '/ws/v1/cluster/scheduler') return json(200, this.t.scheduler, {}, this.t.xml.scheduler);
      if (path === '/ws/v1/cluster/nodes')
        return json(200, this.nodesBody, {}, xml ? (this.nodesXml ??= rm.asXml(this.nodesBody)) : undefined);
      if (path === '/ws/v1/cluster/apps') {
        const text = cached(() => this.appsBody(url.searchParams));
        return json(200, text, {}, xml ? text : undefined);
      }
      const one = /^\/ws\/v1\/cluster\/apps\/(application_\d+_\d+)$/.exec(path);
      if (one && this.apps.has(one[1]!)) return json(200, JSON.stringify({ app: this.apps.get(one[1]!) }));
    }
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps/new-application') {
      const { body } = rm.newApplication(this.t, ++this.seq);
      return json(200, body, {}, xml ? rm.asXml(body, 'NewApplication') : undefined);
    }
    if (req.method === 'POST' && path === '/ws/v1/cluster/apps') {
      const s = rm.parseSubmission(body);
      this.apps.set(s.id, {
        ...rm.submittedApp(this.t, s),
        // Started over the last 10 minutes, a second apart, as a steady stream of deadline apps.
        startedTime: Date.now() - 600_000 + this.seq * 1000,
        finishedTime: 0,
      });
      this.cache.clear();
      return json(202, '', { location: `${this.url}/ws/v1/cluster/apps/${s.id}` });
    }
    const prio = rm.priorityWrite(req);
    if (prio !== null) {
      const app = this.apps.get(prio.id);
      if (app) app.priority = prio.priority;
      this.cache.clear();
      const answer = JSON.stringify({ priority: prio.priority });
      return json(200, answer, {}, xml ? rm.asXml(answer, 'appPriority') : undefined);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(rm.notFoundBody(path));
  }
}

/**
 * bench/poll-child.ts compiled into DIR/child (with the bench modules it imports, none of src/),
 * so the sidecar runs under plain node as deployed, without a TypeScript loader's memory and hooks.
 */
function compileChild(dir: string): string {
  const out = join(dir, 'child');
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'tsc'),
    [
      join(__dirname, 'poll-child.ts'),
      '--outDir',
      out,
      '--rootDir',
      __dirname,
      '--target',
      'ES2022',
      '--module',
      'commonjs',
      '--esModuleInterop',
      '--skipLibCheck',
      '--types',
      'node',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return join(out, 'poll-child.js');
}

interface ChildResult {
  cycles: number[];
  /** Each cycle's longest stretch without a turn of the event loop. */
  blocks: number[];
  /** Each cycle's CPU time in the sidecar's process (user and system, every thread). */
  cpu: number[];
  /** Each cycle's GET requests sent again with node:http and parsed, nothing else (poll-child's floorTimes; JSON only). */
  floor: number[];
  rssMb: number;
  /** The child's peak RSS (its start, the deadline apps' submission, every cycle). */
  peakMb: number;
}

type Format = 'json' | 'xml';

function child(script: string, root: string, rmUrl: string, format: Format): Promise<ChildResult> {
  return new Promise((ok, fail) => {
    const gc = process.env.YSS_BENCH_MEMORY === 'gc' ? ['--expose-gc'] : [];
    const args = [script, root, rmUrl, String(DEADLINE_APPS), String(CYCLES), format];
    const p = spawn(process.execPath, [...gc, ...args], {
      cwd: root,
      // As the tree's image runs the sidecar (NODE_ENV, NODE_OPTIONS: docker/Dockerfile).
      env: { ...process.env, ...deployedEnv(root) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => {
      if (process.env.YSS_BENCH_MEMORY) process.stderr.write(d);
      err = (err + d.toString()).slice(-4000);
    });
    p.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) ok(JSON.parse(line) as ChildResult);
      else fail(new Error(`poll-child exited ${code}: ${err}`));
    });
  });
}

/** q-th quantile (nearest rank), q in [0, 1]. */
const quantile = (xs: readonly number[], q: number) => percentile(xs, q * 100);

/** JSON.parse of each cycle's bytes, the median of 3 timings each. */
function parseTimes(fetched: readonly string[][]): { ms: number[]; mb: number[] } {
  const ms: number[] = [];
  const mb: number[] = [];
  for (const bodies of fetched) {
    const t: number[] = [];
    for (let r = 0; r < 3; r++) {
      const s = process.hrtime.bigint();
      for (const b of bodies) if (b !== '') JSON.parse(b);
      t.push(msSince(s));
    }
    ms.push(quantile(t, 0.5));
    mb.push(bodies.reduce((a, b) => a + Buffer.byteLength(b), 0) / MB);
  }
  return { ms, mb };
}

interface Measured {
  cycles: number[];
  blocks: number[];
  cpu: number[];
  floor: number[];
  parses: number[];
  mb: number[];
  rss: number[];
  peak: number[];
}

/** Every scenario, base and this tree alternating; the rows of bench/results.json. */
export async function pollRows(): Promise<BenchRow[]> {
  const t = await rm.captureTemplates('/ws/v1/cluster/apps?deSelects=resourceRequests');
  const dir = mkdtempSync(join(tmpdir(), 'yss-poll-bench-'));
  const rows: BenchRow[] = [];
  try {
    const base = exportBaseTree(dir);
    const script = compileChild(dir);
    build(ROOT);
    if (!process.env.YSS_BENCH_THIS_ONLY) build(base.root);
    const trees = [
      { label: `base ${base.commit}`, root: base.root },
      { label: 'this', root: ROOT },
    ].filter((x) => !process.env.YSS_BENCH_THIS_ONLY || x.root === ROOT);
    const scenarios: Array<{ format: Format; apps: number; nodes: number; rmKind: 'filters' | 'ignoring' }> =
      [
        ...SIZES.flatMap(([apps, nodes]) =>
          RMS.map((rmKind) => ({ format: 'json' as const, apps, nodes, rmKind })),
        ),
        ...XML_SIZES.map(([apps, nodes]) => ({
          format: 'xml' as const,
          apps,
          nodes,
          rmKind: 'filters' as const,
        })),
      ];
    for (const { format, apps, nodes, rmKind } of scenarios) {
      const m = new Map<string, Measured>(
        trees.map((x) => [
          x.label,
          { cycles: [], blocks: [], cpu: [], floor: [], parses: [], mb: [], rss: [], peak: [] },
        ]),
      );
      for (let run = 0; run < RUNS; run++) {
        for (const tree of trees) {
          const stub = new StubRm(t, { apps, nodes }, rmKind === 'filters');
          await stub.start();
          try {
            const r = await child(script, tree.root, stub.url, format);
            const into = m.get(tree.label)!;
            if (format === 'json') {
              const p = parseTimes(stub.fetched);
              into.parses.push(...p.ms);
              into.mb.push(...p.mb);
            }
            into.cycles.push(...r.cycles);
            into.blocks.push(...r.blocks);
            into.cpu.push(...r.cpu);
            into.floor.push(...r.floor);
            into.rss.push(r.rssMb);
            into.peak.push(r.peakMb);
          } finally {
            await stub.close();
          }
        }
      }
      const baseMedian = quantile(m.get(trees[0]!.label)!.cycles, 0.5);
      const baseBlockP99 = quantile(m.get(trees[0]!.label)!.blocks, 0.99);
      const basePeak = quantile(m.get(trees[0]!.label)!.peak, 0.5);
      for (const tree of trees) {
        const x = m.get(tree.label)!;
        const history = Number(process.env.YSS_BENCH_HISTORY ?? 0);
        const name =
          `poll ${apps / 1000}k apps ${nodes} nodes, RM ${rmKind === 'filters' ? 'with filters' : 'ignoring filters'}` +
          (format === 'xml' ? ', in XML' : '') +
          (history > 0 ? `, ${history} ended jobs in the ledger` : '');
        const cycle = quantile(x.cycles, 0.5);
        rows.push({
          name: `${name}: cycle (${tree.label})`,
          unit: 'ms',
          median: cycle,
          p99: quantile(x.cycles, 0.99),
          ratio: tree.label === 'this' ? cycle / baseMedian : null,
          rssMB: quantile(x.rss, 0.5),
        });
        // The highest RSS of the sidecar's process over its run (start, submissions, cycles).
        rows.push({
          name: `${name}: peak RSS (${tree.label})`,
          unit: 'MB',
          median: quantile(x.peak, 0.5),
          p99: Math.max(...x.peak),
          ratio: tree.label === 'this' ? quantile(x.peak, 0.5) / basePeak : null,
          rssMB: quantile(x.peak, 0.5),
        });
        const json = format === 'json';
        if (json)
          rows.push({
            name: `${name}: JSON.parse of the bytes fetched (${tree.label}, ${quantile(x.mb, 0.5).toFixed(2)} MB)`,
            unit: 'ms',
            median: quantile(x.parses, 0.5),
            p99: quantile(x.parses, 0.99),
            ratio: cycle / quantile(x.parses, 0.5),
            rssMB: null,
          });
        // What of a cycle is the sidecar's own work (the rest is waiting for the RM), beside the parse.
        rows.push({
          name: `${name}: sidecar CPU per cycle (${tree.label})`,
          unit: 'ms',
          median: quantile(x.cpu, 0.5),
          p99: quantile(x.cpu, 0.99),
          ratio: json ? quantile(x.cpu, 0.5) / quantile(x.parses, 0.5) : null,
          rssMB: null,
        });
        // What any Node client pays for the same reads: their answers fetched and parsed, no more.
        if (json)
          rows.push({
            name: `${name}: floor: its reads by node:http + JSON.parse only (${tree.label})`,
            unit: 'ms',
            median: quantile(x.floor, 0.5),
            p99: quantile(x.floor, 0.99),
            ratio: cycle / quantile(x.floor, 0.5),
            rssMB: null,
          });
        // The p99 is a capacity read's cycle (one in loop.capacityReadEvery).
        rows.push({
          name: `${name}: longest event-loop block (${tree.label})`,
          unit: 'ms',
          median: quantile(x.blocks, 0.5),
          p99: quantile(x.blocks, 0.99),
          ratio: tree.label === 'this' ? quantile(x.blocks, 0.99) / baseBlockP99 : null,
          rssMB: null,
        });
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
    `median and p99 over ${CYCLES} steady cycles x ${RUNS} runs per tree (alternating); ratio: cycle / base cycle, ` +
      'cycle / JSON.parse of its bytes, CPU / that parse, cycle / floor, or p99 block / base p99 block',
  );
  for (const r of rows)
    console.log(
      `${r.name.padEnd(100)} ${f(r.median).padStart(8)} ${r.unit}  p99 ${f(r.p99).padStart(8)}  ratio ${f(r.ratio, 2).padStart(6)}  rss ${f(r.rssMB, 0).padStart(5)} MB`,
    );
}

export default async function bench(): Promise<void> {
  const rows = await pollRows();
  printRows(rows);
  // A JSON.parse row has no sidecar RSS of its own: it ran here, so it gets this process's.
  for (const r of rows) recordResult({ ...r, rssMB: r.rssMB ?? undefined });
}
