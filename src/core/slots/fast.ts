import {
  amNowBound,
  mapLane,
  reduceLane,
  takesAmSlot,
  type JobWork,
  type Lanes,
  type Placement,
  type SlotModel,
} from './model';

/**
 * The fast engine's representation of one lane's sorted vector T (Alg. 5.2/5.3): the same
 * multiset of slot times, held as a min-heap of immutable, sorted, run-length encoded batches.
 *
 * Why this shape: Alg. 5.2/5.3 only ever read the smallest values of T and write back values
 * that are at least as large. So a job's placement is "take the k smallest, add k new values",
 * and the k new values come out sorted (see `fill`). Keeping them as one sorted batch, and T as
 * a heap of such batches keyed by each batch's smallest remaining value, makes a placement cost
 * O(runs it takes * log batches) instead of the O(slots) of re-merging a flat sorted array. Equal
 * slot times form one run (value, count): on a cluster where many slots are free at the same
 * instant, M equal tasks are placed in a handful of steps, not M.
 *
 * The sorted vector the pseudo-code speaks of is the sorted list of this multiset (`toSorted`),
 * and every slot value is computed by the same float operations in the same order as the
 * literal loop, so the vectors are bit-identical (engines.test.ts checks it).
 */
export interface Batch {
  /**
   * The runs as flat triples (value, count, hash of the value; see `valueHash`), values
   * ascending, counts > 0. One plain array, not typed ones: most batches hold one or two runs,
   * and allocating (and collecting) small typed arrays cost more than the placement itself.
   */
  readonly runs: readonly number[];
  /** Sum of the counts. */
  readonly total: number;
  /** Sum over runs of count * hash, modulo 2^32: the batch's share of the lane fingerprint. */
  readonly fingerprint: number;
}

/**
 * One change of one lane: its `consumed` smallest values were taken by tasks and replaced by
 * the values of the step's runs (as many slots as were taken). A job's effect on the vectors is one or
 * two of these, so a queue of a thousand jobs on 20,000 slots need not keep a thousand full
 * vectors. A `full` step replaces the vectors outright (SATU's result, Alg. 5.6).
 */
export type Step = DeltaStep | { readonly kind: 'full'; readonly lanes: Lanes };

/** A delta step is itself the batch of values it added (one object per placement, not two). */
export interface DeltaStep extends Batch {
  readonly kind: 'delta';
  readonly lane: number;
  readonly consumed: number;
}

const hashBuf = new Float64Array(1);
const hashBits = new Uint32Array(hashBuf.buffer);

/**
 * A 32-bit hash of a slot time, equal for equal (===) values: the fingerprint of a lane is the
 * sum of the hashes of its values, so two lanes holding the same multiset have equal
 * fingerprints whatever their batches look like. Used only as a filter before an exact check.
 */
export function valueHash(v: number): number {
  hashBuf[0] = v + 0; // -0 -> +0: they compare equal
  let h = Math.imul(hashBits[0]! ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hashBits[1]! + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x27d4eb2d);
  h ^= h >>> 15;
  return h | 0;
}

/** A batch from a sorted dense vector: equal neighbours become one run. */
export function batchFromSorted(v: ArrayLike<number>): Batch {
  const runs: number[] = [];
  let total = 0;
  let fp = 0;
  for (let i = 0; i < v.length; i++) {
    // Object.is: a -0 next to a 0 stays its own run, so the multiset is kept bit for bit.
    if (i === 0 || !Object.is(v[i], v[i - 1])) runs.push(v[i]!, 0, valueHash(v[i]!));
    runs[runs.length - 2] = runs[runs.length - 2]! + 1;
    total++;
    fp = (fp + runs[runs.length - 1]!) | 0;
  }
  return { runs, total, fingerprint: fp };
}

/**
 * Result of water-filling one job's tasks of one stage onto a lane: the step to record (the
 * `consumed` smallest slots taken, their new values as the batch) and what the pseudo-code reads.
 */
export interface Fill extends DeltaStep {
  /** Value written by the last task (e^m of Alg. 5.2 line 6, e of Alg. 5.3 line 7); -Infinity if none. */
  readonly last: number;
  /** Some slot's value changed (false only for zero-length tasks on slots at or after the release). */
  readonly raised: boolean;
}

// Reused FIFO storage for `fill`: allocating per placement costs more than the placement.
let fifoValues = new Float64Array(256);
let fifoCounts = new Float64Array(256);

