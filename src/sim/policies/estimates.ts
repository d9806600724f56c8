import { bookOf, classOf, deadlineJobOf, type EstimateBook } from '../../core/estimate-book';
import type { Estimates } from '../../core/estimates';
import type { DeadlineJob } from '../../core/job';
import type { EstimateModel } from '../../core/learning';
import type { ClusterSpec, TraceJob } from '../model';

/** A trace job's workload class: its `class` field when the trace gives one, else its type. */
export function traceClassOf(j: TraceJob): string {
  return classOf(j.type, j.workloadClass);
}

/**
 * Whose estimates judged a job, for its rejection reason: its class's own figures, or the
 * default's when the class has none (`class etl estimates`, `class etl, default estimates`).
 */
export function judgedBy(book: EstimateBook, cls: string): string {
  return Object.hasOwn(book.classes, cls) ? `class ${cls} estimates` : `class ${cls}, default estimates`;
}

/**
 * Worst-case estimates for admission (He et al., RTMR, IV.A: c_m^max, c_r^max, eta, plus the per-task
 * floor of docs/estimates.md), one set per workload class (traceClassOf), each taken over that
 * class's jobs on this cluster: the floor is the longest a task of no data can take anywhere it
 * may run (slowest class, top of the jitter range), and the cost per MB of the largest split
 * covers what the floor leaves of the longest a map can take (remote read, slowest class, top
 * of the jitter range), so floor + cost * split bounds every task of the class, a task of no
 * data included (the papers' cost per MB alone gave such a task 0 s). An operator would
 * configure these; deriving them from the model keeps the guarantee's premise (actual <= its
 * own class's estimate) true by construction. One heartbeat interval is added to each task: a
 * freed slot is only reused at its node's next heartbeat, so from the vectors' point of view a
 * task holds its slot for up to its run time plus one heartbeat. The default (for a class the
 * trace does not have) is the maximum over every job, the single cluster-wide set used before
 * there were classes. eta is the same for every class (the largest shuffle ratio): the reduce
 * estimate is f_r + c_r^max * eta * delta / R with c_r^max derived with that same eta, so eta
 * cancels out. `model` 'paper' derives the papers' figures: no floor, the cost per MB of the
 * largest split covers the whole task (a task of no data is then estimated at 0 s).
 */
export function worstCaseEstimates(
  jobs: readonly TraceJob[],
  worstMapSeconds: (j: TraceJob) => number,
  worstReduceSeconds: (j: TraceJob) => number,
  cluster: ClusterSpec,
  model: EstimateModel = 'floored',
): EstimateBook {
  const eta = Math.max(cluster.costs.cpu.shuffleRatio, cluster.costs.gpu.shuffleRatio, 1e-9);
  const hb = cluster.heartbeatSeconds;
  type Figures = { map: number; reduce: number; mapFloor: number; reduceFloor: number };
  const zero = (): Figures => ({ map: 0, reduce: 0, mapFloor: 0, reduceFloor: 0 });
  // The floors first: a job's task of no data, as long as it can take.
  const empty = (j: TraceJob): TraceJob => ({ ...j, inputBytes: 0, splits: null });
  const all = zero();
  const perClass = new Map<string, Figures>();
  const figuresOf = (j: TraceJob): Figures => {
    const cls = traceClassOf(j);
    let c = perClass.get(cls);
    if (!c) perClass.set(cls, (c = zero()));
    return c;
  };
  // The papers' model has no floor: the cost per MB covers the whole task.
  for (const j of model === 'paper' ? [] : jobs) {
    const c = figuresOf(j);
    const m = worstMapSeconds(empty(j)) + hb;
    c.mapFloor = Math.max(c.mapFloor, m);
    all.mapFloor = Math.max(all.mapFloor, m);
    if (j.reduces > 0) {
      const r = worstReduceSeconds(empty(j)) + hb;
      c.reduceFloor = Math.max(c.reduceFloor, r);
      all.reduceFloor = Math.max(all.reduceFloor, r);
    }
  }
  for (const j of jobs) {
    const c = figuresOf(j);
    const d = toDeadlineJob(j);
    const largest = d.mapSplits ? Math.max(...d.mapSplits) : d.inputSize / d.maps;
    // Per MB, what the floor does not cover: the class's and the default's floors differ.
    const perMb = (worst: number, floor: number, mb: number) => Math.max(0, worst - floor) / mb;
    if (largest > 0) {
      const w = worstMapSeconds(j) + hb;
      c.map = Math.max(c.map, perMb(w, c.mapFloor, largest));
      all.map = Math.max(all.map, perMb(w, all.mapFloor, largest));
    }
    const reduceInput = (eta * d.inputSize) / Math.max(1, j.reduces);
    if (reduceInput > 0 && j.reduces > 0) {
      const w = worstReduceSeconds(j) + hb;
      c.reduce = Math.max(c.reduce, perMb(w, c.reduceFloor, reduceInput));
      all.reduce = Math.max(all.reduce, perMb(w, all.reduceFloor, reduceInput));
    }
  }
  // Tiny relative margin so floating-point rounding never puts an actual above its estimate.
  const margin = 1 + 1e-9;
  const figures = (c: Figures): Estimates => ({
    eta,
    mapCostMax: c.map * margin,
    reduceCostMax: c.reduce * margin,
    ...(model === 'paper'
      ? {}
      : { mapTaskSeconds: c.mapFloor * margin, reduceTaskSeconds: c.reduceFloor * margin }),
  });
  return bookOf(figures(all), Object.fromEntries([...perClass].map(([cls, c]) => [cls, figures(c)])));
}

