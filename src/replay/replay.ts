import { getHeapStatistics } from 'node:v8';
import type { SidecarConfig } from '../config/schema';
import { defaultRegistry } from '../core/registry';
import { ValidationError } from '../errors/validation';
import { runPolicies, type RunResult } from '../sim/driver';
import type { JobOutcome } from '../sim/engine';
import type { ClusterSpec } from '../sim/model';
import type { PolicySpec } from '../sim/policies';
import { cellOf, MemoryCells, type PolicyCell, type PolicyCellStore } from './cells';
import { judgeAtArrival, type JudgedAtArrival } from './estimates';
import { LEFT_OUT_TEXT, type ClusterShape, type HistoryJob, type LeftOut } from './history';
import type { HistoryRead } from './read';
import {
  cpuContainers,
  workloadOf,
  type DeadlineRules,
  type DeadlineSource,
  type ReplayWorkload,
} from './workload';

/**
 * The replay (docs/replay.md): a window of history as a workload, judged with what the sidecar
 * knew at each arrival, run in the simulator under FIFO as the jobs really ran and under every
 * admission policy; the fidelity of the first (each job's simulated finish against its real
 * one), and per policy what it would have admitted, met and missed.
 */

/** The label of the run of the cluster's own order: no admission, FIFO, the real task times. */
export const AS_RAN = 'as-ran';

export interface ReplayInput {
  readonly history: HistoryRead;
  readonly cluster: ClusterSpec;
  /** The cluster as read from the RM (reported), when it was. */
  readonly shape?: ClusterShape;
  readonly containerMb: number;
  readonly leftOutNodes?: readonly string[];
  readonly config: SidecarConfig;
  readonly rules: DeadlineRules;
  /** Admission policies (registry names) besides the as-ran run; default every registered one. */
  readonly policies?: readonly string[];
  readonly window: { readonly fromMs: number; readonly toMs: number };
  readonly seed?: number;
  /**
   * Where each run's per-job cells go as soon as it ends (default: memory). The command spills
   * them to files (FileCells), so no two runs' outcomes are held at once.
   */
  readonly cells?: PolicyCellStore;
  readonly onProgress?: (phase: string, done: number, total: number) => void;
}

/** Runs of histories up to this many jobs are kept whole (ReplayResult.smallRuns: the Gantt plots). */
export const SMALL_HISTORY = 400;

/** Each job's |simulated - real| / real duration, in the as-ran run. */
export interface Fidelity {
  /** Jobs compared (finished in the run, real duration > 0). */
  readonly jobs: number;
  /** Median of |error| (0.05: 5 %). */
  readonly medianAbsError: number | null;
  /** Median of the signed error (> 0: the simulation finishes later than the real run). */
  readonly medianError: number | null;
  readonly p90AbsError: number | null;
  readonly maxAbsError: number | null;
  /** Share of jobs within 10 %. */
  readonly within10: number | null;
  /** Share of jobs per bucket of |error|. */
  readonly buckets: ReadonlyArray<{ readonly label: string; readonly jobs: number; readonly share: number }>;
  /** The jobs furthest off: id, real and simulated duration (s), error. */
  readonly worst: ReadonlyArray<{
    readonly id: string;
    readonly real: number;
    readonly simulated: number;
    readonly error: number;
  }>;
  /** Whether the median is within 10 %. */
  readonly ok: boolean | null;
}

export interface PolicyFigures {
  readonly jobs: number;
  readonly admitted: number;
  readonly rejected: number;
  /** Admitted and finished by its deadline (a job without one counts when it finishes). */
  readonly met: number;
  /** Admitted and finished late. */
  readonly missed: number;
  /** Jobs without a deadline (refused by a policy that promises deadlines). */
  readonly noDeadline: number;
  readonly utilization: number | null;
  readonly acceptRatio: number | null;
  readonly successRatio: number | null;
}

