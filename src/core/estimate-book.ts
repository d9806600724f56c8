import { ValidationError, type ValidationIssue, issueCollector } from '../errors/validation';
import {
  learnFromFinishedJob,
  validateEstimates,
  validateWorkloadClass,
  type Estimates,
  type FinishedJobObservation,
} from './estimates';
import type { DeadlineJob } from './job';
import type { JobType } from './kinds';
import { validateClassLearning, type ClassLearning } from './learning';

/**
 * Worst-case estimates per workload class. He et al., RTMR, section IV.A learns one triple
 * (eta, c_m^max, c_r^max) for the whole cluster; its guarantee needs only that each task runs
 * within its own job's per-task estimate (Alg. 5.2 line 1, Alg. 5.3 line 2). Keeping one triple
 * per class keeps that premise: a job's tasks are bounded by its class's maxima, which are
 * learned from that class's jobs alone. A compute-bound class (high seconds per MB) then no
 * longer inflates the estimates of every other job.
 */
export interface EstimateBook {
  /** The figures of any class without an entry of its own (before it has learned anything). */
  readonly default: Estimates;
  /** Per class, its own figures. */
  readonly classes: Readonly<Record<string, Estimates>>;
}

/** A book where every class starts from `est`. */
export function bookOf(est: Estimates, classes: Readonly<Record<string, Estimates>> = {}): EstimateBook {
  return Object.freeze({ default: est, classes: Object.freeze({ ...classes }) });
}

/** The class of a job: its own `workloadClass` when given (recurring jobs), else its job type. */
export function classOf(jobType: JobType, workloadClass?: string | null): string {
  return workloadClass ?? jobType;
}

/** The figures `cls` is judged with: its own, or the default. */
export function estimatesOf(book: EstimateBook, cls: string): Estimates {
  // Own properties only: a class named like an Object.prototype member must not read it.
  return Object.hasOwn(book.classes, cls) ? (book.classes[cls] as Estimates) : book.default;
}

/** The job with its class and that class's figures attached (what every policy then reads). */
export function withClass(job: DeadlineJob, cls: string, book: EstimateBook): DeadlineJob {
  return { ...job, workloadClass: cls, estimates: estimatesOf(book, cls) };
}

/** Bytes in a megabyte: the core's sizes are MB, drivers count bytes. */
export const BYTES_PER_MB = 1024 * 1024;

/** The relative deadline of a job that has none (a trace job under a baseline): never reached. */
export const NO_DEADLINE_SECONDS = 1e12;

/**
 * A job as a driver holds it before the core sees it: a live submission or ledger row, or a
 * simulator trace job. Times in seconds on the driver's clock, sizes in bytes.
 */
export interface SubmittedJob {
  readonly id: string;
  /** Arrival, seconds. */
  readonly arrival: number;
  /** Relative deadline, seconds; absent or null: none (NO_DEADLINE_SECONDS). */
  readonly deadline?: number | null;
  readonly maps: number;
  readonly reduces: number;
  readonly inputBytes: number;
  /** Each map's split, bytes, where known. */
  readonly splitBytes?: readonly number[] | null;
}

/** How a driver's job becomes the core's: the few points where the drivers differ. */
export interface ConversionRules {
  /** The shortest relative deadline, seconds (default none). */
  readonly minDeadline?: number;
  /**
   * Where the input size comes from: `input` the job's inputBytes (default), `splits` the sum of
   * its splits when it has them (a trace job's maps read exactly its splits).
   */
  readonly inputSize?: 'input' | 'splits';
}

/** A driver's job as the core's J = (A, D, M, R, delta), sizes in MB (no class attached). */
export function deadlineJobOf(s: SubmittedJob, rules: ConversionRules = {}): DeadlineJob {
  const splits = s.splitBytes ? s.splitBytes.map((b) => b / BYTES_PER_MB) : undefined;
  const deadline = s.deadline ?? NO_DEADLINE_SECONDS;
  return {
    id: s.id,
    arrival: s.arrival,
    deadline: rules.minDeadline === undefined ? deadline : Math.max(rules.minDeadline, deadline),
    maps: s.maps,
    reduces: s.reduces,
    inputSize:
      splits && rules.inputSize === 'splits'
        ? splits.reduce((a, b) => a + b, 0)
        : s.inputBytes / BYTES_PER_MB,
    ...(splits ? { mapSplits: splits } : {}),
  };
}

/** A driver's job as the core's, with its class and that class's figures (what policies read). */
export function classedJob(
  s: SubmittedJob,
  cls: string,
  book: EstimateBook,
  rules: ConversionRules = {},
): DeadlineJob {
  return withClass(deadlineJobOf(s, rules), cls, book);
}

