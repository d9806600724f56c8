import { nextContainerTask, nextReduceTask, type DispatchJobView } from '../core/admission/dispatch';
import type { AdmissionPolicy } from '../core/admission/types';
import { parseEnergyProfile, type EnergyProfile } from '../core/energy/profile';
import type { Estimates } from '../core/estimates';
import type { DeadlineJob } from '../core/job';
import { defaultRegistry, type PolicyRegistry } from '../core/registry';
import type { IndexedPlacementJob, PendingTaskIndex } from '../core/placement/common';
import type { PlacementJob, PlacementPolicy, PendingTask } from '../core/placement/types';
import type { SlotModel } from '../core/slots/model';
import { ValidationError } from '../errors/validation';
import type { IndexedJobView } from './engine';
import { MB, slotTotals, type ClusterSpec, type TraceJob } from './model';
import type { AdmissionPort, JobView, MapAssignment, NodeView, PlacementPort } from './policy-port';

/**
 * Adapters from the registry's pure policies (src/core) to the engine's ports. The policies
 * stay pure values with explicit state; the adapter holds the current state and threads it
 * through every call. Nothing here decides anything a policy decides.
 */

/** The registry the simulator runs with: the shared one, every policy by name. */
export function simulatorRegistry(): PolicyRegistry {
  return defaultRegistry();
}

/** One run's policies: admission (or none) and placement, each with its arguments. */
export interface PolicySpec {
  /** The label in summary.json and the plots. */
  label: string;
  admission: string | null;
  admissionArgs?: Record<string, unknown>;
  placement: string;
  placementArgs?: Record<string, unknown>;
}

/** Admission policies that bring their own dispatcher (Alg. 5.4). */
const RESERVATION_DISPATCH = new Set(['rtmr', 'rtmr-no-feedback', 'rtmr-fifo']);

/**
 * Parses `--policies` items: `ADMISSION`, `PLACEMENT`, or `ADMISSION+PLACEMENT`, each name
 * optionally followed by `:key=value,...` arguments for that policy, e.g.
 * `rtmr+fifo`, `delay:maxDelayMs=4500`, `fifo-all+efh`. A lone admission name runs with
 * `fifo` placement; a lone placement name runs without admission (every job accepted).
 */
export function parsePolicyList(text: string, registry: PolicyRegistry = simulatorRegistry()): PolicySpec[] {
  const items = text
    .split(/[;\s]+|,(?![^:]*=)/)
    .map((s) => s.trim())
    .filter(Boolean);
  const issues: Array<{ path: string; message: string }> = [];
  const specs: PolicySpec[] = [];
  items.forEach((item, i) => {
    const parts = item.split('+');
    let admission: string | null = null;
    let admissionArgs: Record<string, unknown> = {};
    let placement = 'fifo';
    let placementArgs: Record<string, unknown> = {};
    for (const part of parts) {
      const [name, argText] = splitArgs(part);
      if (name in registry.admission) {
        admission = name;
        admissionArgs = argText;
      } else if (name in registry.placement) {
        placement = name;
        placementArgs = argText;
      } else {
        issues.push({
          path: `policies[${i}]`,
          message: `unknown policy "${name}"; admission: ${registry.names('admission').join(', ') || '(none registered)'}; placement: ${registry.names('placement').join(', ')}`,
        });
      }
    }
    specs.push({ label: item, admission, admissionArgs, placement, placementArgs });
  });
  if (issues.length) throw new ValidationError(issues);
  return specs;
}

function splitArgs(part: string): [string, Record<string, unknown>] {
  const idx = part.indexOf(':');
  if (idx < 0) return [part, {}];
  const args: Record<string, unknown> = {};
  for (const kv of part.slice(idx + 1).split(',')) {
    const [k, v] = kv.split('=');
    if (!k || v === undefined) continue;
    const n = Number(v);
    args[k] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(n) && v.trim() !== '' ? n : v;
  }
  return [part.slice(0, idx), args];
}

/** The slot model the admission core reasons about, from the cluster file. */
export function coreSlotModel(cluster: ClusterSpec): SlotModel {
  const t = slotTotals(cluster);
  return cluster.slotModel === 'mr1'
    ? { name: 'mr1', mapSlots: t.map, reduceSlots: t.reduce }
    : { name: 'unified', containers: t.containers };
}

/**
 * Worst-case unit costs for the admission estimates (seed 000 IV.A: c_m^max, c_r^max, eta),
 * taken over the jobs of the trace on this cluster: per MB of the largest split, the longest
 * a map can take anywhere it may run (remote read, slowest class, top of the jitter range).
 * An operator would configure these; deriving them from the model keeps the guarantee's
 * premise (actual <= estimate) true by construction. One heartbeat interval is added to each
 * task: a freed slot is only reused at its node's next heartbeat, so from the vectors' point of
 * view a task holds its slot for up to its run time plus one heartbeat.
 */