export interface ReplayJobRow {
  readonly id: string;
  readonly name: string;
  readonly user: string;
  readonly queue: string;
  readonly source: HistoryJob['source'];
  readonly submit: string;
  /** Real duration, submission to finish, s. */
  readonly realSeconds: number;
  readonly deadlineSeconds: number | null;
  readonly deadlineSource: DeadlineSource;
  /** Met in reality (finished by its deadline), null without one. */
  readonly realMet: boolean | null;
  readonly estimateFrom: string | null;
  /** Its duration estimated alone with what was known at its arrival, s. */
  readonly estimateAloneSeconds: number | null;
  readonly policies: Record<string, PolicyCell>;
}

export interface ReplayReport {
  readonly format: 'yarn-sched-sidecar-replay';
  readonly version: 1;
  readonly window: { readonly from: string; readonly to: string };
  readonly jobs: number;
  readonly bySource: Readonly<Record<string, number>>;
  readonly leftOut: ReadonlyArray<LeftOut & { readonly text: string }>;
  readonly clockSkew: HistoryRead['skew'] & { readonly tasksBeforeSubmit: number };
  readonly requests: number;
  readonly cluster: {
    readonly containerMb: number;
    readonly heartbeatSeconds: number;
    readonly nodeClasses: ReadonlyArray<{
      readonly name: string;
      readonly count: number;
      readonly containers: number;
      readonly labels: readonly string[];
    }>;
    readonly leftOutNodes: readonly string[];
    readonly queues: ClusterShape['queues'];
  };
  readonly deadlines: Readonly<Record<DeadlineSource, number>>;
  readonly estimates: Readonly<Record<string, number>>;
  readonly fidelity: Fidelity;
  readonly policies: Readonly<Record<string, PolicyFigures>>;
  readonly wallMs: {
    readonly learning: number;
    readonly simulation: number;
    /** Each run's own wall time, ms. */
    readonly runs: Readonly<Record<string, number>>;
  };
  /** The process the replay ran in: its heap's limit and its peak RSS by the end of the runs, MB. */
  readonly memory: { readonly heapLimitMb: number; readonly peakRssMb: number };
}

export interface ReplayResult {
  readonly report: ReplayReport;
  readonly workload: ReplayWorkload;
  readonly judged: readonly JudgedAtArrival[];
  /**
   * The as-ran and RTMR runs whole, for a history of at most SMALL_HISTORY jobs (the Gantt
   * plots); empty beyond it: each run's outcomes are let go once its cells are stored.
   */
  readonly smallRuns: readonly RunResult[];
  /** Per job, what it was and what each policy did to it (read from the cell store). */
  readonly rows: () => Iterable<ReplayJobRow>;
}

/** Every admission policy of the registry, by name. */
export function allAdmissionPolicies(): string[] {
  return defaultRegistry().names('admission');
}

/** Checks policy names against the registry (a ValidationError lists the known ones). */
export function checkPolicies(names: readonly string[]): void {
  const known = allAdmissionPolicies();
  const bad = names.filter((n) => !known.includes(n));
  if (bad.length > 0)
    throw new ValidationError(
      bad.map((n) => ({
        path: '--policies',
        message: `unknown admission policy "${n}"; known: ${known.join(', ')}`,
      })),
    );
}

/** Runs the replay (see the module's comment). */
export function replay(input: ReplayInput): ReplayResult {
  const jobs = input.history.jobs;
  checkNotEmpty(input);
  const policies = input.policies ?? allAdmissionPolicies();
  checkPolicies(policies);
  const t0 = Date.now();
  const judged = judgeAtArrival(jobs, {
    config: input.config,
    containers: cpuContainers(input.cluster),
    onProgress: (d, t) => input.onProgress?.('learning', d, t),
  });
  const t1 = Date.now();
  const workload = workloadOf(jobs, judged, input.rules);
  const specs: PolicySpec[] = [
    { label: AS_RAN, admission: null, placement: 'fifo' },
    ...policies.map((p) => ({ label: p, admission: p, placement: 'fifo' })),
  ];
  const cells = input.cells ?? new MemoryCells();
  const runs = runEach(input, workload, specs, cells);
  const t2 = Date.now();
  const report = reportOf(input, workload, judged, runs, {
    learning: t1 - t0,
    simulation: t2 - t1,
    runs: runs.runMs,
  });
  const labels = specs.map((s) => s.label);
  return {
    report,
    workload,
    judged,
    smallRuns: runs.smallRuns,
    rows: () => rowsOf(jobs, judged, workload, labels, cells),
  };
}

