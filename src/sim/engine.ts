import { classOf } from '../core/estimate-book';
import { CodeQueue } from './event-queue';
import { MB, slotTotals, type ClusterSpec, type NodeClassSpec, type RunKind, type TraceJob } from './model';
import type {
  AdmissionPort,
  ContainerAssignment,
  FinishedJobRecord,
  JobView,
  MapAssignment,
  NodeView,
  PlacementPort,
  RunContext,
} from './policy-port';
import { mulberry32, type Rng } from './rng';
import { TASK_COMPLETED, TASK_GPU, TASK_LOCAL, TASK_MAP, TaskLog, type EndedTasks } from './task-log';
import { SimulationStalledError } from '../errors/simulation-stalled';

/**
 * The discrete-event cluster engine. Virtual time only; randomness only from the seed.
 *
 * Steppable, so the emulated ResourceManager can drive it in scaled real time:
 * `submit` a job, `advanceTo(t)`, change a job's priority or queue, `kill` it, read
 * `snapshot()`. `run()` simply advances until nothing is left to happen.
 *
 * The model (docs/simulator.md, "Model"):
 * - Nodes heartbeat every `heartbeatSeconds`, each at its own seeded phase. On a heartbeat
 *   the placement policy fills free map slots; ready reduces take free reduce slots in
 *   queue order, subject to the admission policy's reduce rule (Alg. 5.4 for RTMR).
 * - A map task's time is (fixed + perMB * split) / speed, times (1 + remoteReadPenalty)
 *   when no replica of its block is on the node, times a seeded jitter factor.
 * - Reduces start only after all maps of their job have finished (seed 000, assumption 3).
 * - A node that heartbeats with nothing to do parks until something changes (a job
 *   arrives, one of its tasks ends); it resumes on its own heartbeat phase. This is
 *   exactly equivalent to heartbeating idly and is what makes large traces fast.
 */

type TaskKind = 'map' | 'reduce';

/**
 * An event is one number on the agenda: subject * EV_KINDS + kind, the subject being a job
 * index (arrive), a node index (heartbeat, fail, repair) or a task-log row (taskEnd), whose
 * row holds the rest (node, job, task, start). No object is made per event.
 */
const EV_ARRIVE = 0;
const EV_HEARTBEAT = 1;
const EV_TASK_END = 2;
const EV_FAIL = 3;
const EV_REPAIR = 4;
const EV_KINDS = 8;

/** Marks a map index that is not in its job's pending list (pendingPrev). */
const NOT_PENDING = -2;

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

const NO_MAPS: readonly number[] = Object.freeze([]);

export type JobStatus = 'waiting' | 'rejected' | 'admitted' | 'running' | 'finished' | 'killed';

export type ContainerKind = 'cpu' | 'gpu';

interface NodeRt {
  index: number;
  id: string;
  cls: NodeClassSpec;
  freeMap: number;
  freeReduce: number;
  /** unified: one pool of containers for maps and reduces. */
  freeShared: number;
  /** Free GPU containers, a subset of freeMap (mr1) or freeShared (unified). */
  freeGpu: number;
  alive: boolean;
  phase: number;
  parked: boolean;
  /** Task-log rows of the attempts running here, in the order they started (a few slots' worth). */
  running: number[];
}

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

interface JobRt {
  index: number;
  spec: TraceJob;
  status: JobStatus;
  absDeadline: number | null;
  admittedAt: number;
  priority: number;
  queue: string;
  reason: string | null;
  estimatedFinish: number | null;
  /**
   * The pending map tasks, in order, as a doubly linked list over map indices: a map leaves
   * the middle (a local pick) in O(1) where an array's indexOf + splice cost the job's whole
   * pending count, on every assignment. Lost maps rejoin at the tail. pendingPrev[i] is
   * NOT_PENDING for a map that is not in the list.
   */
  pendingNext: Int32Array;
  pendingPrev: Int32Array;
  pendingHead: number;
  pendingTail: number;
  pendingCount: number;
  /** The list as an array (JobView.pendingMaps), built when read, dropped when the list changes. */
  pendingArray: number[] | null;
  /** pendingMapAt's place in the list: (position, map) of its last answer, valid until the list changes. */
  cursorPos: number;
  cursorMap: number;
  /**
   * Pending map tasks indexed by replica node: node index -> the maps with a replica of their
   * block on that node, in pending order. A map that starts is not removed at once: the list
   * drops it the next time it is read (pendingMapsOn), so each entry is removed once, for O(1)
   * per start. Built when the job is admitted, dropped when it leaves.
   */
  localPending: Array<number[] | undefined> | null;
  runningMaps: number;
  finishedMaps: number;
  pendingReduces: number;
  /** Reduce indices whose attempt was lost with a failed node, to run again. */
  lostReduces: number[];
  runningReduces: number;
  finishedReduces: number;
  /** The trace's block ids, or null when they are the generated `${id}/blk_${i}`. */
  blocks: readonly string[] | null;
  /** Replica nodes of map i's block: replicas[i * replication .. (i + 1) * replication). */
  replicas: Int32Array;
  splitBytes: number[];
  mapStarts: Float64Array;
  mapFinishes: Float64Array;
  reduceStarts: number[];
  reduceFinishes: number[];
  /** Completed map tasks that read a local replica (JobOutcome.localMaps). */
  localMapsDone: number;
  started: boolean;
  finish: number | null;
  slotSeconds: number;
  version: number;
  rank: number;
  view: JobView;
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

export class Engine {
  readonly cluster: ClusterSpec;
  readonly context: RunContext;
  private readonly queue = new CodeQueue();
  private readonly nodes: NodeRt[] = [];
  private readonly jobs: JobRt[] = [];
  private readonly jobIndex = new Map<string, number>();
  /**
   * Replicas of the blocks with a name of their own: the cluster's blocks and those a trace
   * names. A job without block ids keeps its generated blocks' replicas in its own array
   * (JobRt.replicas) instead: millions of `${id}/blk_${i}` keys were a large share of a big
   * run's memory and time. explicitJobPrefixes holds X for every named block "X/blk_N", so a
   * job X's generated block still finds a replica set a trace named before (and the reverse is
   * found through jobIndex), exactly as one shared table would.
   */
  private readonly blockReplicas = new Map<string, number[]>();
  private readonly explicitJobPrefixes = new Set<string>();
  /** Replicas per block: min(hdfs.replication, nodes), the same for every block. */
  private readonly replication: number;
  private readonly admission: AdmissionPort;
  private readonly placement: PlacementPort;
  private readonly rngJitter: Rng;
  private readonly rngBlocks: Rng;
  private readonly rngFail: Rng;
  private readonly onProgress: EngineOptions['onProgress'];
  private readonly log = new TaskLog();
  /** TaskRecord objects of the first records.length ended attempts, made when asked for. */
  private readonly records: TaskRecord[] = [];
  private active: JobRt[] = [];
  private activeViews: JobView[] = [];
  private orderDirty = false;
  /** The active jobs with pending maps, in dispatch order: what the placement port is shown. */
  private mapQueueViews: JobView[] = [];
  private mapQueueDirty = true;
  /** Map tasks waiting in all active jobs, and reduces ready (their job's maps done) but not started. */
  private pendingMapTotal = 0;
  private readyReduceTotal = 0;
  private settled = 0;
  private eventsProcessed = 0;
  /** Attempts running now, over every node. */
  private runningTotal = 0;
  /** Last simulated second a job arrived, a task started or ended, or a node came back. */
  private lastActivity = 0;
  private readonly stallSeconds: number;
  private _now = 0;

