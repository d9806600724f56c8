import type { ClusterSpec, TraceJob } from './model';

/**
 * What the engine asks of policies. The engine never decides admission or placement
 * itself: src/sim/policies/ wraps the registry's admission and placement policies
 * (src/core/registry.ts) into these two ports.
 */

/** A job as policies see it during a run. Arrays are live views: do not mutate them. */
export interface JobView {
  readonly id: string;
  readonly index: number;
  readonly spec: TraceJob;
  /** Absolute deadline A + D, or null for a job without one. */
  readonly absDeadline: number | null;
  readonly admittedAt: number;
  readonly priority: number;
  readonly queue: string;
  /** Indices of map tasks not yet started. */
  readonly pendingMaps: readonly number[];
  readonly runningMaps: number;
  readonly finishedMaps: number;
  readonly pendingReduces: number;
  readonly runningReduces: number;
  readonly finishedReduces: number;
  /** Input block id of map task i. */
  mapBlock(i: number): string;
  /** Node indices holding a replica of map task i's input block. */
  mapReplicas(i: number): readonly number[];
  /** True when all maps have finished (its reduce stage has been reached). */
  readonly mapsDone: boolean;
  /** Bumped whenever pendingMaps changes, so adapters can cache what they derive from it. */
  readonly version: number;
}

/**
 * The engine's job views also carry its index of pending maps by replica node, so a
 * placement adapter can find a node's local tasks without walking the job's pending list.
 */
export interface IndexedJobView extends JobView {
  /** Pending map indices with a replica on node `node`, in pendingMaps order. Live: do not mutate. */
  pendingMapsOn(node: number): readonly number[];
  /** pendingMaps.length, without building the pendingMaps array. */
  readonly pendingMapCount: number;
  /**
   * pendingMaps[i], without building the array: O(1) for i = 0 and for i one past the
   * previous call's (the walk HeartbeatTally.firstAny makes), O(i) otherwise.
   */
  pendingMapAt(i: number): number;
}

/**
 * A job's pending map count. The engine's views count them without building the pendingMaps
 * array, which they build only when it is read after a change.
 */
export function pendingMapCount(v: JobView): number {
  const n = (v as Partial<IndexedJobView>).pendingMapCount;
  return n === undefined ? v.pendingMaps.length : n;
}

export interface NodeView {
  readonly index: number;
  readonly id: string;
  readonly className: string;
  readonly labels: readonly string[];
  readonly freeMapSlots: number;
  readonly freeReduceSlots: number;
  /** The free map slots / containers split by kind (GPU containers are counted apart). */
  readonly freeCpu: number;
  readonly freeGpu: number;
  readonly capacityCpu: number;
  readonly capacityGpu: number;
  readonly alive: boolean;
}

export interface MapAssignment {
  jobId: string;
  mapIndex: number;
  /** The kind of container the task runs in; CPU when absent. */
  containerKind?: 'cpu' | 'gpu';
}

/**
 * One container of a node's heartbeat, as a per-container placement port hands it out: a map
 * task (as in MapAssignment) or a reduce of a job whose maps are all done (the engine picks
 * which of its reduces).
 */
export type ContainerAssignment = ({ kind: 'map' } & MapAssignment) | { kind: 'reduce'; jobId: string };

export interface AdmissionDecision {
  admit: boolean;
  reason?: string;
  /** The policy's estimate of the job's finish time, when it makes one. */
  estimatedFinish?: number | null;
  /** A rejected job's earliest relative deadline admitted then (seconds), when searched for. */
  earliestDeadline?: number | null;
}

export interface FinishedJobRecord {
  job: TraceJob;
  admittedAt: number;
  finish: number;
  mapStarts: number[];
  mapFinishes: number[];
  reduceStarts: number[];
  reduceFinishes: number[];
}

export interface RunContext {
  cluster: ClusterSpec;
  /** Worst-case map / reduce task seconds for a job on this cluster (the seeds' eps^m, eps^r). */
  worstMapSeconds(job: TraceJob): number;
  worstReduceSeconds(job: TraceJob): number;
}

export interface AdmissionPort {
  readonly name: string;
  /** False for policies that promise nothing (fifo-all): utilisation then counts every job. */
  readonly promisesDeadlines: boolean;
  decide(job: TraceJob, now: number): AdmissionDecision;
  /** Dispatch order among admitted, unfinished jobs: negative when a goes first. */
  compare(a: JobView, b: JobView): number;
  jobStarted(jobId: string, now: number): void;
  jobFinished(record: FinishedJobRecord, now: number): void;
  jobKilled(jobId: string, now: number): void;
  /**
   * The policy's own dispatcher, when it has one (RTMR's reservation-based Alg. 5.4, DC's
   * minimum-task assignment): for one free slot of `lane` ('reduce' slots in mr1, 'map' slots
   * in mr1 when `dispatchesMapSlots`, 'container' in unified), which job gets it and for which
   * kind of task; null leaves the slot free. `freeInLane` counts the lane's free slots in the
   * whole cluster (with `containerLanes`, only the free containers of kind `container`).
   * Without it, reduces take free slots in queue order and the placement policy fills map slots.
   */
  dispatch?(
    lane: 'map' | 'reduce' | 'container',
    queue: readonly JobView[],
    freeInLane: number,
    now: number,
    container?: 'cpu' | 'gpu',
  ): { jobId: string; kind: 'map' | 'reduce' } | null;
  /**
   * mr1: the dispatcher also names the job for each free map slot (DC gives each job at most
   * its minimum), and the placement policy only picks that job's task. Otherwise the placement
   * policy sees the whole queue (RTMR's maps follow the queue order, Alg. 5.4 lines 4-5).
   */
  dispatchesMapSlots?: boolean;
  /**
   * unified: GPU containers and the other containers are separate admission lanes. The engine
   * then offers each kind of container apart (dispatch's `container`), and runs every task a
   * job's lane names, maps and reduces, in a container of that kind. mr1 (with
   * `dispatchesMapSlots`): GPU map slots and the other map slots are separate lanes of maps;
   * the engine offers each kind of map slot apart, and the reduce slots stay one shared lane.
   */
  containerLanes?: boolean;
}

export interface PlacementPort {
  readonly name: string;
  jobAdded(job: JobView, now: number): void;
  jobRemoved(jobId: string, now: number): void;
  /** Map tasks to start on `node` at this heartbeat; at most `node.freeMapSlots` of them. */
  assignMaps(node: NodeView, queue: readonly JobView[], now: number): MapAssignment[];
  /**
   * Optional, for a scheduler that decides maps and reduces together and must know the node a
   * reduce would run on (the emulated RM: partitions, queue capacities, reservations). When
   * present, and the admission policy has no dispatcher of its own, the engine fills a
   * heartbeating node one container at a time: it asks for the next container, starts it (so
   * the views are current), and asks again until this answers null or nothing fits. `queue`
   * holds every active job in dispatch order, including those with only reduces left. Absent
   * (the simulator's policies), the engine's own reduce walk and `assignMaps` apply unchanged.
   */
  assignContainer?(node: NodeView, queue: readonly JobView[], now: number): ContainerAssignment | null;
}
