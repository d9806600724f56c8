import { ValidationError, type ValidationIssue } from '../../../errors/validation';
import type { Estimates } from '../../estimates';
import { taskEstimates } from '../../estimates';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../../job';
import { VectorCursor, type Step } from '../../slots/fast';
import { literalPlace } from '../../slots/literal';
import {
  freeLanes,
  laneSizes,
  mapLane,
  type JobWork,
  type Lanes,
  type Placement,
  type SlotModel,
} from '../../slots/model';

/** Which implementation of the vector calculations a state uses. */
export type VectorEngine = 'fast' | 'literal';
/** The priority order of the queue: EDF (seed default) or FIFO (seed 000 IV.B: any fixed order). */
export type QueueOrder = 'edf' | 'fifo';

/** One admitted, unfinished job with its record J.T^m / J.T^r (as steps from its predecessor's). */
export interface RtmrEntry {
  readonly job: DeadlineJob;
  readonly work: JobWork;
  /** The dispatcher launched a task of it: later arrivals go behind it (no preemption). */
  readonly started: boolean;
  readonly mapEnd: number;
  readonly finish: number;
  /** Its vectors = these steps applied to the vectors after its predecessor (or the base). */
  readonly steps: readonly Step[];
  /** `now` of the calculation that produced `steps`, and the first slot time its maps took. */
  readonly computedAt: number;
  readonly mapFirstPick: number;
}

export interface RtmrState {
  readonly kind: 'rtmr';
  readonly model: SlotModel;
  readonly estimates: Estimates;
  readonly engine: VectorEngine;
  readonly order: QueueOrder;
  /** Slot availability before the first queued job: all free, or rebuilt from a running cluster. */
  readonly base: Lanes;
  readonly entries: readonly RtmrEntry[];
  /**
   * Memo (not state): vectors before entry c, for c a multiple of CHECKPOINT_EVERY, filled on
   * demand so that materialising a predecessor's vectors replays at most that many entries.
   */
  readonly checkpoints: Map<number, Lanes>;
}

export const CHECKPOINT_EVERY = 32;

export function emptyRtmrState(
  model: SlotModel,
  estimates: Estimates,
  engine: VectorEngine,
  order: QueueOrder,
  now: number,
): RtmrState {
  return {
    kind: 'rtmr',
    model,
    estimates,
    engine,
    order,
    base: freeLanes(model, now),
    entries: [],
    checkpoints: new Map(),
  };
}

export function freshWork(estimates: Estimates, job: DeadlineJob): JobWork {
  const t = taskEstimates(estimates, job);
  return {
    pendingMaps: job.maps,
    mapSeconds: t.mapSeconds,
    mapsBusyUntil: -Infinity,
    pendingReduces: job.reduces,
    reduceSeconds: t.reduceSeconds,
    reducesBusyUntil: -Infinity,
  };
}

/** Places jobs one after another on a working copy of the vectors, with either engine. */
export interface Walker {
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number };
  apply(steps: readonly Step[]): void;
  view(): Lanes;
  equals(other: Lanes): boolean;
}

class LiteralWalker implements Walker {
  private cur: Float64Array[];
  constructor(
    private readonly model: SlotModel,
    start: Lanes,
  ) {
    this.cur = start.map((l) => Float64Array.from(l));
  }
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number } {
    const firstPick = work.pendingMaps > 0 ? this.cur[mapLane(this.model)]![0]! : Infinity;
    const r = literalPlace(this.model, this.cur, work, now);
    this.cur = r.lanes;
    return { mapEnd: r.mapEnd, finish: r.finish, steps: [{ kind: 'full', lanes: r.lanes }], firstPick };
  }
  apply(steps: readonly Step[]): void {
    if (steps.length === 0) return;
    const c = new VectorCursor(this.model, this.cur);
    c.applyAll(steps);
    this.cur = c.lanes();
  }
  view(): Lanes {
    return this.cur;
  }
  equals(other: Lanes): boolean {
    return lanesEqual(this.cur, other);
  }
}

