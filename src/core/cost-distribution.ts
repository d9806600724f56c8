import { ValidationError, issueCollector, type ValidationIssue } from '../errors/validation';

/**
 * The observed distribution of task unit costs (seconds per MB), kept beside the learned worst
 * case c^max of He et al., RTMR, section IV.A: the worst case is what admission plans with, the
 * distribution shows how far above the typical task it sits.
 *
 * A log-bucketed sketch with relative accuracy alpha (the DDSketch construction): bucket i
 * holds the values in (gamma^(i-1), gamma^i], gamma = (1 + alpha) / (1 - alpha), and answers
 * for them with 2 gamma^i / (gamma + 1). Any value of the bucket is then within alpha of the
 * answer, relative to the value:
 *
 *   alpha = 0.01, gamma = 1.0202; a value of 0.1 s/MB lands in bucket ceil(ln 0.1 / ln gamma)
 *   = -115, which holds (0.09827, 0.10025] and answers 0.09925 (0.75 % off; never over 1 %).
 *
 * Bounded: the buckets cover [MIN_VALUE, MAX_VALUE] (10^-9 .. 10^9 s/MB, 2073 buckets at
 * alpha = 0.01), only those holding a value are stored, and values outside the range are
 * clamped into its end buckets; exact zeros have their own counter. Memory therefore never
 * grows with history, only with the spread of the values. count, min, max and sum are exact.
 *
 * Quantiles use the nearest rank: q is the k-th smallest value, k = max(1, ceil(q n)). The
 * answer comes from the bucket holding the k-th value, clamped to [min, max], so for values
 * inside the covered range it is within alpha (relative) of the exact k-th value.
 *
 * Values are plain JSON (the ledger stores them as they are); every operation returns a new
 * sketch and leaves its inputs alone.
 */
export interface CostSketch {
  /** alpha: the relative error bound of quantiles. */
  readonly relativeAccuracy: number;
  readonly count: number;
  /** Values that were exactly 0 (a task that took no measurable time). */
  readonly zeroCount: number;
  readonly min: number | null;
  readonly max: number | null;
  readonly sum: number;
  /** [bucket index, count] pairs, sorted by index, counts > 0. */
  readonly buckets: ReadonlyArray<readonly [number, number]>;
}

export const DEFAULT_RELATIVE_ACCURACY = 0.01;
export const MIN_VALUE = 1e-9;
export const MAX_VALUE = 1e9;

function gammaOf(alpha: number): number {
  return (1 + alpha) / (1 - alpha);
}

/** The index range of the covered values at this accuracy (inclusive). */
export function indexRange(alpha: number): { lo: number; hi: number } {
  const lnG = Math.log(gammaOf(alpha));
  return { lo: Math.ceil(Math.log(MIN_VALUE) / lnG), hi: Math.ceil(Math.log(MAX_VALUE) / lnG) };
}

/** The most buckets a sketch of this accuracy can ever hold. */
export function maxBuckets(alpha: number): number {
  const { lo, hi } = indexRange(alpha);
  return hi - lo + 1;
}

function indexOf(value: number, alpha: number): number {
  const { lo, hi } = indexRange(alpha);
  const i = Math.ceil(Math.log(value) / Math.log(gammaOf(alpha)));
  return Math.min(hi, Math.max(lo, i));
}

/** The bucket's answer: the point of (gamma^(i-1), gamma^i] at most alpha from either end. */
function valueOf(index: number, alpha: number): number {
  const g = gammaOf(alpha);
  return (2 * Math.pow(g, index)) / (g + 1);
}

/** The bucket's bounds (lower exclusive, upper inclusive). */
export function bucketBounds(index: number, alpha: number): { from: number; to: number } {
  const g = gammaOf(alpha);
  return { from: Math.pow(g, index - 1), to: Math.pow(g, index) };
}

export function emptySketch(relativeAccuracy = DEFAULT_RELATIVE_ACCURACY): CostSketch {
  if (!(relativeAccuracy > 0 && relativeAccuracy < 1)) {
    throw new ValidationError([{ path: 'relativeAccuracy', message: 'must be between 0 and 1 (exclusive)' }]);
  }
  return Object.freeze({
    relativeAccuracy,
    count: 0,
    zeroCount: 0,
    min: null,
    max: null,
    sum: 0,
    buckets: Object.freeze([]),
  });
}

