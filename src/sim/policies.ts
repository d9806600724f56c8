import {
  dcNextTask,
  dcReduceSlots,
  type DcDispatchJob,
  type DcOptions,
  type DcState,
} from '../core/admission/dc';
import {
  nextContainerTask,
  nextMapTask,
  nextReduceTask,
  type DispatchJobView,
} from '../core/admission/dispatch';
import type { AdmissionPolicy } from '../core/admission/types';
import { parseEnergyProfile, type EnergyProfile } from '../core/energy/profile';
import { bookOf, classOf, deadlineJobOf, withClass, type EstimateBook } from '../core/estimate-book';
import type { Estimates } from '../core/estimates';
import type { EstimateModel } from '../core/learning';
import { handlesOverruns, OverrunFeedback, type OverrunFeedbackOptions } from './overrun-feedback';
import type { DeadlineJob } from '../core/job';
import { defaultRegistry, type PolicyRegistry } from '../core/registry';
import type { IndexedPlacementJob } from '../core/placement/common';
import { admitInLanes, laneFinished, laneKindsFor, laneLeft, laneStarted, queueRanks } from '../core/lanes';
import { keepPromise } from '../core/placement/keep-promise';
import type { PlacementJob, PlacementPolicy, PendingTask } from '../core/placement/types';
import { usableMapSlots, type SlotModel } from '../core/slots/model';
import { ValidationError } from '../errors/validation';
import type { IndexedJobView } from './engine';
import { slotTotals, type ClusterSpec, type TraceJob } from './model';
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

/**
 * The slot model the admission core reasons about, from the cluster file. With `gpuMapLane`
 * (RTMR on mr1) the map slots that hold a GPU are a lane of their own (SlotModel.gpuMapSlots)
 * and `mapSlots` counts the others; without, every map slot is counted in `mapSlots`.
 */
export function coreSlotModel(cluster: ClusterSpec, gpuMapLane = false): SlotModel {
  const t = slotTotals(cluster);
  if (cluster.slotModel !== 'mr1') return { name: 'unified', containers: t.containers };
  const gpu = gpuMapLane ? gpuSlotsOf(cluster) : 0;
  return gpu > 0
    ? { name: 'mr1', mapSlots: t.map - gpu, reduceSlots: t.reduce, gpuMapSlots: gpu }
    : { name: 'mr1', mapSlots: t.map, reduceSlots: t.reduce };
}

/** GPU map slots (mr1) or GPU containers (unified) on the GPU-labelled nodes, cluster-wide. */
export function gpuSlotsOf(cluster: ClusterSpec): number {
  let gpu = 0;
  for (const c of cluster.nodeClasses)
    if (c.labels.includes(cluster.gpuLabel)) gpu += c.count * c.gpuContainers;
  return gpu;
}

/**
 * Why no slot of this cluster can ever run a job of this type (null when some can): its maps
 * need a CPU slot (a CPU job), a GPU slot (a GPU-only job) or either (adaptive), counted over
 * the map slots (mr1) or containers (unified); its reduces need a reduce slot (mr1). Such a job
 * is refused at submission by every policy: admitted, it would wait for ever.
 */
export function unrunnableReason(
  cluster: ClusterSpec,
  job: Pick<TraceJob, 'type' | 'reduces'>,
): string | null {
  const t = slotTotals(cluster);
  const gpu = gpuSlotsOf(cluster);
  const mr1 = cluster.slotModel === 'mr1';
  const cpu = (mr1 ? t.map : t.containers) - gpu;
  const where = mr1 ? 'map slot' : 'container';
  const usable = job.type === 'cpu' ? cpu : job.type === 'gpu' ? gpu : cpu + gpu;
  if (usable <= 0)
    return `no-usable-slots: no ${job.type === 'adaptive' ? '' : `${job.type} `}${where} in the cluster can run a ${job.type} job's maps`;
  if (mr1 && job.reduces > 0 && t.reduce <= 0) return 'no-usable-slots: no reduce slot in the cluster';
  return null;
}

/** A trace job's workload class: its `class` field when the trace gives one, else its type. */
export function traceClassOf(j: TraceJob): string {
  return classOf(j.type, j.workloadClass);
}

/**
 * Whose estimates judged a job, for its rejection reason: its class's own figures, or the
 * default's when the class has none (`class etl estimates`, `class etl, default estimates`).
 */