/** A window with no job to replay is bad input, saying what was left out. */
function checkNotEmpty(input: ReplayInput): void {
  const { history, window } = input;
  if (history.jobs.length > 0) return;
  throw new ValidationError([
    {
      path: 'window',
      message: `no finished job to replay between ${new Date(window.fromMs).toISOString()} and ${new Date(window.toMs).toISOString()}${history.leftOut.length > 0 ? ` (${history.leftOut.map((l) => `${l.count} ${l.reason}`).join(', ')})` : ''}`,
    },
  ]);
}

/** What the runs leave: each policy's figures and wall time, the fidelity, the small runs whole. */
interface Runs {
  readonly figures: Record<string, PolicyFigures>;
  readonly runMs: Record<string, number>;
  readonly fidelity: Fidelity;
  readonly smallRuns: RunResult[];
}

/** One policy at a time: its outcomes become figures and cells, then are let go. */
function runEach(
  input: ReplayInput,
  workload: ReplayWorkload,
  specs: readonly PolicySpec[],
  cells: PolicyCellStore,
): Runs {
  const jobs = input.history.jobs;
  const figures: Record<string, PolicyFigures> = {};
  const runMs: Record<string, number> = {};
  const smallRuns: RunResult[] = [];
  let fidelity: Fidelity | undefined;
  for (const spec of specs) {
    const [run] = runPolicies({
      cluster: input.cluster,
      jobs: workload.jobs,
      specs: [spec],
      seed: input.seed ?? 1,
      estimateModel: input.config.admission.estimateModel,
      // Each job carries what was learned by its arrival: nothing is learned during a run.
      learning: null,
      searchEarliest: true,
      onProgress: (label, done, total) => input.onProgress?.(label, done, total),
    }) as [RunResult];
    figures[spec.label] = figuresOf(run);
    runMs[spec.label] = Math.round(run.wallMs);
    if (spec.label === AS_RAN) fidelity = fidelityOf(jobs, workload, run.outcomes);
    cells.put(spec.label, mapped(run.outcomes, cellOf));
    if (jobs.length <= SMALL_HISTORY && (spec.label === AS_RAN || spec.label === 'rtmr')) smallRuns.push(run);
  }
  return { figures, runMs, fidelity: fidelity as Fidelity, smallRuns };
}

/** How many of each key. */
function count<K extends string>(keys: readonly K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

/** The report (replay.json) of the runs. */
function reportOf(
  input: ReplayInput,
  workload: ReplayWorkload,
  judged: readonly JudgedAtArrival[],
  runs: Runs,
  wallMs: ReplayReport['wallMs'],
): ReplayReport {
  const { history } = input;
  const jobs = history.jobs;
  return {
    format: 'yarn-sched-sidecar-replay',
    version: 1,
    window: {
      from: new Date(input.window.fromMs).toISOString(),
      to: new Date(input.window.toMs).toISOString(),
    },
    jobs: jobs.length,
    bySource: count(jobs.map((j) => j.source)) as Record<string, number>,
    leftOut: history.leftOut.map((l) => ({ ...l, text: LEFT_OUT_TEXT[l.reason] })),
    clockSkew: { ...history.skew, tasksBeforeSubmit: history.tasksBeforeSubmit },
    requests: history.requests,
    cluster: {
      containerMb: input.containerMb,
      heartbeatSeconds: input.cluster.heartbeatSeconds,
      nodeClasses: input.cluster.nodeClasses.map((c) => ({
        name: c.name,
        count: c.count,
        containers: c.containers,
        labels: c.labels,
      })),
      leftOutNodes: input.leftOutNodes ?? [],
      queues: input.shape?.queues ?? [],
    },
    deadlines: { tag: 0, file: 0, slack: 0, none: 0, ...count(workload.deadlineSources) },
    estimates: count(judged.map((j) => j.from?.source ?? 'class')) as Record<string, number>,
    fidelity: runs.fidelity,
    policies: runs.figures,
    wallMs,
    memory: {
      heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1048576),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    },
  };
}