/** The sketch with `values` added; a negative or non-finite value is a ValidationError. */
export function addValues(sketch: CostSketch, values: readonly number[]): CostSketch {
  const issues: ValidationIssue[] = [];
  values.forEach((v, i) => {
    if (!Number.isFinite(v) || v < 0)
      issues.push({ path: `values[${i}]`, message: 'must be a finite number >= 0' });
  });
  if (issues.length > 0) throw new ValidationError(issues);
  if (values.length === 0) return sketch;
  const alpha = sketch.relativeAccuracy;
  const counts = new Map<number, number>(sketch.buckets.map(([i, n]) => [i, n]));
  let { zeroCount, min, max, sum } = sketch;
  for (const v of values) {
    if (v === 0) zeroCount++;
    else {
      const i = indexOf(v, alpha);
      counts.set(i, (counts.get(i) ?? 0) + 1);
    }
    min = min === null ? v : Math.min(min, v);
    max = max === null ? v : Math.max(max, v);
    sum += v;
  }
  return freeze(alpha, sketch.count + values.length, zeroCount, min, max, sum, counts);
}

/** Both sketches' values in one; they must share the accuracy (else a ValidationError). */
export function mergeSketches(a: CostSketch, b: CostSketch): CostSketch {
  if (a.relativeAccuracy !== b.relativeAccuracy) {
    throw new ValidationError([
      {
        path: 'relativeAccuracy',
        message: `cannot merge sketches of accuracy ${a.relativeAccuracy} and ${b.relativeAccuracy}`,
      },
    ]);
  }
  const counts = new Map<number, number>(a.buckets.map(([i, n]) => [i, n]));
  for (const [i, n] of b.buckets) counts.set(i, (counts.get(i) ?? 0) + n);
  const pick = (x: number | null, y: number | null, f: (p: number, q: number) => number) =>
    x === null ? y : y === null ? x : f(x, y);
  return freeze(
    a.relativeAccuracy,
    a.count + b.count,
    a.zeroCount + b.zeroCount,
    pick(a.min, b.min, Math.min),
    pick(a.max, b.max, Math.max),
    a.sum + b.sum,
    counts,
  );
}

function freeze(
  relativeAccuracy: number,
  count: number,
  zeroCount: number,
  min: number | null,
  max: number | null,
  sum: number,
  counts: Map<number, number>,
): CostSketch {
  const buckets = [...counts.entries()]
    .filter(([, n]) => n > 0)
    .sort((x, y) => x[0] - y[0])
    .map(([i, n]) => Object.freeze([i, n] as const));
  return Object.freeze({
    relativeAccuracy,
    count,
    zeroCount,
    min,
    max,
    sum,
    buckets: Object.freeze(buckets),
  });
}

/**
 * The nearest-rank q-quantile (q in [0, 1]), within relativeAccuracy of the exact one for
 * values in [MIN_VALUE, MAX_VALUE]; null when the sketch is empty.
 */
export function quantile(sketch: CostSketch, q: number): number | null {
  if (!(q >= 0 && q <= 1)) throw new ValidationError([{ path: 'q', message: 'must be in [0, 1]' }]);
  if (sketch.count === 0 || sketch.min === null || sketch.max === null) return null;
  const rank = Math.max(1, Math.ceil(q * sketch.count));
  if (rank <= sketch.zeroCount) return 0;
  let seen = sketch.zeroCount;
  for (const [i, n] of sketch.buckets) {
    seen += n;
    if (seen >= rank) {
      // Clamping only moves the answer towards the exact value, which lies in [min, max].
      return Math.min(sketch.max, Math.max(sketch.min, valueOf(i, sketch.relativeAccuracy)));
    }
  }
  return sketch.max;
}

