import { mapLane, reduceLane, type JobWork, type Lanes, type Placement, type SlotModel } from './model';

/**
 * One change of one lane's sorted vector: its `consumed` smallest values were taken by tasks and
 * replaced by `added` (sorted). A job's effect on the vectors is a short list of these, so a
 * queue of a thousand jobs on 20,000 slots need not keep a thousand full vectors.
 * A `full` step replaces the vectors outright (SATU's result, Alg. 5.6).
 */
export type Step =
  | { readonly kind: 'delta'; readonly lane: number; readonly consumed: number; readonly added: Float64Array }
  | { readonly kind: 'full'; readonly lanes: Lanes };

/**
 * Water-filling `count` equal tasks of `seconds` onto the sorted vector `src`, none starting
 * before `release`: exactly what Alg. 5.2 lines 2-8 (or 5.3 lines 3-9) compute, in O(count).
 *
 * Why it is exact: the literal loop always takes the smallest value, so the values it takes are
 * non-decreasing, and so are the values it writes back (max(t, release) + seconds is monotone in
 * t). The written values therefore form a sorted FIFO, and "the smallest value of the vector" is
 * always the smaller of the next untouched slot and the head of that FIFO. Each slot's value is
 * computed by the same float operations in the same order as in the literal loop, so the
 * resulting multiset is bit-for-bit the literal one.
 */
export function waterFill(
  src: Float64Array,
  count: number,
  seconds: number,
  release: number,
): { consumed: number; added: Float64Array; last: number } {
  const n = src.length;
  if (count <= 0 || n === 0) return { consumed: 0, added: new Float64Array(0), last: -Infinity };
  const cap = Math.min(count, n);
  if (scratch.length < cap) scratch = new Float64Array(Math.max(cap, scratch.length * 2));
  const ring = scratch;
  let head = 0;
  let size = 0;
  let ptr = 0;
  let last = -Infinity;
  for (let k = 0; k < count; k++) {
    let t: number;
    if (ptr < n && (size === 0 || src[ptr]! <= ring[head]!)) t = src[ptr++]!;
    else {
      t = ring[head]!;
      head = head + 1 === cap ? 0 : head + 1;
      size--;
    }
    t = Math.max(t, release);
    t += seconds;
    last = t;
    let tail = head + size;
    if (tail >= cap) tail -= cap;
    ring[tail] = t;
    size++;
  }
  // size === ptr: every touched slot holds exactly one value in the FIFO.
  const added = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const j = head + i;
    added[i] = ring[j >= cap ? j - cap : j]!;
  }
  return { consumed: ptr, added, last };
}

/** Reused FIFO storage: allocating a typed array per placement costs more than the placement. */
let scratch = new Float64Array(1024);

/** First index in [lo, hi) with src[index] > x (galloping, then binary search). */
function upperBound(src: Float64Array, lo: number, hi: number, x: number): number {
  if (lo >= hi || src[lo]! > x) return lo;
  let step = 1;
  let prev = lo;
  let probe = lo + 1;
  while (probe < hi && src[probe]! <= x) {
    prev = probe;
    step *= 2;
    probe = lo + step;
  }
  let a = prev + 1;
  let b = Math.min(probe, hi);
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (src[mid]! <= x) a = mid + 1;
    else b = mid;
  }
  return a;
}

const BULK = 48;

/** dst = sorted(src[consumed..] + added); dst.length === src.length. */
export function applyDelta(
  src: Float64Array,
  consumed: number,
  added: Float64Array,
  dst: Float64Array,
): void {
  const n = src.length;
  let i = consumed;
  let o = 0;
  for (let a = 0; a < added.length; a++) {
    const x = added[a]!;
    const j = upperBound(src, i, n, x);
    const len = j - i;
    if (len > BULK) dst.set(src.subarray(i, j), o);
    else for (let k = 0; k < len; k++) dst[o + k] = src[i + k]!;
    o += len;
    i = j;
    dst[o++] = x;
  }
  const rest = n - i;
  if (rest > BULK) dst.set(src.subarray(i, n), o);
  else for (let k = 0; k < rest; k++) dst[o + k] = src[i + k]!;
}

/**
 * A working copy of the vectors that jobs are placed onto one after another, with two buffers
 * per lane so a placement costs no allocation beyond the small `added` runs.
 */
export class VectorCursor {
  private cur: Float64Array[];
  private spare: Float64Array[];

  constructor(
    private readonly model: SlotModel,
    start: Lanes,
  ) {
    this.cur = start.map((l) => Float64Array.from(l));
    this.spare = start.map((l) => new Float64Array(l.length));
  }

  lanes(): Float64Array[] {
    return this.cur.map((l) => Float64Array.from(l));
  }

  /** The current vectors without copying; valid until the next change. */
  view(): Lanes {
    return this.cur;
  }

  apply(step: Step): void {
    if (step.kind === 'full') {
      step.lanes.forEach((l, i) => this.cur[i]!.set(l));
      return;
    }
    if (step.consumed === 0 && step.added.length === 0) return;
    const lane = step.lane;
    applyDelta(this.cur[lane]!, step.consumed, step.added, this.spare[lane]!);
    const t = this.cur[lane]!;
    this.cur[lane] = this.spare[lane]!;
    this.spare[lane] = t;
  }

  applyAll(steps: readonly Step[]): void {
    for (const s of steps) this.apply(s);
  }

  /** Alg. 5.2 + 5.3 on the current vectors; advances the cursor past the job. */
  place(work: JobWork, now: number): Placement & { steps: Step[] } {
    const ml = mapLane(this.model);
    const rl = reduceLane(this.model);
    const m = waterFill(this.cur[ml]!, work.pendingMaps, work.mapSeconds, now);
    const mapStep: Step = { kind: 'delta', lane: ml, consumed: m.consumed, added: m.added };
    this.apply(mapStep);
    const mapEnd = Math.max(m.last, work.mapsBusyUntil, now);
    const r = waterFill(this.cur[rl]!, work.pendingReduces, work.reduceSeconds, mapEnd);
    const redStep: Step = { kind: 'delta', lane: rl, consumed: r.consumed, added: r.added };
    this.apply(redStep);
    const finish = Math.max(r.last, work.reducesBusyUntil, mapEnd);
    return { mapEnd, finish, steps: [mapStep, redStep] };
  }

  equals(other: Lanes): boolean {
    for (let l = 0; l < this.cur.length; l++) {
      const a = this.cur[l]!;
      const b = other[l]!;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    }
    return true;
  }
}

/** Vectors after applying steps to a start, as a fresh copy (for tests and snapshots). */
export function applySteps(model: SlotModel, start: Lanes, steps: readonly Step[]): Float64Array[] {
  const c = new VectorCursor(model, start);
  c.applyAll(steps);
  return c.lanes();
}