function* mapped<T, U>(xs: readonly T[], f: (x: T) => U): Iterable<U> {
  for (const x of xs) yield f(x);
}

function figuresOf(r: RunResult): PolicyFigures {
  const s = r.summary;
  let noDeadline = 0;
  for (const o of r.outcomes) if (o.deadline === null) noDeadline++;
  return {
    jobs: s.jobs,
    admitted: s.accepted,
    rejected: s.jobs - s.accepted,
    met: s.succeeded,
    missed: s.missed ?? 0,
    noDeadline,
    utilization: s.utilization,
    acceptRatio: s.acceptRatio,
    successRatio: s.successRatio,
  };
}

const BUCKETS: ReadonlyArray<[string, number]> = [
  ['< 2 %', 0.02],
  ['2-5 %', 0.05],
  ['5-10 %', 0.1],
  ['10-20 %', 0.2],
  ['20-50 %', 0.5],
  ['>= 50 %', Infinity],
];

function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (i - lo);
}

/** The as-ran run against reality (see Fidelity). */
export function fidelityOf(
  jobs: readonly HistoryJob[],
  w: ReplayWorkload,
  asRan: readonly JobOutcome[],
): Fidelity {
  const errors: Array<{ id: string; real: number; simulated: number; error: number }> = [];
  asRan.forEach((o, i) => {
    const j = jobs[i] as HistoryJob;
    const real = (j.finishMs - j.submitMs) / 1000;
    if (o.finish === null || !(real > 0)) return;
    const simulated = o.finish - (w.jobs[i] as { arrival: number }).arrival;
    errors.push({ id: j.id, real, simulated, error: (simulated - real) / real });
  });
  const abs = errors.map((e) => Math.abs(e.error)).sort((a, b) => a - b);
  const signed = errors.map((e) => e.error).sort((a, b) => a - b);
  const median = quantile(abs, 0.5);
  let lower = 0;
  const buckets = BUCKETS.map(([label, upper]) => {
    const n = abs.filter((x) => x >= lower && x < upper).length;
    lower = upper;
    return { label, jobs: n, share: abs.length ? n / abs.length : 0 };
  });
  return {
    jobs: errors.length,
    medianAbsError: median,
    medianError: quantile(signed, 0.5),
    p90AbsError: quantile(abs, 0.9),
    maxAbsError: abs.length ? (abs[abs.length - 1] as number) : null,
    within10: abs.length ? abs.filter((x) => x <= 0.1).length / abs.length : null,
    buckets,
    worst: [...errors].sort((a, b) => Math.abs(b.error) - Math.abs(a.error)).slice(0, 10),
    ok: median === null ? null : median <= 0.1,
  };
}

/** Per job: what it was, and per policy what happened to it. */
function* rowsOf(
  jobs: readonly HistoryJob[],
  judged: readonly JudgedAtArrival[],
  w: ReplayWorkload,
  labels: readonly string[],
  cells: PolicyCellStore,
): Iterable<ReplayJobRow> {
  let i = 0;
  for (const row of cells.rows(labels)) {
    const j = jobs[i];
    if (!j) throw new RangeError(`the policy cells hold more rows than the ${jobs.length} jobs`);
    const t = w.jobs[i] as (typeof w.jobs)[number];
    const real = (j.finishMs - j.submitMs) / 1000;
    const policies: Record<string, PolicyCell> = {};
    row.forEach((c, k) => {
      if (c) policies[labels[k] as string] = c;
    });
    yield {
      id: j.id,
      name: j.name,
      user: j.user,
      queue: j.queue,
      source: j.source,
      submit: new Date(j.submitMs).toISOString(),
      realSeconds: real,
      deadlineSeconds: t.deadline,
      deadlineSource: w.deadlineSources[i] as DeadlineSource,
      realMet: t.deadline === null ? null : real <= t.deadline + 1e-9,
      estimateFrom: judged[i]?.from?.text ?? null,
      estimateAloneSeconds: judged[i]?.aloneSeconds ?? null,
      policies,
    };
    i++;
  }
}
