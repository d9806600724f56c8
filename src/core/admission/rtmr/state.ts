import { ValidationError, type ValidationIssue } from '../../../errors/validation';
import type { Estimates } from '../../estimates';
import { jobOverheads, taskEstimates } from '../../estimates';
import { absoluteDeadline, validateJob, type DeadlineJob } from '../../job';
import { runningTaskEnd } from '../common/running-task';
import { RunLanes, type Step } from '../../slots/fast';
import { literalPlace } from '../../slots/literal';
import {
  amNowBound,
  freeLanes,
  laneSizes,
  mapLane,
  usableMapSlots,
  type JobWork,
  type Lanes,
  type Placement,
  type SlotModel,
} from '../../slots/model';

/** Which implementation of the vector calculations a state uses. */
export type VectorEngine = 'fast' | 'literal';
/** The priority order of the queue: EDF (the papers' default) or FIFO (He et al., RTMR, IV.B: any fixed order). */
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
  /**
   * Its steps also carry the records of jobs that left the queue just before it (see `removeAt`
   * in policy.ts). Alg. 5.1 lines 12-14 and Alg. 5.5 lines 14-16 recompute a successor from its
   * predecessor in the queue, where a departed job no longer is: the recomputed record drops
   * the departed steps, so this record is not what recomputing it gives, whatever `now` is.
   */
  readonly absorbed: boolean;
}

export interface RtmrState {
  readonly kind: 'rtmr';
  readonly model: SlotModel;
  readonly estimates: Estimates;
  readonly engine: VectorEngine;
  readonly order: QueueOrder;
  /** Slot availability before the first queued job: all free, or rebuilt from a running cluster. */
  readonly base: Lanes;
  /**
   * The queue in order, every record exact. On a state made by an admission that did not walk
   * all of its successors (see `Records`), reading this recomputes the pending records first.
   */
  readonly entries: readonly RtmrEntry[];
  /**
   * Memo (not state): vectors before entry c, for c a multiple of CHECKPOINT_EVERY, filled on
   * demand so that materialising a predecessor's vectors replays at most that many entries.
   */
  readonly checkpoints: Map<number, RunLanes>;
}

export const CHECKPOINT_EVERY = 16;
/**
 * Past this many entries checkpoints are memoised only every 4 * CHECKPOINT_EVERY: a checkpoint
 * holds a copy of the heap (its batches shared), which grows with the queue, and at 10,000
 * queued jobs one every 16 entries held most of the state's memory, while replaying 63 records
 * costs about what copying such a checkpoint does.
 */
export const SPARSE_CHECKPOINTS_FROM = 1024;

function memoisesCheckpoint(i: number): boolean {
  return i % (i < SPARSE_CHECKPOINTS_FROM ? CHECKPOINT_EVERY : 4 * CHECKPOINT_EVERY) === 0;
}

/**
 * How a state stores its entries (memo, not state: the queue's value is what `entries` gives).
 * An admission that proves from bounds that no successor can miss its deadline (policy.ts,
 * `decide`) leaves the records of the successors it did not walk as they were, to be
 * recomputed the first time something needs them: `list[from..]` are then provisional, and
 * their exact records are those of Alg. 5.1 lines 12-21 run at `now` from the vectors before
 * `from`. `shift` bounds how far the exact records can be above the provisional ones: every
 * provisional entry's exact finish, and every slot time of the vectors after it, is at most
 * its provisional figure + `shift` (see `decide` for why). `from` = list.length: all exact.
 * Only fast-engine states are ever provisional.
 */
export interface Records {
  readonly list: RtmrEntry[];
  from: number;
  now: number;
  shift: number;
  /** Memo: the figures the bound and the id look-up read, densely (see `denseOf`). */
  dense?: Dense;
  /** How to build `dense` from the state this one was derived from (cheaper than a scan). */
  derive?: () => Dense;
  /** Memo: index of the last started entry (-1: none). */
  lastStarted?: number;
}

/**
 * Per entry, in typed arrays (a scan of 10,000 entries reads a few hundred KB in order instead
 * of chasing three objects per entry): `num` holds DENSE_STRIDE figures per entry, slack
 * (deadline - stored finish; -Infinity for a record holding a SATU vector, which no bound
 * vouches for), the instant the record was computed, the tasks it places, |stored finish|;
 * `ids` a hash of its job id.
 */
export interface Dense {
  readonly num: Float64Array;
  readonly ids: Int32Array;
}
export const DENSE_STRIDE = 4;