  constructor(cluster: ClusterSpec, options: EngineOptions) {
    this.cluster = cluster;
    this.admission = options.admission;
    this.placement = options.placement;
    this.onProgress = options.onProgress;
    this.stallSeconds = options.stallSeconds ?? Math.max(3600, 100 * cluster.heartbeatSeconds);
    const root = mulberry32(options.seed);
    const rngPhase = root.fork('heartbeat-phase');
    this.rngJitter = root.fork('task-jitter');
    this.rngBlocks = root.fork('block-placement');
    this.rngFail = root.fork('failures');
    const unified = cluster.slotModel === 'unified';
    let nodeCount = 0;
    for (const cls of cluster.nodeClasses) nodeCount += cls.count;
    this.replication = Math.min(cluster.hdfs.replication, nodeCount);
    for (const cls of cluster.nodeClasses) {
      for (let i = 0; i < cls.count; i++) {
        const index = this.nodes.length;
        this.nodes.push({
          index,
          id: `${cls.name}-${i + 1}`,
          cls,
          freeMap: unified ? 0 : cls.mapSlots,
          freeReduce: unified ? 0 : cls.reduceSlots,
          freeShared: unified ? cls.containers : 0,
          freeGpu: cls.gpuContainers,
          alive: true,
          phase: rngPhase.uniform(0, cluster.heartbeatSeconds),
          parked: true,
          running: [],
        });
      }
    }
    this.placeClusterBlocks();
    if (cluster.failures) {
      for (const n of this.nodes)
        this.queue.push(
          this.rngFail.exponential(cluster.failures.meanTimeBetweenSeconds),
          n.index * EV_KINDS + EV_FAIL,
        );
    }
    this.context = {
      cluster,
      worstMapSeconds: (job) => this.worstMapSeconds(job),
      worstReduceSeconds: (job) => this.worstReduceSeconds(job),
    };
  }

  get now(): number {
    return this._now;
  }

  get events(): number {
    return this.eventsProcessed;
  }

  /** Jobs submitted so far (outcomes() lists them all). */
  get jobCount(): number {
    return this.jobs.length;
  }

  get nodeCount(): number {
    return this.nodes.length;
  }

  /** Node ids by index (the index policies receive). */
  nodeId(index: number): string {
    return (this.nodes[index] as NodeRt).id;
  }

  /** Whether node `index` is up (not failed). */
  nodeAlive(index: number): boolean {
    return (this.nodes[index] as NodeRt).alive;
  }

  /** Replicas of a block, by node index. */
  replicasOf(blockId: string): readonly number[] {
    const named = this.blockReplicas.get(blockId);
    if (named) return named;
    const g = this.generatedBlock(blockId);
    return g ? replicasAt(g.job, g.index, this.replication) : [];
  }

  /**
   * Places a named block on the given nodes (distinct node indices, 1 to the replication
   * factor of them), as HDFS placed a file's block before any job reads it: a job that names
   * the block then reads it from exactly these nodes. A block with fewer replicas than the
   * replication factor (a file kept to a partition smaller than it) leaves the rest of its
   * replica row empty (NO_NODE). Refused for a block already placed (named before, or a
   * submitted job's generated block) and for a bad node index. Draws nothing from the block
   * stream, so a run that never calls it is unchanged.
   */
  placeBlock(blockId: string, nodes: readonly number[]): void {
    if (this.blockReplicas.has(blockId) || this.generatedBlock(blockId))
      throw new RangeError(`block ${blockId} is already placed`);
    if (nodes.length === 0 || nodes.length > this.replication)
      throw new RangeError(
        `block ${blockId}: ${nodes.length} replicas; between 1 and ${this.replication} expected`,
      );
    const seen = new Set<number>();
    for (const n of nodes) {
      if (!Number.isInteger(n) || n < 0 || n >= this.nodes.length)
        throw new RangeError(`block ${blockId}: no node with index ${n}`);
      if (seen.has(n)) throw new RangeError(`block ${blockId}: node ${n} holds two replicas`);
      seen.add(n);
    }
    this.blockReplicas.set(blockId, [...nodes]);
    const at = blockId.lastIndexOf('/blk_');
    if (at >= 0) this.explicitJobPrefixes.add(blockId.slice(0, at));
  }

  // ---------------------------------------------------------------- public controls

  /** Add a job; it arrives at max(job.arrival, now). */
  submit(spec: TraceJob): void {
    if (this.jobIndex.has(spec.id)) throw new RangeError(`job ${spec.id} was already submitted`);
    const index = this.jobs.length;
    const splitBytes = spec.splits ?? evenSplits(spec.inputBytes, spec.maps);
    const blocks = spec.blocks ?? null;
    const k = this.replication;
    const nBlocks = blocks ? blocks.length : splitBytes.length;
    const replicas = new Int32Array(nBlocks * k);
    // Blocks are placed in map order, drawing from the block stream only for a block not seen before.
    const checkNamed = !blocks && this.explicitJobPrefixes.has(spec.id);
    for (let i = 0; i < nBlocks; i++) {
      const named = blocks
        ? this.namedBlock(blocks[i] as string)
        : checkNamed
          ? this.blockReplicas.get(`${spec.id}/blk_${i}`)
          : undefined;
      if (named)
        for (let r = 0; r < k; r++) replicas[i * k + r] = r < named.length ? (named[r] as number) : NO_NODE;
      else this.drawReplicas(replicas, i * k);
    }
    const rt: JobRt = {
      index,
      spec,
      status: 'waiting',
      absDeadline: spec.deadline === null ? null : spec.arrival + spec.deadline,
      admittedAt: Number.NaN,
      priority: 0,
      queue: spec.queue,
      reason: null,
      estimatedFinish: null,
      pendingNext: NO_INDICES,
      pendingPrev: NO_INDICES,
      pendingHead: -1,
      pendingTail: -1,
      pendingCount: 0,
      pendingArray: null,
      cursorPos: -1,
      cursorMap: -1,
      localPending: null,
      runningMaps: 0,
      finishedMaps: 0,
      pendingReduces: 0,
      lostReduces: [],
      runningReduces: 0,
      finishedReduces: 0,
      blocks,
      replicas,
      splitBytes,
      mapStarts: new Float64Array(spec.maps).fill(Number.NaN),
      mapFinishes: new Float64Array(spec.maps).fill(Number.NaN),
      reduceStarts: [],
      reduceFinishes: [],
      localMapsDone: 0,
      started: false,
      finish: null,
      slotSeconds: 0,
      version: 0,
      rank: -1,
      view: undefined as unknown as JobView,
    };
    rt.view = this.makeView(rt);
    this.jobs.push(rt);
    this.jobIndex.set(spec.id, index);
    this.log.expect(spec.maps + spec.reduces);
    this.queue.push(Math.max(spec.arrival, this._now), index * EV_KINDS + EV_ARRIVE);
  }

  /** Process every event at or before `t`, then set the clock to `t`. */
  advanceTo(t: number): void {
    if (t < this._now) throw new RangeError(`cannot go back in time from ${this._now} to ${t}`);
    for (;;) {
      const next = this.queue.peekTime();
      if (next === undefined || next > t) break;
      this.step();
    }
    this._now = t;
  }

  /** Process one event; false when nothing is left. */
  step(): boolean {
    const q = this.queue;
    if (!q.pop()) return false;
    this._now = q.time;
    this.eventsProcessed++;
    const code = q.code;
    const kind = code % EV_KINDS;
    const subject = (code - kind) / EV_KINDS;
    switch (kind) {
      case EV_ARRIVE:
        this.onArrive(this.jobs[subject] as JobRt);
        break;
      case EV_HEARTBEAT:
        this.onHeartbeat(this.nodes[subject] as NodeRt);
        break;
      case EV_TASK_END:
        this.onTaskEnd(subject);
        break;
      case EV_FAIL:
        this.onFail(this.nodes[subject] as NodeRt);
        break;
      case EV_REPAIR:
        this.onRepair(this.nodes[subject] as NodeRt);
        break;
    }
    return true;
  }

