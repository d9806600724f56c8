import type { FinishedJobRecord } from '../policy-port';
import { TASK_GPU, TASK_LOCAL, TASK_MAP } from '../task-log';
import {
  appendPending,
  clearPending,
  indexPendingMap,
  initPending,
  isLocal,
  unindexStale,
  type JobRt,
} from './job-state';
import { removeRunning, type NodeRt } from './nodes';
import { EV_COMMIT, EV_FAIL, EV_RELEASE, EV_REPAIR, EV_TASK_END, eventCode, type EngineState } from './state';
import { mapSeconds, reduceSeconds } from './timing';
import type { ContainerKind, TaskKind } from './types';

/**
 * What each event does to the run: a job arrives (admission decides), a task starts or ends,
 * a node fails or comes back, a job is killed. Heartbeats are dispatch.ts's.
 */

export function onArrive(s: EngineState, job: JobRt): void {
  if (job.status !== 'waiting') return; // killed before arrival
  s.lastActivity = s.now;
  const decision = s.admission.decide(job.spec, s.now);
  job.estimatedFinish = decision.estimatedFinish ?? null;
  job.reason = decision.reason ?? null;
  job.earliestDeadline = decision.earliestDeadline ?? null;
  if (!decision.admit) {
    job.status = 'rejected';
    s.settled++;
    return;
  }
  job.status = 'admitted';
  job.admittedAt = s.now;
  const setup = job.spec.overheads?.setupSeconds ?? 0;
  // A replayed job's tasks wait for its set-up (its AM's container, launch and set-up).
  if (setup > 0) s.queue.push(s.now + setup, eventCode(job.index, EV_RELEASE));
  else release(s, job);
}

/** An admitted job's set-up is over: a job still admitted (not killed meanwhile) gets its tasks. */
export function onRelease(s: EngineState, job: JobRt): void {
  if (job.status !== 'admitted' || job.released) return;
  s.lastActivity = s.now;
  release(s, job);
}

/** The job's tasks become pending and it joins the queue. */
function release(s: EngineState, job: JobRt): void {
  job.released = true;
  initPending(job, job.spec.maps);
  job.localPending = new Array<number[] | undefined>(s.nodes.length);
  for (let i = 0; i < job.spec.maps; i++) indexPendingMap(job, i, s.blocks.replication);
  job.version++;
  s.pendingMapTotal += job.spec.maps;
  job.pendingReduces = job.spec.reduces;
  job.lostReduces = [];
  // A job without maps has its reduces ready at once (onTaskEnd never sees its map stage end).
  if (job.spec.maps === 0) s.readyReduceTotal += job.pendingReduces;
  job.reduceStarts = new Array<number>(job.spec.reduces).fill(Number.NaN);
  job.reduceFinishes = new Array<number>(job.spec.reduces).fill(Number.NaN);
  s.active.push(job);
  s.orderDirty = true;
  s.placement.jobAdded(job.view, s.now);
  s.wakeAll();
  s.tenant?.changed();
}

export function onTaskEnd(s: EngineState, row: number): void {
  const log = s.log;
  if (!log.isRunning(row)) return; // the attempt was lost (failure or kill)
  const node = s.nodes[log.nodeIndex(row)] as NodeRt;
  const flags = log.flags(row);
  const isMap = (flags & TASK_MAP) !== 0;
  const index = log.taskIndex(row);
  s.runningTotal--;
  s.lastActivity = s.now;
  removeRunning(node, row);
  s.slots.release(node, isMap ? 'map' : 'reduce', flags & TASK_GPU ? 'gpu' : 'cpu');
  const job = s.jobs[log.jobIndex(row)] as JobRt;
  job.slotSeconds += s.now - log.start(row);
  log.close(row, s.now, true);
  if (isMap) {
    job.runningMaps--;
    job.finishedMaps++;
    job.mapFinishes[index] = s.now;
    if (flags & TASK_LOCAL) job.localMapsDone++;
    if (job.finishedMaps === job.spec.maps) s.readyReduceTotal += job.pendingReduces;
  } else {
    job.runningReduces--;
    job.finishedReduces++;
    job.reduceFinishes[index] = s.now;
  }
  if (job.finishedMaps === job.spec.maps && job.finishedReduces === job.spec.reduces) tasksDone(s, job);
  s.heartbeatIfWorth(node);
  if (isMap && job.finishedMaps === job.spec.maps && job.spec.reduces > 0) s.wakeAll();
  s.tenant?.changed();
}

export function onFail(s: EngineState, node: NodeRt): void {
  if (!s.cluster.failures || s.settled === s.jobs.length) return;
  node.alive = false;
  const log = s.log;
  for (const row of node.running.slice()) {
    const job = s.jobs[log.jobIndex(row)] as JobRt;
    const index = log.taskIndex(row);
    loseAttempt(s, node, row);
    if (log.flags(row) & TASK_MAP) requeueMap(s, job, index);
    else {
      job.runningReduces--;
      job.pendingReduces++;
      job.lostReduces.push(index);
      s.readyReduceTotal++;
    }
  }
  s.queue.push(s.now + s.cluster.failures.repairSeconds, eventCode(node.index, EV_REPAIR));
  s.wakeAll();
}

