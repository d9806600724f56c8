import { parseEnergyProfile, type EnergyProfile } from '../../core/energy/profile';
import type { IndexedPlacementJob } from '../../core/placement/common/helpers';
import { keepPromise } from '../../core/placement/common/keep-promise';
import type { PlacementJob, PlacementPolicy, PendingTask } from '../../core/placement/common/types';
import type { PolicyRegistry } from '../../core/registry';
import type { ClusterSpec } from '../model';
import {
  pendingMapCount,
  type IndexedJobView,
  type JobView,
  type MapAssignment,
  type NodeView,
  type PlacementPort,
} from '../policy-port';
import { simulatorRegistry } from './spec';

/**
 * What a placement port keeps between heartbeats about the jobs it shows its policy. Per job:
 * one PendingTask object per pending map, built the first time a policy looks at it, so a
 * task's replica list is made once, not once per heartbeat, and dropped when the task is
 * assigned (a lost attempt's map gets a new, equal one); and the full pending list, for
 * policies that read it whole (EFH, ASRPT's workload), rebuilt only when the job's pending
 * maps changed and only when read.
 */
class AdapterCaches {
  private readonly tasks: Array<Array<PendingTask | undefined> | undefined> = [];
  private readonly lists: Array<{ version: number; pending: PendingTask[] } | undefined> = [];
  /**
   * The heartbeating node's id and engine index (the index the engine's per-node lists of
   * pending maps are keyed by). A policy asking about another node gets the same answer from
   * the pending list itself (PendingTaskIndex's contract).
   */
  nodeId: string | null = null;
  nodeIndex = -1;

  constructor(readonly options: PlacementPortOptions) {}

  taskOf(j: JobView, i: number): PendingTask {
    let byIndex = this.tasks[j.index];
    if (!byIndex) this.tasks[j.index] = byIndex = new Array<PendingTask | undefined>(j.spec.maps);
    let t = byIndex[i];
    if (!t) byIndex[i] = t = { taskId: taskIdOf(i), replicaNodes: j.mapReplicas(i).map(this.options.nodeId) };
    return t;
  }

  pendingTasks(j: JobView): PendingTask[] {
    const c = this.lists[j.index];
    if (c && c.version === j.version) return c.pending;
    const pending = j.pendingMaps.map((i) => this.taskOf(j, i));
    this.lists[j.index] = { version: j.version, pending };
    return pending;
  }

  assigned(jobIndex: number, mapIndex: number): void {
    const byIndex = this.tasks[jobIndex];
    if (byIndex) byIndex[mapIndex] = undefined;
  }

  forget(jobIndex: number): void {
    this.tasks[jobIndex] = undefined;
    this.lists[jobIndex] = undefined;
  }
}

const NO_TASKS: readonly PendingTask[] = Object.freeze([]);

/**
 * One live PlacementJob per job: its fields read the engine's view. Classes at module level
 * rather than object literals of getters (or classes made per port): every job of every run
 * then has the same shape, so the policies' property reads stay fast from one run to the next.
 */
class AdapterJob implements PlacementJob {
  readonly jobId: string;
  readonly kind: PlacementJob['kind'];
  readonly user: string;
  readonly totalTasks: number;
  /** The order key, when it never changes (options.orderKeyFixed). */
  private readonly fixedKey: number | undefined;

  constructor(
    readonly view: JobView,
    protected readonly caches: AdapterCaches,
  ) {
    this.jobId = view.id;
    this.kind = view.spec.type;
    this.user = view.spec.user;
    this.totalTasks = view.spec.maps;
    this.fixedKey = caches.options.orderKeyFixed ? caches.options.orderKeyMs(view) : undefined;
  }

  get arrivalMs(): number {
    return this.fixedKey ?? this.caches.options.orderKeyMs(this.view);
  }
  get pendingTasks(): readonly PendingTask[] {
    return this.caches.pendingTasks(this.view);
  }
  get runningTasks(): number {
    return this.view.runningMaps + this.view.runningReduces;
  }
}

/**
 * With the engine's index of pending maps by replica node, a job also carries
 * PendingTaskIndex, so the policies' heartbeat work (src/core/placement/common/helpers.ts,
 * HeartbeatTally) looks only at the tasks local to the heartbeating node instead of walking
 * every pending task.
 */
class IndexedAdapterJob extends AdapterJob implements IndexedPlacementJob {
  constructor(
    readonly indexed: IndexedJobView,
    caches: AdapterCaches,
  ) {
    super(indexed, caches);
  }

  get pendingCount(): number {
    return this.indexed.pendingMapCount;
  }
  pendingTaskAt(i: number): PendingTask {
    return this.caches.taskOf(this.indexed, this.indexed.pendingMapAt(i));
  }
  pendingLocalTo(nodeId: string): readonly PendingTask[] {
    const c = this.caches;
    if (nodeId !== c.nodeId) return this.pendingTasks.filter((t) => t.replicaNodes.includes(nodeId));
    const maps = this.indexed.pendingMapsOn(c.nodeIndex);
    if (maps.length === 0) return NO_TASKS;
    const out = new Array<PendingTask>(maps.length);
    for (let k = 0; k < maps.length; k++) out[k] = c.taskOf(this.indexed, maps[k] as number);
    return out;
  }
}

const TASK_IDS: string[] = [];

/** Map index i as a PendingTask id: one string per index for the whole process. */
function taskIdOf(i: number): string {
  return (TASK_IDS[i] ??= String(i));
}

