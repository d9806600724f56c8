import { ValidationError, type ValidationIssue } from '../errors/validation';
import type { Estimates } from './estimates';
import { fullEstimates } from './learning';

/**
 * Profiles of recurring jobs (docs/estimates.md), after ARIA (Verma, Cherkasova and Campbell,
 * "ARIA: Automatic Resource Inference and Allocation for MapReduce Environments", ICAC 2011),
 * which bounds a recurring job's completion from the task durations of its past runs, and 3Sigma
 * (Park, Tumanov, Jiang, Kozuch and Ganger, "3Sigma: Distribution-based Cluster Scheduling for
 * Runtime Uncertainty", EuroSys 2018), which judges a job on the distribution of its past errors
 * rather than on one point.
 *
 * A job's identity is an explicit profile name, or its name with ids, dates and numbers stripped,
 * with its user and queue (profileKeyOf). Each finished run leaves one ProfileRun: per stage its
 * longest task and that task's data, its set-up and commit, and, when it was judged with its
 * profile, its error: actual / predicted duration, the prediction taken without any margin.
 *
 * A profile's figures (profileFigures) are, per stage, a Theil-Sen fit of the longest task's
 * seconds on its megabytes over the last `windowRuns` runs (the median of pairwise slopes and
 * then of intercepts: a run in three may be wild without moving it), so a job with no input is
 * judged on the median of its runs; set-up and commit are the medians of theirs. Figures follow
 * the window down as well as up. Admission judges with these figures times an error factor: the
 * `quantile` (default p95) of the profile's errors, within [minFactor, maxFactor]; while fewer
 * than `minErrorSamples` errors are known, at least `margin` times their median (the margin alone
 * before any): the nearest-rank p95 of a few errors is their largest, which the next run exceeds
 * with a chance of 1 in (errors + 1). A job with no profile is judged on
 * its class's figures times `margin` (estimateFor says which, in words).
 *
 * Worked example (quantile 0.95, margin 1.25, 3 errors needed): runs whose longest maps took
 * 10 s over 64 MB and 18 s over 128 MB fit 2 s + 0.125 s/MB; with set-up medians 12 s and
 * errors 1.1, 0.9 and 1.3 the factor is 1.3 (p95 of three by nearest rank is their largest),
 * so every figure is judged 1.3 times larger. Under the default 10 errors needed it would be
 * 1.375: 1.25 times their median 1.1. The point prediction (the answer's expected finish,
 * beside the bound admission judged with) takes the errors' median instead: x1.1 here, and x1
 * (the figures themselves) before any error is known.
 *
 * No I/O, clock or randomness: the caller hands in what it observed.
 */

export interface ProfileOptions {
  /** The quantile of past errors a profiled job is judged at (0.5-1). */
  readonly quantile: number;
  /** Runs kept per profile, newest last; the figures are fitted on these. */
  readonly windowRuns: number;
  /**
   * Factor on a job judged without a profile, and, while its errors are few, the least factor
   * over their median (>= 1).
   */
  readonly margin: number;
  /** Errors known before the quantile alone sets the factor. */
  readonly minErrorSamples: number;
  /** Bounds of the error factor. */
  readonly minFactor: number;
  readonly maxFactor: number;
  /** Profiles kept; the one learned longest ago is dropped first. */
  readonly maxProfiles: number;
}

export const DEFAULT_PROFILE_OPTIONS: ProfileOptions = Object.freeze({
  quantile: 0.95,
  windowRuns: 20,
  margin: 1.25,
  minErrorSamples: 10,
  minFactor: 0.5,
  maxFactor: 4,
  maxProfiles: 1000,
});

/** What one finished run of a recurring job leaves in its profile. */
export interface ProfileRun {
  /** The largest map's data, MB, and the longest map's seconds (maps 0: both 0). */
  readonly mapMb: number;
  readonly mapSeconds: number;
  /** Each reduce's share of the input, MB, and the longest reduce's seconds (map-only: both 0). */
  readonly reduceMb: number;
  readonly reduceSeconds: number;
  readonly maps: number;
  readonly reduces: number;
  /** From the job's start to its first task, and from its last task to its end (unknown: absent). */
  readonly setupSeconds?: number;
  readonly commitSeconds?: number;
  /** Actual duration / the duration predicted with the profile's figures, no margin (absent: not judged on it). */
  readonly error?: number;
}

