import { ValidationError, type ValidationIssue } from '../errors/validation';
import {
  learnFromFinishedJob,
  validateEstimates,
  validateObservation,
  type Estimates,
  type FinishedJobObservation,
} from './estimates';

/**
 * How a workload class's worst-case estimates are learned from its finished jobs
 * (docs/estimates.md).
 *
 * `paper` is He et al., RTMR, IV.A as printed: eta = max(eta, delta^r/delta), c^max = max(c^max,
 * eps_i/delta_i), for ever, and no per-task floor. One task of 1 byte that took 1.7 s then
 * sets c_m^max to 1.7e6 s/MB and nothing brings it down again.
 *
 * `floored` (the default):
 * - every task costs a floor f (start-up seconds) plus c per MB: eps = f + c * delta;
 * - a task with less than `tinyTaskMb` of data teaches the floor (its seconds less what its
 *   data costs at the current c), never c: its seconds per MB say nothing about the cost of data;
 * - a larger task teaches c from what the floor does not cover: (seconds - f) / delta;
 * - one job raises a figure to at most `maxGrowthPerJob` times its value before the job;
 * - tasks within their estimates teach nothing new: f + c * delta already covers them;
 * - a job's set-up (start to first task) and commit (last task to end) are learned as seen,
 *   bounded the same way;
 * - each job leaves one sample (its clipped per-job maxima); the figures are the configured
 *   ones raised to the largest sample of the class's last `windowJobs` jobs, so a figure that
 *   a few slow jobs raised comes down again once `windowJobs` later jobs ran faster
 *   (`windowJobs` 0: never down, the samples fold into one running maximum).
 *
 * Worked example (configured f_m = 2 s, c_m = 0.5 s/MB, growth 2, window 100): a job of one
 * map over 1 byte that took 10 s is tiny, so c_m stays 0.5 and f_m learns min(10, 2 * 2) = 4 s
 * (10 s less 1e-6 MB at 0.5 s/MB is 10 s, clipped to twice the floor before the job).
 * A job whose 64 MB maps took up to 100 s teaches c_m = min((100 - 4) / 64, 2 * 0.5) = 1 s/MB.
 * After 100 later jobs that ran within 2 s + 0.5 s/MB, both samples have left the window and
 * the figures are back at 2 s and 0.5 s/MB.
 */
export type EstimateModel = 'floored' | 'paper';

export interface LearningOptions {
  readonly model: EstimateModel;
  /** Tasks with less data than this (MB) teach the floor, not the cost per MB. */
  readonly tinyTaskMb: number;
  /** One job raises a figure to at most this many times its value before it (>= 1). */
  readonly maxGrowthPerJob: number;
  /** Figures are the maxima of the class's last this many jobs (0: never decay). */
  readonly windowJobs: number;
}

export const DEFAULT_LEARNING: LearningOptions = Object.freeze({
  model: 'floored',
  tinyTaskMb: 16,
  maxGrowthPerJob: 2,
  windowJobs: 100,
});

/** The learning figures of one class: its samples, oldest first (at most `windowJobs`). */
export interface ClassLearning {
  readonly samples: readonly Estimates[];
}

const FIELDS = [
  'eta',
  'mapCostMax',
  'reduceCostMax',
  'mapTaskSeconds',
  'reduceTaskSeconds',
  'setupSeconds',
  'commitSeconds',
  'amContainers',
] as const;

/** Every figure of an estimate, an absent task floor as 0. */
export function fullEstimates(e: Estimates): Required<Estimates> {
  return {
    eta: e.eta,
    mapCostMax: e.mapCostMax,
    reduceCostMax: e.reduceCostMax,
    mapTaskSeconds: e.mapTaskSeconds ?? 0,
    reduceTaskSeconds: e.reduceTaskSeconds ?? 0,
    setupSeconds: e.setupSeconds ?? 0,
    commitSeconds: e.commitSeconds ?? 0,
    amContainers: e.amContainers ?? 0,
  };
}

/** Field by field, the larger of the two. */
export function maxEstimates(a: Estimates, b: Estimates): Estimates {
  const x = fullEstimates(a);
  const y = fullEstimates(b);
  const out = {} as Record<(typeof FIELDS)[number], number>;
  for (const f of FIELDS) out[f] = Math.max(x[f], y[f]);
  return Object.freeze(out);
}

/** The figures a class is judged with: its configured ones raised to each of its samples. */
export function estimatesFromSamples(configured: Estimates, samples: readonly Estimates[]): Estimates {
  return samples.reduce(maxEstimates, configured);
}