/** A 32-bit hash of a job id (FNV-1a over its UTF-16 code units). */
export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Writes entry `e`'s dense figures at row `i`. */
export function writeDense(d: Dense, i: number, e: RtmrEntry): void {
  const o = i * DENSE_STRIDE;
  let full = false;
  for (const st of e.steps) if (st.kind === 'full') full = true;
  d.num[o] = full ? -Infinity : absoluteDeadline(e.job) - e.finish;
  d.num[o + 1] = e.computedAt;
  d.num[o + 2] = e.work.pendingMaps + e.work.pendingReduces;
  d.num[o + 3] = Math.abs(e.finish);
  d.ids[i] = idHash(e.job.id);
}

export function newDense(n: number): Dense {
  return { num: new Float64Array(n * DENSE_STRIDE), ids: new Int32Array(n) };
}

/** The dense figures of a state's stored records, built on first use. */
export function denseOf(rec: Records): Dense {
  if (rec.dense === undefined && rec.derive !== undefined) {
    rec.dense = rec.derive();
    rec.derive = undefined;
  }
  if (rec.dense === undefined) {
    const d = newDense(rec.list.length);
    rec.list.forEach((e, i) => writeDense(d, i, e));
    rec.dense = d;
  }
  return rec.dense;
}

/** Index of the entry of job `id`, or -1 (jobs are never provisional: the stored list answers). */
export function indexOfJob(state: RtmrState, id: string): number {
  const rec = recordsOf(state);
  const ids = denseOf(rec).ids;
  const h = idHash(id);
  for (let i = 0; i < ids.length; i++) if (ids[i] === h && rec.list[i]!.job.id === id) return i;
  return -1;
}

/** Index of the last started entry, or -1. */
export function lastStartedOf(rec: Records): number {
  if (rec.lastStarted === undefined) {
    let i = rec.list.length - 1;
    while (i >= 0 && !rec.list[i]!.started) i--;
    rec.lastStarted = i;
  }
  return rec.lastStarted;
}

const RECORDS = Symbol('rtmr records');

/** A state's stored records (a state built by hand, or spread into a copy, has only exact ones). */
export function recordsOf(state: RtmrState): Records {
  const r = (state as { [RECORDS]?: Records })[RECORDS];
  if (r !== undefined) return r;
  const list = state.entries as RtmrEntry[];
  return { list, from: list.length, now: 0, shift: 0 };
}

/** The fields of a state other than its entries. */
export type RtmrStateFields = Omit<RtmrState, 'entries' | 'kind'>;

export function fieldsOf(state: RtmrState): RtmrStateFields {
  const { model, estimates, engine, order, base, checkpoints } = state;
  return { model, estimates, engine, order, base, checkpoints };
}

/**
 * A state holding `list` (owned by it from now on: recomputing provisional records writes into
 * it). `pending`: the provisional records from `pending.from` on (fast engine only).
 */
export function makeRtmrState(
  fields: RtmrStateFields,
  list: RtmrEntry[],
  pending?: { from: number; now: number; shift: number },
  memo: { dense?: Dense; derive?: () => Dense; lastStarted?: number } = {},
): RtmrState {
  const rec: Records = {
    list,
    from: pending === undefined ? list.length : Math.min(pending.from, list.length),
    now: pending?.now ?? 0,
    shift: pending?.shift ?? 0,
    ...memo,
  };
  const state = {
    kind: 'rtmr' as const,
    model: fields.model,
    estimates: fields.estimates,
    engine: fields.engine,
    order: fields.order,
    base: fields.base,
    checkpoints: fields.checkpoints,
    get entries(): readonly RtmrEntry[] {
      settle(state, rec.list.length);
      return rec.list;
    },
  };
  Object.defineProperty(state, RECORDS, { value: rec });
  return state;
}

/**
 * Makes the records before `index` exact (recomputing the provisional ones among them at the
 * instant they are due, exactly as the admission's walk would have) and returns the vectors
 * before `index` when it had to walk to get there (undefined when nothing was provisional).
 */
export function settle(state: RtmrState, index: number): RunLanes | undefined {
  const rec = recordsOf(state);
  const end = Math.min(index, rec.list.length);
  if (rec.from >= end) return undefined;
  const lanes = replayBefore(state, rec.list, rec.from);
  const now = rec.now;
  for (let i = rec.from; i < end; i++) {
    const prev = rec.list[i]!;
    const r = lanes.place(prev.work, now);
    const e = placedEntry(prev, r, now);
    rec.list[i] = e;
    // A dense row holds the stored record's figures: keep it in step (deriving it first).
    if (rec.dense !== undefined || rec.derive !== undefined) writeDense(denseOf(rec), i, e);
  }
  rec.from = end;
  return lanes;
}

