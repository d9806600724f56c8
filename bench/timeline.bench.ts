/**
 * Recorded submissions at 16 clients over time: where in a run the slow
 * answers fall. This tree only: an emulated RM at 60x and the sidecar (`start`, compiled), as in
 * submissions.bench.ts, and this process as the clients, which times every answer itself
 * (autocannon gives no per-request times). Every 250 ms it also reads the sidecar's /metrics:
 * a window in which jobs ended (`yss_deadline_outcomes_total` grew) is one where a poll found
 * them, learnt from their tasks (JobHistory reads), freed their capacity, admitted new jobs into
 * it and submitted those to the RM; the others hold rejections only. It prints the latencies in
 * each kind of window and over the run, records them as rows, and draws the run as a picture
 * (YSS_BENCH_TIMELINE_PNG, default bench/timeline.png): per window, the median and the slowest
 * answer, the windows in which jobs ended shaded.
 *
 * Environment: YSS_BENCH_TIMELINE_SECONDS (default 20), YSS_BENCH_TIMELINE_CLIENTS (default 16),
 * YSS_BENCH_WARMUP_SECONDS (default 4, unmeasured, as in submissions.bench.ts), YSS_BENCH_NODE_ARGS
 * (more arguments for the sidecar's node, space-separated), YSS_BENCH_CPU_PROF
 * (a folder: the sidecar runs with --cpu-prof and writes its profile there), YSS_BENCH_SYNC_US
 * (the sidecar's disk syncs that many microseconds slower: bench/slow-sync.c).
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../src/sim/plot/render';
import { svgToPng } from '../src/sim/png';
import { benchSubmission, int, memoryOf, startStack, thisTree } from './processes';
import { percentile, recordResult } from './results';
import { ROOT, TOKEN } from './support';

const SECONDS = int('YSS_BENCH_TIMELINE_SECONDS', 20);
const CLIENTS = int('YSS_BENCH_TIMELINE_CLIENTS', 16);
const WARMUP_SECONDS = int('YSS_BENCH_WARMUP_SECONDS', 4, { zero: true });
const PNG = resolve(process.env.YSS_BENCH_TIMELINE_PNG || join(ROOT, 'bench/timeline.png'));
const WINDOW_MS = 250;

/** One answer: when its request went out (ms since the run began) and how long it took. */
type Answer = [startMs: number, ms: number];

/** POSTs recorded submissions from `clients` loops for `seconds`; every answer's time. */
async function drive(
  url: string,
  tag: string,
  clients: number,
  seconds: number,
  t0: number,
): Promise<Answer[]> {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const answers: Answer[] = [];
  let i = 0;
  let failure: string | undefined;
  const post = (body: string): Promise<void> =>
    new Promise((done, fail) => {
      const start = performance.now();
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: '/api/v1/jobs',
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200 && res.statusCode !== 201) failure ??= `answered ${res.statusCode}`;
            answers.push([start - t0, performance.now() - start]);
            done();
          });
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  const until = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < until) await post(benchSubmission(`${tag}-${i}`, i++));
  };
  await Promise.all(Array.from({ length: clients }, loop));
  agent.destroy();
  if (failure !== undefined) throw new Error(`timeline: a submission was ${failure}`);
  return answers;
}

/** The sidecar's count of ended jobs (every outcome), read from its /metrics. */
function endedJobs(url: string): Promise<number> {
  return new Promise((done, fail) => {
    http
      .get(`${url}/metrics`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let n = 0;
          for (const line of text.split('\n'))
            if (line.startsWith('yss_deadline_outcomes_total'))
              n += Number(line.slice(line.lastIndexOf(' ') + 1));
          done(n);
        });
      })
      .on('error', fail);
  });
}

/** q-th quantile (nearest rank, as the other benches), q in [0, 1]. */
const quantile = (xs: readonly number[], q: number): number =>
  xs.length === 0 ? NaN : percentile(xs, q * 100);

interface Window {
  fromMs: number;
  ended: boolean;
  answers: number;
  p50: number;
  max: number;
}

/** The run cut into windows of WINDOW_MS by when each answer came back, each marked by whether jobs ended in it. */
function windows(answers: readonly Answer[], endedAt: ReadonlySet<number>): Window[] {
  const by = new Map<number, number[]>();
  for (const [start, ms] of answers) {
    const k = Math.floor((start + ms) / WINDOW_MS);
    let list = by.get(k);
    if (!list) by.set(k, (list = []));
    list.push(ms);
  }
  return [...by.keys()]
    .sort((a, b) => a - b)
    .map((k) => {
      const ms = by.get(k)!.sort((a, b) => a - b);
      return {
        fromMs: k * WINDOW_MS,
        ended: endedAt.has(k),
        answers: ms.length,
        p50: quantile(ms, 0.5),
        max: ms.at(-1)!,
      };
    });
}

