/**
 * The sidecar under load, side by side with an earlier commit (reported as
 * measured, not asserted).
 *
 * Three processes on loopback: an emulated RM (`yarn-sched-sidecar emulator`, 6 nodes, time
 * scaled SPEED times), the sidecar (`yarn-sched-sidecar start`, compiled, with its SQLite
 * ledger) and this process, which drives the load with autocannon. Each tree is built with
 * `tsc` and run the way an operator runs it; the emulator is always this tree's, so both
 * sidecars face the same RM.
 *
 * Per tree and run:
 *  1. submissions: CLIENTS concurrent clients post recorded submissions (each its own name,
 *     deadlines spread over 1 min to 2 h, so some are admitted and the rest rejected with their
 *     earliest feasible deadline) for PHASE_SECONDS; latency percentiles and answers/s.
 *  2. reads: CLIENTS clients read the API (job list pages, single jobs, the cluster, the stats)
 *     for PHASE_SECONDS.
 *  3. volume: recorded submissions until TOTAL have been answered, then the reads again (with a
 *     ledger of TOTAL jobs behind them), and the sidecar's resident memory (VmRSS; VmHWM is the
 *     peak) once the load has stopped and one poll cycle has passed. The sidecar runs with the
 *     default configuration (poll every 5 s, log level info) but for its addresses and token.
 *
 * The trees alternate (base, this, base, this, ...) so both see the same machine; every figure
 * is the median over RUNS runs.
 *
 * Environment: YSS_BENCH_BASE (the commit to compare with; default HEAD when the working tree
 * has changes, HEAD~1 when it has none), YSS_BENCH_RUNS (default 2), YSS_BENCH_TOTAL (default
 * 100000), YSS_BENCH_PHASE_SECONDS (default 10).
 */
import autocannon from 'autocannon';
import {
  answersOf,
  benchSubmission,
  int,
  memoryOf,
  startStack,
  type Answers,
  type Tree,
  withTrees,
} from './processes';
import { recordResult } from './results';
import { median, recordFigure, TOKEN } from './support';

const CLIENTS = 64;
const SPEED = 60;
const RUNS = int('YSS_BENCH_RUNS', 2);
const TOTAL = int('YSS_BENCH_TOTAL', 100_000);
const PHASE_SECONDS = int('YSS_BENCH_PHASE_SECONDS', 10);

interface Phase extends Answers {
  answers: number;
}

const phaseOf = (r: autocannon.Result): Phase => ({ ...answersOf(r), answers: r.requests.total });

class Submissions {
  next = 0;
  admitted = 0;
  rejected = 0;
  /** Ids of recorded jobs, for the reads. */
  readonly ids: string[] = [];
  firstError: string | undefined;

  constructor(private readonly tag: string) {}

  body(): string {
    const i = this.next++;
    return benchSubmission(`load-${this.tag}-${i}`, i);
  }

  /** Answers by HTTP status. */
  readonly statuses = new Map<number, number>();

  answered(status: number, body: string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 300 && this.firstError === undefined) this.firstError = `${status} ${body.slice(0, 300)}`;
    try {
      const b = JSON.parse(body) as { decision?: string; id?: string };
      if (b.decision === 'admitted') this.admitted++;
      else if (b.decision === 'rejected') this.rejected++;
      if (b.id && this.ids.length < 10_000) this.ids.push(b.id);
    } catch {
      // counted as bad by autocannon's status
    }
  }
}

const auth = { authorization: `Bearer ${TOKEN}` };

function submit(url: string, subs: Submissions, limit: { amount?: number; duration?: number }) {
  return autocannon({
    url,
    connections: CLIENTS,
    ...(limit.amount !== undefined ? { amount: limit.amount } : { duration: limit.duration }),
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/jobs',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: subs.body() }),
        onResponse: (status, body) => subs.answered(status, body),
      },
    ],
  });
}

function read(url: string, ids: readonly string[]) {
  let k = 0;
  const paths = () => {
    const i = k++;
    switch (i % 5) {
      case 0:
        return '/api/v1/jobs?limit=50';
      case 1:
        return `/api/v1/jobs?limit=50&offset=${(i * 37) % 5000}&decision=rejected`;
      case 2:
        return `/api/v1/jobs/${encodeURIComponent(ids[i % ids.length] ?? 'none')}`;
      case 3:
        return '/api/v1/cluster';
      default:
        return '/api/v1/stats';
    }
  };
  return autocannon({
    url,
    connections: CLIENTS,
    duration: PHASE_SECONDS,
    timeout: 30,
    requests: [{ method: 'GET', headers: auth, setupRequest: (req) => ({ ...req, path: paths() }) }],
  });
}

interface RunResult {
  submissions: Phase;
  reads: Phase;
  volume: Phase;
  readsAtTotal: Phase;
  recorded: number;
  admitted: number;
  rejected: number;
  rss: number;
  peak: number;
}