  /**
   * Run until no event is left (every job settled, every node parked). Throws
   * SimulationStalledError when no event can make progress any more (see stallSeconds).
   */
  run(): void {
    let sinceReport = 0;
    while (this.step()) {
      if (
        this.runningTotal === 0 &&
        this.active.length > 0 &&
        this._now - this.lastActivity > this.stallSeconds
      )
        this.checkStalled();
      if (this.onProgress && ++sinceReport >= 5000) {
        sinceReport = 0;
        this.onProgress(this.settled, this.jobs.length, this._now);
      }
      if (this.settled === this.jobs.length && !this.cluster.failures) {
        // Only parked heartbeats could remain; nothing more can happen.
        if (this.queue.size === 0) break;
      }
      if (this.settled === this.jobs.length && this.cluster.failures) break;
    }
    this.onProgress?.(this.settled, this.jobs.length, this._now);
  }

  /** Nothing runs and jobs wait: stalled unless a node is down (its repair may let them run). */
  private checkStalled(): void {
    if (this.nodes.some((n) => !n.alive)) return;
    throw new SimulationStalledError({
      now: this._now,
      idleSeconds: this.stallSeconds,
      waiting: this.active.map((j) => ({
        id: j.spec.id,
        pendingMaps: j.pendingCount,
        pendingReduces: j.pendingReduces,
      })),
    });
  }

  setPriority(jobId: string, priority: number): void {
    const job = this.mustJob(jobId);
    job.priority = priority;
    this.orderDirty = true;
  }

  moveToQueue(jobId: string, queue: string): void {
    this.mustJob(jobId).queue = queue;
    this.orderDirty = true;
  }

  /** Stop a job: pending tasks dropped, running attempts lost, slots freed. */
  kill(jobId: string): void {
    const job = this.mustJob(jobId);
    if (job.status === 'finished' || job.status === 'killed' || job.status === 'rejected') return;
    const wasActive = job.status === 'admitted' || job.status === 'running';
    job.status = 'killed';
    if (wasActive) {
      this.pendingMapTotal -= job.pendingCount;
      if (job.finishedMaps === job.spec.maps) this.readyReduceTotal -= job.pendingReduces;
    }
    clearPending(job);
    job.localPending = null;
    this.mapQueueDirty = true;
    job.version++;
    job.pendingReduces = 0;
    for (const node of this.nodes) {
      for (const row of node.running.slice()) {
        if (this.log.jobIndex(row) !== job.index) continue;
        this.loseAttempt(node, row);
      }
    }
    job.runningMaps = 0;
    job.runningReduces = 0;
    if (wasActive) {
      this.removeActive(job);
      this.admission.jobKilled(job.spec.id, this._now);
      this.placement.jobRemoved(job.spec.id, this._now);
    }
    this.settled++;
    // Freed slots may now serve other jobs.
    this.wakeAll();
  }

  snapshot(): EngineSnapshot {
    return {
      now: this._now,
      nodes: this.nodes.map((n) => ({
        id: n.id,
        className: n.cls.name,
        labels: n.cls.labels.slice(),
        alive: n.alive,
        freeMapSlots: this.freeFor(n, 'map'),
        freeReduceSlots: this.freeFor(n, 'reduce'),
        runningTasks: n.running.length,
      })),
      jobs: this.jobs.map((j) => ({
        id: j.spec.id,
        status: j.status,
        queue: j.queue,
        priority: j.priority,
        arrival: j.spec.arrival,
        absDeadline: j.absDeadline,
        mapsPending: j.pendingCount,
        mapsRunning: j.runningMaps,
        mapsDone: j.finishedMaps,
        reducesPending: j.pendingReduces,
        reducesRunning: j.runningReduces,
        reducesDone: j.finishedReduces,
        finish: j.finish,
      })),
    };
  }

  /** Every job's outcome, in submission order. */
  outcomes(): JobOutcome[] {
    return this.jobs.map((j) => {
      const admitted = j.status !== 'rejected' && j.status !== 'waiting';
      const start = j.mapStarts.reduce(
        (m, s) => (Number.isNaN(s) ? m : Math.min(m, s)),
        Number.POSITIVE_INFINITY,
      );
      return {
        id: j.spec.id,
        arrival: j.spec.arrival,
        deadline: j.spec.deadline,
        absDeadline: j.absDeadline,
        maps: j.spec.maps,
        reduces: j.spec.reduces,
        type: j.spec.type,
        workloadClass: classOf(j.spec.type, j.spec.workloadClass),
        user: j.spec.user,
        queue: j.queue,
        status: j.status,
        admitted,
        reason: j.reason,
        estimatedFinish: j.estimatedFinish,
        start: Number.isFinite(start) ? start : null,
        finish: j.finish,
        metDeadline:
          j.status === 'finished' && j.finish !== null
            ? j.absDeadline === null
              ? true
              : j.finish <= j.absDeadline + 1e-9
            : admitted && j.status !== 'killed'
              ? null
              : false,
        slotSeconds: j.slotSeconds,
        localMaps: j.localMapsDone,
      };
    });
  }

  /**
   * Every task attempt, completed or lost, in the order they ended. The objects are made on
   * the first call that reaches them and kept, so a caller that reads the list again (the
   * emulator, after every advance) pays only for what ended since.
   */
  taskRecords(): readonly TaskRecord[] {
    const log = this.log;
    for (let k = this.records.length; k < log.length; k++) {
      const row = log.row(k);
      const flags = log.flags(row);
      const job = this.jobs[log.jobIndex(row)] as JobRt;
      const node = this.nodes[log.nodeIndex(row)] as NodeRt;
      const container: ContainerKind = flags & TASK_GPU ? 'gpu' : 'cpu';
      const completed = (flags & TASK_COMPLETED) !== 0;
      this.records.push({
        job: job.spec.id,
        kind: flags & TASK_MAP ? 'map' : 'reduce',
        index: log.taskIndex(row),
        node: node.id,
        nodeClass: node.cls.name,
        start: log.start(row),
        end: log.end(row),
        local: (flags & TASK_LOCAL) !== 0,
        container,
        completed,
        energyKWh: completed ? node.cls.taskEnergyKWh[runKind(job.spec.type, container)] : 0,
      });
    }
    return this.records;
  }

  /**
   * The same attempts as taskRecords(), read by column without making an object per attempt
   * (the metrics of a large run). Rows: jobIndex is the submission index, nodeIndex the
   * node's; flags are the TASK_* bits of task-log.ts.
   */
  endedTasks(): EndedTasks {
    return this.log;
  }

  /** Energy of a completed attempt (its node class's per-task figure for how it ran). */
  taskEnergyKWh(row: number): number {
    const log = this.log;
    if ((log.flags(row) & TASK_COMPLETED) === 0) return 0;
    const job = this.jobs[log.jobIndex(row)] as JobRt;
    const node = this.nodes[log.nodeIndex(row)] as NodeRt;
    const container: ContainerKind = log.flags(row) & TASK_GPU ? 'gpu' : 'cpu';
    return node.cls.taskEnergyKWh[runKind(job.spec.type, container)];
  }

