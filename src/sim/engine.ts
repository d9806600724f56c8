import { EventQueue } from './event-queue';
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

type SimEvent =
  | { kind: 'arrive'; job: number }
  | { kind: 'heartbeat'; node: number }
  | { kind: 'taskEnd'; node: number; job: number; task: TaskKind; index: number; attempt: number }
  | { kind: 'fail'; node: number }
  | { kind: 'repair'; node: number };

/**
 * The engine's job views also carry its index of pending maps by replica node, so a
 * placement adapter can find a node's local tasks without walking the job's pending list.
 */
export interface IndexedJobView extends JobView {
  /** Pending map indices with a replica on node `node`, in pendingMaps order. Live: do not mutate. */
  pendingMapsOn(node: number): readonly number[];
}

const NO_MAPS: readonly number[] = Object.freeze([]);

export type JobStatus = 'waiting' | 'rejected' | 'admitted' | 'running' | 'finished' | 'killed';

export type ContainerKind = 'cpu' | 'gpu';

interface RunningTask {
  job: number;
  task: TaskKind;
  index: number;
  start: number;
  attempt: number;
  container: ContainerKind;
}

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
  running: Map<number, RunningTask>;
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
  pendingMaps: number[];
  /**
   * Pending map tasks indexed by replica node: node index -> the pending maps with a replica
   * of their block on that node, in pendingMaps order (both only ever lose entries or gain
   * one at the end). Built when the job is admitted, dropped when it leaves.
   */
  localPending: Map<number, number[]> | null;
  runningMaps: number;
  finishedMaps: number;
  pendingReduces: number;
  /** Reduce indices whose attempt was lost with a failed node, to run again. */
  lostReduces: number[];
  runningReduces: number;
  finishedReduces: number;
  blocks: string[];
  /** Replica nodes of each map's block (the arrays blockReplicas holds, looked up once). */
  replicas: number[][];
  splitBytes: number[];
  mapStarts: number[];
  mapFinishes: number[];
  reduceStarts: number[];
  reduceFinishes: number[];
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
  private readonly queue = new EventQueue<SimEvent>();
  private readonly nodes: NodeRt[] = [];
  private readonly jobs: JobRt[] = [];
  private readonly jobIndex = new Map<string, number>();
  private readonly blockReplicas = new Map<string, number[]>();
  private readonly admission: AdmissionPort;
  private readonly placement: PlacementPort;
  private readonly rngJitter: Rng;
  private readonly rngBlocks: Rng;
  private readonly rngFail: Rng;
  private readonly onProgress: EngineOptions['onProgress'];
  private readonly tasks: TaskRecord[] = [];
  private active: JobRt[] = [];
  private activeViews: JobView[] = [];
  private orderDirty = false;
  /** The active jobs with pending maps, in dispatch order: what the placement port is shown. */
  private mapQueueViews: JobView[] = [];
  private mapQueueDirty = true;
  private attemptSeq = 0;
  /** Map tasks waiting in all active jobs, and reduces ready (their job's maps done) but not started. */
  private pendingMapTotal = 0;
  private readyReduceTotal = 0;
  private settled = 0;
  private eventsProcessed = 0;
  private _now = 0;

  constructor(cluster: ClusterSpec, options: EngineOptions) {
    this.cluster = cluster;
    this.admission = options.admission;
    this.placement = options.placement;
    this.onProgress = options.onProgress;
    const root = mulberry32(options.seed);
    const rngPhase = root.fork('heartbeat-phase');
    this.rngJitter = root.fork('task-jitter');
    this.rngBlocks = root.fork('block-placement');
    this.rngFail = root.fork('failures');
    const unified = cluster.slotModel === 'unified';
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
          running: new Map(),
        });
      }
    }
    this.placeClusterBlocks();
    if (cluster.failures) {
      for (const n of this.nodes)
        this.queue.push(this.rngFail.exponential(cluster.failures.meanTimeBetweenSeconds), {
          kind: 'fail',
          node: n.index,
        });
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
    return this.blockReplicas.get(blockId) ?? [];
  }

  // ---------------------------------------------------------------- public controls

  /** Add a job; it arrives at max(job.arrival, now). */
  submit(spec: TraceJob): void {
    if (this.jobIndex.has(spec.id)) throw new RangeError(`job ${spec.id} was already submitted`);
    const index = this.jobs.length;
    const splitBytes = spec.splits ?? evenSplits(spec.inputBytes, spec.maps);
    const blocks = spec.blocks ?? splitBytes.map((_, i) => `${spec.id}/blk_${i}`);
    for (const b of blocks) this.ensureBlock(b);
    const replicas = blocks.map((b) => this.blockReplicas.get(b) as number[]);
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
      pendingMaps: [],
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
      mapStarts: new Array<number>(spec.maps).fill(Number.NaN),
      mapFinishes: new Array<number>(spec.maps).fill(Number.NaN),
      reduceStarts: [],
      reduceFinishes: [],
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
    this.queue.push(Math.max(spec.arrival, this._now), { kind: 'arrive', job: index });
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
    const item = this.queue.pop();
    if (!item) return false;
    this._now = item.time;
    this.eventsProcessed++;
    this.handle(item.event);
    return true;
  }

  /** Run until no event is left (every job settled, every node parked). */
  run(): void {
    let sinceReport = 0;
    while (this.step()) {
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
      this.pendingMapTotal -= job.pendingMaps.length;
      if (job.finishedMaps === job.spec.maps) this.readyReduceTotal -= job.pendingReduces;
    }
    job.pendingMaps.length = 0;
    job.localPending = null;
    this.mapQueueDirty = true;
    job.version++;
    job.pendingReduces = 0;
    for (const node of this.nodes) {
      for (const [attempt, t] of node.running) {
        if (t.job !== job.index) continue;
        this.loseAttempt(node, attempt, t);
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
        runningTasks: n.running.size,
      })),
      jobs: this.jobs.map((j) => ({
        id: j.spec.id,
        status: j.status,
        queue: j.queue,
        priority: j.priority,
        arrival: j.spec.arrival,
        absDeadline: j.absDeadline,
        mapsPending: j.pendingMaps.length,
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
    const localByJob = new Map<string, number>();
    for (const t of this.tasks)
      if (t.completed && t.kind === 'map' && t.local) localByJob.set(t.job, (localByJob.get(t.job) ?? 0) + 1);
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
        localMaps: localByJob.get(j.spec.id) ?? 0,
      };
    });
  }

  /** Every task attempt, completed or lost, in the order they ended. */
  taskRecords(): readonly TaskRecord[] {
    return this.tasks;
  }

  /** The attempts of one job running now, with their start (what a MapReduce AM reports). */
  runningTasksOf(jobId: string): Array<{ kind: TaskKind; index: number; start: number; node: string }> {
    const idx = this.jobIndex.get(jobId);
    const out: Array<{ kind: TaskKind; index: number; start: number; node: string }> = [];
    if (idx === undefined) return out;
    for (const n of this.nodes)
      for (const t of n.running.values())
        if (t.job === idx) out.push({ kind: t.task, index: t.index, start: t.start, node: n.id });
    return out;
  }

  /** Idle energy: each node's idle power over [0, until], kWh (down time excluded). */
  idleEnergyKWh(from: number, until: number): number {
    let wattSeconds = 0;
    for (const n of this.nodes) wattSeconds += n.cls.idleWatts * Math.max(0, until - from);
    return wattSeconds / 3.6e6;
  }

  // ---------------------------------------------------------------- event handling

  private handle(ev: SimEvent): void {
    switch (ev.kind) {
      case 'arrive':
        return this.onArrive(this.jobs[ev.job] as JobRt);
      case 'heartbeat':
        return this.onHeartbeat(this.nodes[ev.node] as NodeRt);
      case 'taskEnd':
        return this.onTaskEnd(ev);
      case 'fail':
        return this.onFail(this.nodes[ev.node] as NodeRt);
      case 'repair':
        return this.onRepair(this.nodes[ev.node] as NodeRt);
    }
  }

  private onArrive(job: JobRt): void {
    if (job.status !== 'waiting') return; // killed before arrival
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
    job.pendingMaps = Array.from({ length: job.spec.maps }, (_, i) => i);
    job.localPending = new Map();
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
          this.dispatchContainers(node, queue, 'map');
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

  private onTaskEnd(ev: Extract<SimEvent, { kind: 'taskEnd' }>): void {
    const node = this.nodes[ev.node] as NodeRt;
    const t = node.running.get(ev.attempt);
    if (!t) return; // the attempt was lost (failure or kill)
    node.running.delete(ev.attempt);
    this.release(node, ev.task, t.container);
    const job = this.jobs[ev.job] as JobRt;
    const duration = this._now - t.start;
    job.slotSeconds += duration;
    const run = runKind(job.spec.type, t.container);
    this.tasks.push({
      job: job.spec.id,
      kind: ev.task,
      index: ev.index,
      node: node.id,
      nodeClass: node.cls.name,
      start: t.start,
      end: this._now,
      local: ev.task === 'map' ? this.isLocal(job, ev.index, node.index) : true,
      container: t.container,
      completed: true,
      energyKWh: node.cls.taskEnergyKWh[run],
    });
    if (ev.task === 'map') {
      job.runningMaps--;
      job.finishedMaps++;
      job.mapFinishes[ev.index] = this._now;
      if (job.finishedMaps === job.spec.maps) this.readyReduceTotal += job.pendingReduces;
    } else {
      job.runningReduces--;
      job.finishedReduces++;
      job.reduceFinishes[ev.index] = this._now;
    }
    if (job.finishedMaps === job.spec.maps && job.finishedReduces === job.spec.reduces) this.finishJob(job);
    if (this.worthHeartbeating(node)) this.scheduleHeartbeat(node, this._now);
    if (ev.task === 'map' && job.finishedMaps === job.spec.maps && job.spec.reduces > 0) this.wakeAll();
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
    for (const [attempt, t] of node.running) {
      const job = this.jobs[t.job] as JobRt;
      this.loseAttempt(node, attempt, t);
      if (t.task === 'map') {
        job.runningMaps--;
        job.pendingMaps.push(t.index);
        this.indexPendingMap(job, t.index);
        if (job.pendingMaps.length === 1) this.mapQueueDirty = true;
        job.version++;
        this.pendingMapTotal++;
      } else {
        job.runningReduces--;
        job.pendingReduces++;
        job.lostReduces.push(t.index);
        this.readyReduceTotal++;
      }
    }
    this.queue.push(this._now + this.cluster.failures.repairSeconds, { kind: 'repair', node: node.index });
    this.wakeAll();
  }

  private onRepair(node: NodeRt): void {
    if (!this.cluster.failures) return;
    node.alive = true;
    if (this.settled < this.jobs.length) {
      this.queue.push(this._now + this.rngFail.exponential(this.cluster.failures.meanTimeBetweenSeconds), {
        kind: 'fail',
        node: node.index,
      });
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
      const pos = job.pendingMaps.indexOf(a.mapIndex);
      if (pos < 0)
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
      job.pendingMaps.splice(pos, 1);
      this.unindexPendingMap(job, a.mapIndex);
      if (job.pendingMaps.length === 0) this.mapQueueDirty = true;
      job.version++;
      this.startTask(node, job, 'map', a.mapIndex, kind);
    }
  }

  private startTask(node: NodeRt, job: JobRt, kind: TaskKind, index: number, container: ContainerKind): void {
    this.take(node, kind, container);
    const attempt = ++this.attemptSeq;
    node.running.set(attempt, { job: job.index, task: kind, index, start: this._now, attempt, container });
    let seconds: number;
    if (kind === 'map') {
      job.runningMaps++;
      this.pendingMapTotal--;
      job.mapStarts[index] = this._now;
      seconds = this.mapSeconds(job, index, node, container);
    } else {
      job.pendingReduces--;
      this.readyReduceTotal--;
      job.runningReduces++;
      job.reduceStarts[index] = this._now;
      seconds = this.reduceSeconds(job, index, node, container);
    }
    if (!job.started) {
      job.started = true;
      job.status = 'running';
      this.admission.jobStarted(job.spec.id, this._now);
    }
    this.queue.push(this._now + seconds, {
      kind: 'taskEnd',
      node: node.index,
      job: job.index,
      task: kind,
      index,
      attempt,
    });
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
      mapStarts: job.mapStarts.slice(),
      mapFinishes: job.mapFinishes.slice(),
      reduceStarts: job.reduceStarts.slice(),
      reduceFinishes: job.reduceFinishes.slice(),
    };
    this.admission.jobFinished(record, this._now);
  }

  private loseAttempt(node: NodeRt, attempt: number, t: RunningTask): void {
    node.running.delete(attempt);
    this.release(node, t.task, t.container);
    const job = this.jobs[t.job] as JobRt;
    this.tasks.push({
      job: job.spec.id,
      kind: t.task,
      index: t.index,
      node: node.id,
      nodeClass: node.cls.name,
      start: t.start,
      end: this._now,
      local: t.task === 'map' ? this.isLocal(job, t.index, node.index) : true,
      container: t.container,
      completed: false,
      energyKWh: 0,
    });
  }

  // ---------------------------------------------------------------- timing model

  private mapSeconds(job: JobRt, index: number, node: NodeRt, container: ContainerKind): number {
    const local = this.isLocal(job, index, node.index);
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
    this.queue.push(node.phase + Math.max(0, k) * h, { kind: 'heartbeat', node: node.index });
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
      for (const j of this.active) if (j.pendingMaps.length > 0) this.mapQueueViews.push(j.view);
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

  private ensureBlock(id: string): void {
    if (this.blockReplicas.has(id)) return;
    const n = this.nodes.length;
    const k = Math.min(this.cluster.hdfs.replication, n);
    const chosen = new Set<number>();
    while (chosen.size < k) chosen.add(this.rngBlocks.int(0, n - 1));
    this.blockReplicas.set(id, [...chosen]);
  }

  /** Appends map `i` to the local lists of its block's replica nodes (it is last in pendingMaps). */
  private indexPendingMap(job: JobRt, i: number): void {
    const index = job.localPending;
    if (!index) return;
    for (const r of job.replicas[i] as number[]) {
      const list = index.get(r);
      if (list) list.push(i);
      else index.set(r, [i]);
    }
  }

  private unindexPendingMap(job: JobRt, i: number): void {
    const index = job.localPending;
    if (!index) return;
    for (const r of job.replicas[i] as number[]) {
      const list = index.get(r) as number[];
      const at = list.indexOf(i);
      if (at >= 0) list.splice(at, 1);
    }
  }

  private isLocal(job: JobRt, mapIndex: number, node: number): boolean {
    return (job.replicas[mapIndex] as number[]).includes(node);
  }

  // ---------------------------------------------------------------- views

  private makeView(job: JobRt): IndexedJobView {
    return {
      get id() {
        return job.spec.id;
      },
      index: job.index,
      spec: job.spec,
      get absDeadline() {
        return job.absDeadline;
      },
      get admittedAt() {
        return job.admittedAt;
      },
      get priority() {
        return job.priority;
      },
      get queue() {
        return job.queue;
      },
      get pendingMaps() {
        return job.pendingMaps;
      },
      get runningMaps() {
        return job.runningMaps;
      },
      get finishedMaps() {
        return job.finishedMaps;
      },
      get pendingReduces() {
        return job.pendingReduces;
      },
      get runningReduces() {
        return job.runningReduces;
      },
      get finishedReduces() {
        return job.finishedReduces;
      },
      get mapsDone() {
        return job.finishedMaps === job.spec.maps;
      },
      get version() {
        return job.version;
      },
      mapBlock: (i) => job.blocks[i] as string,
      mapReplicas: (i) => job.replicas[i] as number[],
      pendingMapsOn: (node) => job.localPending?.get(node) ?? NO_MAPS,
    };
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
