import type { PreemptionModel } from '../../core/sharing';
import type { AdmissionPort, PlacementPort } from '../policy-port';
import type { TenantJob, TenantShares, TenantSpec } from '../tenant';

export type TaskKind = 'map' | 'reduce';

export type JobStatus = 'waiting' | 'rejected' | 'admitted' | 'running' | 'finished' | 'killed';

export type ContainerKind = 'cpu' | 'gpu';

/** An attempt running now (Engine.runningTasksOf). */
export interface RunningAttempt {
  kind: TaskKind;
  index: number;
  start: number;
  /** Simulated second it is scheduled to end. */
  due: number;
  node: string;
}

export interface TaskRecord {
  job: string;
  kind: TaskKind;
  index: number;
  node: string;
  nodeClass: string;
  start: number;
  end: number;
  local: boolean;
  container: ContainerKind;
  /** False when the attempt was lost (node failure, kill). */
  completed: boolean;
  energyKWh: number;
}

export interface JobOutcome {
  id: string;
  arrival: number;
  deadline: number | null;
  absDeadline: number | null;
  maps: number;
  reduces: number;
  type: string;
  /** The workload class whose estimates judge the job: the trace's `class`, else its type. */
  workloadClass: string;
  user: string;
  queue: string;
  status: JobStatus;
  admitted: boolean;
  reason: string | null;
  estimatedFinish: number | null;
  /** A rejected job's earliest admissible relative deadline (s), when searched for (RunRequest.searchEarliest). */
  earliestDeadline: number | null;
  start: number | null;
  finish: number | null;
  metDeadline: boolean | null;
  slotSeconds: number;
  localMaps: number;
}

export interface EngineOptions {
  seed: number;
  admission: AdmissionPort;
  placement: PlacementPort;
  /** Called every so often with the share of submitted jobs that are settled. */
  onProgress?: (done: number, total: number, now: number) => void;
  /**
   * run() ends with SimulationStalledError when jobs wait, nothing runs, every node is up and
   * nothing has started, ended or arrived for this long (simulated seconds). Default: an hour,
   * or 100 heartbeats if longer, well past any placement policy's deliberate wait.
   */
  stallSeconds?: number;
  /** Another tenant sharing the cluster's CPU containers (unified only); none when absent. */
  tenant?: EngineTenant;
}

/** Another tenant as the engine runs it (src/sim/tenant.ts builds it, engine/tenant.ts runs it). */
export interface EngineTenant {
  readonly spec: TenantSpec;
  readonly shares: TenantShares;
  readonly jobs: readonly TenantJob[];
  /** The RM's preemption as core/sharing.ts models it; the monitor's batches are sized by it. */
  readonly model: PreemptionModel;
}

/** The real-time queue's guarantee as one read of the RM shows it (the sidecar's holdsOf inputs). */
export interface SharingRead {
  /** Its guaranteed CPU containers. */
  readonly guaranteed: number;
  /** CPU containers it uses now. */
  readonly used: number;
  /** CPU containers free now. */
  readonly free: number;
  /** When each of the other tenant's containers ends, absolute seconds, ascending. */
  readonly otherEnds: readonly number[];
}

export interface EngineSnapshot {
  now: number;
  nodes: Array<{
    id: string;
    className: string;
    labels: string[];
    alive: boolean;
    freeMapSlots: number;
    freeReduceSlots: number;
    runningTasks: number;
  }>;
  jobs: Array<{
    id: string;
    status: JobStatus;
    queue: string;
    priority: number;
    arrival: number;
    absDeadline: number | null;
    mapsPending: number;
    mapsRunning: number;
    mapsDone: number;
    reducesPending: number;
    reducesRunning: number;
    reducesDone: number;
    finish: number | null;
  }>;
}