export interface JobProfile {
  /** Oldest first, at most windowRuns. */
  readonly runs: readonly ProfileRun[];
  /** Runs learned in all, including those that left the window. */
  readonly totalRuns: number;
  /** The workload class of its latest run (whose figures fill what the profile has not seen). */
  readonly workloadClass?: string;
}

export interface ProfileBook {
  /** Profile name -> profile, in the order they were last learned (oldest first). */
  readonly profiles: Readonly<Record<string, JobProfile>>;
}

export const EMPTY_PROFILE_BOOK: ProfileBook = Object.freeze({ profiles: Object.freeze({}) });

/** An explicit profile name: lower case, digits and . _ - @ / (it may be a derived key given back). */
export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9._@/-]{0,127}$/;

const MAX_NAME_CHARS = 96;

/**
 * A job name with what changes from run to run stripped: YARN and MapReduce ids, UUIDs, dates
 * and times, long hex strings and then every number; lower case, runs of separators made one,
 * at most 96 characters. `wordcount 2026-11-29 part-00017` and `WordCount 2026-11-30 part-3`
 * are one job: `wordcount part`.
 */
export function normaliseJobName(name: string): string {
  let s = name.toLowerCase();
  s = s.replace(/\b(application|job|container|appattempt|attempt|task)_[0-9a-z_]+/g, ' ');
  s = s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ' ');
  s = s.replace(/\d{4}-\d{2}-\d{2}(t[\d:.]+z?)?/g, ' ');
  s = s.replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/g, ' ');
  s = s.replace(/\d+/g, ' ');
  // Separators: a run of them becomes its first; words are kept, the rest dropped.
  s = s.replace(/[^a-z._\- ]+/g, ' ');
  s = s.replace(/([._\- ])[._\- ]*/g, '$1');
  s = s.replace(/^[._\- ]+|[._\- ]+$/g, '');
  return (s || 'job').slice(0, MAX_NAME_CHARS).replace(/[._\- ]+$/, '') || 'job';
}

/**
 * A job's profile name: its explicit one, else `normalised-name@user/queue`. Spaces in the name
 * become `-`, so the key is one word.
 */
export function profileKeyOf(job: {
  readonly profile?: string | null;
  readonly name: string;
  readonly user: string;
  readonly queue: string;
}): string {
  if (job.profile) return job.profile;
  return `${normaliseJobName(job.name).replace(/ /g, '-')}@${job.user}/${job.queue}`;
}