/** The energy profile EFH and ideal-energy read, built from the cluster file's power model. */
export function energyProfileOf(cluster: ClusterSpec): EnergyProfile {
  const classes = cluster.nodeClasses.filter((c) => c.count > 0);
  const gpuCapable = (c: (typeof classes)[number]) =>
    c.gpuContainers > 0 && c.labels.includes(cluster.gpuLabel);
  return parseEnergyProfile(
    {
      gpuLabel: cluster.gpuLabel,
      nodeClasses: Object.fromEntries(
        classes.map((c) => [c.name, { idleWatts: c.idleWatts, labels: c.labels }]),
      ),
      workloads: {
        cpu: { mapTaskKwh: Object.fromEntries(classes.map((c) => [c.name, { cpu: c.taskEnergyKWh.cpu }])) },
        gpu: {
          mapTaskKwh: Object.fromEntries(
            classes.map((c) => [
              c.name,
              gpuCapable(c)
                ? { cpu: c.taskEnergyKWh.gpuOnCpu, gpu: c.taskEnergyKWh.gpu }
                : { cpu: c.taskEnergyKWh.gpuOnCpu },
            ]),
          ),
        },
      },
      defaultWorkload: { cpu: 'cpu', gpu: 'gpu', adaptive: 'gpu' },
    },
    classes.map((c) => ({ nodeClass: c.name, nodes: c.count, labels: c.labels })),
  );
}

export interface PlacementPortOptions {
  /** The engine's node ids by index. */
  nodeId(index: number): string;
  /**
   * The key the placement's FIFO order sorts on. With an admission queue that is not in
   * arrival order (EDF), the job's rank in that queue, so "the first job" is the admission
   * queue's head (Alg. 5.4 line 5: maps follow the queue order).
   */
  orderKeyMs(job: JobView): number;
  /**
   * True when a job's order key never changes (arrival order): it is then read once per job
   * instead of on every comparison of every heartbeat's FIFO order check.
   */
  orderKeyFixed?: boolean;
  /**
   * Under an admission policy with its own dispatcher (it names the job for each free slot):
   * the slot is used whenever that job has a task for it, the policy choosing which task
   * (src/core/placement/common/keep-promise.ts). Without it a locality rule may leave the slot idle
   * (FIFO's one non-local task per heartbeat, matchmaking's skip, delay scheduling's wait) and
   * a job admission counted on that slot misses its deadline.
   */
  keepPromise?: boolean;
}

export function placementPort(
  name: string,
  args: Record<string, unknown>,
  cluster: ClusterSpec,
  options: PlacementPortOptions,
  registry: PolicyRegistry = simulatorRegistry(),
): PlacementPort {
  const needsProfile = registry.placementCapabilities(name).energyProfile;
  const ctx = needsProfile ? { energyProfile: energyProfileOf(cluster) } : {};
  // Policies with an energy profile take the GPU label from it; the others take it as an argument.
  const withLabel = needsProfile ? args : { gpuLabel: cluster.gpuLabel, ...args };
  const created = registry.createPlacement(name, withLabel, ctx) as PlacementPolicy<unknown>;
  const policy = options.keepPromise ? keepPromise(created, cluster.gpuLabel) : created;
  let state = policy.initialState();
  const caches = new AdapterCaches(options);
  // Per-job caches are arrays by the engine's job index (JobView.index), not maps by id: they
  // are read for every job in the queue on every heartbeat.
  const indexById = new Map<string, number>();
  const views: Array<PlacementJob | undefined> = [];
  const placementJob = (j: JobView): PlacementJob => {
    const indexed = j as Partial<IndexedJobView>;
    return typeof indexed.pendingMapsOn === 'function' && typeof indexed.pendingMapAt === 'function'
      ? new IndexedAdapterJob(j as IndexedJobView, caches)
      : new AdapterJob(j, caches);
  };
  return {
    name,
    jobAdded: () => undefined,
    jobRemoved(jobId) {
      const i = indexById.get(jobId);
      if (i === undefined) return;
      indexById.delete(jobId);
      caches.forget(i);
      views[i] = undefined;
    },
    assignMaps(node: NodeView, queue: readonly JobView[], now: number): MapAssignment[] {
      const jobs: PlacementJob[] = [];
      for (const j of queue) {
        if (pendingMapCount(j) === 0) continue;
        let pj = views[j.index];
        if (!pj) {
          views[j.index] = pj = placementJob(j);
          indexById.set(j.id, j.index);
        }
        jobs.push(pj);
      }
      if (jobs.length === 0) return [];
      caches.nodeId = node.id;
      caches.nodeIndex = node.index;
      const result = policy.onHeartbeat(state, {
        node: {
          nodeId: node.id,
          nodeClass: node.className,
          labels: node.labels,
          free: { cpu: node.freeCpu, gpu: node.freeGpu },
          capacity: { cpu: node.capacityCpu, gpu: node.capacityGpu },
        },
        jobs,
        nowMs: now * 1000,
      });
      state = result.state;
      const out = new Array<MapAssignment>(result.assignments.length);
      for (let k = 0; k < out.length; k++) {
        const a = result.assignments[k] as (typeof result.assignments)[number];
        const mapIndex = Number(a.taskId);
        caches.assigned(indexById.get(a.jobId) ?? -1, mapIndex);
        out[k] = { jobId: a.jobId, mapIndex, containerKind: a.containerKind };
      }
      return out;
    },
  };
}
