/**
 * How task durations stretch with the containers running at once (docs/estimates.md, "Capacity
 * as the nodes deliver it"). A node that advertises more vcores than it has cores runs every
 * container it is given, each slower: with k CPU-bound containers on C cores, each gets about
 * C / k of a core, and a task takes max(1, k / C) times its time alone. From finished tasks
 * (their seconds and the containers running beside them) this finds the C that explains them
 * best. Pure: times are seconds on the caller's clock; no I/O, no clock, no randomness.
 */

/** A container's or a task's life, in seconds. */
export interface Span {
  start: number;
  end: number;
}

/**
 * For each of `of`, the number of `spans` running during it, averaged over its life (a span of
 * `of` that is also in `spans` counts itself). A span of no length gets the count at its start.
 */
export function meanConcurrency(spans: readonly Span[], of: readonly Span[]): number[] {
  // The count of running spans is a step function; F is its integral at each step.
  const deltas = new Map<number, number>();
  for (const s of spans) {
    if (!(s.end > s.start)) continue;
    deltas.set(s.start, (deltas.get(s.start) ?? 0) + 1);
    deltas.set(s.end, (deltas.get(s.end) ?? 0) - 1);
  }
  const times = [...deltas.keys()].sort((a, b) => a - b);
  const counts: number[] = [];
  const integral: number[] = [];
  let count = 0;
  let area = 0;
  times.forEach((t, i) => {
    if (i > 0) area += count * (t - times[i - 1]!);
    count += deltas.get(t)!;
    counts.push(count);
    integral.push(area);
  });
  /** Index of the last step at or before t, or -1. */
  const stepAt = (t: number): number => {
    let lo = 0;
    let hi = times.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const areaTo = (t: number): number => {
    const i = stepAt(t);
    return i < 0 ? 0 : integral[i]! + counts[i]! * (t - times[i]!);
  };
  return of.map((s) => {
    if (!(s.end > s.start)) {
      const i = stepAt(s.start);
      return i < 0 ? 0 : counts[i]!;
    }
    return (areaTo(s.end) - areaTo(s.start)) / (s.end - s.start);
  });
}

/** One finished task, for the fit. */
export interface StretchObservation {
  /**
   * Tasks that take the same time alone share a group (the caller's: one workload class, stage
   * and data size). Each group's time alone is fitted with C; a group of one task tells nothing.
   */
  group: string;
  seconds: number;
  /** Containers running while it ran, averaged over its life, itself included. */
  concurrent: number;
}

export interface StretchFit {
  /** Observations used: positive seconds and concurrency, in groups of 2 or more. */
  observations: number;
  groups: number;
  /** The most containers seen running at once beside a task (0 without observations). */
  maxConcurrent: number;
  /**
   * Containers the pool runs at full speed: with k running, each task took max(1, k / this)
   * times its time alone. Null when there are too few observations, or when no slowdown was seen
   * up to maxConcurrent.
   */
  fullSpeedContainers: number | null;
  /**
   * Mean |ln(seconds / modelled seconds)| with the fit (what it minimises), to 6 decimals; null
   * with too few observations.
   */
  meanLogError: number | null;
  /** The same with no slowdown at all (every task of a group its group's median). */
  meanLogErrorFlat: number | null;
  outcome: 'fit' | 'too-few-observations' | 'no-slowdown-seen';
}

/** Fewer observations than this give no fit. */
export const MIN_STRETCH_OBSERVATIONS = 8;

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

function median(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

/**
 * The C tried: every quarter up to 16 (small pools, exactly), then 2 % apart, and the largest
 * concurrency seen (no slowdown within what was seen).
 */
function candidates(maxK: number): number[] {
  const out: number[] = [];
  for (let q = 0.25; q < Math.min(maxK, 16) + 1e-9; q += 0.25) out.push(q);
  for (let c = 16 * 1.02; c < maxK; c *= 1.02) out.push(c);
  out.push(maxK);
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * The robust fit of C: each group g has its time alone a_g, and a task that ran beside k
 * containers is modelled as a_g * max(1, k / C). For each candidate C, each ln a_g is the median
 * of its group's ln(seconds) - ln max(1, k / C) (the L1 optimum), and C is scored by the sum of
 * absolute log residuals; outliers move a median, not a mean. The best score wins, the largest C
 * among equal scores (the least slowdown that explains what was seen). A best C at the largest
 * concurrency seen means no slowdown was seen.
 */
export function fitStretch(observations: readonly StretchObservation[]): StretchFit {
  const byGroup = new Map<string, Array<{ lnT: number; k: number }>>();
  for (const o of observations) {
    if (!(o.seconds > 0) || !(o.concurrent > 0) || !Number.isFinite(o.seconds + o.concurrent)) continue;
    const list = byGroup.get(o.group) ?? [];
    list.push({ lnT: Math.log(o.seconds), k: o.concurrent });
    byGroup.set(o.group, list);
  }
  const groups = [...byGroup.values()].filter((g) => g.length >= 2);
  const n = groups.reduce((a, g) => a + g.length, 0);
  const maxK = groups.reduce((a, g) => g.reduce((b, o) => Math.max(b, o.k), a), 0);
  const base = { observations: n, groups: groups.length, maxConcurrent: maxK };
  if (n < MIN_STRETCH_OBSERVATIONS)
    return {
      ...base,
      fullSpeedContainers: null,
      meanLogError: null,
      meanLogErrorFlat: null,
      outcome: 'too-few-observations',
    };
  const lnT = groups.map((g) => Float64Array.from(g, (o) => o.lnT));
  const lnK = groups.map((g) => Float64Array.from(g, (o) => Math.log(o.k)));
  /** The sum of the observations' |log residuals| with C (Infinity: no slowdown). */
  const score = (c: number): number => {
    const lnC = Math.log(c);
    let total = 0;
    lnT.forEach((ts, gi) => {
      const ks = lnK[gi]!;
      const alone = ts.map((t, i) => t - Math.max(0, ks[i]! - lnC)).sort();
      const lnA = median(alone);
      for (const x of alone) total += Math.abs(x - lnA);
    });
    return total;
  };
  let best = Infinity;
  let bestC = maxK;
  for (const c of candidates(maxK)) {
    const s = score(c);
    // Ascending C: an equal score (within rounding) moves to the larger C.
    if (s <= best + 1e-9 * (1 + Math.abs(best))) {
      best = Math.min(best, s);
      bestC = c;
    }
  }
  const flat = round6(score(Infinity) / n);
  if (bestC >= maxK)
    return {
      ...base,
      fullSpeedContainers: null,
      meanLogError: flat,
      meanLogErrorFlat: flat,
      outcome: 'no-slowdown-seen',
    };
  return {
    ...base,
    fullSpeedContainers: bestC,
    meanLogError: round6(best / n),
    meanLogErrorFlat: flat,
    outcome: 'fit',
  };
}

/** How many times its time alone a task takes beside k containers, with the fit's C. */
export function stretchAt(fit: Pick<StretchFit, 'fullSpeedContainers'>, concurrent: number): number {
  const c = fit.fullSpeedContainers;
  return c === null ? 1 : Math.max(1, concurrent / c);
}