/** Appends `count` slots of value `w` to the fill's FIFO at `ft` (grown when full); its new tail. */
function fifoAppend(ft: number, w: number, count: number): number {
  if (ft === fifoValues.length) {
    const v = new Float64Array(ft * 2);
    v.set(fifoValues);
    fifoValues = v;
    const c = new Float64Array(ft * 2);
    c.set(fifoCounts);
    fifoCounts = c;
  }
  fifoValues[ft] = w;
  fifoCounts[ft] = count;
  return ft + 1;
}

/**
 * The FIFO's entries from `fh` to `ft` as runs (value, count, hash of the value), in an
 * exact-size array (most placements write one run): growing by push over-allocates.
 */
function fifoRuns(fh: number, ft: number): number[] {
  if (ft - fh === 1) return [fifoValues[fh]!, fifoCounts[fh]!, valueHash(fifoValues[fh]!)];
  const runs = new Array<number>(3 * (ft - fh));
  for (let i = fh, o = 0; i < ft; i++, o += 3) {
    runs[o] = fifoValues[i]!;
    runs[o + 1] = fifoCounts[i]!;
    runs[o + 2] = valueHash(fifoValues[i]!);
  }
  return runs;
}

/** The fingerprint of runs: the sum of count x hash over them, in 32-bit arithmetic. */
function runsFingerprint(runs: readonly number[]): number {
  let fp = 0;
  for (let o = 0; o < runs.length; o += 3) fp = (fp + Math.imul(runs[o + 1]!, runs[o + 2]!)) | 0;
  return fp;
}

/** A lane: a min-heap of batches, each with a cursor on its first remaining run. */
export class RunLane {
  /** Heap entries: batch, index of its current run, slots left in that run, that run's value. */
  private hb: Batch[] = [];
  private hi: number[] = [];
  private hr: number[] = [];
  private hk: number[] = [];
  private len = 0;
  private fp = 0;

  /** `index`: which lane of the slot model this is (recorded in the steps); `size`: its slots. */
  constructor(
    readonly index: number,
    readonly size: number,
  ) {}

  static fromSorted(v: ArrayLike<number>, index = 0): RunLane {
    const lane = new RunLane(index, v.length);
    lane.push(batchFromSorted(v));
    return lane;
  }

  clone(): RunLane {
    const c = new RunLane(this.index, this.size);
    c.hb = this.hb.slice(0, this.len);
    c.hi = this.hi.slice(0, this.len);
    c.hr = this.hr.slice(0, this.len);
    c.hk = this.hk.slice(0, this.len);
    c.len = this.len;
    c.fp = this.fp;
    return c;
  }

  /** The smallest slot time (u_1 of the pseudo-code). */
  min(): number {
    return this.len > 0 ? this.hk[0]! : Infinity;
  }

  /** Number of batches in the heap (for benches and tests). */
  batches(): number {
    return this.len;
  }

  /** Sum of value hashes modulo 2^32 (equal multisets have equal fingerprints). */
  fingerprint(): number {
    return this.fp;
  }

