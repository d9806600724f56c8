import { classOf } from '../../core/estimate-book';
import { TASK_COMPLETED, TASK_GPU, TASK_LOCAL, TASK_MAP } from '../task-log';
import type { JobRt } from './job-state';
import type { NodeRt } from './nodes';
import type { EngineState } from './state';
import { runKind } from './timing';
import type {
  ContainerKind,
  EngineSnapshot,
  JobOutcome,
  RunningAttempt,
  TaskKind,
  TaskRecord,
} from './types';

/** What a run shows of itself: job outcomes, task attempts, progress and a snapshot. */

/** A job's outcome so far. */
export function outcomeOf(j: JobRt): JobOutcome {
  const admitted = j.status !== 'rejected' && j.status !== 'waiting';
  const start = j.mapStarts.reduce(
    (m, s) => (Number.isNaN(s) ? m : Math.min(m, s)),
    Number.POSITIVE_INFINITY,
  );
  return {
    id: j.spec.id,
    arrival: j.spec.arrival,
    deadline: j.spec.deadline,
    absDeadline: j.absDeadline,
    maps: j.spec.maps,
    reduces: j.spec.reduces,
    type: j.spec.type,
    workloadClass: classOf(j.spec.type, j.spec.workloadClass),
    user: j.spec.user,
    queue: j.queue,
    status: j.status,
    admitted,
    reason: j.reason,
    estimatedFinish: j.estimatedFinish,
    earliestDeadline: j.earliestDeadline,
    start: Number.isFinite(start) ? start : null,
    finish: j.finish,
    metDeadline: metDeadline(j, admitted),
    slotSeconds: j.slotSeconds,
    localMaps: j.localMapsDone,
  };
}

/** True or false once it is settled (a rejected or killed job missed it); null while it runs. */
function metDeadline(j: JobRt, admitted: boolean): boolean | null {
  if (j.status === 'finished' && j.finish !== null)
    return j.absDeadline === null ? true : j.finish <= j.absDeadline + 1e-9;
  return admitted && j.status !== 'killed' ? null : false;
}

/** The attempt in task-log row `row` as a record. */
export function taskRecordOf(s: EngineState, row: number): TaskRecord {
  const log = s.log;
  const flags = log.flags(row);
  const job = s.jobs[log.jobIndex(row)] as JobRt;
  const node = s.nodes[log.nodeIndex(row)] as NodeRt;
  const container: ContainerKind = flags & TASK_GPU ? 'gpu' : 'cpu';
  return {
    job: job.spec.id,
    kind: flags & TASK_MAP ? 'map' : 'reduce',
    index: log.taskIndex(row),
    node: node.id,
    nodeClass: node.cls.name,
    start: log.start(row),
    end: log.end(row),
    local: (flags & TASK_LOCAL) !== 0,
    container,
    completed: (flags & TASK_COMPLETED) !== 0,
    energyKWh: taskEnergyKWh(s, row),
  };
}

/** Energy of a completed attempt (its node class's per-task figure for how it ran); 0 for a lost one. */
export function taskEnergyKWh(s: EngineState, row: number): number {
  const log = s.log;
  const flags = log.flags(row);
  if ((flags & TASK_COMPLETED) === 0) return 0;
  const job = s.jobs[log.jobIndex(row)] as JobRt;
  const node = s.nodes[log.nodeIndex(row)] as NodeRt;
  return node.cls.taskEnergyKWh[runKind(job.spec.type, flags & TASK_GPU ? 'gpu' : 'cpu')];
}

/** The attempts of one job running now (Engine.runningTasksOf). */
export function runningTasksOf(s: EngineState, jobIndex: number): RunningAttempt[] {
  const log = s.log;
  const out: RunningAttempt[] = [];
  for (const n of s.nodes)
    for (const row of n.running)
      if (log.jobIndex(row) === jobIndex)
        out.push({
          kind: log.flags(row) & TASK_MAP ? 'map' : 'reduce',
          index: log.taskIndex(row),
          start: log.start(row),
          due: log.due(row),
          node: n.id,
        });
  return out;
}

/** One job's progress as its AM would report it (Engine.taskProgress). */
export function taskProgressOf(
  job: JobRt,
  running: readonly RunningAttempt[],
): {
  mapsDone: number;
  mapsRunning: number[];
  reducesDone: number;
  reducesRunning: number[];
  firstStart: number | null;
} {
  const starts = (kind: TaskKind) =>
    running
      .filter((r) => r.kind === kind)
      .map((r) => r.start)
      .sort((a, b) => a - b);
  let first = Number.POSITIVE_INFINITY;
  for (const t of job.mapStarts) if (t < first) first = t;
  for (const t of job.reduceStarts) if (t < first) first = t;
  return {
    mapsDone: job.finishedMaps,
    mapsRunning: starts('map'),
    reducesDone: job.finishedReduces,
    reducesRunning: starts('reduce'),
    firstStart: Number.isFinite(first) ? first : null,
  };
}

export function snapshotOf(s: EngineState): EngineSnapshot {
  return {
    now: s.now,
    nodes: s.nodes.map((n) => ({
      id: n.id,
      className: n.cls.name,
      labels: n.cls.labels.slice(),
      alive: n.alive,
      freeMapSlots: s.slots.freeFor(n, 'map'),
      freeReduceSlots: s.slots.freeFor(n, 'reduce'),
      runningTasks: n.running.length,
    })),
    jobs: s.jobs.map((j) => ({
      id: j.spec.id,
      status: j.status,
      queue: j.queue,
      priority: j.priority,
      arrival: j.spec.arrival,
      absDeadline: j.absDeadline,
      mapsPending: j.pendingCount,
      mapsRunning: j.runningMaps,
      mapsDone: j.finishedMaps,
      reducesPending: j.pendingReduces,
      reducesRunning: j.runningReduces,
      reducesDone: j.finishedReduces,
      finish: j.finish,
    })),
  };
}