async function oneRun(tree: Tree, emulatorRoot: string, dir: string): Promise<RunResult> {
  const { url, pid, close } = await startStack(tree, emulatorRoot, dir, { speed: SPEED });
  try {
    const subs = new Submissions(tree.label);
    const submissions = phaseOf(await submit(url, subs, { duration: PHASE_SECONDS }));
    const reads = phaseOf(await read(url, subs.ids));
    const rest = TOTAL - subs.next;
    const volume = rest > 0 ? phaseOf(await submit(url, subs, { amount: rest })) : submissions;
    const readsAtTotal = phaseOf(await read(url, subs.ids));
    // One poll cycle with no load (the default poll runs every 5 s).
    await new Promise((r) => setTimeout(r, 6_000));
    const mem = memoryOf(pid);
    if (subs.firstError !== undefined)
      console.log(
        `  answers by status ${JSON.stringify(Object.fromEntries(subs.statuses))}; first: ${subs.firstError}`,
      );
    return {
      submissions,
      reads,
      volume,
      readsAtTotal,
      recorded: subs.admitted + subs.rejected,
      admitted: subs.admitted,
      rejected: subs.rejected,
      ...mem,
    };
  } finally {
    await close();
  }
}

const PHASES: ReadonlyArray<[string, (r: RunResult) => Phase]> = [
  [`submissions (${PHASE_SECONDS} s)`, (r) => r.submissions],
  [`reads (${PHASE_SECONDS} s)`, (r) => r.reads],
  [`submissions up to ${TOTAL}`, (r) => r.volume],
  [`reads with ${TOTAL} jobs recorded`, (r) => r.readsAtTotal],
];

/** Prints a tree's medians and records them; `base`, the base tree's runs, gives this tree's ratios. */
function report(tree: Tree, runs: RunResult[], base?: RunResult[]): void {
  const m = (f: (r: RunResult) => number) => median(runs.map(f));
  const f0 = (x: number) => x.toFixed(0);
  const phase = (name: string, f: (r: RunResult) => Phase) =>
    `  ${name}: ${f0(m((r) => f(r).perSecond))} answers/s, p50 ${f0(m((r) => f(r).p50))} ms, ` +
    `p99 ${f0(m((r) => f(r).p99))} ms, max ${f0(m((r) => f(r).max))} ms, ` +
    `${f0(m((r) => f(r).bad))} not 2xx of ${f0(m((r) => f(r).answers))}`;
  console.log(`${tree.label} (${tree.commit}):`);
  for (const [name, f] of PHASES) console.log(phase(name, f));
  console.log(
    `  recorded ${f0(m((r) => r.recorded))} (admitted ${f0(m((r) => r.admitted))}, rejected ${f0(m((r) => r.rejected))}); ` +
      `sidecar RSS after ${f0(m((r) => r.recorded))} submissions ${f0(m((r) => r.rss))} MB (peak ${f0(m((r) => r.peak))} MB)`,
  );
  // Rows for bench/results.json: latency (ratio: base over this) and answers/s (this over base).
  const rssMB = m((r) => r.rss);
  const ofBase = (f: (r: RunResult) => number) => (base ? median(base.map(f)) : undefined);
  for (const [name, f] of PHASES) {
    const row = `load ${CLIENTS} clients, ${name} (${tree.label} ${tree.commit})`;
    const p50 = m((r) => f(r).p50);
    const baseP50 = ofBase((r) => f(r).p50);
    recordResult({
      name: `${row}: latency`,
      unit: 'ms',
      median: p50,
      p99: m((r) => f(r).p99),
      ratio: baseP50 === undefined ? null : baseP50 / p50,
      rssMB,
    });
    const perSecond = m((r) => f(r).perSecond);
    const basePerSecond = ofBase((r) => f(r).perSecond);
    recordFigure(`${row}: throughput`, 'answers/s', perSecond, {
      ratio: basePerSecond === undefined ? null : perSecond / basePerSecond,
      rssMB,
    });
  }
}

export default async function bench(): Promise<void> {
  await withTrees('yss-load-', async ({ base, here, dir }) => {
    console.log(
      `${CLIENTS} concurrent clients on loopback, emulated RM at ${SPEED}x behind; ` +
        `median of ${RUNS} runs per tree, alternating ${base.commit} and ${here.commit}`,
    );
    const results = new Map<Tree, RunResult[]>([
      [base, []],
      [here, []],
    ]);
    for (let r = 0; r < RUNS; r++) {
      for (const tree of [base, here]) {
        const res = await oneRun(tree, here.root, dir);
        console.log(
          `  run ${r + 1} ${tree.label}: submissions p99 ${res.submissions.p99} ms, reads p99 ${res.reads.p99} ms, ` +
            `RSS ${res.rss.toFixed(0)} MB after ${res.recorded}`,
        );
        results.get(tree)!.push(res);
      }
    }
    for (const [tree, runs] of results) report(tree, runs, tree === here ? results.get(base) : undefined);
  });
}
