import type {
  AdmissionPort,
  ContainerAssignment,
  JobView,
  MapAssignment,
  PlacementPort,
} from '../policy-port';
import { startTask } from './events';
import { isPending, removePending, type JobRt } from './job-state';
import type { NodeRt } from './nodes';
import type { EngineState } from './state';
import type { ContainerKind } from './types';

/**
 * A node's heartbeat: who gets its free slots. On a heartbeat the placement policy fills free
 * map slots; ready reduces take free reduce slots in queue order, subject to the admission
 * policy's reduce rule (Alg. 5.4 for RTMR). A policy with its own dispatcher names the job for
 * each slot instead (dispatchContainers).
 */
export function onHeartbeat(s: EngineState, node: NodeRt): void {
  node.parked = true;
  if (!node.alive) return;
  const queue = s.orderedQueue();
  if (queue.length === 0) return;
  const lanes = s.admission.containerLanes;
  if (s.admission.dispatch && s.cluster.slotModel === 'unified') {
    // With lanes, each kind of container is its own admission lane: offer each kind apart.
    if (lanes) for (const kind of KINDS) dispatchContainers(s, node, queue, 'container', kind);
    else dispatchContainers(s, node, queue, 'container');
  } else if (s.placement.assignContainer && !s.admission.dispatch) {
    fillContainers(s, node);
  } else {
    // Reduces first: they gate job completion, and their slots are separate in mr1.
    assignReduces(s, node, queue);
    if (s.slots.freeFor(node, 'map') > 0 && s.pendingMapTotal > 0) {
      if (s.admission.dispatch && s.admission.dispatchesMapSlots) {
        // GPU map slots are an admission lane of their own: offer each kind apart.
        if (lanes) for (const kind of KINDS) dispatchContainers(s, node, queue, 'map', kind);
        else dispatchContainers(s, node, queue, 'map');
      } else {
        const assignments = s.placement.assignMaps(s.slots.view(node), s.mapQueue(), s.now);
        applyMapAssignments(s, node, assignments);
      }
    }
  }
  s.heartbeatIfWorth(node);
}

const KINDS: readonly ContainerKind[] = ['cpu', 'gpu'];

/**
 * unified slots (or mr1 map slots, `lane` 'map') under a policy with its own dispatcher:
 * container by container, the dispatcher names the job (and map or reduce); for a map, the
 * placement policy picks the task of that job (locality) as it would with that job alone in
 * the queue. With `kind` (admission lanes by container kind), only containers of that kind
 * are offered, and the job's reduces run in them too.
 */
function dispatchContainers(
  s: EngineState,
  node: NodeRt,
  queue: readonly JobView[],
  lane: 'container' | 'map',
  kind?: ContainerKind,
): void {
  const dispatch = s.admission.dispatch as NonNullable<AdmissionPort['dispatch']>;
  while (kind ? s.slots.freeKind(node, kind) > 0 : s.slots.freeFor(node, 'map') > 0) {
    const free = kind ? s.slots.clusterFreeKind(kind) : s.slots.clusterFree('map');
    const choice = dispatch(lane, queue, free, s.now, kind);
    if (!choice) return;
    const job = s.mustJob(choice.jobId);
    if (choice.kind === 'reduce') {
      if (lane === 'map' || job.pendingReduces === 0) return;
      if (!kind && s.slots.freeFor(node, 'reduce') <= 0) return;
      startTask(s, node, job, 'reduce', s.nextReduceIndex(job), kind ?? 'cpu');
      continue;
    }
    const assignments = kind ? offerLaneContainer(s, node, job, kind) : offerContainer(s, node, job);
    if (assignments.length === 0) return;
    applyMapAssignments(s, node, assignments);
  }
}

/** One container of the lane's kind for one of the job's maps: a job never leaves its lane. */
function offerLaneContainer(s: EngineState, node: NodeRt, job: JobRt, kind: ContainerKind): MapAssignment[] {
  const offer = { ...s.slots.view(node), freeMapSlots: 1 };
  return s.placement
    .assignMaps(
      kind === 'gpu' ? { ...offer, freeCpu: 0, freeGpu: 1 } : { ...offer, freeCpu: 1, freeGpu: 0 },
      [job.view],
      s.now,
    )
    .filter((a) => (a.containerKind ?? 'cpu') === kind)
    .slice(0, 1);
}

/**
 * One container for one of the job's maps: a CPU one first, and a GPU one when the job can use
 * no CPU container (a GPU-only job), so such a job is not left waiting forever beside a free
 * GPU container.
 */
