import { taskEstimates, type Estimates } from '../../estimates';
import { absoluteDeadline, type DeadlineJob } from '../../job';
import { laneSizes, mapLane, reduceLane, type SlotModel } from '../../slots/model';
import type { ClusterSnapshot, RtmrState } from '../rtmr/state';
import { runningTaskEnd } from './running-task';

export { runningTaskEnd };

/**
 * The work a running job still owes, from its tasks' progress (as its MapReduce AM reports
 * them), so that an admission state rebuilt after a restart or a capacity change counts only
 * what is still to come instead of each admitted job's whole work from now.
 *
 * Per task, with eps^m / eps^r the job's per-task estimates (Alg. 5.2 line 1, Alg. 5.3 line 2):
 *
 *   finished  → 0 (it is not counted again)
 *   running   → eps - (now - start)           (the estimate minus what it has run; past
 *                                              the estimate, see runningTaskEnd)
 *   pending   → eps                            (its whole estimate)
 *
 * Worked example (eps^m = 10 s, eps^r = 40 s, M = 4, R = 1, now = 100):
 * maps done at 92 and 95, one running since 96, one pending, the reduce pending →
 * 0 + 0 + (10 - 4) + 10 + 40 = 56 slot-seconds, against 4·10 + 40 = 80 for the whole job.
 *
 * Times are seconds on the caller's clock; nothing here reads a clock.
 */

export type TaskKind = 'map' | 'reduce';

/** One task of a running job, in core terms (the transport's report is mapped in src/loop). */
export interface TaskProgress {
  readonly kind: TaskKind;
  readonly state: 'done' | 'running' | 'pending';
  /** Start of the task, seconds (read for running tasks; -1 or NaN when unknown). */
  readonly start: number;
}

/**
 * A job's progress as the RTMR snapshot takes it (`QueuedJobSnapshot` without the job):
 * counts of finished tasks and the start times of running ones.
 */
export interface JobProgress {
  readonly mapsDone: number;
  /** Start times of the running maps, ascending. */
  readonly mapsRunning: readonly number[];
  readonly reducesDone: number;
  readonly reducesRunning: readonly number[];
  /** Earliest start of any of its tasks, finished or running (null when none has started). */
  readonly firstStart: number | null;
}

/** Nothing started: the whole job is still to come. */
export const NO_PROGRESS: JobProgress = Object.freeze({
  mapsDone: 0,
  mapsRunning: Object.freeze([]) as readonly number[],
  reducesDone: 0,
  reducesRunning: Object.freeze([]) as readonly number[],
  firstStart: null,
});

/** Slot-seconds of work, split by stage. */
export interface SlotSeconds {
  readonly maps: number;
  readonly reduces: number;
  readonly total: number;
}

function slotSeconds(maps: number, reduces: number): SlotSeconds {
  return { maps, reduces, total: maps + reduces };
}

/**
 * Folds a task list into a JobProgress the job's shape can hold. The AM may report more tasks
 * than the ledger knows (a discovered app whose tags understate its size): finished tasks are
 * counted up to M (or R) and running ones fill what is left, the latest started first (they
 * have the most left to run, so the estimate stays pessimistic). A running task whose start is
 * unknown, or later than `now` (clock skew), is taken as starting at `now`.
 */
export function progressOf(job: DeadlineJob, tasks: readonly TaskProgress[], now: number): JobProgress {
  let firstStart = Number.POSITIVE_INFINITY;
  const stage = (kind: TaskKind, total: number): { done: number; running: number[] } => {
    let done = 0;
    const running: number[] = [];
    for (const t of tasks) {
      if (t.kind !== kind) continue;
      const known = Number.isFinite(t.start) && t.start >= 0;
      if (t.state === 'done') {
        done++;
        if (known) firstStart = Math.min(firstStart, t.start);
      } else if (t.state === 'running') {
        const start = known ? Math.min(t.start, now) : now;
        running.push(start);
        firstStart = Math.min(firstStart, start);
      }
    }
    const d = Math.min(done, total);
    const kept = running.sort((a, b) => b - a).slice(0, total - d);
    return { done: d, running: kept.sort((a, b) => a - b) };
  };
  const m = stage('map', job.maps);
  const r = stage('reduce', job.reduces);
  return {
    mapsDone: m.done,
    mapsRunning: m.running,
    reducesDone: r.done,
    reducesRunning: r.running,
    firstStart: Number.isFinite(firstStart) ? firstStart : null,
  };
}

/** Whether any task of the job has started (finished or running). */
export function hasStarted(p: JobProgress): boolean {
  return p.mapsDone + p.mapsRunning.length + p.reducesDone + p.reducesRunning.length > 0;
}

/** M·eps^m + R·eps^r: the job's whole work, what a job that has not started still owes. */
export function wholeWork(estimates: Estimates, job: DeadlineJob): SlotSeconds {
  const t = taskEstimates(estimates, job);
  return slotSeconds(job.maps * t.mapSeconds, job.reduces * t.reduceSeconds);
}

/** What is left of one running task at `now` (see runningTaskEnd): never negative. */
function left(eps: number, start: number, now: number): number {
  return runningTaskEnd(eps, start, now) - now;
}

