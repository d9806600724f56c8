/**
 * The simulator's model of a cluster and a workload, after validation. The file formats
 * (docs/simulator.md) parse into these; generators build them directly.
 */

import type { Estimates } from '../core/estimates';
import type { JobType } from '../core/kinds';

export type { JobType };
export type SlotModel = 'mr1' | 'unified';
/** The two code versions a job may run: CPU code or GPU code. `adaptive` jobs ship both. */
export type CodeKind = 'cpu' | 'gpu';

export interface PerCode<T> {
  cpu: T;
  gpu: T;
}

/**
 * A figure for each way a task can run: a CPU application (always in a CPU container),
 * a GPU application in a GPU container, and a GPU application's CPU code in a CPU
 * container (adaptive execution, seed 004 Table 6.1).
 */
export interface PerRun {
  cpu: number;
  gpu: number;
  gpuOnCpu: number;
}

/** How a task runs: which application cost model, which container kind. */
export type RunKind = keyof PerRun;

export interface NodeClassSpec {
  name: string;
  count: number;
  /** mr1: map and reduce slots per node. */
  mapSlots: number;
  reduceSlots: number;
  /** unified: container slots per node (maps and reduces share them). */
  containers: number;
  labels: string[];
  /** Of the map slots (mr1) or containers (unified), how many hold a GPU (seed 004 6.1.4). */
  gpuContainers: number;
  /** Relative speed for each way of running: a task takes its nominal time divided by this. */
  speed: PerRun;
  /** Power drawn by the node when idle, watts. */
  idleWatts: number;
  /**
   * Energy one task of each code kind uses on this class beyond idle, kWh (seed 004
   * Table 6.8: total energy of a one-map job minus idle energy over the same interval).
   */
  taskEnergyKWh: PerRun;
}

export interface TaskCostSpec {
  /** Map task time on a speed-1 CPU core with local data: fixed + perMB * split size. */
  mapFixedSeconds: number;
  mapSecondsPerMB: number;
  reduceFixedSeconds: number;
  reduceSecondsPerMB: number;
  /** Intermediate data over input data (eta of seed 000), spread evenly over the reduces. */
  shuffleRatio: number;
  /**
   * Actual run time = nominal time * a factor drawn uniformly from [min, max]. With
   * max <= 1 actual times never exceed the nominal (worst-case) estimate.
   */
  jitter: [number, number];
}

export interface FailureSpec {
  /** Mean time between failures of one node, seconds (exponential). */
  meanTimeBetweenSeconds: number;
  /** How long a failed node stays down. */
  repairSeconds: number;
}

export interface ClusterSpec {
  version: 1;
  slotModel: SlotModel;
  heartbeatSeconds: number;
  /** A non-local map task takes (1 + remoteReadPenalty) times the local time. */
  remoteReadPenalty: number;
  gpuLabel: string;
  nodeClasses: NodeClassSpec[];
  costs: PerCode<TaskCostSpec>;
  hdfs: { blockMB: number; replication: number; blocks: number };
  failures: FailureSpec | null;
  /** When set, idle energy is counted over max(makespan, this window) (seed 004 6.3.3). */
  energyWindowSeconds: number | null;
}

export interface TraceJob {
  id: string;
  /** Arrival time, seconds from the start of the trace. */
  arrival: number;
  /** Relative deadline, seconds after arrival; null for a job without deadline. */
  deadline: number | null;
  maps: number;
  reduces: number;
  inputBytes: number;
  /** Per-map split sizes in bytes (sum = inputBytes); evenly split when absent. */
  splits: number[] | null;
  type: JobType;
  /**
   * The workload class whose admission estimates the job is judged with (a recurring job's
   * name, say); its type when absent (src/sim/policies.ts, worstCaseEstimates).
   */
  workloadClass?: string | undefined;
  user: string;
  queue: string;
  /** Input block ids, one per map task; generated and placed when absent. */
  blocks: string[] | null;
  /** Actual task durations from a replayed trace (SLS), seconds; overrides the cost model. */
  replay?: { mapSeconds: number[]; reduceSeconds: number[] } | undefined;
  /**
   * A replayed job's time outside its tasks, seconds: from its admission until its tasks may
   * start (its AM's container, launch and set-up, as it really took) and from its last task's
   * end to its finish (its commit). None when absent: tasks may start at once, the job ends
   * with its last task.
   */
  overheads?: { setupSeconds: number; commitSeconds: number } | undefined;
  /**
   * The figures admission judges this job with, in place of its class's (a replayed history:
   * what the sidecar had learned by the job's arrival, src/replay/estimates.ts).
   */
  estimates?: Estimates | undefined;
}

export function totalNodes(spec: ClusterSpec): number {
  return spec.nodeClasses.reduce((n, c) => n + c.count, 0);
}

/** Slots available to map tasks and to reduce tasks, cluster-wide. */
export function slotTotals(spec: ClusterSpec): { map: number; reduce: number; containers: number } {
  let map = 0;
  let reduce = 0;
  let containers = 0;
  for (const c of spec.nodeClasses) {
    map += c.count * c.mapSlots;
    reduce += c.count * c.reduceSlots;
    containers += c.count * c.containers;
  }
  return spec.slotModel === 'mr1'
    ? { map, reduce, containers: map + reduce }
    : { map: containers, reduce: containers, containers };
}

/** The labels present on at least one node. */
export function labelsInCluster(spec: ClusterSpec): Set<string> {
  const out = new Set<string>();
  for (const c of spec.nodeClasses) if (c.count > 0) for (const l of c.labels) out.add(l);
  return out;
}

export const MB = 1024 * 1024;
