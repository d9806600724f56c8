/**
 * The placement contract shared by every placement policy.
 *
 * Two drivers call it: the simulator's heartbeat loop and the live sidecar's poller. Both
 * hand in plain data (a node's free containers, the queue of jobs with pending map tasks,
 * `nowMs`) and the policy's own state, and get back assignments plus the next state. Nothing
 * here reads the clock or mutates its inputs, so a run can be replayed from its inputs.
 *
 * Two shapes of policy fit the same interface:
 *  - per-heartbeat policies (FIFO, delay, matchmaking, job-size) implement `onHeartbeat`;
 *  - cluster-wide allocators (EFH level I, ideal-energy, ASRPT) implement `allocate` over a
 *    `ClusterView` and also `onHeartbeat`, which runs `allocate` restricted to one node so a
 *    driver that only has heartbeats can still use them.
 */

import type { ContainerKind, JobType, PendingTask } from '../../kinds';

export type { ContainerKind, JobType, PendingTask };

export interface FreeContainers {
  readonly cpu: number;
  readonly gpu: number;
}

/** A node as seen in one heartbeat: identity, class (for the energy profile), labels, free containers. */
export interface NodeView {
  readonly nodeId: string;
  readonly nodeClass: string;
  readonly labels: readonly string[];
  /** Free map slots (mr1 slot model) or free containers (unified model), by kind. */
  readonly free: FreeContainers;
  /** All containers of the node, busy or free; EFH's optset is taken over these. Defaults to `free`. */
  readonly capacity?: FreeContainers;
}

export interface PlacementJob {
  readonly jobId: string;
  /** Submission time; the queue's FIFO order and EFH's waiting time derive from it. */
  readonly arrivalMs: number;
  readonly kind: JobType;
  /** Unassigned map tasks, in the job's own order. */
  readonly pendingTasks: readonly PendingTask[];
  /** Tasks of this job currently running (fair-share order and job-size tier 1 use it). */
  readonly runningTasks: number;
  /** Owner, for the job-size two-tier scheduler; jobs without one share the user `''`. */
  readonly user?: string;
  /** Energy-profile workload this job's map tasks behave like; see src/core/energy/profile.ts. */
  readonly workload?: string;
  /** All map tasks the job has (pending, running and done); job-size uses it as the size proxy. */
  readonly totalTasks?: number;
  /** Reduce work still to do, in task-slots; ASRPT ranks jobs by maps left plus this. */
  readonly remainingReduceWork?: number;
  /** Containers already granted to the job by a cluster-wide allocator and not yet used. */
  readonly grantedContainers?: readonly GrantedContainer[];
}

export interface Assignment {
  readonly jobId: string;
  readonly taskId: string;
  readonly nodeId: string;
  readonly containerKind: ContainerKind;
  /** True when `nodeId` holds a replica of the task's input block. */
  readonly local: boolean;
}

export interface HeartbeatInput {
  readonly node: NodeView;
  /** Jobs with pending map tasks, in queue (submission) order. */
  readonly jobs: readonly PlacementJob[];
  readonly nowMs: number;
}

export interface ClusterView {
  readonly nodes: readonly NodeView[];
  readonly jobs: readonly PlacementJob[];
  readonly nowMs: number;
}

/** One container granted to a job by a level-I (cluster-wide) allocator. */
export interface GrantedContainer {
  readonly jobId: string;
  readonly nodeId: string;
  readonly containerKind: ContainerKind;
}

export interface HeartbeatResult<S> {
  readonly assignments: readonly Assignment[];
  readonly state: S;
}

export interface AllocateResult<S> {
  readonly grants: readonly GrantedContainer[];
  readonly state: S;
}

/** A finished job as the job-size policy learns from it. */
export interface FinishedJob {
  readonly jobId: string;
  readonly user?: string;
  /** Run time of each of its map and reduce tasks. */
  readonly taskMs: readonly number[];
}

export interface PlacementPolicy<S = unknown> {
  readonly name: string;
  initialState(): S;
  /** Called when a node with free containers heartbeats. Never assigns more than the node has free. */
  onHeartbeat(state: S, input: HeartbeatInput): HeartbeatResult<S>;
  /** Cluster-wide allocation (EFH level I and the like); absent for per-heartbeat policies. */
  allocate?(state: S, view: ClusterView): AllocateResult<S>;
  /**
   * Level II of a two-level policy (EFH's AM dispatcher): which pending task of `job` runs in
   * each of the containers granted to it. `nodes` gives each granted container's node class.
   */
  dispatch?(job: PlacementJob, grants: readonly GrantedContainer[], nodes: readonly NodeView[]): Assignment[];
  /** Learning hook for policies that adapt to finished jobs (job-size). */
  onJobFinished?(state: S, job: FinishedJob): S;
}
