import type { SlotModel } from '../../slots/model';

/** What the dispatcher needs to know of one queued job (queue order = priority order). */
export interface DispatchJobView {
  readonly id: string;
  readonly pendingMaps: number;
  readonly runningMaps: number;
  readonly pendingReduces: number;
}

export interface DispatchChoice {
  readonly jobId: string;
  readonly kind: 'map' | 'reduce';
}

const reachedReduceStage = (j: DispatchJobView): boolean => j.pendingMaps === 0 && j.runningMaps === 0;

/** Alg. 5.4 lines 4-5 (mr1 map slot): the first job in queue order with a map still to run. */
export function nextMapTask(queue: readonly DispatchJobView[]): DispatchChoice | null {
  for (const j of queue) if (j.pendingMaps > 0) return { jobId: j.id, kind: 'map' };
  return null;
}

/**
 * Alg. 5.4 lines 6-21 (mr1 reduce slot). `freeReduceSlots` is Ra, the free reduce slots of the
 * cluster counted now, including the one being filled. Walk the queue in priority order; a job
 * that has not reached its reduce stage reserves its R reduce slots; stop once the reserved
 * slots use up every free one.
 *
 * One change from the printed line 10 (`reservedSlot > Ra`): we stop at `reservedSlot >= Ra`.
 * With `>`, a lower job may take one of exactly Ra free slots reserved for higher jobs, leaving
 * Ra - 1 for a reservation of Ra: a higher job then waits for that slot and may miss its
 * deadline (test "the printed boundary lets a lower job take a reserved slot" shows it).
 */
export function nextReduceTask(
  queue: readonly DispatchJobView[],
  freeReduceSlots: number,
): DispatchChoice | null {
  let reserved = 0; // line 8
  for (const j of queue) {
    if (reserved >= freeReduceSlots) return null; // lines 10-12
    if (reachedReduceStage(j) && j.pendingReduces > 0) return { jobId: j.id, kind: 'reduce' }; // lines 13-16
    if (!reachedReduceStage(j)) reserved += j.pendingReduces; // lines 17-18
  }
  return null;
}

/**
 * The reservation rule on the `unified` model (one pool of containers for maps and reduces).
 *
 * The vectors place each job's reduces on the pool before any lower-priority job's maps, so a
 * container may go to a job's task (map or reduce) only if the containers left free still cover
 * the reduces owed to every higher-priority job whose map stage has not finished. Walk the
 * queue in priority order: the first job with a task ready (a map waiting, or a reduce whose
 * maps are all done) gets the container, unless the reduces reserved by the jobs before it
 * already take every free container. A job still in its map stage with no map waiting
 * reserves its R reduces. This is Alg. 5.4 with maps subject to the same reservation: without
 * it, a lower job's maps would take the containers that the estimate gave to a higher job's
 * reduces and that job would wait for them.
 */
export function nextContainerTask(
  queue: readonly DispatchJobView[],
  freeContainers: number,
): DispatchChoice | null {
  let reserved = 0;
  for (const j of queue) {
    if (reserved >= freeContainers) return null;
    if (j.pendingMaps > 0) return { jobId: j.id, kind: 'map' };
    if (reachedReduceStage(j)) {
      if (j.pendingReduces > 0) return { jobId: j.id, kind: 'reduce' };
    } else reserved += j.pendingReduces;
  }
  return null;
}

/** The task for one free slot of `lane` (mr1: 0 = map slots, 1 = reduce slots; unified: 0). */
export function dispatchNext(
  model: SlotModel,
  lane: number,
  queue: readonly DispatchJobView[],
  freeInLane: number,
): DispatchChoice | null {
  if (model.name === 'unified') return nextContainerTask(queue, freeInLane);
  return lane === 0 ? nextMapTask(queue) : nextReduceTask(queue, freeInLane);
}