  /**
   * One job's progress as its AM would report it: finished task counts, the running attempts'
   * starts (ascending) and the earliest start of any of its tasks; undefined for an unknown job.
   */
  taskProgress(jobId: string):
    | {
        mapsDone: number;
        mapsRunning: number[];
        reducesDone: number;
        reducesRunning: number[];
        firstStart: number | null;
      }
    | undefined {
    const idx = this.jobIndex.get(jobId);
    if (idx === undefined) return undefined;
    const job = this.jobs[idx]!;
    const running = this.runningTasksOf(jobId);
    const starts = (kind: TaskKind) =>
      running
        .filter((r) => r.kind === kind)
        .map((r) => r.start)
        .sort((a, b) => a - b);
    let first = Number.POSITIVE_INFINITY;
    for (const t of job.mapStarts) if (t < first) first = t;
    for (const t of job.reduceStarts) if (t < first) first = t;
    return {
      mapsDone: job.finishedMaps,
      mapsRunning: starts('map'),
      reducesDone: job.finishedReduces,
      reducesRunning: starts('reduce'),
      firstStart: Number.isFinite(first) ? first : null,
    };
  }

  /**
   * The attempts of one job running now, with their start and when each is scheduled to end
   * (`due`; a node failure or a kill may end it sooner): what a MapReduce AM reports.
   */
  runningTasksOf(jobId: string): RunningAttempt[] {
    const idx = this.jobIndex.get(jobId);
    const out: RunningAttempt[] = [];
    if (idx === undefined) return out;
    const log = this.log;
    for (const n of this.nodes)
      for (const row of n.running)
        if (log.jobIndex(row) === idx)
          out.push({
            kind: log.flags(row) & TASK_MAP ? 'map' : 'reduce',
            index: log.taskIndex(row),
            start: log.start(row),
            due: log.due(row),
            node: n.id,
          });
    return out;
  }

  /** Idle energy: each node's idle power over [0, until], kWh (down time excluded). */
  idleEnergyKWh(from: number, until: number): number {
    let wattSeconds = 0;
    for (const n of this.nodes) wattSeconds += n.cls.idleWatts * Math.max(0, until - from);
    return wattSeconds / 3.6e6;
  }

  // ---------------------------------------------------------------- event handling

  private onArrive(job: JobRt): void {
    if (job.status !== 'waiting') return; // killed before arrival
    this.lastActivity = this._now;
    const decision = this.admission.decide(job.spec, this._now);
    job.estimatedFinish = decision.estimatedFinish ?? null;
    job.reason = decision.reason ?? null;
    if (!decision.admit) {
      job.status = 'rejected';
      this.settled++;
      return;
    }
    job.status = 'admitted';
    job.admittedAt = this._now;
    initPending(job, job.spec.maps);
    job.localPending = new Array<number[] | undefined>(this.nodes.length);
    for (let i = 0; i < job.spec.maps; i++) this.indexPendingMap(job, i);
    job.version++;
    this.pendingMapTotal += job.spec.maps;
    job.pendingReduces = job.spec.reduces;
    job.lostReduces = [];
    // A job without maps has its reduces ready at once (onTaskEnd never sees its map stage end).
    if (job.spec.maps === 0) this.readyReduceTotal += job.pendingReduces;
    job.reduceStarts = new Array<number>(job.spec.reduces).fill(Number.NaN);
    job.reduceFinishes = new Array<number>(job.spec.reduces).fill(Number.NaN);
    this.active.push(job);
    this.orderDirty = true;
    this.placement.jobAdded(job.view, this._now);
    this.wakeAll();
  }

  private onHeartbeat(node: NodeRt): void {
    node.parked = true;
    if (!node.alive) return;
    const queue = this.orderedQueue();
    if (queue.length === 0) return;
    if (this.admission.dispatch && this.cluster.slotModel === 'unified') {
      if (this.admission.containerLanes) {
        // Each kind of container is its own admission lane: offer each kind apart.
        this.dispatchContainers(node, queue, 'container', 'cpu');
        this.dispatchContainers(node, queue, 'container', 'gpu');
      } else this.dispatchContainers(node, queue, 'container');
    } else if (this.placement.assignContainer && !this.admission.dispatch) {
      this.fillContainers(node);
    } else {
      // Reduces first: they gate job completion, and their slots are separate in mr1.
      this.assignReduces(node, queue);
      if (this.freeFor(node, 'map') > 0 && this.pendingMapTotal > 0) {
        if (this.admission.dispatch && this.admission.dispatchesMapSlots) {
          if (this.admission.containerLanes) {
            // GPU map slots are an admission lane of their own: offer each kind apart.
            this.dispatchContainers(node, queue, 'map', 'cpu');
            this.dispatchContainers(node, queue, 'map', 'gpu');
          } else this.dispatchContainers(node, queue, 'map');
        } else {
          const assignments = this.placement.assignMaps(this.nodeView(node), this.mapQueue(), this._now);
          this.applyMapAssignments(node, assignments);
        }
      }
    }
    if (this.worthHeartbeating(node)) this.scheduleHeartbeat(node, this._now);
  }

  /**
   * unified slots (or mr1 map slots, `lane` 'map') under a policy with its own dispatcher:
   * container by container, the dispatcher names the job (and map or reduce); for a map, the
   * placement policy picks the task of that job (locality) as it would with that job alone in
   * the queue. With `kind` (admission lanes by container kind), only containers of that kind
   * are offered, and the job's reduces run in them too.
   */
  private dispatchContainers(
    node: NodeRt,
    queue: readonly JobView[],
    lane: 'container' | 'map',
    kind?: ContainerKind,
  ): void {
    const dispatch = this.admission.dispatch as NonNullable<AdmissionPort['dispatch']>;
    while (kind ? this.freeKind(node, kind) > 0 : this.freeFor(node, 'map') > 0) {
      const free = kind ? this.clusterFreeKind(kind) : this.clusterFree('map');
      const choice = dispatch(lane, queue, free, this._now, kind);
      if (!choice) return;
      const job = this.mustJob(choice.jobId);
      if (choice.kind === 'reduce') {
        if (lane === 'map' || job.pendingReduces === 0) return;
        if (!kind && this.freeFor(node, 'reduce') <= 0) return;
        this.startTask(node, job, 'reduce', this.nextReduceIndex(job), kind ?? 'cpu');
        continue;
      }
      if (kind) {
        const offer = { ...this.nodeView(node), freeMapSlots: 1 };
        const assignments = this.placement
          .assignMaps(
            kind === 'gpu' ? { ...offer, freeCpu: 0, freeGpu: 1 } : { ...offer, freeCpu: 1, freeGpu: 0 },
            [job.view],
            this._now,
          )
          // Only a container of the lane's kind: a job never leaves its lane.
          .filter((a) => (a.containerKind ?? 'cpu') === kind)
          .slice(0, 1);
        if (assignments.length === 0) return;
        this.applyMapAssignments(node, assignments);
        continue;
      }
      // One container is offered at a time: a CPU one first, and a GPU one when the job can
      // use no CPU container (a GPU-only job), so such a job is not left waiting forever
      // beside a free GPU container.
      const base = { ...this.nodeView(node), freeMapSlots: 1 };
      const cpu = Math.min(1, this.freeKind(node, 'cpu'));
      const gpu = Math.min(1, this.freeKind(node, 'gpu'));
      let assignments: readonly MapAssignment[] = [];
      const cpuUsable = job.spec.type !== 'gpu';
      if (cpu > 0 && cpuUsable) {
        assignments = this.placement.assignMaps({ ...base, freeCpu: cpu, freeGpu: 0 }, [job.view], this._now);
      }
      if (gpu > 0 && (cpu === 0 || !cpuUsable)) {
        assignments = this.placement.assignMaps({ ...base, freeCpu: 0, freeGpu: gpu }, [job.view], this._now);
      }
      assignments = assignments.slice(0, 1);
      if (assignments.length === 0) return;
      this.applyMapAssignments(node, assignments);
    }
  }