/**
 * What admission's figures are taken from, when an experiment asks for other than the model's
 * worst case (docs/results.md sweeps them):
 *  - `worst`: the longest a task can take (remote read, top of the jitter range) plus one
 *    heartbeat, the default: every task keeps its estimate, the premise of RTMR's guarantee;
 *  - `local-worst`: the longest a task takes on its own data, with no heartbeat allowance, as
 *    Kc and Anyanwu measured it (IV) ("we selected the largest execution time as our estimate", on jobs
 *    run with "no other running jobs"), without the non-local reads its criteria leave out
 *    ("We have not accounted this in our minimum tasks criteria", Kc and Anyanwu, DC, III.B);
 *  - `local-mean`: a local task's mean time (the middle of the jitter range), no heartbeat;
 *  - `measured`: learned as the RTMR paper learns c_m^max and c_r^max, the largest time per MB
 *    of any task of the class in a previous run of the same workload (the driver runs it first,
 *    under FIFO with no admission; measuredEstimates).
 */
export const ESTIMATE_BASES = ['worst', 'local-worst', 'local-mean', 'measured'] as const;
export type EstimateBasis = (typeof ESTIMATE_BASES)[number];

/** The cluster as `basis` sees it: the view worstCaseEstimates takes its figures from ('measured' has none). */
export function estimateView(cluster: ClusterSpec, basis: EstimateBasis): ClusterSpec {
  if (basis === 'worst' || basis === 'measured') return cluster;
  const atMean = (c: ClusterSpec['costs']['cpu']) =>
    basis === 'local-mean'
      ? {
          ...c,
          jitter: [(c.jitter[0] + c.jitter[1]) / 2, (c.jitter[0] + c.jitter[1]) / 2] as [number, number],
        }
      : c;
  return {
    ...cluster,
    remoteReadPenalty: 0,
    heartbeatSeconds: 0,
    costs: { cpu: atMean(cluster.costs.cpu), gpu: atMean(cluster.costs.gpu) },
  };
}

/** Trace job -> the core's J = (A, D, M, R, delta), sizes in MB; R = 0 is a map-only job. */
export function toDeadlineJob(j: TraceJob): DeadlineJob {
  return deadlineJobOf(
    {
      id: j.id,
      arrival: j.arrival,
      deadline: j.deadline,
      maps: j.maps,
      reduces: j.reduces,
      inputBytes: j.inputBytes,
      splitBytes: j.splits,
    },
    { inputSize: 'splits' },
  );
}

/** One finished task of a previous run, as measuredEstimates reads it. */
export interface MeasuredTask {
  job: string;
  kind: 'map' | 'reduce';
  index: number;
  seconds: number;
}

/**
 * The learned figures of He et al., RTMR, IV.A: c_m^max = max over finished maps of e_i^m / delta_i^m and
 * c_r^max = max over finished reduces of e_i^r / delta_i^r, per workload class (the default:
 * over every job), in the papers' model (no per-task floor, no heartbeat: a task's own time).
 * eta is the cluster's largest shuffle ratio, as worstCaseEstimates has it.
 */
export function measuredEstimates(
  jobs: readonly TraceJob[],
  tasks: readonly MeasuredTask[],
  cluster: ClusterSpec,
): EstimateBook {
  const eta = Math.max(cluster.costs.cpu.shuffleRatio, cluster.costs.gpu.shuffleRatio, 1e-9);
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const all = { map: 0, reduce: 0 };
  const perClass = new Map<string, { map: number; reduce: number }>();
  for (const t of tasks) {
    const j = byId.get(t.job);
    if (!j) continue;
    const d = toDeadlineJob(j);
    const mb =
      t.kind === 'map'
        ? d.mapSplits
          ? (d.mapSplits[t.index] ?? 0)
          : d.inputSize / d.maps
        : (eta * d.inputSize) / Math.max(1, j.reduces);
    if (!(mb > 0)) continue;
    const cls = traceClassOf(j);
    let c = perClass.get(cls);
    if (!c) perClass.set(cls, (c = { map: 0, reduce: 0 }));
    c[t.kind] = Math.max(c[t.kind], t.seconds / mb);
    all[t.kind] = Math.max(all[t.kind], t.seconds / mb);
  }
  const figures = (c: { map: number; reduce: number }): Estimates => ({
    eta,
    mapCostMax: c.map,
    reduceCostMax: c.reduce,
  });
  return bookOf(figures(all), Object.fromEntries([...perClass].map(([cls, c]) => [cls, figures(c)])));
}