export function judgedBy(book: EstimateBook, cls: string): string {
  return Object.hasOwn(book.classes, cls) ? `class ${cls} estimates` : `class ${cls}, default estimates`;
}

/**
 * Worst-case estimates for admission (seed 000 IV.A: c_m^max, c_r^max, eta, plus the per-task
 * floor of docs/estimates.md), one set per workload class (traceClassOf), each taken over that
 * class's jobs on this cluster: the floor is the longest a task of no data can take anywhere it
 * may run (slowest class, top of the jitter range), and the cost per MB of the largest split
 * covers what the floor leaves of the longest a map can take (remote read, slowest class, top
 * of the jitter range), so floor + cost * split bounds every task of the class, a task of no
 * data included (the papers' cost per MB alone gave such a task 0 s). An operator would
 * configure these; deriving them from the model keeps the guarantee's premise (actual <= its
 * own class's estimate) true by construction. One heartbeat interval is added to each task: a
 * freed slot is only reused at its node's next heartbeat, so from the vectors' point of view a
 * task holds its slot for up to its run time plus one heartbeat. The default (for a class the
 * trace does not have) is the maximum over every job, the single cluster-wide set used before
 * there were classes. eta is the same for every class (the largest shuffle ratio): the reduce
 * estimate is f_r + c_r^max * eta * delta / R with c_r^max derived with that same eta, so eta
 * cancels out. `model` 'paper' derives the papers' figures: no floor, the cost per MB of the
 * largest split covers the whole task (a task of no data is then estimated at 0 s).
 */
export function worstCaseEstimates(
  jobs: readonly TraceJob[],
  worstMapSeconds: (j: TraceJob) => number,
  worstReduceSeconds: (j: TraceJob) => number,
  cluster: ClusterSpec,
  model: EstimateModel = 'floored',
): EstimateBook {
  const eta = Math.max(cluster.costs.cpu.shuffleRatio, cluster.costs.gpu.shuffleRatio, 1e-9);
  const hb = cluster.heartbeatSeconds;
  type Figures = { map: number; reduce: number; mapFloor: number; reduceFloor: number };
  const zero = (): Figures => ({ map: 0, reduce: 0, mapFloor: 0, reduceFloor: 0 });
  // The floors first: a job's task of no data, as long as it can take.
  const empty = (j: TraceJob): TraceJob => ({ ...j, inputBytes: 0, splits: null });
  const all = zero();
  const perClass = new Map<string, Figures>();
  const figuresOf = (j: TraceJob): Figures => {
    const cls = traceClassOf(j);
    let c = perClass.get(cls);
    if (!c) perClass.set(cls, (c = zero()));
    return c;
  };
  // The papers' model has no floor: the cost per MB covers the whole task.
  for (const j of model === 'paper' ? [] : jobs) {
    const c = figuresOf(j);
    const m = worstMapSeconds(empty(j)) + hb;
    c.mapFloor = Math.max(c.mapFloor, m);
    all.mapFloor = Math.max(all.mapFloor, m);
    if (j.reduces > 0) {
      const r = worstReduceSeconds(empty(j)) + hb;
      c.reduceFloor = Math.max(c.reduceFloor, r);
      all.reduceFloor = Math.max(all.reduceFloor, r);
    }
  }
  for (const j of jobs) {
    const c = figuresOf(j);
    const d = toDeadlineJob(j);
    const largest = d.mapSplits ? Math.max(...d.mapSplits) : d.inputSize / d.maps;
    // Per MB, what the floor does not cover: the class's and the default's floors differ.
    const perMb = (worst: number, floor: number, mb: number) => Math.max(0, worst - floor) / mb;
    if (largest > 0) {
      const w = worstMapSeconds(j) + hb;
      c.map = Math.max(c.map, perMb(w, c.mapFloor, largest));
      all.map = Math.max(all.map, perMb(w, all.mapFloor, largest));
    }
    const reduceInput = (eta * d.inputSize) / Math.max(1, j.reduces);
    if (reduceInput > 0 && j.reduces > 0) {
      const w = worstReduceSeconds(j) + hb;
      c.reduce = Math.max(c.reduce, perMb(w, c.reduceFloor, reduceInput));
      all.reduce = Math.max(all.reduce, perMb(w, all.reduceFloor, reduceInput));
    }
  }
  // Tiny relative margin so floating-point rounding never puts an actual above its estimate.
  const margin = 1 + 1e-9;
  const figures = (c: Figures): Estimates => ({
    eta,
    mapCostMax: c.map * margin,
    reduceCostMax: c.reduce * margin,
    ...(model === 'paper'
      ? {}
      : { mapTaskSeconds: c.mapFloor * margin, reduceTaskSeconds: c.reduceFloor * margin }),
  });
  return bookOf(figures(all), Object.fromEntries([...perClass].map(([cls, c]) => [cls, figures(c)])));
}