/** The work still to come (see the module comment); never more than `wholeWork`. */
export function remainingWork(
  estimates: Estimates,
  job: DeadlineJob,
  progress: JobProgress,
  now: number,
): SlotSeconds {
  const t = taskEstimates(estimates, job);
  const pendingMaps = job.maps - progress.mapsDone - progress.mapsRunning.length;
  const pendingReduces = job.reduces - progress.reducesDone - progress.reducesRunning.length;
  let maps = pendingMaps * t.mapSeconds;
  for (const s of progress.mapsRunning) maps += left(t.mapSeconds, s, now);
  let reduces = pendingReduces * t.reduceSeconds;
  for (const s of progress.reducesRunning) reduces += left(t.reduceSeconds, s, now);
  return slotSeconds(maps, reduces);
}

/**
 * Slot availability per lane given the tasks running now: a running task holds a slot until
 * its estimated end max(now, start + eps), every other slot is free at `now`. On `mr1` maps
 * hold map slots and reduces reduce slots; on `unified` both hold containers. When more tasks
 * run than the lane has slots (a queue above its guarantee), the latest ends are kept.
 */
export function runningSlots(
  model: SlotModel,
  now: number,
  mapEnds: readonly number[],
  reduceEnds: readonly number[],
  gpuMapEnds: readonly number[] = [],
): number[][] {
  const sizes = laneSizes(model);
  const ends: number[][] = sizes.map(() => []);
  for (const e of mapEnds) ends[mapLane(model)]!.push(Math.max(now, e));
  // Maps running in GPU map slots (mr1 with a GPU lane) hold those; on another model, a map slot.
  for (const e of gpuMapEnds) ends[mapLane(model, 'gpu')]!.push(Math.max(now, e));
  for (const e of reduceEnds) ends[reduceLane(model)]!.push(Math.max(now, e));
  return sizes.map((n, l) => {
    const kept = ends[l]!.sort((a, b) => b - a).slice(0, n);
    while (kept.length < n) kept.push(now);
    return kept.sort((a, b) => a - b);
  });
}

export interface ProgressedJob {
  readonly job: DeadlineJob;
  /** Undefined (or NO_PROGRESS) when nothing is known: the whole job counts. */
  readonly progress?: JobProgress;
}

/**
 * The RTMR cluster snapshot (ClusterSnapshot) of a lane from its admitted jobs' progress: the
 * running tasks' estimated ends become the slot availability, each job's finished and running
 * tasks its done counts and running starts. Started jobs come first, in the order their first
 * task started (ties: deadline, then id); the rest are ordered by the policy itself. With no
 * progress at all this is every slot free at `now` and every job whole, the rebuild the
 * sidecar did before it read the AMs. `heldUntil`: the absolute times at which slots other
 * queues hold now come back (finite; a slot that never comes back is not the lane's).
 */
export function snapshotFromProgress(
  model: SlotModel,
  estimates: Estimates,
  now: number,
  jobs: readonly ProgressedJob[],
  heldUntil: readonly number[] = [],
): ClusterSnapshot {
  const mapEnds: number[] = [];
  const gpuMapEnds: number[] = [];
  const reduceEnds: number[] = [];
  // Slots other tenants hold until a time (core/sharing.ts) are busy until then, as a running
  // task's are; on mr1 they are taken from map and reduce slots in turn, the earliest first.
  [...heldUntil]
    .sort((a, b) => a - b)
    .forEach((t, i) => (model.name === 'mr1' && i % 2 === 1 ? reduceEnds : mapEnds).push(t));
  const rows = jobs.map(({ job, progress = NO_PROGRESS }) => {
    const t = taskEstimates(estimates, job);
    const ends = job.lane === 'gpu' ? gpuMapEnds : mapEnds;
    for (const s of progress.mapsRunning) ends.push(runningTaskEnd(t.mapSeconds, s, now));
    for (const s of progress.reducesRunning) reduceEnds.push(runningTaskEnd(t.reduceSeconds, s, now));
    return { job, progress };
  });
  const started = rows.filter((r) => hasStarted(r.progress));
  const waiting = rows.filter((r) => !hasStarted(r.progress));
  started.sort(
    (a, b) =>
      (a.progress.firstStart ?? now) - (b.progress.firstStart ?? now) ||
      absoluteDeadline(a.job) - absoluteDeadline(b.job) ||
      (a.job.id < b.job.id ? -1 : a.job.id > b.job.id ? 1 : 0),
  );
  return {
    now,
    slots: runningSlots(model, now, mapEnds, reduceEnds, gpuMapEnds),
    queue: [...started, ...waiting].map(({ job, progress }) => ({
      job,
      mapsDone: progress.mapsDone,
      mapsRunning: progress.mapsRunning,
      reducesDone: progress.reducesDone,
      reducesRunning: progress.reducesRunning,
    })),
  };
}

/**
 * The slot-seconds an RTMR state holds from `now` on: what the running tasks still hold in the
 * base vectors (each slot's max(0, t - now)) plus every queued job's pending tasks at their
 * estimates. For a state rebuilt by `snapshotFromProgress` whose running tasks fit their lanes,
 * this is exactly the sum of the jobs' `remainingWork`.
 */
export function committedSlotSeconds(state: RtmrState, now: number): number {
  let sum = 0;
  for (const lane of state.base) for (const t of lane) sum += Math.max(0, t - now);
  for (const e of state.entries)
    sum += e.work.pendingMaps * e.work.mapSeconds + e.work.pendingReduces * e.work.reduceSeconds;
  return sum;
}
