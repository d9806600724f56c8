/**
 * Seeded randomness for the simulator. Nothing under src/sim reads Math.random: every
 * draw comes from a generator built from a seed, so a run is reproducible bit for bit.
 *
 * mulberry32: a 32-bit state generator, small and fast, good enough for workload
 * sampling (not for cryptography). Each consumer forks its own stream (`fork(label)`) so
 * that adding draws in one place (say, task jitter) does not shift another (arrivals).
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number;
  /** Uniform real in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** Exponential with the given mean (inverse transform). */
  exponential(mean: number): number;
  /** Normal (Box-Muller). */
  normal(mean: number, sd: number): number;
  /** Pick one element uniformly. */
  pick<T>(items: readonly T[]): T;
  /** A Fisher-Yates shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent stream derived from this generator's seed and a label. */
  fork(label: string): Rng;
}

/** FNV-1a over a string, to turn labels into 32-bit seed material. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function mulberry32(seed: number): Rng {
  const origin = seed >>> 0;
  let state = origin;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    uniform: (lo, hi) => lo + next() * (hi - lo),
    exponential: (mean) => -mean * Math.log(1 - next()),
    normal: (mean, sd) => {
      // 1 - next() is in (0, 1], so the log is finite.
      const u = 1 - next();
      const v = next();
      return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    shuffle: (items) => {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        const tmp = out[i] as (typeof out)[number];
        out[i] = out[j] as (typeof out)[number];
        out[j] = tmp;
      }
      return out;
    },
    fork: (label) => mulberry32((origin ^ hash32(label)) >>> 0),
  };
  return rng;
}

/**
 * Zipf sampler over ranks 1..n with exponent s: P(k) proportional to 1 / k^s.
 * He, dissertation, section 6.3.1 draws data accesses with skew 1. Built once (cumulative table),
 * then each draw is a binary search.
 */
export function zipfSampler(n: number, s: number, rng: Rng): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let k = 1; k <= n; k++) {
    total += 1 / Math.pow(k, s);
    cdf[k - 1] = total;
  }
  return () => {
    const u = rng.next() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}