/** Trace job -> the core's J = (A, D, M, R, delta), sizes in MB; R = 0 is a map-only job. */
export function toDeadlineJob(j: TraceJob): DeadlineJob {
  return deadlineJobOf(
    {
      id: j.id,
      arrival: j.arrival,
      deadline: j.deadline,
      maps: j.maps,
      reduces: j.reduces,
      inputBytes: j.inputBytes,
      splitBytes: j.splits,
    },
    { inputSize: 'splits' },
  );
}

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
 * PendingTaskIndex, so the policies' heartbeat work (src/core/placement/common.ts,
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

/**
 * A job's pending map count. The engine's views count them without building the pendingMaps
 * array, which they build only when it is read after a change.
 */
export function pendingMapCount(v: JobView): number {
  const n = (v as Partial<IndexedJobView>).pendingMapCount;
  return n === undefined ? v.pendingMaps.length : n;
}

/**
 * Every job accepted, queue in arrival order: the runs that compare placement alone. Only a job
 * no slot of `cluster` can run is refused (unrunnableReason), as every policy refuses it.
 */
export function noAdmission(cluster?: ClusterSpec): AdmissionPort {
  return {
    name: 'none',
    promisesDeadlines: false,
    decide: (job) => {
      const why = cluster ? unrunnableReason(cluster, job) : null;
      return why === null ? { admit: true } : { admit: false, reason: why };
    },
    compare: (a, b) => a.spec.arrival - b.spec.arrival,
    jobStarted: () => undefined,
    jobFinished: () => undefined,
    jobKilled: () => undefined,
  };
}

/** One admission lane: a policy instance sized to its containers, with its own state. */
interface AdmissionLane {
  /** The kind of container the lane owns (null: the whole cluster, no lanes). */
  readonly kind: 'cpu' | 'gpu' | null;
  readonly policy: AdmissionPolicy<unknown>;
  /** The slots the lane's policy reasons about. */
  readonly model: SlotModel;
  state: unknown;
  /** Each admitted job's position in the lane's queue. */
  rank: Map<string, number>;
}

/**
 * The admission lanes of a unified cluster with GPU containers, for a policy with its own
 * dispatcher: the GPU containers and the other containers, each with its count. The live
 * sidecar admits per (queue, label partition) for the same reason (src/loop/sidecar.ts): a
 * GPU-only job can only run in GPU containers, so admitting it against the whole pool counts
 * containers it can never use. Null when there is one pool (mr1, or no GPU containers).
 */
export function containerLanesOf(
  cluster: ClusterSpec,
): Array<{ kind: 'cpu' | 'gpu'; containers: number }> | null {
  if (cluster.slotModel !== 'unified') return null;
  const gpu = gpuSlotsOf(cluster);
  const all = slotTotals(cluster).containers;
  if (gpu === 0) return null;
  return [
    { kind: 'cpu', containers: all - gpu },
    { kind: 'gpu', containers: gpu },
  ];
}

/**
 * The lanes a job may be admitted in, in the order tried: a CPU job in the CPU lane, a GPU-only
 * job in the GPU lane, an adaptive job first where one of its maps costs the least energy, then
 * in the other (as the live sidecar orders partitions; CPU first on a tie or without a power
 * model).
 */
export function lanesForJob(cluster: ClusterSpec, type: TraceJob['type']): Array<'cpu' | 'gpu'> {
  if (type !== 'adaptive') return laneKindsFor(type);
  let eCpu = Number.POSITIVE_INFINITY;
  let eGpu = Number.POSITIVE_INFINITY;
  for (const c of cluster.nodeClasses) {
    if (c.count === 0) continue;
    const slots = cluster.slotModel === 'mr1' ? c.mapSlots : c.containers;
    if (slots > c.gpuContainers) eCpu = Math.min(eCpu, c.taskEnergyKWh.gpuOnCpu);
    if (c.gpuContainers > 0 && c.labels.includes(cluster.gpuLabel))
      eGpu = Math.min(eGpu, c.taskEnergyKWh.gpu);
  }
  return laneKindsFor(type, eGpu < eCpu);
}

