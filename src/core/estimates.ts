import { ValidationError, type ValidationIssue } from '../errors/validation';

/**
 * The learned estimates of He et al., RTMR, section IV.A / He, dissertation, eq. 4.2-4.4:
 * eta (max intermediate/input ratio), c_m^max and c_r^max (worst seconds per unit of data of a
 * map / reduce task), plus a fixed per-task floor (start-up cost) that the papers' model lacks:
 * with it a task of no data is still estimated at its start-up time, not 0 s (docs/estimates.md).
 * The estimates' pessimism is what the guarantee rests on.
 */
export interface Estimates {
  readonly eta: number;
  readonly mapCostMax: number;
  readonly reduceCostMax: number;
  /** Seconds every map task takes whatever its data (start-up); absent or 0 in the papers' model. */
  readonly mapTaskSeconds?: number;
  /** The same for every reduce task. */
  readonly reduceTaskSeconds?: number;
  /**
   * Seconds from a job's start (its AM's container granted) until its first task can start:
   * the AM container's launch, the AM's start-up and the job's set-up. Absent or 0 in the
   * papers' model, which has no AM.
   */
  readonly setupSeconds?: number;
  /** Seconds from a job's last task's end until the job ends: output commit and the AM's exit. */
  readonly commitSeconds?: number;
  /**
   * Containers a job's AM holds from its start to its end on YARN's one pool of containers
   * (`unified` slots): 1 for MapReduce and Spark in cluster mode, 0 (or absent) where the AM
   * runs elsewhere and in the papers' model. Ignored on `mr1` slots (no AM there).
   */
  readonly amContainers?: number;
}

/** The figures an estimate may leave out (read as 0 when absent). */
export const OPTIONAL_ESTIMATE_FIELDS = [
  'mapTaskSeconds',
  'reduceTaskSeconds',
  'setupSeconds',
  'commitSeconds',
  'amContainers',
] as const;

export const DEFAULT_ESTIMATES: Estimates = Object.freeze({ eta: 1, mapCostMax: 0.25, reduceCostMax: 0.25 });