export function emptyRtmrState(
  model: SlotModel,
  estimates: Estimates,
  engine: VectorEngine,
  order: QueueOrder,
  now: number,
): RtmrState {
  return makeRtmrState(
    { model, estimates, engine, order, base: freeLanes(model, now), checkpoints: new Map() },
    [],
  );
}

export function freshWork(estimates: Estimates, job: DeadlineJob, model: SlotModel): JobWork {
  const t = taskEstimates(estimates, job);
  const am = jobOverheads(estimates, job, model);
  return {
    ...(am === undefined ? {} : { am }),
    mapLane: mapLane(model, job.lane),
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
  /**
   * Alg. 5.2 + 5.3 for one job on the current vectors, advancing past it. `raised` is false
   * exactly when the vectors came out unchanged.
   */
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number; raised: boolean };
}

/** What placing one job on the vectors gave (a walker's or the lanes' `place`). */
export type WalkPlacement = Pick<Placement, 'mapEnd' | 'finish'> & { steps: Step[]; firstPick: number };

/** A queue entry for a job as a walk placed it at `now` (not absorbed into the base). */
export function placedEntry(
  j: Pick<RtmrEntry, 'job' | 'work' | 'started'>,
  r: WalkPlacement,
  now: number,
): RtmrEntry {
  return {
    job: j.job,
    work: j.work,
    started: j.started,
    mapEnd: r.mapEnd,
    finish: r.finish,
    steps: r.steps,
    computedAt: now,
    mapFirstPick: r.firstPick,
    absorbed: false,
  };
}

class LiteralWalker implements Walker {
  private cur: Float64Array[];
  constructor(
    private readonly model: SlotModel,
    start: Lanes,
  ) {
    this.cur = start.map((l) => Float64Array.from(l));
  }
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number; raised: boolean } {
    const laneMin = this.cur[work.mapLane ?? mapLane(this.model)]![0] ?? Infinity;
    const firstPick =
      work.am !== undefined ? amNowBound(work, laneMin) : work.pendingMaps > 0 ? laneMin : Infinity;
    const r = literalPlace(this.model, this.cur, work, now);
    const raised = !lanesEqual(this.cur, r.lanes);
    this.cur = r.lanes;
    return {
      mapEnd: r.mapEnd,
      finish: r.finish,
      steps: [{ kind: 'full', lanes: r.lanes }],
      firstPick,
      raised,
    };
  }
}