  push(b: Batch): void {
    if (b.total === 0) return;
    let i = this.len++;
    const key = b.runs[0]!;
    // Sift up.
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.hk[p]! <= key) break;
      this.hb[i] = this.hb[p]!;
      this.hi[i] = this.hi[p]!;
      this.hr[i] = this.hr[p]!;
      this.hk[i] = this.hk[p]!;
      i = p;
    }
    this.hb[i] = b;
    this.hi[i] = 0;
    this.hr[i] = b.runs[1]!;
    this.hk[i] = key;
    this.fp = (this.fp + b.fingerprint) | 0;
  }

  private siftDown(i: number): void {
    const n = this.len;
    const hk = this.hk;
    const b = this.hb[i]!;
    const idx = this.hi[i]!;
    const r = this.hr[i]!;
    const key = hk[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && hk[c + 1]! < hk[c]!) c++;
      if (hk[c]! >= key) break;
      this.hb[i] = this.hb[c]!;
      this.hi[i] = this.hi[c]!;
      this.hr[i] = this.hr[c]!;
      hk[i] = hk[c]!;
      i = c;
    }
    this.hb[i] = b;
    this.hi[i] = idx;
    this.hr[i] = r;
    hk[i] = key;
  }

  /** Removes k (1 <= k <= slots left in it) slots of the smallest run. */
  private takeTop(k: number): void {
    const b = this.hb[0]!;
    const idx = this.hi[0]!;
    this.fp = (this.fp - Math.imul(k, b.runs[idx + 2]!)) | 0;
    const left = this.hr[0]! - k;
    if (left > 0) {
      this.hr[0] = left;
      return;
    }
    if (idx + 3 < b.runs.length) {
      // The batch's next run becomes its head; it is larger, so it can only sink. Mostly it
      // stays on top (a batch's runs are consecutive slot times): check that before sifting.
      const key = b.runs[idx + 3]!;
      this.hi[0] = idx + 3;
      this.hr[0] = b.runs[idx + 4]!;
      this.hk[0] = key;
      const n = this.len;
      if (n < 2 || (key <= this.hk[1]! && (n < 3 || key <= this.hk[2]!))) return;
    } else {
      const last = --this.len;
      this.hb[0] = this.hb[last]!;
      this.hi[0] = this.hi[last]!;
      this.hr[0] = this.hr[last]!;
      this.hk[0] = this.hk[last]!;
    }
    if (this.len > 1) this.siftDown(0);
  }

  /** Removes the `count` smallest slot times (replaying a recorded step). */
  drop(count: number): void {
    let left = count;
    while (left > 0) {
      const k = Math.min(left, this.hr[0]!);
      this.takeTop(k);
      left -= k;
    }
  }

  /**
   * Water-filling `count` equal tasks of `seconds`, none starting before `release`: exactly what
   * Alg. 5.2 lines 2-8 (or Alg. 5.3 lines 3-9) compute, run by run instead of task by task.
   *
   * Why it is exact: the literal loop always takes the smallest value t and writes back
   * max(t, release) + seconds >= t (lines 3-5). The values it takes are therefore
   * non-decreasing, and so are the values it writes (the map t -> max(t, release) + seconds is
   * monotone), so the written values form a sorted FIFO and "the smallest value of T" is always
   * the smaller of the lane's smallest untaken run and the FIFO head. When that smallest value
   * t is shared by c slots, the literal loop takes those c slots one after another (nothing it
   * writes meanwhile is smaller than t), writing the same value each time: one step here takes
   * min(c, tasks left) of them at once. Each written value comes from the same float operations
   * as in the literal loop, so the resulting multiset, and the last value written, are
   * bit-for-bit the literal ones.
   */
  fill(count: number, seconds: number, release: number): Fill {
    if (count <= 0)
      return {
        kind: 'delta',
        lane: this.index,
        consumed: 0,
        runs: [],
        total: 0,
        fingerprint: 0,
        last: -Infinity,
        raised: false,
      };
    let fh = 0;
    let ft = 0;
    let left = count;
    let consumed = 0;
    let last = -Infinity;
    let raised = false;
    while (left > 0) {
      let t: number;
      let k: number;
      if (this.len > 0 && (fh === ft || this.hk[0]! <= fifoValues[fh]!)) {
        t = this.hk[0]!;
        k = Math.min(left, this.hr[0]!);
        this.takeTop(k);
        consumed += k;
      } else {
        t = fifoValues[fh]!;
        k = Math.min(left, fifoCounts[fh]!);
        fifoCounts[fh] = fifoCounts[fh]! - k;
        if (fifoCounts[fh] === 0) fh++;
      }
      // Alg. 5.2 lines 4-5 (Alg. 5.3 lines 5-6), in the same order of operations.
      let w = Math.max(t, release);
      w += seconds;
      if (w !== t) raised = true;
      last = w;
      left -= k;
      if (ft > fh && fifoValues[ft - 1] === w) fifoCounts[ft - 1] = fifoCounts[ft - 1]! + k;
      else ft = fifoAppend(ft, w, k);
    }
    // Every taken slot holds exactly one value in the FIFO (its last one).
    const runs = fifoRuns(fh, ft);
    const fp = runsFingerprint(runs);
    const step: Fill = {
      kind: 'delta',
      lane: this.index,
      consumed,
      runs,
      total: consumed,
      fingerprint: fp,
      last,
      raised,
    };
    this.push(step);
    return step;
  }

  /** The lane as the sorted vector of the pseudo-code. */
  toSorted(): Float64Array {
    const out = new Float64Array(this.size);
    let o = 0;
    for (let h = 0; h < this.len; h++) {
      const r = this.hb[h]!.runs;
      let idx = this.hi[h]!;
      for (let c = this.hr[h]!; c > 0; c--) out[o++] = r[idx]!;
      for (idx += 3; idx < r.length; idx += 3) for (let c = r[idx + 1]!; c > 0; c--) out[o++] = r[idx]!;
    }
    return out.sort();
  }

  /** Same multiset of slot times: fingerprints first, then an exact comparison. */
  sameAs(other: RunLane): boolean {
    if (this.size !== other.size || this.fp !== other.fp || this.min() !== other.min()) return false;
    const a = this.toSorted();
    const b = other.toSorted();
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
}