  /**
   * A placement port that hands out containers one at a time (PlacementPort.assignContainer):
   * each answer is started before the next question, so the port always sees current views.
   */
  private fillContainers(node: NodeRt): void {
    const next = this.placement.assignContainer as NonNullable<PlacementPort['assignContainer']>;
    for (;;) {
      const mapsWanted = this.freeFor(node, 'map') > 0 && this.pendingMapTotal > 0;
      const reducesWanted = this.freeFor(node, 'reduce') > 0 && this.readyReduceTotal > 0;
      if (!mapsWanted && !reducesWanted) return;
      const a: ContainerAssignment | null = next(this.nodeView(node), this.orderedQueue(), this._now);
      if (!a) return;
      if (a.kind === 'map') {
        this.applyMapAssignments(node, [a]);
        continue;
      }
      const job = this.mustJob(a.jobId);
      if (
        this.freeFor(node, 'reduce') <= 0 ||
        job.finishedMaps !== job.spec.maps ||
        job.pendingReduces === 0
      ) {
        throw new Error(
          `placement ${this.placement.name} assigned a reduce of ${a.jobId} that cannot start on node ${node.id}`,
        );
      }
      this.startTask(node, job, 'reduce', this.nextReduceIndex(job), 'cpu');
    }
  }

  private onTaskEnd(row: number): void {
    const log = this.log;
    if (!log.isRunning(row)) return; // the attempt was lost (failure or kill)
    const node = this.nodes[log.nodeIndex(row)] as NodeRt;
    const flags = log.flags(row);
    const isMap = (flags & TASK_MAP) !== 0;
    const index = log.taskIndex(row);
    this.runningTotal--;
    this.lastActivity = this._now;
    removeRunning(node, row);
    this.release(node, isMap ? 'map' : 'reduce', flags & TASK_GPU ? 'gpu' : 'cpu');
    const job = this.jobs[log.jobIndex(row)] as JobRt;
    const duration = this._now - log.start(row);
    job.slotSeconds += duration;
    log.close(row, this._now, true);
    if (isMap) {
      job.runningMaps--;
      job.finishedMaps++;
      job.mapFinishes[index] = this._now;
      if (flags & TASK_LOCAL) job.localMapsDone++;
      if (job.finishedMaps === job.spec.maps) this.readyReduceTotal += job.pendingReduces;
    } else {
      job.runningReduces--;
      job.finishedReduces++;
      job.reduceFinishes[index] = this._now;
    }
    if (job.finishedMaps === job.spec.maps && job.finishedReduces === job.spec.reduces) this.finishJob(job);
    if (this.worthHeartbeating(node)) this.scheduleHeartbeat(node, this._now);
    if (isMap && job.finishedMaps === job.spec.maps && job.spec.reduces > 0) this.wakeAll();
  }

  /**
   * The index of the next reduce to start: a lost one again, else the next never started (while
   * none is lost, `reduces - pendingReduces` of them have been started).
   */
  private nextReduceIndex(job: JobRt): number {
    return job.lostReduces.pop() ?? job.spec.reduces - job.pendingReduces;
  }

  private onFail(node: NodeRt): void {
    if (!this.cluster.failures || this.settled === this.jobs.length) return;
    node.alive = false;
    const log = this.log;
    for (const row of node.running.slice()) {
      const job = this.jobs[log.jobIndex(row)] as JobRt;
      const index = log.taskIndex(row);
      this.loseAttempt(node, row);
      if (log.flags(row) & TASK_MAP) {
        job.runningMaps--;
        // The lost map rejoins the pending list at its tail (and its replica nodes' lists).
        this.unindexStale(job, index);
        appendPending(job, index);
        this.indexPendingMap(job, index);
        if (job.pendingCount === 1) this.mapQueueDirty = true;
        job.version++;
        this.pendingMapTotal++;
      } else {
        job.runningReduces--;
        job.pendingReduces++;
        job.lostReduces.push(index);
        this.readyReduceTotal++;
      }
    }
    this.queue.push(this._now + this.cluster.failures.repairSeconds, node.index * EV_KINDS + EV_REPAIR);
    this.wakeAll();
  }

  private onRepair(node: NodeRt): void {
    if (!this.cluster.failures) return;
    node.alive = true;
    this.lastActivity = this._now;
    if (this.settled < this.jobs.length) {
      this.queue.push(
        this._now + this.rngFail.exponential(this.cluster.failures.meanTimeBetweenSeconds),
        node.index * EV_KINDS + EV_FAIL,
      );
    }
    if (this.worthHeartbeating(node)) this.scheduleHeartbeat(node, this._now);
  }

  // ---------------------------------------------------------------- dispatch

  private assignReduces(node: NodeRt, queue: readonly JobView[]): void {
    const dispatch = this.admission.dispatch;
    while (this.freeFor(node, 'reduce') > 0) {
      let job: JobRt | undefined;
      if (dispatch) {
        // Alg. 5.4 lines 6-21: the policy's reservation rule picks the job, or none.
        const choice = dispatch('reduce', queue, this.clusterFree('reduce'), this._now);
        if (choice && choice.kind === 'reduce') job = this.mustJob(choice.jobId);
      } else {
        // readyReduceTotal is the sum this walk would find non-zero: skip the walk when it is 0.
        if (this.readyReduceTotal === 0) return;
        const view = queue.find((v) => v.mapsDone && v.pendingReduces > 0);
        if (view) job = this.jobs[view.index] as JobRt;
      }
      if (!job || job.pendingReduces === 0) return;
      this.startTask(node, job, 'reduce', this.nextReduceIndex(job), 'cpu');
    }
  }

  private applyMapAssignments(node: NodeRt, assignments: readonly MapAssignment[]): void {
    for (const a of assignments) {
      const kind = a.containerKind ?? 'cpu';
      if (this.freeFor(node, 'map') <= 0 || this.freeKind(node, kind) <= 0) {
        throw new Error(
          `placement ${this.placement.name} over-assigned node ${node.id} (${kind} containers)`,
        );
      }
      const idx = this.jobIndex.get(a.jobId);
      if (idx === undefined)
        throw new Error(`placement ${this.placement.name} assigned a task of unknown job ${a.jobId}`);
      const job = this.jobs[idx] as JobRt;
      if (!isPending(job, a.mapIndex))
        throw new Error(
          `placement ${this.placement.name} assigned map ${a.mapIndex} of ${a.jobId}, which is not pending`,
        );
      if (job.spec.type === 'gpu' && (kind !== 'gpu' || !node.cls.labels.includes(this.cluster.gpuLabel))) {
        throw new Error(
          `placement ${this.placement.name} put GPU job ${a.jobId} outside a GPU container (node ${node.id})`,
        );
      }
      if (job.spec.type === 'cpu' && kind === 'gpu') {
        throw new Error(
          `placement ${this.placement.name} put CPU job ${a.jobId} in a GPU container (node ${node.id})`,
        );
      }
      // The replica nodes' local lists drop the map when next read (pendingMapsOn).
      removePending(job, a.mapIndex);
      if (job.pendingCount === 0) this.mapQueueDirty = true;
      job.version++;
      this.startTask(node, job, 'map', a.mapIndex, kind);
    }
  }

  private startTask(node: NodeRt, job: JobRt, kind: TaskKind, index: number, container: ContainerKind): void {
    this.take(node, kind, container);
    this.runningTotal++;
    this.lastActivity = this._now;
    let seconds: number;
    // A reduce counts as local in the task records (it reads its map outputs wherever they are).
    let flags = container === 'gpu' ? TASK_GPU | TASK_LOCAL : TASK_LOCAL;
    if (kind === 'map') {
      job.runningMaps++;
      this.pendingMapTotal--;
      job.mapStarts[index] = this._now;
      const local = this.isLocal(job, index, node.index);
      flags = (container === 'gpu' ? TASK_GPU : 0) | TASK_MAP | (local ? TASK_LOCAL : 0);
      seconds = this.mapSeconds(job, index, node, container, local);
    } else {
      job.pendingReduces--;
      this.readyReduceTotal--;
      job.runningReduces++;
      job.reduceStarts[index] = this._now;
      seconds = this.reduceSeconds(job, index, node, container);
    }
    const row = this.log.open(job.index, index, node.index, this._now, flags, this._now + seconds);
    node.running.push(row);
    if (!job.started) {
      job.started = true;
      job.status = 'running';
      this.admission.jobStarted(job.spec.id, this._now);
    }
    this.queue.push(this._now + seconds, row * EV_KINDS + EV_TASK_END);
  }