/** The fast engine's walker: run-length batches in a heap per lane (see slots/fast.ts). */
export class FastWalker implements Walker {
  constructor(readonly lanes: RunLanes) {}
  place(work: JobWork, now: number): Placement & { steps: Step[]; firstPick: number; raised: boolean } {
    return this.lanes.place(work, now);
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

/** A walker starting from explicit sorted vectors (a rebuilt cluster, SATU's result). */
export function newWalker(state: Pick<RtmrState, 'model' | 'engine'>, start: Lanes): Walker {
  return state.engine === 'literal'
    ? new LiteralWalker(state.model, start)
    : new FastWalker(RunLanes.fromSorted(state.model, start));
}

/** A walker starting from the vectors before entry `index` (after its predecessor). */
export function walkerBefore(state: RtmrState, index: number): Walker {
  return state.engine === 'literal'
    ? new LiteralWalker(state.model, vectorsBefore(state, index))
    : new FastWalker(runLanesBefore(state, index));
}

/** Index of the last step replacing the vectors outright, or -1. */
function lastFull(steps: readonly Step[]): number {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.kind === 'full') return i;
  return -1;
}

/**
 * The vectors before entry `index` (after its predecessor; T_p of Alg. 5.1 lines 2-3) in the
 * fast engine's form, as a fresh copy (recomputing provisional records before it first).
 */
export function runLanesBefore(state: RtmrState, index: number): RunLanes {
  return settle(state, index) ?? replayBefore(state, recordsOf(state).list, index);
}

/**
 * The vectors before entry `index` of `es`, whose records before it are exact. Starts from the
 * nearest full record or memoised checkpoint, replays the records in between (each a drop of
 * its consumed slots and a push of its added batch), and memoises the checkpoints it passes.
 */
function replayBefore(state: RtmrState, es: readonly RtmrEntry[], index: number): RunLanes {
  const cps = state.checkpoints;
  // Nearest memoised checkpoint at or before index (a checkpoint c holds the vectors before
  // entry c), then the nearest full record after it: only the records in between are read,
  // not the whole queue before `index`.
  let c = Math.floor(index / CHECKPOINT_EVERY) * CHECKPOINT_EVERY;
  while (c > 0 && !cps.has(c)) c -= CHECKPOINT_EVERY;
  if (!cps.has(c)) c = -1;
  let j = index - 1;
  while (j >= 0 && j >= c && lastFull(es[j]!.steps) < 0) j--;
  let lanes: RunLanes;
  let from: number;
  if (c >= j + 1) {
    lanes = cps.get(c)!.clone();
    from = c;
  } else if (j >= 0) {
    const steps = es[j]!.steps;
    const k = lastFull(steps);
    lanes = RunLanes.fromSorted(state.model, (steps[k] as { lanes: Lanes }).lanes);
    lanes.applyAll(steps.slice(k + 1));
    from = j + 1;
  } else {
    lanes = RunLanes.fromSorted(state.model, state.base);
    if (state.engine === 'fast') cps.set(0, lanes.clone());
    from = 0;
  }
  for (let i = from; i < index; i++) {
    if (state.engine === 'fast' && i > 0 && memoisesCheckpoint(i) && !cps.has(i)) cps.set(i, lanes.clone());
    lanes.applyAll(es[i]!.steps);
  }
  return lanes;
}

/** The vectors before entry `index` as sorted arrays (for mr1 `[T^m, T^r]`, for unified `[T]`). */
export function vectorsBefore(state: RtmrState, index: number): Float64Array[] {
  if (state.engine === 'literal') {
    // Every literal record is a full vector: no replay needed (and never provisional).
    const prev = index > 0 ? recordsOf(state).list[index - 1]!.steps : [];
    const k = lastFull(prev);
    if (k === prev.length - 1 && k >= 0)
      return (prev[k] as { lanes: Lanes }).lanes.map((l) => Float64Array.from(l));
    if (index === 0) return state.base.map((l) => Float64Array.from(l));
  }
  return runLanesBefore(state, index).toSorted();
}

/** J.T^m and J.T^r of entry `index` (for mr1 `[T^m, T^r]`, for unified `[T]`). */
export function vectorsAfter(state: RtmrState, index: number): Float64Array[] {
  return vectorsBefore(state, index + 1);
}

/** Checkpoints of `state` still valid for a new entry list that differs only from `index` on. */
export function keepCheckpoints(state: RtmrState, index: number): Map<number, RunLanes> {
  const m = new Map<number, RunLanes>();
  for (const [k, v] of state.checkpoints) if (k <= index) m.set(k, v);
  return m;
}

/**
 * Where a new job goes (Alg. 5.1 line 1, getPredecessor): behind every job already started
 * (no preemption, He et al., RTMR, IV assumption 2), and then in EDF order (ties: behind equal
 * deadlines) or at the tail for FIFO.
 */
export function insertionIndex(state: RtmrState, job: DeadlineJob): number {
  // Jobs and start flags are never provisional: the stored list answers.
  const rec = recordsOf(state);
  const es = rec.list;
  if (state.order === 'fifo') return es.length;
  const lastStarted = lastStartedOf(rec);
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
  // A record holding a departed job's steps changes when recomputed (the departed reservation
  // goes), even on unchanged predecessor vectors: the walk must reach it.
  if (e.absorbed) return false;
  if (e.computedAt === now) return true;
  const t = Math.max(now, e.computedAt);
  // With an AM, the placement recorded the bound itself (slots/model.ts, amNowBound).
  if (e.work.am !== undefined) return e.mapFirstPick >= t;
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
  oldBefore?: () => RunLanes,
): WalkOutcome {
  const es = state.entries;
  const out: RtmrEntry[] = [];
  let old: RunLanes | undefined;
  let allStableAfter = -1;
  if (walker instanceof FastWalker && oldBefore !== undefined && from < es.length) {
    // Suffix index from which every record is stable at now.
    allStableAfter = es.length;
    while (allStableAfter > from && stableAt(es[allStableAfter - 1]!, now)) allStableAfter--;
    if (allStableAfter < es.length) old = oldBefore();
  }
  for (let s = from; s < es.length; s++) {
    const prev = es[s]!;
    const r = walker.place(prev.work, now);
    const next = placedEntry(prev, r, now);
    out.push(next);
    if (stopAtMiss && r.finish > absoluteDeadline(prev.job))
      return { entries: out, miss: { index: s, entry: prev, finish: r.finish } };
    if (old !== undefined) {
      old.applyAll(prev.steps);
      // Fingerprints rule out almost every unequal pair in O(1); equal ones are then compared exactly.
      if (s + 1 >= allStableAfter && (walker as FastWalker).lanes.sameAs(old)) {
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
  /**
   * Per lane (mr1: [map slots, reduce slots], plus [GPU map slots] when the model has them;
   * unified: [containers]) the time each slot is free.
   */
  readonly slots: readonly (readonly number[])[];
  /** Started jobs first, in the order they started; the rest in any order (they are sorted). */
  readonly queue: readonly QueuedJobSnapshot[];
}

/** A queued job of a snapshot, read: what is left of it, and whether it has started. */
interface SnapshotJob {
  readonly job: DeadlineJob;
  readonly started: boolean;
  readonly work: JobWork;
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
  checkSnapshotSlots(model, snap, issues);
  const jobs: SnapshotJob[] = [];
  snap.queue.forEach((q, i) => {
    const j = snapshotJob(model, estimates, snap.now, q, `snapshot.queue[${i}]`, issues);
    if (j !== undefined) jobs.push(j);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const base = snap.slots.map((lane) => Float64Array.from(lane).sort());
  const fields: RtmrStateFields = { model, estimates, engine, order, base, checkpoints: new Map() };
  const walker = newWalker(fields, base);
  const entries: RtmrEntry[] = snapshotQueueOrder(jobs, order).map((j) =>
    placedEntry(j, walker.place(j.work, snap.now), snap.now),
  );
  return makeRtmrState(fields, entries);
}

/** A snapshot's `now`, and its slot times: one finite time per slot of each lane of the model. */
function checkSnapshotSlots(model: SlotModel, snap: ClusterSnapshot, issues: ValidationIssue[]): void {
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
}

/** A queued job's task counts: whole, and no more done and running than the job has. */
function checkTaskCounts(q: QueuedJobSnapshot, job: DeadlineJob, p: string, issues: ValidationIssue[]): void {
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
}

/**
 * One queued job of a snapshot read at `now`: its pending tasks, and its running ones holding
 * their slots to start + estimate (undefined, with its issues noted, when it is not valid).
 */
function snapshotJob(
  model: SlotModel,
  estimates: Estimates,
  now: number,
  q: QueuedJobSnapshot,
  p: string,
  issues: ValidationIssue[],
): SnapshotJob | undefined {
  let job: DeadlineJob;
  try {
    job = validateJob(q.job, `${p}.job`);
  } catch (e) {
    if (e instanceof ValidationError) {
      issues.push(...e.issues);
      return undefined;
    }
    throw e;
  }
  checkTaskCounts(q, job, p, issues);
  const t = taskEstimates(estimates, job);
  // A task past its estimate holds on as progress.ts's runningTaskEnd says (an overrun).
  const busy = (starts: readonly number[], secs: number): number =>
    starts.reduce((m, s) => Math.max(m, runningTaskEnd(secs, s, now)), -Infinity);
  const started = q.mapsDone + q.mapsRunning.length > 0;
  // A started job's AM is up and has set the job up: its container is taken again (the
  // caller's vectors count tasks only), its set-up is not.
  const am = jobOverheads(estimates, job, model, started);
  if (usableMapSlots(model, job.lane) - (am?.amSlot === true ? 1 : 0) <= 0)
    issues.push({
      path: `${p}.job.lane`,
      message: `no ${job.lane ?? 'cpu'} map slot in this lane${am?.amSlot === true ? ' besides its AM' : ''}`,
    });
  return {
    job,
    started,
    work: {
      ...(am === undefined ? {} : { am }),
      mapLane: mapLane(model, job.lane),
      pendingMaps: job.maps - q.mapsDone - q.mapsRunning.length,
      mapSeconds: t.mapSeconds,
      mapsBusyUntil: busy(q.mapsRunning, t.mapSeconds),
      pendingReduces: job.reduces - q.reducesDone - q.reducesRunning.length,
      reduceSeconds: t.reduceSeconds,
      reducesBusyUntil: busy(q.reducesRunning, t.reduceSeconds),
    },
  };
}

/**
 * The queue of a snapshot: the started jobs first, in the order given (no preemption), then the
 * others by the policy's order (deadline or arrival; then arrival, then id).
 */
function snapshotQueueOrder(jobs: readonly SnapshotJob[], order: QueueOrder): SnapshotJob[] {
  const started = jobs.filter((j) => j.started);
  const waiting = jobs.filter((j) => !j.started);
  const key = (j: DeadlineJob): number => (order === 'edf' ? absoluteDeadline(j) : j.arrival);
  waiting.sort(
    (a, b) => key(a.job) - key(b.job) || a.job.arrival - b.job.arrival || (a.job.id < b.job.id ? -1 : 1),
  );
  return [...started, ...waiting];
}