class FastWalker implements Walker {
  private readonly c: VectorCursor;
  constructor(
    private readonly model: SlotModel,
    start: Lanes,
  ) {
    this.c = new VectorCursor(model, start);
  }
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number } {
    const firstPick = work.pendingMaps > 0 ? this.c.view()[mapLane(this.model)]![0]! : Infinity;
    return { ...this.c.place(work, now), firstPick };
  }
  apply(steps: readonly Step[]): void {
    this.c.applyAll(steps);
  }
  view(): Lanes {
    return this.c.view();
  }
  equals(other: Lanes): boolean {
    return this.c.equals(other);
  }
}

export function lanesEqual(a: Lanes, b: Lanes): boolean {
  if (a.length !== b.length) return false;
  for (let l = 0; l < a.length; l++) {
    const x = a[l]!;
    const y = b[l]!;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

export function newWalker(state: Pick<RtmrState, 'model' | 'engine'>, start: Lanes): Walker {
  return state.engine === 'literal'
    ? new LiteralWalker(state.model, start)
    : new FastWalker(state.model, start);
}

/** Index of the last step replacing the vectors outright, or -1. */
function lastFull(steps: readonly Step[]): number {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.kind === 'full') return i;
  return -1;
}

/**
 * The vectors before entry `index` (after its predecessor; T_p of Alg. 5.1 lines 2-3), as a
 * fresh copy. Starts from the nearest full record or memoised checkpoint, replays the rest.
 */
export function vectorsBefore(state: RtmrState, index: number): Float64Array[] {
  // Nearest full record at or before index-1.
  let j = index - 1;
  while (j >= 0 && lastFull(state.entries[j]!.steps) < 0) j--;
  let c = Math.floor(index / CHECKPOINT_EVERY) * CHECKPOINT_EVERY;
  while (c > 0 && c > j + 1 && !state.checkpoints.has(c)) c -= CHECKPOINT_EVERY;
  let cursor: VectorCursor;
  let from: number;
  if (c > j + 1 && state.checkpoints.has(c)) {
    cursor = new VectorCursor(state.model, state.checkpoints.get(c)!);
    from = c;
  } else if (j >= 0) {
    const steps = state.entries[j]!.steps;
    const k = lastFull(steps);
    cursor = new VectorCursor(state.model, (steps[k] as { lanes: Lanes }).lanes);
    cursor.applyAll(steps.slice(k + 1));
    from = j + 1;
  } else {
    cursor = new VectorCursor(state.model, state.base);
    from = 0;
  }
  for (let i = from; i < index; i++) {
    if (state.engine === 'fast' && i > 0 && i % CHECKPOINT_EVERY === 0 && !state.checkpoints.has(i)) {
      state.checkpoints.set(i, cursor.lanes());
    }
    cursor.applyAll(state.entries[i]!.steps);
  }
  return cursor.lanes();
}

/** J.T^m and J.T^r of entry `index` (for mr1 `[T^m, T^r]`, for unified `[T]`). */
export function vectorsAfter(state: RtmrState, index: number): Float64Array[] {
  return vectorsBefore(state, index + 1);
}

/** Checkpoints of `state` still valid for a new entry list that differs only from `index` on. */
export function keepCheckpoints(state: RtmrState, index: number): Map<number, Lanes> {
  const m = new Map<number, Lanes>();
  for (const [k, v] of state.checkpoints) if (k <= index) m.set(k, v);
  return m;
}

/**
 * Where a new job goes (Alg. 5.1 line 1, getPredecessor): behind every job already started
 * (no preemption, seed 000 IV assumption 2), and then in EDF order (ties: behind equal
 * deadlines) or at the tail for FIFO.
 */
export function insertionIndex(state: RtmrState, job: DeadlineJob): number {
  const es = state.entries;
  if (state.order === 'fifo') return es.length;
  let lastStarted = -1;
  for (let i = es.length - 1; i >= 0; i--)
    if (es[i]!.started) {
      lastStarted = i;
      break;
    }
  const d = absoluteDeadline(job);
  let lo = lastStarted + 1;
  let hi = es.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (absoluteDeadline(es[mid]!.job) <= d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Would recomputing this entry at `now` on unchanged predecessor vectors give the same record?
 * Yes when the max(t, now) of Alg. 5.2 line 4 cannot bite: its maps first took a slot time at
 * or after both instants (or the computation was at this very instant).
 */
export function stableAt(e: RtmrEntry, now: number): boolean {
  if (e.computedAt === now) return true;
  const t = Math.max(now, e.computedAt);
  return e.work.pendingMaps > 0 ? e.mapFirstPick >= t : e.work.mapsBusyUntil >= t;
}

export interface WalkOutcome {
  readonly entries: RtmrEntry[];
  /** The first successor found to miss its deadline, if any (the walk stops there). */
  readonly miss?: { index: number; entry: RtmrEntry; finish: number };
}

/**
 * Alg. 5.1 lines 10-21 (and Alg. 5.5 lines 12-19): recompute successors `from..` in order on
 * the walker's vectors. `oldBefore` gives the old vectors before `from`: when a successor's
 * new vectors come out equal to its old ones and every later record is stable at `now`, the
 * rest of the walk cannot change anything and stops (the fast engine only; the literal one
 * walks to the end as printed).
 */
export function walkSuccessors(
  state: RtmrState,
  from: number,
  walker: Walker,
  now: number,
  stopAtMiss: boolean,
  oldBefore?: () => Lanes,
): WalkOutcome {
  const es = state.entries;
  const out: RtmrEntry[] = [];
  let oldCursor: VectorCursor | undefined;
  let allStableAfter = -1;
  if (state.engine === 'fast' && oldBefore !== undefined && from < es.length) {
    // Suffix index from which every record is stable at now.
    allStableAfter = es.length;
    while (allStableAfter > from && stableAt(es[allStableAfter - 1]!, now)) allStableAfter--;
    if (allStableAfter < es.length) oldCursor = new VectorCursor(state.model, oldBefore());
  }
  for (let s = from; s < es.length; s++) {
    const old = es[s]!;
    const r = walker.place(old.work, now);
    const next: RtmrEntry = {
      ...old,
      mapEnd: r.mapEnd,
      finish: r.finish,
      steps: r.steps,
      computedAt: now,
      mapFirstPick: r.firstPick,
    };
    out.push(next);
    if (stopAtMiss && r.finish > absoluteDeadline(old.job))
      return { entries: out, miss: { index: s, entry: old, finish: r.finish } };
    if (oldCursor !== undefined) {
      oldCursor.applyAll(old.steps);
      if (s + 1 >= allStableAfter && walker.equals(oldCursor.view())) {
        for (let u = s + 1; u < es.length; u++) out.push(es[u]!);
        return { entries: out };
      }
    }
  }
  return { entries: out };
}

/** What the live sidecar knows about one admitted, unfinished job on the cluster. */
export interface QueuedJobSnapshot {
  readonly job: unknown;
  readonly mapsDone: number;
  /** Start times of the job's running maps (their slots are busy in `slots`). */
  readonly mapsRunning: readonly number[];
  readonly reducesDone: number;
  readonly reducesRunning: readonly number[];
}

export interface ClusterSnapshot {
  readonly now: number;
  /** Per lane (mr1: [map slots, reduce slots]; unified: [containers]) the time each slot is free. */
  readonly slots: readonly (readonly number[])[];
  /** Started jobs first, in the order they started; the rest in any order (they are sorted). */
  readonly queue: readonly QueuedJobSnapshot[];
}

/**
 * Rebuilds the admission state of a running cluster (after a restart, from the ledger and the
 * RM): base vectors from the slot availability times, then every queued job's remaining work
 * placed in queue order at `now`, exactly as if each were recomputed by Alg. 5.1 lines 12-21.
 */
export function rtmrStateFromSnapshot(
  model: SlotModel,
  estimates: Estimates,
  engine: VectorEngine,
  order: QueueOrder,
  snap: ClusterSnapshot,
): RtmrState {
  const issues: ValidationIssue[] = [];
  if (!Number.isFinite(snap.now)) issues.push({ path: 'snapshot.now', message: 'must be a finite number' });
  const sizes = laneSizes(model);
  if (snap.slots.length !== sizes.length)
    issues.push({ path: 'snapshot.slots', message: `must have ${sizes.length} lane(s)` });
  snap.slots.forEach((lane, l) => {
    if (lane.length !== sizes[l])
      issues.push({ path: `snapshot.slots[${l}]`, message: `must have ${sizes[l]} entries` });
    lane.forEach((t, i) => {
      if (!Number.isFinite(t))
        issues.push({ path: `snapshot.slots[${l}][${i}]`, message: 'must be a finite time' });
    });
  });
  const jobs: { job: DeadlineJob; started: boolean; work: JobWork }[] = [];
  snap.queue.forEach((q, i) => {
    const p = `snapshot.queue[${i}]`;
    let job: DeadlineJob;
    try {
      job = validateJob(q.job, `${p}.job`);
    } catch (e) {
      if (e instanceof ValidationError) {
        issues.push(...e.issues);
        return;
      }
      throw e;
    }
    const count = (f: string, v: number, max: number): void => {
      if (!Number.isInteger(v) || v < 0 || v > max)
        issues.push({ path: `${p}.${f}`, message: `must be a whole number in [0, ${max}]` });
    };
    count('mapsDone', q.mapsDone, job.maps);
    count('reducesDone', q.reducesDone, job.reduces);
    if (q.mapsDone + q.mapsRunning.length > job.maps)
      issues.push({ path: `${p}.mapsRunning`, message: 'more maps done and running than the job has' });
    if (q.reducesDone + q.reducesRunning.length > job.reduces)
      issues.push({ path: `${p}.reducesRunning`, message: 'more reduces done and running than the job has' });
    for (const [f, arr] of [
      ['mapsRunning', q.mapsRunning],
      ['reducesRunning', q.reducesRunning],
    ] as const)
      arr.forEach((t, k) => {
        if (!Number.isFinite(t)) issues.push({ path: `${p}.${f}[${k}]`, message: 'must be a finite time' });
      });
    const t = taskEstimates(estimates, job);
    const busy = (starts: readonly number[], secs: number): number =>
      starts.reduce((m, s) => Math.max(m, s + secs), -Infinity);
    const pendingMaps = job.maps - q.mapsDone - q.mapsRunning.length;
    jobs.push({
      job,
      started: q.mapsDone + q.mapsRunning.length > 0,
      work: {
        pendingMaps,
        mapSeconds: t.mapSeconds,
        mapsBusyUntil: busy(q.mapsRunning, t.mapSeconds),
        pendingReduces: job.reduces - q.reducesDone - q.reducesRunning.length,
        reduceSeconds: t.reduceSeconds,
        reducesBusyUntil: busy(q.reducesRunning, t.reduceSeconds),
      },
    });
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const started = jobs.filter((j) => j.started);
  const waiting = jobs.filter((j) => !j.started);
  const key = (j: DeadlineJob): number => (order === 'edf' ? absoluteDeadline(j) : j.arrival);
  waiting.sort(
    (a, b) => key(a.job) - key(b.job) || a.job.arrival - b.job.arrival || (a.job.id < b.job.id ? -1 : 1),
  );
  const base = snap.slots.map((lane) => Float64Array.from(lane).sort());
  const state: RtmrState = {
    kind: 'rtmr',
    model,
    estimates,
    engine,
    order,
    base,
    entries: [],
    checkpoints: new Map(),
  };
  const walker = newWalker(state, base);
  const entries: RtmrEntry[] = [...started, ...waiting].map((j) => {
    const r = walker.place(j.work, snap.now);
    return {
      job: j.job,
      work: j.work,
      started: j.started,
      mapEnd: r.mapEnd,
      finish: r.finish,
      steps: r.steps,
      computedAt: snap.now,
      mapFirstPick: r.firstPick,
    };
  });
  return { ...state, entries };
}