export interface SketchSummary {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export function summarize(sketch: CostSketch): SketchSummary {
  return {
    count: sketch.count,
    min: sketch.min,
    max: sketch.max,
    mean: sketch.count === 0 ? null : sketch.sum / sketch.count,
    p50: quantile(sketch, 0.5),
    p90: quantile(sketch, 0.9),
    p99: quantile(sketch, 0.99),
  };
}

export interface HistogramBin {
  /** Lower bound (exclusive), seconds per MB. */
  from: number;
  /** Upper bound (inclusive). */
  to: number;
  count: number;
}

/**
 * At most `maxBins` log-spaced bins over the occupied buckets, for drawing: runs of adjacent
 * buckets are merged, so every bin spans the same ratio and the counts add up to the count of
 * non-zero values. Zeros are not drawn on a log axis (they are in `zeroCount`).
 * `spanTo` (e.g. the learned worst case, drawn on the same axis) widens the span the bin width
 * is chosen for, so bins stay readable when the axis reaches far beyond the values.
 */
export function histogramBins(sketch: CostSketch, maxBins = 24, spanTo?: number): HistogramBin[] {
  if (!(Number.isInteger(maxBins) && maxBins >= 1)) {
    throw new ValidationError([{ path: 'maxBins', message: 'must be a whole number >= 1' }]);
  }
  const b = sketch.buckets;
  if (b.length === 0) return [];
  const lo = b[0]![0];
  const hi = b[b.length - 1]![0];
  const alpha = sketch.relativeAccuracy;
  const spanHi = spanTo !== undefined && spanTo > 0 && Number.isFinite(spanTo) ? indexOf(spanTo, alpha) : hi;
  const spanLo = spanTo !== undefined && spanTo > 0 && Number.isFinite(spanTo) ? Math.min(lo, spanHi) : lo;
  const width = Math.max(1, Math.ceil((Math.max(hi, spanHi) - spanLo + 1) / maxBins));
  const bins = new Map<number, number>();
  for (const [i, n] of b) {
    const k = Math.floor((i - lo) / width);
    bins.set(k, (bins.get(k) ?? 0) + n);
  }
  const nBins = Math.floor((hi - lo) / width) + 1;
  return Array.from({ length: nBins }, (_, k) => ({
    from: bucketBounds(lo + k * width, alpha).from,
    to: bucketBounds(lo + (k + 1) * width - 1, alpha).to,
    count: bins.get(k) ?? 0,
  }));
}

/** A sketch read back from JSON (the ledger), checked; a bad shape is a ValidationError. */
export function validateSketch(input: unknown, path = 'sketch'): CostSketch {
  const issues: ValidationIssue[] = [];
  if (typeof input !== 'object' || input === null)
    throw new ValidationError([{ path, message: 'must be an object' }]);
  const r = input as Record<string, unknown>;
  const num = (k: string, ok: (v: number) => boolean, what: string): number => {
    const v = r[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) {
      issues.push({ path: `${path}.${k}`, message: `must be ${what}` });
      return 0;
    }
    return v;
  };
  const alpha = num('relativeAccuracy', (v) => v > 0 && v < 1, 'between 0 and 1 (exclusive)');
  const count = num('count', (v) => Number.isInteger(v) && v >= 0, 'a whole number >= 0');
  const zeroCount = num('zeroCount', (v) => Number.isInteger(v) && v >= 0, 'a whole number >= 0');
  const sum = num('sum', (v) => v >= 0, 'a finite number >= 0');
  const bound = (k: 'min' | 'max'): number | null => {
    if (r[k] === null && count === 0) return null;
    return num(k, (v) => v >= 0, count === 0 ? 'null when count is 0' : 'a finite number >= 0');
  };
  const min = bound('min');
  const max = bound('max');
  const counts = new Map<number, number>();
  if (!Array.isArray(r.buckets)) issues.push({ path: `${path}.buckets`, message: 'must be an array' });
  else {
    const range = issues.length === 0 ? indexRange(alpha) : { lo: -Infinity, hi: Infinity };
    (r.buckets as unknown[]).forEach((e, k) => {
      const ok =
        Array.isArray(e) &&
        e.length === 2 &&
        Number.isInteger(e[0]) &&
        (e[0] as number) >= range.lo &&
        (e[0] as number) <= range.hi &&
        Number.isInteger(e[1]) &&
        (e[1] as number) > 0;
      if (!ok || counts.has(e[0] as number)) {
        issues.push({
          path: `${path}.buckets[${k}]`,
          message: 'must be a new [index in range, count > 0] pair',
        });
      } else counts.set(e[0] as number, e[1] as number);
    });
  }
  let total = zeroCount;
  for (const n of counts.values()) total += n;
  if (issues.length === 0 && total !== count) {
    issues.push({
      path: `${path}.count`,
      message: `is ${count}, but the buckets and zeroCount hold ${total}`,
    });
  }
  if (issues.length === 0 && min !== null && max !== null && min > max) {
    issues.push({ path: `${path}.min`, message: 'is above max' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return freeze(alpha, count, zeroCount, min, max, sum, counts);
}

/** The cluster's observed costs: one sketch per stage, and how many jobs fed them. */
export interface ObservedCosts {
  readonly jobs: number;
  readonly map: CostSketch;
  readonly reduce: CostSketch;
}

export function emptyObservedCosts(relativeAccuracy = DEFAULT_RELATIVE_ACCURACY): ObservedCosts {
  const e = emptySketch(relativeAccuracy);
  return Object.freeze({ jobs: 0, map: e, reduce: e });
}

export function observeJob(
  costs: ObservedCosts,
  unit: { readonly map: readonly number[]; readonly reduce: readonly number[] },
): ObservedCosts {
  return Object.freeze({
    jobs: costs.jobs + 1,
    map: addValues(costs.map, unit.map),
    reduce: addValues(costs.reduce, unit.reduce),
  });
}

export function validateObservedCosts(input: unknown, path = 'observedCosts'): ObservedCosts {
  if (typeof input !== 'object' || input === null)
    throw new ValidationError([{ path, message: 'must be an object' }]);
  const r = input as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const part = issueCollector(issues);
  const map = part(() => validateSketch(r.map, `${path}.map`));
  const reduce = part(() => validateSketch(r.reduce, `${path}.reduce`));
  if (typeof r.jobs !== 'number' || !Number.isInteger(r.jobs) || r.jobs < 0) {
    issues.push({ path: `${path}.jobs`, message: 'must be a whole number >= 0' });
  }
  if (map && reduce && map.relativeAccuracy !== reduce.relativeAccuracy) {
    issues.push({ path: `${path}.reduce.relativeAccuracy`, message: 'must equal the map sketch’s' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ jobs: r.jobs as number, map: map!, reduce: reduce! });
}

/** One workload class's observed costs, and when it last saw a job (for retention). */
export interface ClassObservedCosts extends ObservedCosts {
  /** The book's `jobs` count just after this class's latest job: larger is more recent. */
  readonly lastJob: number;
}

/**
 * The observed costs per workload class (the classes of the estimate book, `*` for jobs
 * observed before there were classes). `jobs` counts every job observed, kept or not; it is
 * also the clock recency is measured with, so no wall-clock time enters the core.
 */
export interface ObservedCostsBook {
  readonly jobs: number;
  readonly classes: Readonly<Record<string, ClassObservedCosts>>;
}

/**
 * Which classes keep a distribution. A class name comes from a submission (or an app's
 * `class:` tag), so the set is open; unbounded it would grow the ledger entry, the API answer
 * and the metrics' series without limit. Kept: the `pinned` classes (the configured ones and
 * `*`: an operator named them, they stay however rarely they run), and the `recent` others that
 * saw a job most recently. A class dropped for a newer one loses its distribution only: its
 * learned figures stay in the estimate book, and it starts a new distribution when it runs again.
 */
export interface ClassRetention {
  readonly pinned: readonly string[];
  readonly recent: number;
}

/** The default number of unconfigured classes that keep a distribution. */
export const DEFAULT_RECENT_CLASSES = 16;

export function emptyObservedCostsBook(): ObservedCostsBook {
  return Object.freeze({ jobs: 0, classes: Object.freeze({}) });
}

/**
 * The book with `retention` applied: every pinned class, and the `recent` most recently seen
 * others (ties, which only a hand-written ledger can hold, go to the smaller name). Returns the
 * classes dropped too, so a caller can drop what it keeps per class (metric series).
 */
export function retainClasses(
  book: ObservedCostsBook,
  retention: ClassRetention,
): { book: ObservedCostsBook; dropped: string[] } {
  if (!(Number.isInteger(retention.recent) && retention.recent >= 0)) {
    throw new ValidationError([{ path: 'recent', message: 'must be a whole number >= 0' }]);
  }
  const pinned = new Set(retention.pinned);
  const others = Object.keys(book.classes)
    .filter((c) => !pinned.has(c))
    .sort((a, b) => book.classes[b]!.lastJob - book.classes[a]!.lastJob || (a < b ? -1 : a > b ? 1 : 0));
  const dropped = others.slice(retention.recent).sort();
  if (dropped.length === 0) return { book, dropped };
  const gone = new Set(dropped);
  const kept = Object.fromEntries(Object.entries(book.classes).filter(([c]) => !gone.has(c)));
  return { book: Object.freeze({ jobs: book.jobs, classes: Object.freeze(kept) }), dropped };
}

/** One finished job's unit costs added to its class's distribution, then `retention` applied. */
export function observeClassJob(
  book: ObservedCostsBook,
  cls: string,
  unit: { readonly map: readonly number[]; readonly reduce: readonly number[] },
  retention: ClassRetention,
): { book: ObservedCostsBook; dropped: string[] } {
  const before = Object.hasOwn(book.classes, cls)
    ? book.classes[cls]!
    : emptyObservedCosts(Object.values(book.classes)[0]?.map.relativeAccuracy ?? DEFAULT_RELATIVE_ACCURACY);
  const jobs = book.jobs + 1;
  const seen = observeJob(before, unit);
  const entry: ClassObservedCosts = Object.freeze({ ...seen, lastJob: jobs });
  const next = Object.freeze({ jobs, classes: Object.freeze({ ...book.classes, [cls]: entry }) });
  return retainClasses(next, retention);
}

/** The class with the most observed jobs (ties: the smaller name); null when none has any. */
export function mostObservedClass(book: ObservedCostsBook): string | null {
  let best: string | null = null;
  for (const [c, v] of Object.entries(book.classes)) {
    if (v.jobs === 0) continue;
    const b = best === null ? undefined : book.classes[best]!;
    if (b === undefined || v.jobs > b.jobs || (v.jobs === b.jobs && c < best!)) best = c;
  }
  return best;
}

/**
 * A book read back from JSON (the ledger). The single cluster-wide distribution stored before
 * there were classes (`{jobs, map, reduce}`) loads as the class `*`: it was kept beside the
 * single cluster-wide estimates, which load as the book's default `*` too
 * (validateLearnedEstimates), so the old distribution stays beside the worst case it was
 * learned with. Class names are not checked here beyond being keys: the ledger only holds
 * names that were validated when the job was submitted.
 */
export function validateObservedCostsBook(input: unknown, path = 'observedCosts'): ObservedCostsBook {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ValidationError([{ path, message: 'must be an object' }]);
  const r = input as Record<string, unknown>;
  if (!('classes' in r)) {
    const old = validateObservedCosts(r, path);
    return Object.freeze({
      jobs: old.jobs,
      classes: Object.freeze({ '*': Object.freeze({ ...old, lastJob: old.jobs }) }),
    });
  }
  const issues: ValidationIssue[] = [];
  const jobs = r.jobs;
  if (typeof jobs !== 'number' || !Number.isInteger(jobs) || jobs < 0)
    issues.push({ path: `${path}.jobs`, message: 'must be a whole number >= 0' });
  const classes: Record<string, ClassObservedCosts> = {};
  const raw = r.classes;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.push({ path: `${path}.classes`, message: 'must be an object of class name to costs' });
  } else {
    let alpha: number | undefined;
    for (const [name, v] of Object.entries(raw as Record<string, unknown>)) {
      const p = `${path}.classes.${name}`;
      try {
        const costs = validateObservedCosts(v, p);
        const lastJob = (v as Record<string, unknown>).lastJob;
        if (typeof lastJob !== 'number' || !Number.isInteger(lastJob) || lastJob < 0)
          issues.push({ path: `${p}.lastJob`, message: 'must be a whole number >= 0' });
        else if (typeof jobs === 'number' && lastJob > jobs)
          issues.push({ path: `${p}.lastJob`, message: `is ${lastJob}, above jobs (${jobs})` });
        else if (alpha !== undefined && costs.map.relativeAccuracy !== alpha)
          issues.push({ path: `${p}.map.relativeAccuracy`, message: 'must equal the other classes’' });
        else classes[name] = Object.freeze({ ...costs, lastJob });
        alpha ??= costs.map.relativeAccuracy;
      } catch (err) {
        if (err instanceof ValidationError) issues.push(...err.issues);
        else throw err;
      }
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ jobs: jobs as number, classes: Object.freeze(classes) });
}