  private finishJob(job: JobRt): void {
    job.status = 'finished';
    job.finish = this._now;
    job.localPending = null;
    this.settled++;
    this.removeActive(job);
    this.placement.jobRemoved(job.spec.id, this._now);
    const record: FinishedJobRecord = {
      job: job.spec,
      admittedAt: job.admittedAt,
      finish: this._now,
      mapStarts: Array.from(job.mapStarts),
      mapFinishes: Array.from(job.mapFinishes),
      reduceStarts: job.reduceStarts.slice(),
      reduceFinishes: job.reduceFinishes.slice(),
    };
    this.admission.jobFinished(record, this._now);
  }

  private loseAttempt(node: NodeRt, row: number): void {
    this.runningTotal--;
    removeRunning(node, row);
    const flags = this.log.flags(row);
    this.release(node, flags & TASK_MAP ? 'map' : 'reduce', flags & TASK_GPU ? 'gpu' : 'cpu');
    this.log.close(row, this._now, false);
  }

  // ---------------------------------------------------------------- timing model

  private mapSeconds(
    job: JobRt,
    index: number,
    node: NodeRt,
    container: ContainerKind,
    local: boolean,
  ): number {
    const penalty = local ? 1 : 1 + this.cluster.remoteReadPenalty;
    const replay = job.spec.replay;
    if (replay) return (replay.mapSeconds[index] as number) * penalty;
    const cost = this.cluster.costs[job.spec.type === 'cpu' ? 'cpu' : 'gpu'];
    const mb = (job.splitBytes[index] as number) / MB;
    const nominal =
      ((cost.mapFixedSeconds + cost.mapSecondsPerMB * mb) /
        node.cls.speed[runKind(job.spec.type, container)]) *
      penalty;
    return nominal * this.rngJitter.uniform(cost.jitter[0], cost.jitter[1]);
  }

  private reduceSeconds(job: JobRt, index: number, node: NodeRt, container: ContainerKind): number {
    const replay = job.spec.replay;
    if (replay) return replay.reduceSeconds[index] as number;
    const cost = this.cluster.costs[job.spec.type === 'cpu' ? 'cpu' : 'gpu'];
    const mb = (cost.shuffleRatio * job.spec.inputBytes) / MB / Math.max(1, job.spec.reduces);
    const nominal =
      (cost.reduceFixedSeconds + cost.reduceSecondsPerMB * mb) /
      node.cls.speed[runKind(job.spec.type, container)];
    return nominal * this.rngJitter.uniform(cost.jitter[0], cost.jitter[1]);
  }

  /** The seeds' eps^m for a job on this cluster (see worstMapSecondsOn). */
  worstMapSeconds(job: TraceJob): number {
    return worstMapSecondsOn(this.cluster, job);
  }

  /** The seeds' eps^r for a job on this cluster (see worstReduceSecondsOn). */
  worstReduceSeconds(job: TraceJob): number {
    return worstReduceSecondsOn(this.cluster, job);
  }

  // ---------------------------------------------------------------- slots

  private freeFor(node: NodeRt, kind: TaskKind): number {
    if (!node.alive) return 0;
    // Reduces run in CPU containers; in unified they share the pool with maps. With admission
    // lanes by container kind, a GPU lane's reduces run in its GPU containers.
    if (this.cluster.slotModel === 'unified')
      return kind === 'map' || this.admission.containerLanes
        ? node.freeShared
        : node.freeShared - node.freeGpu;
    return kind === 'map' ? node.freeMap : node.freeReduce;
  }

  private clusterFree(kind: TaskKind): number {
    let n = 0;
    for (const node of this.nodes) n += this.freeFor(node, kind);
    return n;
  }

  private clusterFreeKind(kind: ContainerKind): number {
    let n = 0;
    for (const node of this.nodes) n += this.freeKind(node, kind);
    return n;
  }

  /** Free containers of one kind in the node's map (mr1) or shared (unified) pool. */
  private freeKind(node: NodeRt, kind: ContainerKind): number {
    if (!node.alive) return 0;
    const pool = this.cluster.slotModel === 'unified' ? node.freeShared : node.freeMap;
    return kind === 'gpu' ? node.freeGpu : pool - node.freeGpu;
  }

  private take(node: NodeRt, kind: TaskKind, container: ContainerKind): void {
    if (container === 'gpu') node.freeGpu--;
    if (this.cluster.slotModel === 'unified') node.freeShared--;
    else if (kind === 'map') node.freeMap--;
    else node.freeReduce--;
  }

  private release(node: NodeRt, kind: TaskKind, container: ContainerKind): void {
    if (container === 'gpu') node.freeGpu++;
    if (this.cluster.slotModel === 'unified') node.freeShared++;
    else if (kind === 'map') node.freeMap++;
    else node.freeReduce++;
  }

  // ---------------------------------------------------------------- heartbeats

  private worthHeartbeating(node: NodeRt): boolean {
    if (!node.alive || this.active.length === 0) return false;
    const freeMap = this.freeFor(node, 'map');
    const freeReduce = this.freeFor(node, 'reduce');
    if (freeMap === 0 && freeReduce === 0) return false;
    return (freeMap > 0 && this.pendingMapTotal > 0) || (freeReduce > 0 && this.readyReduceTotal > 0);
  }

  /** Schedule the node's next heartbeat on its own phase, strictly after `after`. */
  private scheduleHeartbeat(node: NodeRt, after: number): void {
    if (!node.parked) return;
    node.parked = false;
    const h = this.cluster.heartbeatSeconds;
    const k = Math.floor((after - node.phase) / h) + 1;
    this.queue.push(node.phase + Math.max(0, k) * h, node.index * EV_KINDS + EV_HEARTBEAT);
  }

  private wakeAll(): void {
    for (const n of this.nodes)
      if (n.parked && this.worthHeartbeating(n)) this.scheduleHeartbeat(n, this._now);
  }

  // ---------------------------------------------------------------- queue order

  private orderedQueue(): readonly JobView[] {
    if (this.orderDirty) {
      this.active.sort(
        (a, b) => b.priority - a.priority || this.admission.compare(a.view, b.view) || a.index - b.index,
      );
      this.activeViews = this.active.map((j, i) => {
        j.rank = i;
        return j.view;
      });
      this.orderDirty = false;
      this.mapQueueDirty = true;
    }
    return this.activeViews;
  }

  /**
   * The dispatch-order queue without the jobs that have no pending map: placement has nothing
   * to give from those, and skipping them here spares every heartbeat a walk over jobs that
   * are only waiting for their reduces. Rebuilt (as a new array) only when the order changes
   * or a job's pending maps run out or come back (a lost attempt).
   */
  private mapQueue(): readonly JobView[] {
    this.orderedQueue();
    if (this.mapQueueDirty) {
      this.mapQueueViews = [];
      for (const j of this.active) if (j.pendingCount > 0) this.mapQueueViews.push(j.view);
      this.mapQueueDirty = false;
    }
    return this.mapQueueViews;
  }

  /** Position of an admitted, unfinished job in dispatch order (0 = head). */
  queueRank(jobId: string): number {
    const q = this.orderedQueue();
    const i = this.jobIndex.get(jobId);
    if (i === undefined) return Number.MAX_SAFE_INTEGER;
    const job = this.jobs[i] as JobRt;
    return q[job.rank] === job.view ? job.rank : Number.MAX_SAFE_INTEGER;
  }