export function worstCaseEstimates(
  jobs: readonly TraceJob[],
  worstMapSeconds: (j: TraceJob) => number,
  worstReduceSeconds: (j: TraceJob) => number,
  cluster: ClusterSpec,
): Estimates {
  const eta = Math.max(cluster.costs.cpu.shuffleRatio, cluster.costs.gpu.shuffleRatio, 1e-9);
  let mapCostMax = 0;
  let reduceCostMax = 0;
  for (const j of jobs) {
    const d = toDeadlineJob(j, 1);
    const largest = d.mapSplits ? Math.max(...d.mapSplits) : d.inputSize / d.maps;
    if (largest > 0)
      mapCostMax = Math.max(mapCostMax, (worstMapSeconds(j) + cluster.heartbeatSeconds) / largest);
    const reduceInput = (eta * d.inputSize) / Math.max(1, j.reduces);
    if (reduceInput > 0 && j.reduces > 0) {
      reduceCostMax = Math.max(
        reduceCostMax,
        (worstReduceSeconds(j) + cluster.heartbeatSeconds) / reduceInput,
      );
    }
  }
  // Tiny relative margin so floating-point rounding never puts an actual above its estimate.
  return { eta, mapCostMax: mapCostMax * (1 + 1e-9), reduceCostMax: reduceCostMax * (1 + 1e-9) };
}

/** Trace job -> the core's J = (A, D, M, R, delta), sizes in MB. */
export function toDeadlineJob(j: TraceJob, minReduces = 1): DeadlineJob {
  const splits = j.splits ? j.splits.map((b) => b / MB) : undefined;
  return {
    id: j.id,
    arrival: j.arrival,
    deadline: j.deadline ?? 1e12,
    maps: j.maps,
    reduces: Math.max(minReduces, j.reduces),
    inputSize: splits ? splits.reduce((a, b) => a + b, 0) : j.inputBytes / MB,
    ...(splits ? { mapSplits: splits } : {}),
  };
}

/** Every job accepted, queue in arrival order: the runs that compare placement alone. */
export function noAdmission(): AdmissionPort {
  return {
    name: 'none',
    promisesDeadlines: false,
    decide: () => ({ admit: true }),
    compare: (a, b) => a.spec.arrival - b.spec.arrival,
    jobStarted: () => undefined,
    jobFinished: () => undefined,
    jobKilled: () => undefined,
  };
}

export function admissionPort(
  name: string,
  args: Record<string, unknown>,
  cluster: ClusterSpec,
  estimates: Estimates,
  registry: PolicyRegistry = simulatorRegistry(),
): AdmissionPort {
  // DC (seed 001) takes unit costs of its own; it gets the same worst-case figures RTMR does.
  const base =
    name === 'dc'
      ? {
          slotModel: coreSlotModel(cluster),
          filterRatio: estimates.eta,
          mapCost: estimates.mapCostMax,
          reduceCost: estimates.reduceCostMax,
          transferCost: 0,
        }
      : { slotModel: coreSlotModel(cluster), estimates };
  const policy = registry.createAdmission(name, { ...base, ...args }) as AdmissionPolicy<unknown>;
  let state = policy.initialState(0);
  let rank = new Map<string, number>();
  const rerank = () => {
    rank = new Map(policy.queue(state).map((j, i) => [j.id, i]));
  };
  const toDispatchView = (v: JobView): DispatchJobView => ({
    id: v.id,
    pendingMaps: v.pendingMaps.length,
    runningMaps: v.runningMaps,
    pendingReduces: v.pendingReduces,
  });
  const port: AdmissionPort = {
    name,
    promisesDeadlines: name !== 'fifo-all',
    decide(job, now) {
      if (job.deadline === null && name !== 'fifo-all') return { admit: false, reason: 'no deadline' };
      let result;
      try {
        result = policy.admit(state, toDeadlineJob(job), now, { searchEarliest: false });
      } catch (e) {
        if (e instanceof ValidationError)
          return { admit: false, reason: `invalid for admission: ${e.message}` };
        throw e;
      }
      state = result.state;
      if (!result.admitted) {
        const r = result.reason;
        return {
          admit: false,
          reason: `${r.kind}: ${r.jobId}${r.lateBySeconds !== null ? ` late by ${r.lateBySeconds.toFixed(1)} s` : ''}`,
        };
      }
      rerank();
      return { admit: true, estimatedFinish: result.estimatedFinish };
    },
    compare: (a, b) =>
      (rank.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.id) ?? Number.MAX_SAFE_INTEGER),
    jobStarted(jobId) {
      state = policy.markStarted(state, jobId);
    },
    jobFinished(record, now) {
      state = policy.complete(
        state,
        record.job.id,
        {
          mapFinishTimes: record.mapFinishes,
          reduceFinishTimes: record.reduceFinishes,
          finishedAt: record.finish,
        },
        now,
      );
      rerank();
    },
    jobKilled(jobId, now) {
      state = policy.leave(state, jobId, now);
      rerank();
    },
  };
  if (RESERVATION_DISPATCH.has(name)) {
    port.dispatch = (lane, queue, free) =>
      lane === 'reduce'
        ? nextReduceTask(queue.map(toDispatchView), free)
        : nextContainerTask(queue.map(toDispatchView), free);
  }
  return port;
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
}