function offerContainer(s: EngineState, node: NodeRt, job: JobRt): readonly MapAssignment[] {
  const base = { ...s.slots.view(node), freeMapSlots: 1 };
  const cpu = Math.min(1, s.slots.freeKind(node, 'cpu'));
  const gpu = Math.min(1, s.slots.freeKind(node, 'gpu'));
  let assignments: readonly MapAssignment[] = [];
  const cpuUsable = job.spec.type !== 'gpu';
  if (cpu > 0 && cpuUsable) {
    assignments = s.placement.assignMaps({ ...base, freeCpu: cpu, freeGpu: 0 }, [job.view], s.now);
  }
  if (gpu > 0 && (cpu === 0 || !cpuUsable)) {
    assignments = s.placement.assignMaps({ ...base, freeCpu: 0, freeGpu: gpu }, [job.view], s.now);
  }
  return assignments.slice(0, 1);
}

/**
 * A placement port that hands out containers one at a time (PlacementPort.assignContainer):
 * each answer is started before the next question, so the port always sees current views.
 */
function fillContainers(s: EngineState, node: NodeRt): void {
  const next = s.placement.assignContainer as NonNullable<PlacementPort['assignContainer']>;
  for (;;) {
    const mapsWanted = s.slots.freeFor(node, 'map') > 0 && s.pendingMapTotal > 0;
    const reducesWanted = s.slots.freeFor(node, 'reduce') > 0 && s.readyReduceTotal > 0;
    if (!mapsWanted && !reducesWanted) return;
    const a: ContainerAssignment | null = next(s.slots.view(node), s.orderedQueue(), s.now);
    if (!a) return;
    if (a.kind === 'map') {
      applyMapAssignments(s, node, [a]);
      continue;
    }
    const job = s.mustJob(a.jobId);
    if (
      s.slots.freeFor(node, 'reduce') <= 0 ||
      job.finishedMaps !== job.spec.maps ||
      job.pendingReduces === 0
    ) {
      throw new Error(
        `placement ${s.placement.name} assigned a reduce of ${a.jobId} that cannot start on node ${node.id}`,
      );
    }
    startTask(s, node, job, 'reduce', s.nextReduceIndex(job), 'cpu');
  }
}

function assignReduces(s: EngineState, node: NodeRt, queue: readonly JobView[]): void {
  const dispatch = s.admission.dispatch;
  while (s.slots.freeFor(node, 'reduce') > 0) {
    let job: JobRt | undefined;
    if (dispatch) {
      // Alg. 5.4 lines 6-21: the policy's reservation rule picks the job, or none.
      const choice = dispatch('reduce', queue, s.slots.clusterFree('reduce'), s.now);
      if (choice && choice.kind === 'reduce') job = s.mustJob(choice.jobId);
    } else {
      // readyReduceTotal is the sum this walk would find non-zero: skip the walk when it is 0.
      if (s.readyReduceTotal === 0) return;
      const view = queue.find((v) => v.mapsDone && v.pendingReduces > 0);
      if (view) job = s.jobs[view.index] as JobRt;
    }
    if (!job || job.pendingReduces === 0) return;
    startTask(s, node, job, 'reduce', s.nextReduceIndex(job), 'cpu');
  }
}

function applyMapAssignments(s: EngineState, node: NodeRt, assignments: readonly MapAssignment[]): void {
  for (const a of assignments) {
    const kind = a.containerKind ?? 'cpu';
    const job = checkedAssignment(s, node, a, kind);
    // The replica nodes' local lists drop the map when next read (pendingMapsOn).
    removePending(job, a.mapIndex);
    if (job.pendingCount === 0) s.mapQueueDirty = true;
    job.version++;
    startTask(s, node, job, 'map', a.mapIndex, kind);
  }
}

/** The assignment's job, once the assignment is one the node can run; a policy's error otherwise. */
function checkedAssignment(s: EngineState, node: NodeRt, a: MapAssignment, kind: ContainerKind): JobRt {
  const policy = `placement ${s.placement.name}`;
  if (s.slots.freeFor(node, 'map') <= 0 || s.slots.freeKind(node, kind) <= 0)
    throw new Error(`${policy} over-assigned node ${node.id} (${kind} containers)`);
  const job = s.jobNamed(a.jobId);
  if (job === undefined) throw new Error(`${policy} assigned a task of unknown job ${a.jobId}`);
  if (!isPending(job, a.mapIndex))
    throw new Error(`${policy} assigned map ${a.mapIndex} of ${a.jobId}, which is not pending`);
  if (job.spec.type === 'gpu' && (kind !== 'gpu' || !node.cls.labels.includes(s.cluster.gpuLabel)))
    throw new Error(`${policy} put GPU job ${a.jobId} outside a GPU container (node ${node.id})`);
  if (job.spec.type === 'cpu' && kind === 'gpu')
    throw new Error(`${policy} put CPU job ${a.jobId} in a GPU container (node ${node.id})`);
  return job;
}