/** The vectors of a slot model (one RunLane per lane) that jobs are placed onto in turn. */
export class RunLanes {
  private constructor(
    private readonly ml: number,
    private readonly rl: number,
    readonly lanes: RunLane[],
  ) {}

  static fromSorted(model: SlotModel, start: Lanes): RunLanes {
    return new RunLanes(
      mapLane(model),
      reduceLane(model),
      start.map((l, i) => RunLane.fromSorted(l, i)),
    );
  }

  clone(): RunLanes {
    return new RunLanes(
      this.ml,
      this.rl,
      this.lanes.map((l) => l.clone()),
    );
  }

  apply(step: Step): void {
    if (step.kind === 'full') {
      step.lanes.forEach((l, i) => (this.lanes[i] = RunLane.fromSorted(l, i)));
      return;
    }
    const lane = this.lanes[step.lane]!;
    lane.drop(step.consumed);
    lane.push(step);
  }

  applyAll(steps: readonly Step[]): void {
    for (const s of steps) this.apply(s);
  }

  /**
   * Alg. 5.2 then Alg. 5.3 on the current vectors; advances past the job. `raised` is false
   * exactly when the vectors came out unchanged (every write is >= the value it replaces, so
   * the multiset is unchanged if and only if no write was larger).
   */
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number; raised: boolean } {
    const ml = work.mapLane ?? this.ml;
    if (work.am !== undefined) return this.placeWithAm(work, ml, now);
    const firstPick = work.pendingMaps > 0 ? this.lanes[ml]!.min() : Infinity;
    const m = this.lanes[ml]!.fill(work.pendingMaps, work.mapSeconds, now);
    const mapEnd = Math.max(m.last, work.mapsBusyUntil, now);
    const r = this.lanes[this.rl]!.fill(work.pendingReduces, work.reduceSeconds, mapEnd);
    const finish = Math.max(r.last, work.reducesBusyUntil, mapEnd);
    return { mapEnd, finish, steps: [m, r], firstPick, raised: m.raised || r.raised };
  }

  /**
   * `place` for a job with an AM (JobWork.am), the same float operations as `literalPlace`:
   * the AM takes the smallest slot time u of the maps' lane (a step consuming it and adding
   * nothing), the maps are released at max(u, now) + set-up, and once the finish (last task
   * plus commit) is known the AM's slot comes back at it (a step adding one value, consuming
   * none). Replayed in order, the steps give the same multiset as the placement did.
   *
   * `firstPick` is the instant up to which `now` cannot change the record (amNowBound).
   */
  private placeWithAm(
    work: JobWork,
    ml: number,
    now: number,
  ): Placement & { steps: Step[]; firstPick: number; raised: boolean } {
    const am = work.am!;
    const lane = this.lanes[ml]!;
    const steps: Step[] = [];
    let release = now;
    const firstPick = amNowBound(work, lane.min());
    if (takesAmSlot(work)) {
      const u = lane.min();
      release = Math.max(u, now);
      lane.drop(1);
      steps.push({ kind: 'delta', lane: ml, consumed: 1, runs: [], total: 0, fingerprint: 0 });
    }
    release += am.setupSeconds;
    const m = lane.fill(work.pendingMaps, work.mapSeconds, release);
    const mapEnd = Math.max(m.last, work.mapsBusyUntil, release);
    const r = this.lanes[this.rl]!.fill(work.pendingReduces, work.reduceSeconds, mapEnd);
    let finish = Math.max(r.last, work.reducesBusyUntil, mapEnd);
    finish += am.commitSeconds;
    steps.push(m, r);
    if (takesAmSlot(work)) {
      const h = valueHash(finish);
      const back: DeltaStep = {
        kind: 'delta',
        lane: ml,
        consumed: 0,
        runs: [finish, 1, h],
        total: 1,
        fingerprint: h,
      };
      lane.push(back);
      steps.push(back);
    }
    // The AM's slot always moves (finish > u unless every figure is 0 and u >= now).
    return { mapEnd, finish, steps, firstPick, raised: true };
  }

  toSorted(): Float64Array[] {
    return this.lanes.map((l) => l.toSorted());
  }

  sameAs(other: RunLanes): boolean {
    return this.lanes.every((l, i) => l.sameAs(other.lanes[i]!));
  }
}

/** Vectors after applying steps to a start, as fresh sorted arrays (for tests and snapshots). */
export function applySteps(model: SlotModel, start: Lanes, steps: readonly Step[]): Float64Array[] {
  const c = RunLanes.fromSorted(model, start);
  c.applyAll(steps);
  return c.toSorted();
}
