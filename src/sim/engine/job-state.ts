import type { TraceJob } from '../model';
import type { JobView } from '../policy-port';
import type { JobStatus } from './types';

/**
 * A job's run-time record and its bookkeeping: the pending maps as a linked list, and the
 * index of pending maps by replica node.
 */

/** Marks a map index that is not in its job's pending list (pendingPrev). */
export const NOT_PENDING = -2;

/** An empty place in a replica row (a block placed on fewer nodes than the replication factor). */
export const NO_NODE = -1;

const NO_INDICES = new Int32Array(0);

const NO_MAPS: readonly number[] = Object.freeze([]);

export interface JobRt {
  index: number;
  spec: TraceJob;
  status: JobStatus;
  absDeadline: number | null;
  admittedAt: number;
  priority: number;
  queue: string;
  reason: string | null;
  estimatedFinish: number | null;
  /** A rejected job's earliest admissible relative deadline, when its policy searched for one. */
  earliestDeadline: number | null;
  /**
   * The pending map tasks, in order, as a doubly linked list over map indices: a map leaves
   * the middle (a local pick) in O(1) where an array's indexOf + splice cost the job's whole
   * pending count, on every assignment. Lost maps rejoin at the tail. pendingPrev[i] is
   * NOT_PENDING for a map that is not in the list.
   */
  pendingNext: Int32Array;
  pendingPrev: Int32Array;
  pendingHead: number;
  pendingTail: number;
  pendingCount: number;
  /** The list as an array (JobView.pendingMaps), built when read, dropped when the list changes. */
  pendingArray: number[] | null;
  /** pendingMapAt's place in the list: (position, map) of its last answer, valid until the list changes. */
  cursorPos: number;
  cursorMap: number;
  /**
   * Pending map tasks indexed by replica node: node index -> the maps with a replica of their
   * block on that node, in pending order. A map that starts is not removed at once: the list
   * drops it the next time it is read (pendingMapsOn), so each entry is removed once, for O(1)
   * per start. Built when the job is admitted, dropped when it leaves.
   */
  localPending: Array<number[] | undefined> | null;
  runningMaps: number;
  finishedMaps: number;
  pendingReduces: number;
  /** Reduce indices whose attempt was lost with a failed node, to run again. */
  lostReduces: number[];
  runningReduces: number;
  finishedReduces: number;
  /** The trace's block ids, or null when they are the generated `${id}/blk_${i}`. */
  blocks: readonly string[] | null;
  /** Replica nodes of map i's block: replicas[i * replication .. (i + 1) * replication). */
  replicas: Int32Array;
  splitBytes: number[];
  mapStarts: Float64Array;
  mapFinishes: Float64Array;
  reduceStarts: number[];
  reduceFinishes: number[];
  /** Completed map tasks that read a local replica (JobOutcome.localMaps). */
  localMapsDone: number;
  started: boolean;
  /** Its tasks are pending or done (its set-up, TraceJob.overheads, is over). */
  released: boolean;
  /** Its tasks are done and its commit runs (TraceJob.overheads): out of the queue, not finished. */
  committing: boolean;
  finish: number | null;
  slotSeconds: number;
  version: number;
  rank: number;
  view: JobView;
}

/** A job just submitted: waiting, nothing pending until it is admitted. */
export function newJob(
  index: number,
  spec: TraceJob,
  splitBytes: number[],
  replicas: Int32Array,
  makeView: (job: JobRt) => JobView,
): JobRt {
  const job: JobRt = {
    index,
    spec,
    status: 'waiting',
    absDeadline: spec.deadline === null ? null : spec.arrival + spec.deadline,
    admittedAt: Number.NaN,
    priority: 0,
    queue: spec.queue,
    reason: null,
    estimatedFinish: null,
    earliestDeadline: null,
    pendingNext: NO_INDICES,
    pendingPrev: NO_INDICES,
    pendingHead: -1,
    pendingTail: -1,
    pendingCount: 0,
    pendingArray: null,
    cursorPos: -1,
    cursorMap: -1,
    localPending: null,
    runningMaps: 0,
    finishedMaps: 0,
    pendingReduces: 0,
    lostReduces: [],
    runningReduces: 0,
    finishedReduces: 0,
    blocks: spec.blocks ?? null,
    replicas,
    splitBytes,
    mapStarts: new Float64Array(spec.maps).fill(Number.NaN),
    mapFinishes: new Float64Array(spec.maps).fill(Number.NaN),
    reduceStarts: [],
    reduceFinishes: [],
    localMapsDone: 0,
    started: false,
    released: false,
    committing: false,
    finish: null,
    slotSeconds: 0,
    version: 0,
    rank: -1,
    view: undefined as unknown as JobView,
  };
  job.view = makeView(job);
  return job;
}