/**
 * The papers' learning (He et al., RTMR, IV.A: eta and c^max only grow) confined to the finished job's
 * class (the floored rules are src/core/learning.ts's learnJob): the
 * other classes, and the default, are left as they are.
 */
export function learnForClass(book: EstimateBook, cls: string, obs: FinishedJobObservation): EstimateBook {
  const learned = learnFromFinishedJob(estimatesOf(book, cls), obs);
  return bookOf(book.default, { ...book.classes, [cls]: learned });
}

/**
 * What has been learned, as a ledger stores it: per class, and a `default` only where an old
 * ledger held the single cluster-wide triple. Configured figures are not part of it, so a
 * changed configuration applies to every class that has not learned yet.
 */
export interface LearnedEstimates {
  readonly default?: Estimates;
  readonly classes: Readonly<Record<string, Estimates>>;
  /**
   * Per class, the samples its figures were learned from under the floored model
   * (src/core/learning.ts): kept so that figures can decay and a changed configuration is
   * applied under them. A class learned under the papers' model has none.
   */
  readonly samples?: Readonly<Record<string, ClassLearning>>;
}

/** The configured book with what was learned over it: learned figures win, class by class. */
export function withLearned(configured: EstimateBook, learned: LearnedEstimates): EstimateBook {
  return bookOf(learned.default ?? configured.default, { ...configured.classes, ...learned.classes });
}

/**
 * Learned estimates from an untrusted value (a ledger entry). A bare triple
 * `{eta, mapCostMax, reduceCostMax}`, the shape of the single cluster-wide estimates stored
 * before there were classes, loads as the default with no class of its own: what it learned
 * keeps applying to every class until that class learns its own (or is configured).
 */
export function validateLearnedEstimates(input: unknown, path = 'estimates'): LearnedEstimates {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ValidationError([{ path, message: 'must be an object' }]);
  const rec = input as Record<string, unknown>;
  if (!('default' in rec) && !('classes' in rec))
    return Object.freeze({ default: validateEstimates(rec, path), classes: Object.freeze({}) });
  const issues: ValidationIssue[] = [];
  const collect = issueCollector(issues);
  const def =
    rec.default === undefined ? undefined : collect(() => validateEstimates(rec.default, `${path}.default`));
  const classes = byClass(rec.classes, `${path}.classes`, 'estimates', validateEstimates, issues);
  const samples = byClass(rec.samples, `${path}.samples`, 'samples', validateClassLearning, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({
    ...(def === undefined ? {} : { default: def }),
    classes: Object.freeze(classes),
    ...(Object.keys(samples).length === 0 ? {} : { samples: Object.freeze(samples) }),
  });
}

/**
 * A map of workload class to `what` (absent: empty), each class name and value validated, every
 * problem added to `issues`; the classes found good.
 */
function byClass<T>(
  raw: unknown,
  path: string,
  what: string,
  validate: (v: unknown, path: string) => T,
  issues: ValidationIssue[],
): Record<string, T> {
  const out: Record<string, T> = {};
  const value = raw ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path, message: `must be an object of class name to ${what}` });
    return out;
  }
  const collect = issueCollector(issues);
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    const cls = collect(() => validateWorkloadClass(name, `${path}.${name}`));
    const valid = collect(() => validate(v, `${path}.${name}`));
    if (cls !== undefined && valid !== undefined) out[cls] = valid;
  }
  return out;
}

/** What was learned with one class's figures and samples gone (an operator's reset). */
export function forgetClass(learned: LearnedEstimates, cls: string): LearnedEstimates {
  const drop = <T>(r: Readonly<Record<string, T>> | undefined): Record<string, T> =>
    Object.fromEntries(Object.entries(r ?? {}).filter(([c]) => c !== cls));
  const samples = drop(learned.samples);
  return Object.freeze({
    ...(learned.default === undefined ? {} : { default: learned.default }),
    classes: Object.freeze(drop(learned.classes)),
    ...(Object.keys(samples).length === 0 ? {} : { samples: Object.freeze(samples) }),
  });
}

/** A full book (a default and classes) from an untrusted value; a bare triple is the default. */
export function validateEstimateBook(input: unknown, path = 'estimates'): EstimateBook {
  const learned = validateLearnedEstimates(input, path);
  if (learned.default === undefined)
    throw new ValidationError([{ path: `${path}.default`, message: 'must be an object' }]);
  return bookOf(learned.default, learned.classes);
}