function spec(ws: readonly Window[], title: string): TopLevelSpec {
  const s = (w: Window) => Math.round(w.fromMs / 10) / 100;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 640,
    height: 280,
    config: { font: 'DejaVu Sans' },
    layer: [
      {
        data: { values: ws.filter((w) => w.ended).map((w) => ({ from: s(w), to: s(w) + WINDOW_MS / 1000 })) },
        mark: { type: 'rect', color: '#E69F00', opacity: 0.25 },
        encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' } },
      },
      {
        data: {
          values: ws.flatMap((w) => [
            { t: s(w), ms: w.p50, series: 'median answer' },
            { t: s(w), ms: w.max, series: 'slowest answer' },
          ]),
        },
        mark: { type: 'line', point: { size: 12 } },
        encoding: {
          x: {
            field: 't',
            type: 'quantitative',
            title: 's since the measured run began (shaded: 250 ms windows in which jobs ended)',
          },
          y: { field: 'ms', type: 'quantitative', title: 'ms per answer, per 250 ms window' },
          color: {
            field: 'series',
            type: 'nominal',
            title: null,
            scale: { range: ['#0072B2', '#D55E00'] },
            legend: { orient: 'bottom' },
          },
        },
      },
    ],
  };
}

export default async function timelineBench(): Promise<void> {
  const tree = thisTree();
  const dir = mkdtempSync(join(tmpdir(), 'yss-timeline-'));
  const prof = process.env.YSS_BENCH_CPU_PROF;
  const nodeArgs = [
    ...(prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(prof)]),
    ...(process.env.YSS_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
  ];
  const stack = await startStack(tree, tree.root, dir, { speed: 60, nodeArgs });
  try {
    if (WARMUP_SECONDS > 0) await drive(stack.url, 'warm', CLIENTS, WARMUP_SECONDS, performance.now());
    const t0 = performance.now();
    const endedAt = new Set<number>();
    let last = await endedJobs(stack.url);
    let sampling = Promise.resolve();
    const sampler = setInterval(() => {
      const k = Math.floor((performance.now() - t0) / WINDOW_MS);
      sampling = sampling.then(async () => {
        const n = await endedJobs(stack.url);
        // Counted when read: the jobs ended in the window that just closed.
        if (n > last) endedAt.add(k - 1);
        last = n;
      });
    }, WINDOW_MS);
    const answers = await drive(stack.url, 'run', CLIENTS, SECONDS, t0);
    clearInterval(sampler);
    await sampling;
    const ws = windows(answers, endedAt);
    const endedWindows = new Set(ws.filter((w) => w.ended).map((w) => w.fromMs));
    const ms = (which: 'all' | 'ended' | 'rejections only') =>
      answers
        .filter(([start, t]) => {
          if (which === 'all') return true;
          const ended = endedWindows.has(Math.floor((start + t) / WINDOW_MS) * WINDOW_MS);
          return which === 'ended' ? ended : !ended;
        })
        .map(([, t]) => t)
        .sort((a, b) => a - b);
    const { rss, peak } = memoryOf(stack.pid);
    console.log(
      `recorded submissions at ${CLIENTS} clients for ${SECONDS} s (${tree.commit}), emulated RM at 60x: ` +
        `${Math.round(answers.length / SECONDS)} answers/s; jobs ended in ${endedWindows.size} of ${ws.length} windows of ${WINDOW_MS} ms; sidecar RSS ${Math.round(rss)} MB (peak ${Math.round(peak)} MB)`,
    );
    for (const which of ['all', 'rejections only', 'ended'] as const) {
      const v = ms(which);
      const f = (q: number) => quantile(v, q).toFixed(1);
      const label =
        which === 'all'
          ? 'every window'
          : which === 'ended'
            ? 'windows in which jobs ended'
            : 'the other windows';
      console.log(
        `  ${label}: ${v.length} answers, p50 ${f(0.5)} ms, p90 ${f(0.9)} ms, p99 ${f(0.99)} ms, max ${f(1)} ms`,
      );
      recordResult({
        name: `timeline: recorded submissions, ${CLIENTS} clients, ${label} (this)`,
        unit: 'ms',
        median: quantile(v, 0.5),
        p99: quantile(v, 0.99),
        rssMB: Math.round(rss),
      });
    }
    const svg = await renderSvg(
      spec(ws, `Recorded submissions at ${CLIENTS} clients, emulated RM at 60x (${tree.commit})`),
    );
    writeFileSync(PNG, svgToPng(svg));
    console.log(`  picture: ${PNG}`);
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