/** The value at quantile q of `values` by nearest rank (q 0.95 of 3 values: the largest). */
export function nearestRank(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError('no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Sizes (MB) closer than this are one size to the fit: a kilobyte. */
const MIN_SIZE_MB = 1 / 1024;

/**
 * Theil-Sen: the median of the slopes between points whose x differ by more than 5 % of the
 * larger (and by more than a kilobyte), then the median of y - slope * x. Without two such points the slope is `slopeIfNone`,
 * or the points' median y over median x when that is less.
 * Slope and intercept are kept >= 0 (a task takes no less for more data, nor less than nothing).
 */
export function theilSen(
  points: readonly { readonly x: number; readonly y: number }[],
  slopeIfNone: number,
): { slope: number; intercept: number } {
  if (points.length === 0) throw new RangeError('no points');
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) {
      const a = points[i]!;
      const b = points[j]!;
      const dx = b.x - a.x;
      // Sizes within a kilobyte are one size: a slope over less says nothing (and may overflow).
      if (Math.abs(dx) > Math.max(MIN_SIZE_MB, 0.05 * Math.max(Math.abs(a.x), Math.abs(b.x))))
        slopes.push((b.y - a.y) / dx);
    }
  // Without two sizes to fit on, the runs' own seconds per MB when below `slopeIfNone`: the
  // time seen at the size seen is kept, and a larger input costs in proportion.
  const mx = median(points.map((p) => p.x));
  const none = mx > MIN_SIZE_MB ? Math.min(slopeIfNone, median(points.map((p) => p.y)) / mx) : slopeIfNone;
  const slope = Math.max(0, slopes.length > 0 ? median(slopes) : none);
  return { slope, intercept: Math.max(0, median(points.map((p) => p.y - slope * p.x))) };
}

/**
 * A profile's figures, no margin: per stage the fit of its longest tasks, set-up and commit
 * medians. The shuffle ratio is taken as 1 (a reduce's MB are its share of the input, as the
 * runs were measured); what a profile has not seen (no reduce ran, no set-up known) comes from
 * `fallback`, the job's class's figures, as does the AM's container.
 */
export function profileFigures(profile: JobProfile, fallback: Estimates): Estimates {
  const f = fullEstimates(fallback);
  const stage = (
    runs: readonly ProfileRun[],
    x: (r: ProfileRun) => number,
    y: (r: ProfileRun) => number,
    slopeIfNone: number,
  ) =>
    theilSen(
      runs.map((r) => ({ x: x(r), y: y(r) })),
      slopeIfNone,
    );
  const withMaps = profile.runs.filter((r) => r.maps > 0);
  const withReduces = profile.runs.filter((r) => r.reduces > 0);
  const map =
    withMaps.length > 0
      ? stage(
          withMaps,
          (r) => r.mapMb,
          (r) => r.mapSeconds,
          f.mapCostMax,
        )
      : { slope: f.mapCostMax, intercept: f.mapTaskSeconds };
  // The class's reduce cost is per MB of intermediate data: eta * MB of input.
  const reduce =
    withReduces.length > 0
      ? stage(
          withReduces,
          (r) => r.reduceMb,
          (r) => r.reduceSeconds,
          f.reduceCostMax * f.eta,
        )
      : { slope: f.reduceCostMax * f.eta, intercept: f.reduceTaskSeconds };
  const seen = (pick: (r: ProfileRun) => number | undefined, otherwise: number): number => {
    const v = profile.runs.map(pick).filter((x): x is number => x !== undefined);
    return v.length > 0 ? median(v) : otherwise;
  };
  return Object.freeze({
    eta: 1,
    mapCostMax: map.slope,
    reduceCostMax: reduce.slope,
    mapTaskSeconds: map.intercept,
    reduceTaskSeconds: reduce.intercept,
    setupSeconds: seen((r) => r.setupSeconds, f.setupSeconds),
    commitSeconds: seen((r) => r.commitSeconds, f.commitSeconds),
    ...(f.amContainers > 0 ? { amContainers: f.amContainers } : {}),
  });
}

/** Every duration figure times `k` (the shuffle ratio and the AM's containers kept). */
export function scaleEstimates(e: Estimates, k: number): Estimates {
  const f = fullEstimates(e);
  return Object.freeze({
    eta: f.eta,
    mapCostMax: f.mapCostMax * k,
    reduceCostMax: f.reduceCostMax * k,
    mapTaskSeconds: f.mapTaskSeconds * k,
    reduceTaskSeconds: f.reduceTaskSeconds * k,
    setupSeconds: f.setupSeconds * k,
    commitSeconds: f.commitSeconds * k,
    ...(f.amContainers > 0 ? { amContainers: f.amContainers } : {}),
  });
}

/**
 * The error factor of a profile: its errors' quantile, at least `margin` times their median while
 * they are few; and the point prediction's factor, their median (1 before any).
 */
export function errorFactor(
  profile: JobProfile,
  options: ProfileOptions,
): { factor: number; errors: number; quantileError: number | null; expected: number } {
  const errors = profile.runs.map((r) => r.error).filter((e): e is number => e !== undefined);
  const q = errors.length > 0 ? nearestRank(errors, options.quantile) : null;
  const mid = errors.length > 0 ? median(errors) : 1;
  let factor = q ?? options.margin;
  // Few errors: their nearest-rank quantile is their largest, which the next run exceeds with a
  // chance of 1 in (errors + 1); the margin over their median covers that until enough are known.
  if (errors.length < options.minErrorSamples) factor = Math.max(factor, mid * options.margin);
  factor = clampFactor(factor, options);
  const expected = clampFactor(mid, options);
  return { factor, errors: errors.length, quantileError: q, expected };
}

function clampFactor(x: number, options: ProfileOptions): number {
  return Math.min(options.maxFactor, Math.max(options.minFactor, x));
}

/** Where a job's estimate came from, said in every answer. */
export type EstimateFrom =
  | {
      readonly source: 'profile';
      readonly profile: string;
      readonly runs: number;
      readonly errors: number;
      readonly quantile: number;
      readonly factor: number;
      /** The point prediction's factor: the median of the errors (1 before any). */
      readonly expected: number;
      readonly text: string;
    }
  | {
      readonly source: 'class' | 'default';
      readonly profile: string;
      readonly workloadClass: string;
      readonly factor: number;
      /** The point prediction's factor: 1, the class's figures themselves. */
      readonly expected: number;
      readonly text: string;
    };

const pct = (q: number): string => `p${Math.round(q * 100)}`;
const marginText = (m: number): string => `margin ${Math.round((m - 1) * 100)} %`;

/**
 * The figures a job is judged with, and where they came from: its profile's times its error
 * factor when it has runs; else its class's times the margin (`classLearned`: the class has
 * learned from finished jobs; else its figures are the configured default ones).
 */
export function estimateFor(
  book: ProfileBook,
  key: string,
  cls: { readonly name: string; readonly figures: Estimates; readonly learnedJobs: number },
  options: ProfileOptions,
): { estimates: Estimates; from: EstimateFrom } {
  const profile = Object.hasOwn(book.profiles, key) ? book.profiles[key] : undefined;
  if (profile !== undefined && profile.runs.length > 0) {
    const { factor, errors, expected } = errorFactor(profile, options);
    const few = errors < options.minErrorSamples;
    const text =
      `profile ${key}, ${profile.totalRuns} run${profile.totalRuns === 1 ? '' : 's'}, ` +
      (few
        ? `${errors} error${errors === 1 ? '' : 's'} known: x${round2(factor)} (at least ${errors === 0 ? 'the' : 'their median +'} ${marginText(options.margin)})`
        : `${pct(options.quantile)} of ${errors} errors: x${round2(factor)}`);
    return {
      estimates: scaleEstimates(profileFigures(profile, cls.figures), factor),
      from: Object.freeze({
        source: 'profile',
        profile: key,
        runs: profile.totalRuns,
        errors,
        quantile: options.quantile,
        factor,
        expected,
        text,
      }),
    };
  }
  const learned = cls.learnedJobs > 0;
  const text = learned
    ? `no history for profile ${key}: class ${cls.name} (${cls.learnedJobs} job${cls.learnedJobs === 1 ? '' : 's'} learned) + ${marginText(options.margin)}`
    : `no history for profile ${key}: class ${cls.name} default + ${marginText(options.margin)}`;
  return {
    estimates: scaleEstimates(cls.figures, options.margin),
    from: Object.freeze({
      source: learned ? 'class' : 'default',
      profile: key,
      workloadClass: cls.name,
      factor: options.margin,
      expected: 1,
      text,
    }),
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** One run learned into its profile: kept to the window, the profile moved to the newest end. */
export function learnProfile(
  book: ProfileBook,
  key: string,
  run: ProfileRun,
  options: ProfileOptions,
  workloadClass?: string,
): ProfileBook {
  const before = Object.hasOwn(book.profiles, key) ? book.profiles[key] : undefined;
  const profile: JobProfile = Object.freeze({
    runs: Object.freeze([...(before?.runs ?? []), Object.freeze({ ...run })].slice(-options.windowRuns)),
    totalRuns: (before?.totalRuns ?? 0) + 1,
    ...(workloadClass === undefined ? {} : { workloadClass }),
  });
  const entries = Object.entries(book.profiles).filter(([k]) => k !== key);
  entries.push([key, profile]);
  return Object.freeze({ profiles: Object.freeze(Object.fromEntries(entries.slice(-options.maxProfiles))) });
}

/** A profile's error from a judged run: actual / (estimated duration / the factor it was judged with). */
export function runError(
  actualSeconds: number,
  estimatedSeconds: number,
  factor: number,
): number | undefined {
  if (!(actualSeconds > 0 && estimatedSeconds > 0 && factor > 0)) return undefined;
  return actualSeconds / (estimatedSeconds / factor);
}

/** Checks options (a ValidationError names each bad one). */
export function validateProfileOptions(o: ProfileOptions, path = 'profiles'): ProfileOptions {
  const issues: ValidationIssue[] = [];
  const need = (ok: boolean, field: string, message: string) => {
    if (!ok) issues.push({ path: `${path}.${field}`, message });
  };
  need(o.quantile >= 0.5 && o.quantile <= 1, 'quantile', 'must be between 0.5 and 1');
  need(Number.isInteger(o.windowRuns) && o.windowRuns >= 1, 'windowRuns', 'must be a whole number >= 1');
  need(Number.isFinite(o.margin) && o.margin >= 1, 'margin', 'must be a finite number >= 1');
  need(
    Number.isInteger(o.minErrorSamples) && o.minErrorSamples >= 0,
    'minErrorSamples',
    'must be a whole number >= 0',
  );
  need(o.minFactor > 0 && o.minFactor <= 1, 'minFactor', 'must be > 0 and <= 1');
  need(Number.isFinite(o.maxFactor) && o.maxFactor >= o.margin, 'maxFactor', 'must be finite and >= margin');
  need(Number.isInteger(o.maxProfiles) && o.maxProfiles >= 1, 'maxProfiles', 'must be a whole number >= 1');
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ ...o });
}

/** A stored profile book (a ledger value): every run's figures finite and >= 0. */
export function validateProfileBook(input: unknown, path = 'profiles'): ProfileBook {
  const rec = input as { profiles?: unknown } | null;
  if (typeof rec !== 'object' || rec === null || typeof rec.profiles !== 'object' || rec.profiles === null)
    throw new ValidationError([{ path: `${path}.profiles`, message: 'must be an object' }]);
  const issues: ValidationIssue[] = [];
  const out: Record<string, JobProfile> = {};
  for (const [key, p] of Object.entries(rec.profiles as Record<string, unknown>)) {
    const at = `${path}.profiles[${JSON.stringify(key)}]`;
    const prof = p as { runs?: unknown; totalRuns?: unknown } | null;
    if (typeof prof !== 'object' || prof === null || !Array.isArray(prof.runs)) {
      issues.push({ path: `${at}.runs`, message: 'must be an array' });
      continue;
    }
    const runs: ProfileRun[] = [];
    prof.runs.forEach((r: unknown, i: number) => {
      const run = r as Record<string, unknown> | null;
      let ok = typeof run === 'object' && run !== null;
      for (const f of ['mapMb', 'mapSeconds', 'reduceMb', 'reduceSeconds', 'maps', 'reduces'])
        if (!ok || !isCount(run![f])) ok = false;
      for (const f of ['setupSeconds', 'commitSeconds', 'error'])
        if (ok && run![f] !== undefined && !isCount(run![f])) ok = false;
      if (ok) runs.push(Object.freeze({ ...(run as unknown as ProfileRun) }));
      else issues.push({ path: `${at}.runs[${i}]`, message: 'must hold finite figures >= 0' });
    });
    const total = isCount(prof.totalRuns) ? Math.max(prof.totalRuns as number, runs.length) : runs.length;
    const cls = (prof as { workloadClass?: unknown }).workloadClass;
    out[key] = Object.freeze({
      runs: Object.freeze(runs),
      totalRuns: total,
      ...(typeof cls === 'string' ? { workloadClass: cls } : {}),
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ profiles: Object.freeze(out) });
}

function isCount(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}