export function validateEstimates(input: unknown, path = 'estimates'): Estimates {
  const issues: ValidationIssue[] = [];
  const rec = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (typeof input !== 'object' || input === null)
    throw new ValidationError([{ path, message: 'must be an object' }]);
  const optional = OPTIONAL_ESTIMATE_FIELDS as readonly string[];
  for (const f of ['eta', 'mapCostMax', 'reduceCostMax', ...OPTIONAL_ESTIMATE_FIELDS]) {
    const v = rec[f];
    if (v === undefined && optional.includes(f)) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      issues.push({ path: `${path}.${f}`, message: 'must be a finite number >= 0' });
    } else if (f === 'amContainers' && v !== 0 && v !== 1) {
      issues.push({ path: `${path}.${f}`, message: 'must be 0 or 1' });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const out: Record<string, number> = {
    eta: rec.eta as number,
    mapCostMax: rec.mapCostMax as number,
    reduceCostMax: rec.reduceCostMax as number,
  };
  for (const f of OPTIONAL_ESTIMATE_FIELDS) if (rec[f] !== undefined) out[f] = rec[f] as number;
  return Object.freeze(out) as unknown as Estimates;
}

/**
 * A workload class name: lower-case letters, digits, `.`, `_`, `-`, at most 64 characters,
 * starting with a letter or digit. Lower case because YARN lower-cases application tags and a
 * class travels as the tag `class:NAME` (src/yarn/tags.ts): a name must read back the same.
 */
export const WORKLOAD_CLASS_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function validateWorkloadClass(input: unknown, path = 'workloadClass'): string {
  if (typeof input !== 'string' || !WORKLOAD_CLASS_PATTERN.test(input)) {
    throw new ValidationError([
      {
        path,
        message: 'must be 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
      },
    ]);
  }
  return input;
}

/**
 * What the per-task estimates read of a job: a DeadlineJob (src/core/job.ts) fits. Named here
 * rather than imported, so the job model may validate its estimates without a cycle.
 */
export interface SizedJob {
  readonly maps: number;
  readonly reduces: number;
  readonly inputSize: number;
  readonly mapSplits?: readonly number[];
  readonly estimates?: Estimates;
}

/** The largest map split, max_i delta_i^m (Alg. 5.2 line 1). */
export function largestSplit(job: SizedJob): number {
  if (job.mapSplits === undefined) return job.inputSize / job.maps;
  let max = 0;
  for (const s of job.mapSplits) if (s > max) max = s;
  return max;
}

/** Per-task estimates of one job, in seconds. */
export interface TaskEstimates {
  /** eps^m = f_m + c_m^max * max_i delta_i^m (Alg. 5.2 line 1, plus the per-task floor f_m). */
  readonly mapSeconds: number;
  /**
   * eps^r = f_r + c_r^max * max_i delta_i^r (Alg. 5.3 line 2), with delta^r <= eta*delta split
   * evenly over R.
   */
  readonly reduceSeconds: number;
}

/**
 * The job's per-task estimates from its own class's figures (`job.estimates`) when it carries
 * them, else from `defaults` (the policy's, i.e. the default class). Every policy derives
 * per-task estimates here and nowhere else, so one code path serves every class: Alg. 5.2/5.3
 * run unchanged, each job with the c^max of its class.
 */
/**
 * Worked example (floor 2 s per task, 0.5 s/MB, eta 1): a job of 4 maps over 0 MB is estimated
 * at 2 s per map and 2 s per reduce, not 0 s; over 256 MB, 2 + 0.5 * 64 = 34 s per map.
 */
export function taskEstimates(defaults: Estimates, job: SizedJob): TaskEstimates {
  const est = job.estimates ?? defaults;
  return {
    mapSeconds: (est.mapTaskSeconds ?? 0) + est.mapCostMax * largestSplit(job),
    // A map-only job (R = 0) has no reduce task to estimate: its reduce stage is empty.
    reduceSeconds:
      job.reduces === 0
        ? 0
        : (est.reduceTaskSeconds ?? 0) + (est.reduceCostMax * est.eta * job.inputSize) / job.reduces,
  };
}

/**
 * What the job spends outside its tasks on `model` (JobWork.am), from its class's figures;
 * undefined when nothing (every overhead 0 and no AM container, as in the papers' model), so
 * such a job is placed exactly as Alg. 5.2/5.3 print it. `started`: its AM is up and the job
 * set up already (a running job rebuilt from the cluster): no set-up left.
 */
export function jobOverheads(
  defaults: Estimates,
  job: Pick<SizedJob, 'estimates'>,
  model: { readonly name: 'mr1' | 'unified' },
  started = false,
): { setupSeconds: number; commitSeconds: number; amSlot: boolean } | undefined {
  const est = job.estimates ?? defaults;
  const setupSeconds = started ? 0 : (est.setupSeconds ?? 0);
  const commitSeconds = est.commitSeconds ?? 0;
  const amSlot = model.name === 'unified' && (est.amContainers ?? 0) >= 1;
  if (!amSlot && setupSeconds === 0 && commitSeconds === 0) return undefined;
  return { setupSeconds, commitSeconds, amSlot };
}

/** What a finished job reports, e.g. from the JobHistory server: sizes and run times per task. */
export interface FinishedJobObservation {
  readonly inputSize: number;
  /** Unknown (the JobHistory task list does not report it): eta is then not learned. */
  readonly intermediateSize?: number;
  readonly mapTasks: readonly { readonly size: number; readonly seconds: number }[];
  readonly reduceTasks: readonly { readonly size: number; readonly seconds: number }[];
  /** Seconds from the job's start to its first task's start (unknown: not learned). */
  readonly setupSeconds?: number;
  /** Seconds from its last task's end to the job's end (unknown: not learned). */
  readonly commitSeconds?: number;
}

/**
 * The learning rules: eta = max(eta, delta^r/delta); c^max = max(c^max, eps_i/delta_i).
 * Tasks with no data (size 0) say nothing about the cost per unit and are skipped rather than
 * dividing by zero; non-finite or negative inputs are a ValidationError.
 */
export function learnFromFinishedJob(est: Estimates, obs: FinishedJobObservation): Estimates {
  validateObservation(obs);
  let { eta } = est;
  if (obs.inputSize > 0 && obs.intermediateSize !== undefined)
    eta = Math.max(eta, obs.intermediateSize / obs.inputSize);
  const unit = unitCosts(obs);
  return Object.freeze({
    ...est,
    eta,
    // A loop rather than Math.max(...spread): a job may have more tasks than a call has arguments.
    mapCostMax: unit.map.reduce((a, b) => Math.max(a, b), est.mapCostMax),
    reduceCostMax: unit.reduce.reduce((a, b) => Math.max(a, b), est.reduceCostMax),
  });
}

/** Every size and time of an observation finite and >= 0, else a ValidationError naming each. */
export function validateObservation(obs: FinishedJobObservation): void {
  const issues: ValidationIssue[] = [];
  const bad = (p: string, v: number): boolean => {
    if (!Number.isFinite(v) || v < 0) {
      issues.push({ path: p, message: 'must be a finite number >= 0' });
      return true;
    }
    return false;
  };
  bad('observation.inputSize', obs.inputSize);
  if (obs.setupSeconds !== undefined) bad('observation.setupSeconds', obs.setupSeconds);
  if (obs.commitSeconds !== undefined) bad('observation.commitSeconds', obs.commitSeconds);
  if (obs.intermediateSize !== undefined) bad('observation.intermediateSize', obs.intermediateSize);
  obs.mapTasks.forEach((t, i) => {
    bad(`observation.mapTasks[${i}].size`, t.size);
    bad(`observation.mapTasks[${i}].seconds`, t.seconds);
  });
  obs.reduceTasks.forEach((t, i) => {
    bad(`observation.reduceTasks[${i}].size`, t.size);
    bad(`observation.reduceTasks[${i}].seconds`, t.seconds);
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * The unit costs eps_i / delta_i of a finished job's tasks (seconds per unit of data), the
 * observations c^max is the maximum of: tasks with no data are skipped, as in learning.
 * The observed distribution (cost-distribution.ts) is fed exactly these.
 */
export function unitCosts(obs: FinishedJobObservation): { map: number[]; reduce: number[] } {
  const per = (ts: FinishedJobObservation['mapTasks']) =>
    ts.filter((t) => t.size > 0).map((t) => t.seconds / t.size);
  return { map: per(obs.mapTasks), reduce: per(obs.reduceTasks) };
}