/** A map lost with its node rejoins the pending list at its tail (and its replica nodes' lists). */
function requeueMap(s: EngineState, job: JobRt, index: number): void {
  job.runningMaps--;
  unindexStale(job, index, s.blocks.replication);
  appendPending(job, index);
  indexPendingMap(job, index, s.blocks.replication);
  if (job.pendingCount === 1) s.mapQueueDirty = true;
  job.version++;
  s.pendingMapTotal++;
}

export function onRepair(s: EngineState, node: NodeRt): void {
  if (!s.cluster.failures) return;
  node.alive = true;
  s.lastActivity = s.now;
  if (s.settled < s.jobs.length) {
    s.queue.push(
      s.now + s.rngFail.exponential(s.cluster.failures.meanTimeBetweenSeconds),
      eventCode(node.index, EV_FAIL),
    );
  }
  s.heartbeatIfWorth(node);
}

export function startTask(
  s: EngineState,
  node: NodeRt,
  job: JobRt,
  kind: TaskKind,
  index: number,
  container: ContainerKind,
): void {
  s.slots.take(node, kind, container);
  s.runningTotal++;
  s.lastActivity = s.now;
  let seconds: number;
  // A reduce counts as local in the task records (it reads its map outputs wherever they are).
  let flags = container === 'gpu' ? TASK_GPU | TASK_LOCAL : TASK_LOCAL;
  if (kind === 'map') {
    job.runningMaps++;
    s.pendingMapTotal--;
    job.mapStarts[index] = s.now;
    const local = isLocal(job, index, node.index, s.blocks.replication);
    flags = (container === 'gpu' ? TASK_GPU : 0) | TASK_MAP | (local ? TASK_LOCAL : 0);
    const split = job.splitBytes[index] as number;
    seconds = mapSeconds(s.cluster, job.spec, index, split, node.cls, container, local, s.rngJitter);
  } else {
    job.pendingReduces--;
    s.readyReduceTotal--;
    job.runningReduces++;
    job.reduceStarts[index] = s.now;
    seconds = reduceSeconds(s.cluster, job.spec, index, node.cls, container, s.rngJitter);
  }
  const row = s.log.open(job.index, index, node.index, s.now, flags, s.now + seconds);
  node.running.push(row);
  if (!job.started) {
    job.started = true;
    job.status = 'running';
    s.admission.jobStarted(job.spec.id, s.now);
  }
  s.queue.push(s.now + seconds, eventCode(row, EV_TASK_END));
}

/** Its last task ended: it finishes now, or once its commit is over (TraceJob.overheads). */
function tasksDone(s: EngineState, job: JobRt): void {
  const commit = job.spec.overheads?.commitSeconds ?? 0;
  s.removeActive(job);
  s.placement.jobRemoved(job.spec.id, s.now);
  if (commit > 0) {
    job.committing = true;
    s.queue.push(s.now + commit, eventCode(job.index, EV_COMMIT));
  } else finishJob(s, job);
}

/** Its commit is over: it finishes (unless it was killed meanwhile). */
export function onCommitted(s: EngineState, job: JobRt): void {
  if (job.status !== 'running' || !job.committing) return;
  s.lastActivity = s.now;
  finishJob(s, job);
}

function finishJob(s: EngineState, job: JobRt): void {
  job.status = 'finished';
  job.finish = s.now;
  job.committing = false;
  job.localPending = null;
  s.settled++;
  const record: FinishedJobRecord = {
    job: job.spec,
    admittedAt: job.admittedAt,
    finish: s.now,
    mapStarts: Array.from(job.mapStarts),
    mapFinishes: Array.from(job.mapFinishes),
    reduceStarts: job.reduceStarts.slice(),
    reduceFinishes: job.reduceFinishes.slice(),
  };
  s.admission.jobFinished(record, s.now);
}

function loseAttempt(s: EngineState, node: NodeRt, row: number): void {
  s.runningTotal--;
  removeRunning(node, row);
  const flags = s.log.flags(row);
  s.slots.release(node, flags & TASK_MAP ? 'map' : 'reduce', flags & TASK_GPU ? 'gpu' : 'cpu');
  s.log.close(row, s.now, false);
}

/** Stop a job: pending tasks dropped, running attempts lost, slots freed (Engine.kill). */
export function killJob(s: EngineState, job: JobRt): void {
  if (job.status === 'finished' || job.status === 'killed' || job.status === 'rejected') return;
  // Set up but not released yet, or committing: neither in the queue nor known to placement.
  const wasActive =
    (job.status === 'admitted' || job.status === 'running') && job.released && !job.committing;
  const wasAdmitted = job.status === 'admitted' || job.status === 'running';
  job.status = 'killed';
  if (wasActive) {
    s.pendingMapTotal -= job.pendingCount;
    if (job.finishedMaps === job.spec.maps) s.readyReduceTotal -= job.pendingReduces;
  }
  clearPending(job);
  job.localPending = null;
  s.mapQueueDirty = true;
  job.version++;
  job.pendingReduces = 0;
  for (const node of s.nodes) {
    for (const row of node.running.slice()) {
      if (s.log.jobIndex(row) !== job.index) continue;
      loseAttempt(s, node, row);
    }
  }
  job.runningMaps = 0;
  job.runningReduces = 0;
  if (wasActive) s.removeActive(job);
  if (wasAdmitted) s.admission.jobKilled(job.spec.id, s.now);
  if (wasActive) s.placement.jobRemoved(job.spec.id, s.now);
  s.settled++;
  // Freed slots may now serve other jobs.
  s.wakeAll();
  s.tenant?.changed();
}