/**
 * The registry's admission policy `name` as the engine's port.
 *
 * Policies with their own dispatcher (RTMR's Alg. 5.4, DC's minimum-task assignment) run on a
 * unified cluster with GPU containers as two lanes (containerLanesOf), each an instance of the
 * policy sized to its containers: a job is admitted in one lane, and the engine runs all its
 * tasks, maps and reduces, in that lane's containers, so each lane is a cluster of its own and
 * RTMR's guarantee holds per lane. The other policies (yarn-greedy, fifo-all) have no
 * dispatcher that could keep a job in its lane, and admit against the whole pool.
 *
 * RTMR on mr1 with GPU map slots is one instance whose model has a GPU map lane
 * (coreSlotModel): a job is admitted with the map lane of its kind (an adaptive job tried in
 * each, lanesForJob), its maps run only in map slots of that kind, and every job's reduces
 * share the reduce slots. On mr1 RTMR's dispatcher also names the job for each free map slot
 * (Alg. 5.4 lines 4-5: the first job in queue order with a map left), and the placement
 * policy picks that job's task.
 *
 * A job no slot of the cluster can run (unrunnableReason) is refused by every policy, with
 * that reason, before the policy is asked.
 */
export function admissionPort(
  name: string,
  args: Record<string, unknown>,
  cluster: ClusterSpec,
  book: EstimateBook,
  registry: PolicyRegistry = simulatorRegistry(),
  /** Overrun handling (overrun-feedback.ts): how to learn, and each admitted job's progress. */
  overruns?: Pick<OverrunFeedbackOptions, 'learning' | 'heartbeatSeconds' | 'progressOf'>,
): AdmissionPort {
  // The policy's own figures are the default; every job carries its class's (withClass), which
  // every policy reads first (taskEstimates, dcCosts).
  const estimates = book.default;
  const caps = registry.admissionCapabilities(name);
  const minimumTasks = caps.dispatch === 'minimum-tasks';
  const reservation = caps.dispatch === 'reservation';
  const ownDispatch = caps.dispatch !== null;
  const laneSpecs = ownDispatch ? containerLanesOf(cluster) : null;
  /** RTMR on mr1: the dispatcher names the job for each map slot; GPU map slots a lane of their own. */
  const mr1Dispatch = reservation && cluster.slotModel === 'mr1';
  const mapLanes = mr1Dispatch && gpuSlotsOf(cluster) > 0;
  const makePolicy = (slotModel: SlotModel) =>
    registry.createAdmission(
      name,
      // DC (seed 001) takes unit costs of its own; it gets the same worst-case figures RTMR does.
      {
        ...(caps.args === 'unit-costs'
          ? {
              slotModel,
              filterRatio: estimates.eta,
              mapCost: estimates.mapCostMax,
              reduceCost: estimates.reduceCostMax,
              transferCost: 0,
            }
          : { slotModel, estimates }),
        ...args,
      },
    ) as AdmissionPolicy<unknown>;
  const lanes: AdmissionLane[] = (
    laneSpecs
      ? laneSpecs
          .filter((l) => l.containers > 0)
          .map((l) => ({ kind: l.kind, model: { name: 'unified', containers: l.containers } as SlotModel }))
      : [{ kind: null, model: coreSlotModel(cluster, mapLanes) }]
  ).map(({ kind, model }) => {
    const policy = makePolicy(model);
    return { kind, policy, model, state: policy.initialState(0), rank: new Map<string, number>() };
  });
  // Overrun handling (overrun-feedback.ts), for a policy with feedback and a snapshot rebuild.
  const feedback =
    overruns && lanes.every((l) => handlesOverruns(l.policy))
      ? new OverrunFeedback(lanes, { ...overruns, configured: book, classOf: traceClassOf })
      : null;
  const currentBook = (): EstimateBook => feedback?.estimates ?? book;
  const rerankAll = (): void => lanes.forEach((l) => rerank(l));
  const laneIndex = new Map(lanes.map((l, i) => [l.kind, i]));
  /** Each admitted job's lane (index into lanes). */
  const laneOf = new Map<string, number>();
  /** With map lanes (mr1, GPU map slots): the kind of map slot each admitted job's maps run in. */
  const mapKindOf = new Map<string, 'cpu' | 'gpu'>();
  const mapModel = coreSlotModel(cluster, mapLanes);
  const rerank = (lane: AdmissionLane) => {
    lane.rank = queueRanks(lane);
  };
  const toDispatchView = (v: JobView): DispatchJobView => ({
    id: v.id,
    pendingMaps: pendingMapCount(v),
    runningMaps: v.runningMaps,
    pendingReduces: v.pendingReduces,
  });
  /** Where a job may be admitted, in the order tried: a lane, and with map lanes a kind of map slot. */
  const candidateLanes = (job: TraceJob): Array<{ lane: number; mapKind?: 'cpu' | 'gpu' }> => {
    if (mapLanes)
      return lanesForJob(cluster, job.type)
        .filter((k) => usableMapSlots(mapModel, k) > 0)
        .map((k) => ({ lane: 0, mapKind: k }));
    if (!laneSpecs) return [{ lane: 0 }];
    const out: Array<{ lane: number }> = [];
    for (const k of lanesForJob(cluster, job.type)) {
      const i = laneIndex.get(k);
      if (i !== undefined) out.push({ lane: i });
    }
    return out;
  };
  /** The lanes a call about `jobId` concerns: its own, or every lane for a job never admitted. */
  const lanesOfJob = (jobId: string): AdmissionLane[] => {
    const i = laneOf.get(jobId);
    return i === undefined ? lanes : [lanes[i] as AdmissionLane];
  };
  // DC's minimum task counts per admitted job (seed 001 III.B): n_m^min from its plan at
  // admission, n_r^min once its maps are done (dcReduceSlots).
  const dcJobs = new Map<string, { job: DeadlineJob; mapSlots: number; reduceSlots: number | null }>();
  const port: AdmissionPort = {
    name,
    promisesDeadlines: caps.promisesDeadlines,
    decide(job, now) {
      if (job.deadline === null && caps.promisesDeadlines) return { admit: false, reason: 'no deadline' };
      const unrunnable = unrunnableReason(cluster, job);
      if (unrunnable !== null) return { admit: false, reason: unrunnable };
      const tried = candidateLanes(job);
      if (tried.length === 0) return { admit: false, reason: `no ${job.type} containers to admit it in` };
      if (feedback) {
        feedback.beforeDecision(now);
        rerankAll();
      }
      const book = currentBook();
      const cls = traceClassOf(job);
      const tries = tried.map(({ lane: i, mapKind }) => ({
        lane: lanes[i] as AdmissionLane,
        index: i,
        mapKind,
        job: {
          ...withClass(toDeadlineJob(job), cls, book),
          ...(mapKind === undefined ? {} : { lane: mapKind }),
        },
      }));
      let firstReason: string | null = null;
      let admitted;
      try {
        admitted = admitInLanes(tries, now, { searchEarliest: false }, ({ lane, mapKind, result }) => {
          lane.state = result.state;
          if (result.admitted) return;
          const r = result.reason;
          const laneName = lane.kind ?? (mapKind === undefined ? null : `${mapKind} map`);
          firstReason ??= `${laneName ? `${laneName} lane: ` : ''}${r.kind}: ${r.jobId}${r.lateBySeconds !== null ? ` late by ${r.lateBySeconds.toFixed(1)} s` : ''} (${judgedBy(book, cls)})`;
        }).admitted;
      } catch (e) {
        if (e instanceof ValidationError)
          return { admit: false, reason: `invalid for admission: ${e.message}` };
        throw e;
      }
      if (admitted && admitted.result.admitted) {
        const { lane, index, mapKind, job: dj, result } = admitted;
        lane.state = result.state;
        laneOf.set(job.id, index);
        if (mapKind !== undefined) mapKindOf.set(job.id, mapKind);
        rerank(lane);
        if (minimumTasks) {
          const entry = (lane.state as DcState).entries.find((e) => e.job.id === job.id);
          // Never below 1: a job with no input would otherwise never get a slot.
          dcJobs.set(job.id, { job: dj, mapSlots: Math.max(1, entry?.mapSlots ?? 1), reduceSlots: null });
        }
        return { admit: true, estimatedFinish: result.estimatedFinish };
      }
      return { admit: false, reason: firstReason ?? 'not admitted' };
    },
    // Queue position within the job's lane; jobs of different lanes never compete for a
    // container, so across lanes the order only has to be total: position, then lane.
    compare: (a, b) => {
      const la = laneOf.get(a.id);
      const lb = laneOf.get(b.id);
      const ra =
        la === undefined ? Number.MAX_SAFE_INTEGER : (lanes[la]?.rank.get(a.id) ?? Number.MAX_SAFE_INTEGER);
      const rb =
        lb === undefined ? Number.MAX_SAFE_INTEGER : (lanes[lb]?.rank.get(b.id) ?? Number.MAX_SAFE_INTEGER);
      return ra - rb || (la ?? 0) - (lb ?? 0);
    },
    jobStarted(jobId) {
      for (const lane of lanesOfJob(jobId)) laneStarted(lane, jobId);
    },
    jobFinished(record, now) {
      for (const lane of lanesOfJob(record.job.id)) {
        const actuals = {
          mapFinishTimes: record.mapFinishes,
          reduceFinishTimes: record.reduceFinishes,
          finishedAt: record.finish,
        };
        laneFinished(lane, record.job.id, actuals, now);
        rerank(lane);
      }
      if (feedback) {
        feedback.finished(record, now);
        rerankAll();
      }
      laneOf.delete(record.job.id);
      mapKindOf.delete(record.job.id);
      dcJobs.delete(record.job.id);
    },
    jobKilled(jobId, now) {
      for (const lane of lanesOfJob(jobId)) {
        laneLeft(lane, jobId, now);
        rerank(lane);
      }
      laneOf.delete(jobId);
      mapKindOf.delete(jobId);
      dcJobs.delete(jobId);
    },
  };
  /** The queue's jobs in the lane of `container` (every job without lanes). */
  const inLane = (queue: readonly JobView[], container: 'cpu' | 'gpu' | undefined): readonly JobView[] => {
    if (mapLanes && container !== undefined) return queue.filter((v) => mapKindOf.get(v.id) === container);
    if (!laneSpecs || container === undefined) return queue;
    const i = laneIndex.get(container);
    return queue.filter((v) => laneOf.get(v.id) === i);
  };
  if (laneSpecs || mapLanes) port.containerLanes = true;
  if (reservation) {
    if (mr1Dispatch) port.dispatchesMapSlots = true;
    port.dispatch = (lane, queue, free, _now, container) => {
      const views = inLane(queue, container).map(toDispatchView);
      if (lane === 'reduce') return nextReduceTask(views, free);
      return lane === 'map' ? nextMapTask(views) : nextContainerTask(views, free);
    };
  } else if (minimumTasks) {
    port.dispatchesMapSlots = true;
    // The unit costs DC was built with (the same in every lane; only the slot model differs).
    const dcOptions = (lanes[0]?.policy as unknown as { options: DcOptions }).options;
    const toDcView = (v: JobView, now: number): DcDispatchJob => {
      const d = dcJobs.get(v.id);
      let reduceSlots = v.pendingReduces + v.runningReduces;
      if (d && v.mapsDone) {
        // n_r^min is computed when the scheduler first sees the map stage done (seed 001 III.A).
        d.reduceSlots ??= dcReduceSlots(dcOptions, d.job, now);
        reduceSlots = d.reduceSlots;
      }
      return {
        id: v.id,
        pendingMaps: pendingMapCount(v),
        runningMaps: v.runningMaps,
        pendingReduces: v.pendingReduces,
        runningReduces: v.runningReduces,
        mapsDone: v.mapsDone,
        mapSlots: d?.mapSlots ?? v.spec.maps,
        reduceSlots,
      };
    };
    port.dispatch = (lane, queue, _free, now, container) =>
      dcNextTask(
        lane,
        inLane(queue, container).map((v) => toDcView(v, now)),
      );
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
  /**
   * True when a job's order key never changes (arrival order): it is then read once per job
   * instead of on every comparison of every heartbeat's FIFO order check.
   */
  orderKeyFixed?: boolean;
  /**
   * Under an admission policy with its own dispatcher (it names the job for each free slot):
   * the slot is used whenever that job has a task for it, the policy choosing which task
   * (src/core/placement/keep-promise.ts). Without it a locality rule may leave the slot idle
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
