import { SimulationStalledError } from '../../errors/simulation-stalled';
import { slotTotals, type ClusterSpec, type TraceJob } from '../model';
import type { RunContext } from '../policy-port';
import type { EndedTasks } from '../task-log';
import { onHeartbeat } from './dispatch';
import { killJob, onArrive, onCommitted, onFail, onRelease, onRepair, onTaskEnd } from './events';
import { newJob, type JobRt } from './job-state';
import { EngineJobView } from './job-view';
import type { NodeRt } from './nodes';
import {
  outcomeOf,
  runningTasksOf,
  snapshotOf,
  taskEnergyKWh,
  taskProgressOf,
  taskRecordOf,
} from './results';
import {
  EV_ARRIVE,
  EV_COMMIT,
  EV_FAIL,
  EV_HEARTBEAT,
  EV_KINDS,
  EV_PREEMPT,
  EV_RELEASE,
  EV_REPAIR,
  EV_TASK_END,
  EV_TENANT_ARRIVE,
  EV_TENANT_END,
  EngineState,
  eventCode,
} from './state';
import { evenSplits, worstMapSecondsOn, worstReduceSecondsOn } from './timing';
import type { TenantReport } from './tenant';
import type {
  EngineOptions,
  EngineSnapshot,
  JobOutcome,
  RunningAttempt,
  SharingRead,
  TaskRecord,
} from './types';

export type { IndexedJobView } from '../policy-port';
export { evenSplits, runKind, worstMapSecondsOn, worstReduceSecondsOn } from './timing';
export type { PreemptionBatch, TenantReport } from './tenant';
export type {
  ContainerKind,
  EngineOptions,
  EngineTenant,
  SharingRead,
  EngineSnapshot,
  JobOutcome,
  JobStatus,
  RunningAttempt,
  TaskRecord,
} from './types';

/** What an event does to the state, given its subject (see state.ts: a job, node, task-log row or tenant's). */
type EventHandler = (s: EngineState, subject: number) => void;

/** A tenant's container ending, or preemption acting, counts as activity: the run has not stalled. */
const tenantRelease =
  (run: (tenant: NonNullable<EngineState['tenant']>, subject: number) => void): EventHandler =>
  (s, subject) => {
    if (s.tenant) run(s.tenant, subject);
    s.lastActivity = s.now;
  };

