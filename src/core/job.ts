import { ValidationError, issueCollector, type ValidationIssue } from '../errors/validation';
import { validateEstimates, validateWorkloadClass, type Estimates } from './estimates';
import type { MapLaneKind } from './slots/model';

/**
 * A deadline job J = (A, D, M, R, delta) of He et al., RTMR, section IV.A.
 *
 * Times are seconds on the caller's clock (the core never reads a clock). `deadline` is the
 * relative deadline D: the job must finish by `arrival + deadline`. Sizes are in any unit of
 * data (MB by convention) as long as the estimates' unit costs use the same unit.
 */
export interface DeadlineJob {
  readonly id: string;
  /** A: arrival (submission) time, seconds. */
  readonly arrival: number;
  /** D: relative deadline, seconds, > 0. */
  readonly deadline: number;
  /** M: number of map tasks, integer >= 1. */
  readonly maps: number;
  /**
   * R: number of reduce tasks, integer >= 0. R = 0 is a map-only job: its reduce stage is
   * empty, it finishes when its last map ends, and it holds no reduce slot.
   */
  readonly reduces: number;
  /** delta: input size, >= 0. */
  readonly inputSize: number;
  /** delta_i^m: per-map split sizes; when absent the input is split evenly over the M maps. */
  readonly mapSplits?: readonly number[];
  /**
   * The workload class whose estimates the job is judged with (e.g. `cpu`, or a recurring
   * job's own name); informative for the core, which reads only `estimates`.
   */
  readonly workloadClass?: string;
  /**
   * The worst-case estimates of the job's class (eta, c_m^max, c_r^max). When present they
   * replace the policy's own for this job: the papers' model then holds within each class,
   * and a compute-bound class cannot inflate every other job's per-task estimates.
   */
  readonly estimates?: Estimates;
  /**
   * The kind of map slot its maps run in, on an `mr1` model with GPU map slots (SlotModel):
   * `gpu` for GPU code (a GPU-only job, or an adaptive one placed in the GPU lane), `cpu` (the
   * default) otherwise. Its reduces run in the reduce slots either way.
   */
  readonly lane?: MapLaneKind;
}

/** The absolute deadline A + D. */
export function absoluteDeadline(job: DeadlineJob): number {
  return job.arrival + job.deadline;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Relative tolerance for "splits add up to the input size" (sums of floats are not exact). */
const SPLIT_SUM_TOLERANCE = 1e-9;

/**
 * Checks an untrusted job (from an HTTP body, a trace line, an RM tag) and returns it frozen.
 * Collects every problem with the path of its field, so a bad job can never put NaN into a
 * slot vector: non-finite or negative sizes and times, zero or fractional task counts, a zero or
 * negative deadline, splits that are missing entries or do not add up to the input size.
 */
export function validateJob(input: unknown, path = 'job'): DeadlineJob {
  const issues: ValidationIssue[] = [];
  if (!isRecord(input)) throw new ValidationError([{ path, message: 'must be an object' }]);
  const at = (f: string): string => `${path}.${f}`;
  const finite = (f: string, v: unknown): v is number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      issues.push({ path: at(f), message: 'must be a finite number' });
      return false;
    }
    return true;
  };
  const count = (f: string, v: unknown, min: number): void => {
    if (!finite(f, v)) return;
    if (!Number.isInteger(v)) issues.push({ path: at(f), message: 'must be a whole number of tasks' });
    else if (v < min) issues.push({ path: at(f), message: `must be at least ${min}` });
  };
  const { id, arrival, deadline, maps, reduces, inputSize, mapSplits, workloadClass, estimates, lane } =
    input;
  if (lane !== undefined && lane !== 'cpu' && lane !== 'gpu')
    issues.push({ path: at('lane'), message: "must be 'cpu' or 'gpu'" });
  if (typeof id !== 'string' || id.length === 0)
    issues.push({ path: at('id'), message: 'must be a non-empty string' });
  if (finite('arrival', arrival) && arrival < 0)
    issues.push({ path: at('arrival'), message: 'must be >= 0' });
  if (finite('deadline', deadline) && deadline <= 0)
    issues.push({ path: at('deadline'), message: 'must be > 0' });
  count('maps', maps, 1);
  // R = 0 is a map-only job (distcp, Sqoop imports): its reduce stage is empty.
  count('reduces', reduces, 0);
  if (finite('inputSize', inputSize) && inputSize < 0)
    issues.push({ path: at('inputSize'), message: 'must be >= 0' });
  const splits =
    mapSplits === undefined ? undefined : validSplits(mapSplits, maps, inputSize, at('mapSplits'), issues);
  const collect = issueCollector(issues);
  const cls =
    workloadClass === undefined
      ? undefined
      : collect(() => validateWorkloadClass(workloadClass, at('workloadClass')));
  const est: Estimates | undefined =
    estimates === undefined ? undefined : collect(() => validateEstimates(estimates, at('estimates')));
  if (issues.length > 0) throw new ValidationError(issues);
  const job: DeadlineJob = {
    id: id as string,
    arrival: arrival as number,
    deadline: deadline as number,
    maps: maps as number,
    reduces: reduces as number,
    inputSize: inputSize as number,
    ...(splits === undefined ? {} : { mapSplits: Object.freeze(splits) }),
    ...(cls === undefined ? {} : { workloadClass: cls }),
    ...(est === undefined ? {} : { estimates: est }),
    ...(lane === undefined ? {} : { lane: lane as MapLaneKind }),
  };
  return Object.freeze(job);
}

/**
 * A job's map split sizes (`path` its field): each a finite size >= 0, one per map, adding up
 * to the input size; undefined when not an array. Problems are added to `issues`.
 */
function validSplits(
  mapSplits: unknown,
  maps: unknown,
  inputSize: unknown,
  path: string,
  issues: ValidationIssue[],
): number[] | undefined {
  if (!Array.isArray(mapSplits)) {
    issues.push({ path, message: 'must be an array of sizes' });
    return undefined;
  }
  const splits: number[] = [];
  let ok = true;
  mapSplits.forEach((s: unknown, i) => {
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) {
      issues.push({ path: `${path}[${i}]`, message: 'must be a finite size >= 0' });
      ok = false;
    } else splits.push(s);
  });
  if (typeof maps === 'number' && Number.isInteger(maps) && mapSplits.length !== maps) {
    issues.push({ path, message: `has ${mapSplits.length} entries but maps is ${maps}` });
    ok = false;
  }
  if (ok && typeof inputSize === 'number' && Number.isFinite(inputSize)) {
    const sum = splits.reduce((a, b) => a + b, 0);
    if (Math.abs(sum - inputSize) > SPLIT_SUM_TOLERANCE * Math.max(1, Math.abs(inputSize))) {
      issues.push({ path, message: `add up to ${sum}, not to inputSize ${inputSize}` });
    }
  }
  return splits;
}