export function placementPort(
  name: string,
  args: Record<string, unknown>,
  cluster: ClusterSpec,
  options: PlacementPortOptions,
  registry: PolicyRegistry = simulatorRegistry(),
): PlacementPort {
  const needsProfile = name === 'efh' || name === 'efh-no-ae' || name === 'ideal-energy';
  const ctx = needsProfile ? { energyProfile: energyProfileOf(cluster) } : {};
  // Policies with an energy profile take the GPU label from it; the others take it as an argument.
  const withLabel = needsProfile ? args : { gpuLabel: cluster.gpuLabel, ...args };
  const policy = registry.createPlacement(name, withLabel, ctx) as PlacementPolicy<unknown>;
  let state = policy.initialState();
  // Per job: one PendingTask object per map, built the first time a policy looks at it, so a
  // task's id string and replica list are made once per run, not once per heartbeat.
  const tasks = new Map<string, Array<PendingTask | undefined>>();
  const taskOf = (j: JobView, i: number): PendingTask => {
    let byIndex = tasks.get(j.id);
    if (!byIndex) tasks.set(j.id, (byIndex = new Array<PendingTask | undefined>(j.spec.maps)));
    let t = byIndex[i];
    if (!t) byIndex[i] = t = { taskId: String(i), replicaNodes: j.mapReplicas(i).map(options.nodeId) };
    return t;
  };
  // The full pending list, for policies that read it whole (EFH, ASRPT's workload): rebuilt
  // only when the job's pendingMaps changed, and only when read (pendingTasks is a getter).
  const lists = new Map<string, { version: number; pending: PendingTask[] }>();
  const pendingTasks = (j: JobView): PendingTask[] => {
    const c = lists.get(j.id);
    if (c && c.version === j.version) return c.pending;
    const pending = j.pendingMaps.map((i) => taskOf(j, i));
    lists.set(j.id, { version: j.version, pending });
    return pending;
  };
  // Node ids of the nodes that have heartbeated, to the engine's node index (the index the
  // engine's per-node lists of pending maps are keyed by).
  const nodeIndex = new Map<string, number>();
  const NO_TASKS: readonly PendingTask[] = Object.freeze([]);
  // One live PlacementJob per job: its fields are getters over the engine's state. With the
  // engine's index of pending maps by replica node it also carries PendingTaskIndex, so the
  // policies' heartbeat work (src/core/placement/common.ts, HeartbeatTally) looks only at the
  // tasks local to the heartbeating node instead of walking every pending task.
  const views = new Map<string, PlacementJob>();
  const placementJob = (j: JobView): PlacementJob => {
    const base: PlacementJob = {
      jobId: j.id,
      get arrivalMs() {
        return options.orderKeyMs(j);
      },
      kind: j.spec.type,
      get pendingTasks() {
        return pendingTasks(j);
      },
      get runningTasks() {
        return j.runningMaps + j.runningReduces;
      },
      user: j.spec.user,
      totalTasks: j.spec.maps,
    };
    const indexed = j as Partial<IndexedJobView>;
    if (typeof indexed.pendingMapsOn !== 'function') return base;
    const pendingMapsOn = indexed.pendingMapsOn.bind(j);
    const index: PendingTaskIndex = {
      get pendingCount() {
        return j.pendingMaps.length;
      },
      pendingTaskAt: (i) => taskOf(j, j.pendingMaps[i] as number),
      pendingLocalTo(nodeId) {
        const n = nodeIndex.get(nodeId);
        if (n === undefined) return pendingTasks(j).filter((t) => t.replicaNodes.includes(nodeId));
        const maps = pendingMapsOn(n);
        if (maps.length === 0) return NO_TASKS;
        const out = new Array<PendingTask>(maps.length);
        for (let k = 0; k < maps.length; k++) out[k] = taskOf(j, maps[k] as number);
        return out;
      },
    };
    return Object.defineProperties(base, Object.getOwnPropertyDescriptors(index)) as IndexedPlacementJob;
  };
  return {
    name,
    jobAdded: () => undefined,
    jobRemoved(jobId) {
      tasks.delete(jobId);
      lists.delete(jobId);
      views.delete(jobId);
    },
    assignMaps(node: NodeView, queue: readonly JobView[], now: number): MapAssignment[] {
      const jobs: PlacementJob[] = [];
      for (const j of queue) {
        if (j.pendingMaps.length === 0) continue;
        let pj = views.get(j.id);
        if (!pj) views.set(j.id, (pj = placementJob(j)));
        jobs.push(pj);
      }
      if (jobs.length === 0) return [];
      nodeIndex.set(node.id, node.index);
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
      return result.assignments.map((a) => ({
        jobId: a.jobId,
        mapIndex: Number(a.taskId),
        containerKind: a.containerKind,
      }));
    },
  };
}