/** The handler of each kind of event, indexed by kind. */
const EVENT_HANDLERS: readonly EventHandler[] = (() => {
  const h: EventHandler[] = new Array<EventHandler>(EV_KINDS);
  h[EV_ARRIVE] = (s, job) => onArrive(s, s.jobs[job] as JobRt);
  h[EV_RELEASE] = (s, job) => onRelease(s, s.jobs[job] as JobRt);
  h[EV_COMMIT] = (s, job) => onCommitted(s, s.jobs[job] as JobRt);
  h[EV_HEARTBEAT] = (s, node) => onHeartbeat(s, s.nodes[node] as NodeRt);
  h[EV_TASK_END] = onTaskEnd;
  h[EV_FAIL] = (s, node) => onFail(s, s.nodes[node] as NodeRt);
  h[EV_REPAIR] = (s, node) => onRepair(s, s.nodes[node] as NodeRt);
  h[EV_TENANT_ARRIVE] = (s, job) => s.tenant?.arrive(job);
  h[EV_TENANT_END] = tenantRelease((t, container) => t.ended(container));
  // The preemption monitor runs (subject 0) or a marked batch is killed (subject 1).
  h[EV_PREEMPT] = tenantRelease((t, what) => (what === 0 ? t.tick() : t.kill()));
  return h;
})();

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
 *   queue order, subject to the admission policy's reduce rule (Alg. 5.4 for RTMR)
 *   (dispatch.ts).
 * - A map task's time is (fixed + perMB * split) / speed, times (1 + remoteReadPenalty)
 *   when no replica of its block is on the node, times a seeded jitter factor (timing.ts).
 * - Reduces start only after all maps of their job have finished (seed 000, assumption 3).
 * - A node that heartbeats with nothing to do parks until something changes (a job
 *   arrives, one of its tasks ends); it resumes on its own heartbeat phase. This is
 *   exactly equivalent to heartbeating idly and is what makes large traces fast (state.ts).
 *
 * The parts: state.ts (the run's state), events.ts (what each event does), dispatch.ts
 * (heartbeats), nodes.ts (slots), blocks.ts (HDFS replicas), job-state.ts and job-view.ts
 * (a job's bookkeeping and what policies see of it), results.ts (outcomes, attempts).
 */
export class Engine {
  readonly cluster: ClusterSpec;
  readonly context: RunContext;
  private readonly s: EngineState;
  private readonly onProgress: EngineOptions['onProgress'];
  /** TaskRecord objects of the first records.length ended attempts, made when asked for. */
  private readonly records: TaskRecord[] = [];
  private readonly stallSeconds: number;
  private eventsProcessed = 0;

  constructor(cluster: ClusterSpec, options: EngineOptions) {
    this.cluster = cluster;
    this.onProgress = options.onProgress;
    this.stallSeconds = options.stallSeconds ?? Math.max(3600, 100 * cluster.heartbeatSeconds);
    this.s = new EngineState(cluster, options.admission, options.placement, options.seed, options.tenant);
    this.context = {
      cluster,
      worstMapSeconds: (job) => this.worstMapSeconds(job),
      worstReduceSeconds: (job) => this.worstReduceSeconds(job),
    };
  }

  get now(): number {
    return this.s.now;
  }

  get events(): number {
    return this.eventsProcessed;
  }

  /** Jobs submitted so far (outcomes() lists them all). */
  get jobCount(): number {
    return this.s.jobs.length;
  }

  get nodeCount(): number {
    return this.s.nodes.length;
  }

  /** Node ids by index (the index policies receive). */
  nodeId(index: number): string {
    return (this.s.nodes[index] as NodeRt).id;
  }

  /** Whether node `index` is up (not failed). */
  nodeAlive(index: number): boolean {
    return (this.s.nodes[index] as NodeRt).alive;
  }

  /** Replicas of a block, by node index. */
  replicasOf(blockId: string): readonly number[] {
    return this.s.blocks.replicasOf(blockId);
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
    this.s.blocks.placeBlock(blockId, nodes);
  }

  // ---------------------------------------------------------------- public controls

  /** Add a job; it arrives at max(job.arrival, now). */
  submit(spec: TraceJob): void {
    const s = this.s;
    if (s.jobIndex.has(spec.id)) throw new RangeError(`job ${spec.id} was already submitted`);
    const index = s.jobs.length;
    const splitBytes = spec.splits ?? evenSplits(spec.inputBytes, spec.maps);
    const replicas = s.blocks.replicasForJob(spec, splitBytes);
    const replication = s.blocks.replication;
    const job = newJob(index, spec, splitBytes, replicas, (j) => new EngineJobView(j, replication));
    s.jobs.push(job);
    s.jobIndex.set(spec.id, index);
    s.log.expect(spec.maps + spec.reduces);
    s.queue.push(Math.max(spec.arrival, s.now), eventCode(index, EV_ARRIVE));
  }

  /** Process every event at or before `t`, then set the clock to `t`. */
  advanceTo(t: number): void {
    if (t < this.s.now) throw new RangeError(`cannot go back in time from ${this.s.now} to ${t}`);
    for (;;) {
      const next = this.s.queue.peekTime();
      if (next === undefined || next > t) break;
      this.step();
    }
    this.s.now = t;
  }

  /** Process one event; false when nothing is left. */
  step(): boolean {
    const s = this.s;
    const q = s.queue;
    if (!q.pop()) return false;
    s.now = q.time;
    this.eventsProcessed++;
    const code = q.code;
    const kind = code % EV_KINDS;
    const subject = (code - kind) / EV_KINDS;
    (EVENT_HANDLERS[kind] as EventHandler)(s, subject);
    return true;
  }

  /**
   * Run until no event is left (every job settled, every node parked). Throws
   * SimulationStalledError when no event can make progress any more (see stallSeconds).
   */
  run(): void {
    const s = this.s;
    let sinceReport = 0;
    while (this.step()) {
      if (s.runningTotal === 0 && s.active.length > 0 && s.now - s.lastActivity > this.stallSeconds)
        this.checkStalled();
      if (this.onProgress && ++sinceReport >= 5000) {
        sinceReport = 0;
        this.onProgress(s.settled, s.jobs.length, s.now);
      }
      if (s.settled === s.jobs.length && !this.cluster.failures) {
        // Only parked heartbeats could remain; nothing more can happen.
        if (s.queue.size === 0) break;
      }
      // With failures or another tenant, events go on for ever: stop once every job is settled.
      if (s.settled === s.jobs.length && (this.cluster.failures || s.tenant)) break;
    }
    this.onProgress?.(s.settled, s.jobs.length, s.now);
  }

  /** Nothing runs and jobs wait: stalled unless a node is down (its repair may let them run). */
  private checkStalled(): void {
    const s = this.s;
    if (s.nodes.some((n) => !n.alive)) return;
    // The other tenant's containers end or are taken back, and the jobs may then run.
    if (s.tenant && s.tenant.runningCount > 0) return;
    throw new SimulationStalledError({
      now: s.now,
      idleSeconds: this.stallSeconds,
      waiting: s.active.map((j) => ({
        id: j.spec.id,
        pendingMaps: j.pendingCount,
        pendingReduces: j.pendingReduces,
      })),
    });
  }

  setPriority(jobId: string, priority: number): void {
    const job = this.s.mustJob(jobId);
    job.priority = priority;
    this.s.orderDirty = true;
  }

  moveToQueue(jobId: string, queue: string): void {
    this.s.mustJob(jobId).queue = queue;
    this.s.orderDirty = true;
  }

  /** Stop a job: pending tasks dropped, running attempts lost, slots freed. */
  kill(jobId: string): void {
    killJob(this.s, this.s.mustJob(jobId));
  }

  snapshot(): EngineSnapshot {
    return snapshotOf(this.s);
  }

  /** Every job's outcome, in submission order. */
  outcomes(): JobOutcome[] {
    return this.s.jobs.map(outcomeOf);
  }

  /**
   * Every task attempt, completed or lost, in the order they ended. The objects are made on
   * the first call that reaches them and kept, so a caller that reads the list again (the
   * emulator, after every advance) pays only for what ended since.
   */
  taskRecords(): readonly TaskRecord[] {
    const log = this.s.log;
    for (let k = this.records.length; k < log.length; k++)
      this.records.push(taskRecordOf(this.s, log.row(k)));
    return this.records;
  }

  /**
   * The same attempts as taskRecords(), read by column without making an object per attempt
   * (the metrics of a large run). Rows: jobIndex is the submission index, nodeIndex the
   * node's; flags are the TASK_* bits of task-log.ts.
   */
  endedTasks(): EndedTasks {
    return this.s.log;
  }

  /** Energy of a completed attempt (its node class's per-task figure for how it ran). */
  taskEnergyKWh(row: number): number {
    return taskEnergyKWh(this.s, row);
  }

  /**
   * One job's progress as its AM would report it: finished task counts, the running attempts'
   * starts (ascending) and the earliest start of any of its tasks; undefined for an unknown job.
   */
  taskProgress(jobId: string): ReturnType<typeof taskProgressOf> | undefined {
    const job = this.s.jobNamed(jobId);
    return job === undefined ? undefined : taskProgressOf(job, runningTasksOf(this.s, job.index));
  }

  /**
   * The attempts of one job running now, with their start and when each is scheduled to end
   * (`due`; a node failure or a kill may end it sooner): what a MapReduce AM reports.
   */
  runningTasksOf(jobId: string): RunningAttempt[] {
    const job = this.s.jobNamed(jobId);
    return job === undefined ? [] : runningTasksOf(this.s, job.index);
  }

  /**
   * The real-time queue's guarantee as the RM would show it now, with another tenant: its
   * guaranteed CPU containers, what it uses, what is free, and when each of the tenant's
   * containers ends. Undefined without a tenant.
   */
  sharingRead(): SharingRead | undefined {
    const t = this.s.tenant;
    if (!t) return undefined;
    return {
      guaranteed: t.shares.realtime,
      used: this.s.slots.realtimeUsed,
      free: this.s.slots.freeCpuContainers(),
      otherEnds: t.runningEnds(),
    };
  }

  /** What the other tenant did (undefined without one). */
  tenantReport(): TenantReport | undefined {
    return this.s.tenant?.report();
  }

  /** Idle energy: each node's idle power over [0, until], kWh (down time excluded). */
  idleEnergyKWh(from: number, until: number): number {
    let wattSeconds = 0;
    for (const n of this.s.nodes) wattSeconds += n.cls.idleWatts * Math.max(0, until - from);
    return wattSeconds / 3.6e6;
  }

  /** The seeds' eps^m for a job on this cluster (see worstMapSecondsOn). */
  worstMapSeconds(job: TraceJob): number {
    return worstMapSecondsOn(this.cluster, job);
  }

  /** The seeds' eps^r for a job on this cluster (see worstReduceSecondsOn). */
  worstReduceSeconds(job: TraceJob): number {
    return worstReduceSecondsOn(this.cluster, job);
  }

  /** Position of an admitted, unfinished job in dispatch order (0 = head). */
  queueRank(jobId: string): number {
    const q = this.s.orderedQueue();
    const job = this.s.jobNamed(jobId);
    if (job === undefined) return Number.MAX_SAFE_INTEGER;
    return q[job.rank] === job.view ? job.rank : Number.MAX_SAFE_INTEGER;
  }

  /** Total slots a utilisation figure divides by (map + reduce, or containers). */
  get totalSlots(): number {
    const t = slotTotals(this.cluster);
    return this.cluster.slotModel === 'mr1' ? t.map + t.reduce : t.containers;
  }
}