/** Checks the options (a ValidationError names each bad one). */
export function validateLearningOptions(input: LearningOptions, path = 'learning'): LearningOptions {
  const issues: ValidationIssue[] = [];
  if (input.model !== 'floored' && input.model !== 'paper')
    issues.push({ path: `${path}.model`, message: "must be 'floored' or 'paper'" });
  if (!(Number.isFinite(input.tinyTaskMb) && input.tinyTaskMb >= 0))
    issues.push({ path: `${path}.tinyTaskMb`, message: 'must be a finite number >= 0' });
  if (!(Number.isFinite(input.maxGrowthPerJob) && input.maxGrowthPerJob >= 1))
    issues.push({ path: `${path}.maxGrowthPerJob`, message: 'must be a finite number >= 1' });
  if (!(Number.isInteger(input.windowJobs) && input.windowJobs >= 0))
    issues.push({ path: `${path}.windowJobs`, message: 'must be a whole number >= 0' });
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ ...input });
}

/** The most one job may raise `value` to. A figure at 0 has no scale: it learns what it sees. */
function ceiling(value: number, growth: number): number {
  return value > 0 ? value * growth : Number.POSITIVE_INFINITY;
}

/**
 * One finished job's sample under the `floored` rules, clipped against the class's figures
 * before it (`current`). A stage with no task of its kind leaves 0 in its fields.
 */
export function flooredSample(
  current: Estimates,
  obs: FinishedJobObservation,
  options: LearningOptions,
): Estimates {
  validateObservation(obs);
  const cur = fullEstimates(current);
  const g = options.maxGrowthPerJob;
  const stage = (tasks: FinishedJobObservation['mapTasks'], floorNow: number, costNow: number) => {
    // A tiny task's seconds less what its data costs at the current rate: the start-up.
    let floor = 0;
    for (const t of tasks)
      if (t.size < options.tinyTaskMb) floor = Math.max(floor, t.seconds - costNow * t.size);
    floor = Math.min(floor, ceiling(floorNow, g));
    // The data cost is what the floor in force after this job does not cover.
    const f = Math.max(floorNow, floor);
    let cost = 0;
    for (const t of tasks)
      if (t.size >= options.tinyTaskMb && t.size > 0)
        cost = Math.max(cost, Math.max(0, t.seconds - f) / t.size);
    return { floor, cost: Math.min(cost, ceiling(costNow, g)) };
  };
  const m = stage(obs.mapTasks, cur.mapTaskSeconds, cur.mapCostMax);
  const r = stage(obs.reduceTasks, cur.reduceTaskSeconds, cur.reduceCostMax);
  // eta from a job with enough data to say something about its shuffle ratio.
  const eta =
    obs.intermediateSize !== undefined && obs.inputSize >= options.tinyTaskMb && obs.inputSize > 0
      ? Math.min(obs.intermediateSize / obs.inputSize, ceiling(cur.eta, g))
      : 0;
  // A job's time outside its tasks, as it was seen, bounded like the rest (0: not seen).
  const outside = (seen: number | undefined, now: number): number =>
    seen === undefined ? 0 : Math.min(seen, ceiling(now, g));
  return Object.freeze({
    eta,
    mapCostMax: m.cost,
    reduceCostMax: r.cost,
    mapTaskSeconds: m.floor,
    reduceTaskSeconds: r.floor,
    setupSeconds: outside(obs.setupSeconds, cur.setupSeconds),
    commitSeconds: outside(obs.commitSeconds, cur.commitSeconds),
  });
}

export interface Learned {
  readonly estimates: Estimates;
  readonly learning: ClassLearning;
}

/**
 * One finished job learned into its class: `configured` is the class's configured figures,
 * `current` those it was judged with before this job, `learning` its samples so far.
 * Under `paper` the samples fold into one running maximum (He et al., RTMR, IV.A exactly).
 */
export function learnJob(
  configured: Estimates,
  current: Estimates,
  learning: ClassLearning,
  obs: FinishedJobObservation,
  options: LearningOptions,
): Learned {
  if (options.model === 'paper') {
    const estimates = learnFromFinishedJob(current, obs);
    return { estimates, learning: Object.freeze({ samples: Object.freeze([estimates]) }) };
  }
  const sample = flooredSample(current, obs, options);
  const samples =
    options.windowJobs === 0
      ? [learning.samples.reduce(maxEstimates, sample)]
      : [...learning.samples, sample].slice(-options.windowJobs);
  return {
    estimates: estimatesFromSamples(configured, samples),
    learning: Object.freeze({ samples: Object.freeze(samples) }),
  };
}

/** A class's samples from an untrusted value (a ledger entry). */
export function validateClassLearning(input: unknown, path = 'learning'): ClassLearning {
  if (typeof input !== 'object' || input === null || !Array.isArray((input as { samples?: unknown }).samples))
    throw new ValidationError([{ path: `${path}.samples`, message: 'must be an array of estimates' }]);
  const issues: ValidationIssue[] = [];
  const samples: Estimates[] = [];
  (input as { samples: unknown[] }).samples.forEach((s, i) => {
    try {
      samples.push(validateEstimates(s, `${path}.samples[${i}]`));
    } catch (err) {
      if (err instanceof ValidationError) issues.push(...err.issues);
      else throw err;
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ samples: Object.freeze(samples) });
}