  private removeActive(job: JobRt): void {
    const i = this.active.indexOf(job);
    if (i >= 0) this.active.splice(i, 1);
    this.orderDirty = true;
  }

  // ---------------------------------------------------------------- HDFS blocks

  private placeClusterBlocks(): void {
    const n = this.nodes.length;
    const { blocks, replication } = this.cluster.hdfs;
    if (blocks === 0 || n === 0) return;
    // Seed 004 4.4.1: replicas spread evenly over the nodes, never two on one node.
    const perm = this.rngBlocks.shuffle(Array.from({ length: n }, (_, i) => i));
    let cursor = 0;
    for (let b = 0; b < blocks; b++) {
      const replicas: number[] = [];
      for (let r = 0; r < Math.min(replication, n); r++) {
        replicas.push(perm[cursor % n] as number);
        cursor++;
      }
      this.blockReplicas.set(`blk_${b}`, replicas);
    }
  }

  /**
   * A new block's replicas, written to out[at .. at + replication): distinct nodes drawn
   * uniformly, in the order drawn (a redrawn duplicate is skipped, as a set would).
   */
  private drawReplicas(out: Int32Array, at: number): void {
    const n = this.nodes.length;
    const k = this.replication;
    let chosen = 0;
    while (chosen < k) {
      const node = this.rngBlocks.int(0, n - 1);
      let seen = false;
      for (let r = 0; r < chosen; r++) if (out[at + r] === node) seen = true;
      if (!seen) out[at + chosen++] = node;
    }
  }

  /** Replicas of a block the trace names: the same set every time the name comes up. */
  private namedBlock(id: string): readonly number[] {
    const known = this.blockReplicas.get(id);
    if (known) return known;
    const g = this.generatedBlock(id);
    if (g) return replicasAt(g.job, g.index, this.replication);
    const drawn = new Int32Array(this.replication);
    this.drawReplicas(drawn, 0);
    const replicas = Array.from(drawn);
    this.blockReplicas.set(id, replicas);
    const at = id.lastIndexOf('/blk_');
    if (at >= 0) this.explicitJobPrefixes.add(id.slice(0, at));
    return replicas;
  }

  /** The submitted job and map whose generated block id (`${job}/blk_${i}`) this is, if any. */
  private generatedBlock(id: string): { job: JobRt; index: number } | null {
    const at = id.lastIndexOf('/blk_');
    if (at < 0) return null;
    const jobIdx = this.jobIndex.get(id.slice(0, at));
    if (jobIdx === undefined) return null;
    const job = this.jobs[jobIdx] as JobRt;
    const digits = id.slice(at + 5);
    const index = Number(digits);
    if (job.blocks || !/^(0|[1-9][0-9]*)$/.test(digits) || index >= job.splitBytes.length) return null;
    return { job, index };
  }

  /** Appends map `i` to the local lists of its block's replica nodes (it is last in pending order). */
  private indexPendingMap(job: JobRt, i: number): void {
    const index = job.localPending;
    if (!index) return;
    const k = this.replication;
    for (let r = i * k; r < (i + 1) * k; r++) {
      const node = job.replicas[r] as number;
      if (node === NO_NODE) continue;
      const list = index[node];
      if (list) list.push(i);
      else index[node] = [i];
    }
  }

  /** Removes map `i` from its replica nodes' local lists where it still waits to be dropped. */
  private unindexStale(job: JobRt, i: number): void {
    const index = job.localPending;
    if (!index) return;
    const k = this.replication;
    for (let r = i * k; r < (i + 1) * k; r++) {
      if (job.replicas[r] === NO_NODE) continue;
      const list = index[job.replicas[r] as number];
      const at = list ? list.indexOf(i) : -1;
      if (at >= 0) (list as number[]).splice(at, 1);
    }
  }

  private isLocal(job: JobRt, mapIndex: number, node: number): boolean {
    const k = this.replication;
    for (let r = mapIndex * k; r < (mapIndex + 1) * k; r++) if (job.replicas[r] === node) return true;
    return false;
  }

  // ---------------------------------------------------------------- views

  private makeView(job: JobRt): IndexedJobView {
    return new EngineJobView(job, this.replication);
  }

  private nodeView(node: NodeRt): NodeView {
    return {
      index: node.index,
      id: node.id,
      className: node.cls.name,
      labels: node.cls.labels,
      freeMapSlots: this.freeFor(node, 'map'),
      freeReduceSlots: this.freeFor(node, 'reduce'),
      freeCpu: this.freeKind(node, 'cpu'),
      freeGpu: this.freeKind(node, 'gpu'),
      capacityCpu:
        (this.cluster.slotModel === 'mr1' ? node.cls.mapSlots : node.cls.containers) - node.cls.gpuContainers,
      capacityGpu: node.cls.gpuContainers,
      alive: node.alive,
    };
  }

  private mustJob(jobId: string): JobRt {
    const i = this.jobIndex.get(jobId);
    if (i === undefined) throw new RangeError(`unknown job ${jobId}`);
    return this.jobs[i] as JobRt;
  }

  /** Total slots a utilisation figure divides by (map + reduce, or containers). */
  get totalSlots(): number {
    const t = slotTotals(this.cluster);
    return this.cluster.slotModel === 'mr1' ? t.map + t.reduce : t.containers;
  }
}

/**
 * How a task runs: a CPU job's task runs CPU code; a GPU or adaptive job's task runs its
 * GPU code in a GPU container and its CPU code in a CPU container (adaptive execution).
 */
export function runKind(type: TraceJob['type'], container: ContainerKind): RunKind {
  if (type === 'cpu') return 'cpu';
  return container === 'gpu' ? 'gpu' : 'gpuOnCpu';
}

/** Split `bytes` into `n` near-equal integer parts that add up exactly. */
export function evenSplits(bytes: number, n: number): number[] {
  const base = Math.floor(bytes / n);
  const out = new Array<number>(n).fill(base);
  let rest = bytes - base * n;
  for (let i = 0; rest > 0; i++, rest--) out[i % n] = (out[i % n] as number) + 1;
  return out;
}

/**
 * The seeds' eps^m: the longest a map task of this job can take anywhere it may run
 * (slowest eligible class and container kind, remote read, largest split, top of the
 * jitter range).
 */
export function worstMapSecondsOn(cluster: ClusterSpec, job: TraceJob): number {
  if (job.replay) return Math.max(...job.replay.mapSeconds) * (1 + cluster.remoteReadPenalty);
  const splits = job.splits ?? evenSplits(job.inputBytes, job.maps);
  const maxMB = Math.max(...splits) / MB;
  const c = cluster.costs[job.type === 'cpu' ? 'cpu' : 'gpu'];
  let worst = 0;
  for (const [cls, run] of eligibleRuns(cluster, job)) {
    worst = Math.max(
      worst,
      ((c.mapFixedSeconds + c.mapSecondsPerMB * maxMB) / cls.speed[run]) *
        (1 + cluster.remoteReadPenalty) *
        c.jitter[1],
    );
  }
  return worst;
}

/**
 * The seeds' eps^r: the longest a reduce task of this job can take. Reduces run in CPU
 * containers, and a GPU or adaptive job's reduces also in GPU containers (where a GPU
 * admission lane runs them, unified slots).
 */
export function worstReduceSecondsOn(cluster: ClusterSpec, job: TraceJob): number {
  if (job.reduces === 0) return 0;
  if (job.replay) return Math.max(...job.replay.reduceSeconds);
  const c = cluster.costs[job.type === 'cpu' ? 'cpu' : 'gpu'];
  const mb = (c.shuffleRatio * job.inputBytes) / MB / job.reduces;
  const nominal = c.reduceFixedSeconds + c.reduceSecondsPerMB * mb;
  let worst = 0;
  for (const cls of cluster.nodeClasses) {
    if (cls.count === 0) continue;
    worst = Math.max(worst, (nominal / cls.speed[runKind(job.type, 'cpu')]) * c.jitter[1]);
    const gpuLane =
      cluster.slotModel === 'unified' && cls.gpuContainers > 0 && cls.labels.includes(cluster.gpuLabel);
    if (job.type !== 'cpu' && gpuLane) worst = Math.max(worst, (nominal / cls.speed.gpu) * c.jitter[1]);
  }
  return worst;
}

/** The (class, way of running) pairs a job's map tasks may use. */
function eligibleRuns(cluster: ClusterSpec, job: TraceJob): Array<[NodeClassSpec, RunKind]> {
  const out: Array<[NodeClassSpec, RunKind]> = [];
  for (const cls of cluster.nodeClasses) {
    if (cls.count === 0) continue;
    const hasGpu = cls.gpuContainers > 0 && cls.labels.includes(cluster.gpuLabel);
    const cpuContainers = (cluster.slotModel === 'mr1' ? cls.mapSlots : cls.containers) - cls.gpuContainers;
    if (job.type === 'cpu') {
      if (cpuContainers > 0) out.push([cls, 'cpu']);
    } else {
      if (hasGpu) out.push([cls, 'gpu']);
      if (job.type === 'adaptive' && cpuContainers > 0) out.push([cls, 'gpuOnCpu']);
    }
  }
  return out;
}

// ---------------------------------------------------------------- job views

/**
 * The live view of a job that policies read. A class rather than an object literal of
 * getters per job: every view then shares one shape, and the placement adapter reads these
 * on every heartbeat.
 */
class EngineJobView implements IndexedJobView {
  readonly index: number;
  readonly spec: TraceJob;