export function replicasAt(job: JobRt, i: number, k: number): number[] {
  const out = new Array<number>(k);
  let n = 0;
  for (let r = 0; r < k; r++) {
    const node = job.replicas[i * k + r] as number;
    if (node !== NO_NODE) out[n++] = node;
  }
  out.length = n;
  return out;
}

/** The pending list holds maps 0..n-1 in order (a job just admitted). */
export function initPending(job: JobRt, n: number): void {
  job.pendingNext = new Int32Array(n);
  job.pendingPrev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    job.pendingNext[i] = i + 1 < n ? i + 1 : -1;
    job.pendingPrev[i] = i - 1;
  }
  job.pendingHead = n > 0 ? 0 : -1;
  job.pendingTail = n - 1;
  job.pendingCount = n;
  pendingChanged(job);
}

export function clearPending(job: JobRt): void {
  job.pendingPrev.fill(NOT_PENDING);
  job.pendingHead = -1;
  job.pendingTail = -1;
  job.pendingCount = 0;
  pendingChanged(job);
}

export function isPending(job: JobRt, i: number): boolean {
  return Number.isInteger(i) && i >= 0 && i < job.pendingPrev.length && job.pendingPrev[i] !== NOT_PENDING;
}

export function removePending(job: JobRt, i: number): void {
  const prev = job.pendingPrev[i] as number;
  const next = job.pendingNext[i] as number;
  if (prev >= 0) job.pendingNext[prev] = next;
  else job.pendingHead = next;
  if (next >= 0) job.pendingPrev[next] = prev;
  else job.pendingTail = prev;
  job.pendingPrev[i] = NOT_PENDING;
  job.pendingCount--;
  pendingChanged(job);
}

export function appendPending(job: JobRt, i: number): void {
  job.pendingPrev[i] = job.pendingTail;
  job.pendingNext[i] = -1;
  if (job.pendingTail >= 0) job.pendingNext[job.pendingTail] = i;
  else job.pendingHead = i;
  job.pendingTail = i;
  job.pendingCount++;
  pendingChanged(job);
}

function pendingChanged(job: JobRt): void {
  job.pendingArray = null;
  job.cursorPos = -1;
}

/** JobView.pendingMaps: the list as an array, rebuilt only after it changed. */
export function pendingArrayOf(job: JobRt): number[] {
  if (job.pendingArray) return job.pendingArray;
  const out = new Array<number>(job.pendingCount);
  for (let m = job.pendingHead, k = 0; m >= 0; m = job.pendingNext[m] as number) out[k++] = m;
  return (job.pendingArray = out);
}

/** The i-th pending map (pendingMaps[i]); a walk 0, 1, 2, ... costs O(1) a step. */
export function pendingMapAt(job: JobRt, i: number): number {
  if (!(i >= 0 && i < job.pendingCount))
    throw new RangeError(`no pending map at ${i} of ${job.pendingCount}`);
  let pos: number;
  let m: number;
  if (job.cursorPos >= 0 && job.cursorPos <= i) {
    pos = job.cursorPos;
    m = job.cursorMap;
  } else {
    pos = 0;
    m = job.pendingHead;
  }
  for (; pos < i; pos++) m = job.pendingNext[m] as number;
  job.cursorPos = pos;
  job.cursorMap = m;
  return m;
}

/** The job's pending maps local to `node`, in pending order (stale entries dropped here). */
export function localPendingOn(job: JobRt, node: number): readonly number[] {
  const list = job.localPending?.[node];
  if (!list) return NO_MAPS;
  let w = 0;
  for (let r = 0; r < list.length; r++) {
    const m = list[r] as number;
    if (job.pendingPrev[m] !== NOT_PENDING) list[w++] = m;
  }
  if (w < list.length) list.length = w;
  return list;
}

/** Appends map `i` to the local lists of its block's replica nodes (it is last in pending order). */
export function indexPendingMap(job: JobRt, i: number, k: number): void {
  const index = job.localPending;
  if (!index) return;
  for (let r = i * k; r < (i + 1) * k; r++) {
    const node = job.replicas[r] as number;
    if (node === NO_NODE) continue;
    const list = index[node];
    if (list) list.push(i);
    else index[node] = [i];
  }
}

/** Removes map `i` from its replica nodes' local lists where it still waits to be dropped. */
export function unindexStale(job: JobRt, i: number, k: number): void {
  const index = job.localPending;
  if (!index) return;
  for (let r = i * k; r < (i + 1) * k; r++) {
    if (job.replicas[r] === NO_NODE) continue;
    const list = index[job.replicas[r] as number];
    const at = list ? list.indexOf(i) : -1;
    if (at >= 0) (list as number[]).splice(at, 1);
  }
}

/** Whether a replica of map `mapIndex`'s block is on `node`. */
export function isLocal(job: JobRt, mapIndex: number, node: number, k: number): boolean {
  for (let r = mapIndex * k; r < (mapIndex + 1) * k; r++) if (job.replicas[r] === node) return true;
  return false;
}