  constructor(
    private readonly job: JobRt,
    private readonly replication: number,
  ) {
    this.index = job.index;
    this.spec = job.spec;
  }

  get id(): string {
    return this.spec.id;
  }
  get absDeadline(): number | null {
    return this.job.absDeadline;
  }
  get admittedAt(): number {
    return this.job.admittedAt;
  }
  get priority(): number {
    return this.job.priority;
  }
  get queue(): string {
    return this.job.queue;
  }
  get pendingMaps(): readonly number[] {
    return pendingArrayOf(this.job);
  }
  get pendingMapCount(): number {
    return this.job.pendingCount;
  }
  pendingMapAt(i: number): number {
    return pendingMapAt(this.job, i);
  }
  get runningMaps(): number {
    return this.job.runningMaps;
  }
  get finishedMaps(): number {
    return this.job.finishedMaps;
  }
  get pendingReduces(): number {
    return this.job.pendingReduces;
  }
  get runningReduces(): number {
    return this.job.runningReduces;
  }
  get finishedReduces(): number {
    return this.job.finishedReduces;
  }
  get mapsDone(): boolean {
    return this.job.finishedMaps === this.spec.maps;
  }
  get version(): number {
    return this.job.version;
  }
  mapBlock(i: number): string {
    const blocks = this.job.blocks;
    return blocks ? (blocks[i] as string) : `${this.spec.id}/blk_${i}`;
  }
  mapReplicas(i: number): readonly number[] {
    return replicasAt(this.job, i, this.replication);
  }
  pendingMapsOn(node: number): readonly number[] {
    return localPendingOn(this.job, node);
  }
}

// ---------------------------------------------------------------- job bookkeeping helpers

const NO_INDICES = new Int32Array(0);

/** An empty place in a replica row (a block placed on fewer nodes than the replication factor). */
const NO_NODE = -1;

function replicasAt(job: JobRt, i: number, k: number): number[] {
  const out = new Array<number>(k);
  let n = 0;
  for (let r = 0; r < k; r++) {
    const node = job.replicas[i * k + r] as number;
    if (node !== NO_NODE) out[n++] = node;
  }
  out.length = n;
  return out;
}

/** The pending list holds maps 0..n-1 in order (a job just admitted). */
function initPending(job: JobRt, n: number): void {
  job.pendingNext = new Int32Array(n);
  job.pendingPrev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    job.pendingNext[i] = i + 1 < n ? i + 1 : -1;
    job.pendingPrev[i] = i - 1;
  }
  job.pendingHead = n > 0 ? 0 : -1;
  job.pendingTail = n - 1;
  job.pendingCount = n;
  pendingChanged(job);
}

function clearPending(job: JobRt): void {
  job.pendingPrev.fill(NOT_PENDING);
  job.pendingHead = -1;
  job.pendingTail = -1;
  job.pendingCount = 0;
  pendingChanged(job);
}

function isPending(job: JobRt, i: number): boolean {
  return Number.isInteger(i) && i >= 0 && i < job.pendingPrev.length && job.pendingPrev[i] !== NOT_PENDING;
}

function removePending(job: JobRt, i: number): void {
  const prev = job.pendingPrev[i] as number;
  const next = job.pendingNext[i] as number;
  if (prev >= 0) job.pendingNext[prev] = next;
  else job.pendingHead = next;
  if (next >= 0) job.pendingPrev[next] = prev;
  else job.pendingTail = prev;
  job.pendingPrev[i] = NOT_PENDING;
  job.pendingCount--;
  pendingChanged(job);
}

function appendPending(job: JobRt, i: number): void {
  job.pendingPrev[i] = job.pendingTail;
  job.pendingNext[i] = -1;
  if (job.pendingTail >= 0) job.pendingNext[job.pendingTail] = i;
  else job.pendingHead = i;
  job.pendingTail = i;
  job.pendingCount++;
  pendingChanged(job);
}

function pendingChanged(job: JobRt): void {
  job.pendingArray = null;
  job.cursorPos = -1;
}

/** JobView.pendingMaps: the list as an array, rebuilt only after it changed. */
function pendingArrayOf(job: JobRt): number[] {
  if (job.pendingArray) return job.pendingArray;
  const out = new Array<number>(job.pendingCount);
  for (let m = job.pendingHead, k = 0; m >= 0; m = job.pendingNext[m] as number) out[k++] = m;
  return (job.pendingArray = out);
}

/** The i-th pending map (pendingMaps[i]); a walk 0, 1, 2, ... costs O(1) a step. */
function pendingMapAt(job: JobRt, i: number): number {
  if (!(i >= 0 && i < job.pendingCount))
    throw new RangeError(`no pending map at ${i} of ${job.pendingCount}`);
  let pos: number;
  let m: number;
  if (job.cursorPos >= 0 && job.cursorPos <= i) {
    pos = job.cursorPos;
    m = job.cursorMap;
  } else {
    pos = 0;
    m = job.pendingHead;
  }
  for (; pos < i; pos++) m = job.pendingNext[m] as number;
  job.cursorPos = pos;
  job.cursorMap = m;
  return m;
}

/** The job's pending maps local to `node`, in pending order (stale entries dropped here). */
function localPendingOn(job: JobRt, node: number): readonly number[] {
  const list = job.localPending?.[node];
  if (!list) return NO_MAPS;
  let w = 0;
  for (let r = 0; r < list.length; r++) {
    const m = list[r] as number;
    if (job.pendingPrev[m] !== NOT_PENDING) list[w++] = m;
  }
  if (w < list.length) list.length = w;
  return list;
}

/** Drops an attempt from its node's running list, keeping the others in start order. */
function removeRunning(node: NodeRt, row: number): void {
  const list = node.running;
  const at = list.indexOf(row);
  if (at < 0) return;
  for (let i = at + 1; i < list.length; i++) list[i - 1] = list[i] as number;
  list.pop();
}
