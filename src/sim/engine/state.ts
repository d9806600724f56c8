import { CodeQueue } from '../event-queue';
import type { ClusterSpec } from '../model';
import type { AdmissionPort, JobView, PlacementPort } from '../policy-port';
import { mulberry32, type Rng } from '../rng';
import { TaskLog } from '../task-log';
import { BlockMap } from './blocks';
import type { JobRt } from './job-state';
import { createNodes, Slots, type NodeRt } from './nodes';
import { TenantRt } from './tenant';
import type { EngineTenant } from './types';

/**
 * An event is one number on the agenda: subject * EV_KINDS + kind, the subject being a job
 * index (arrive, release, commit), a node index (heartbeat, fail, repair) or a task-log row (taskEnd), whose
 * row holds the rest (node, job, task, start). No object is made per event.
 */
export const EV_ARRIVE = 0;
export const EV_HEARTBEAT = 1;
export const EV_TASK_END = 2;
export const EV_FAIL = 3;
export const EV_REPAIR = 4;
/** The other tenant's events (engine/tenant.ts): one of its jobs arrives (subject: its index), */
export const EV_TENANT_ARRIVE = 5;
/** one of its containers ends (subject: the container), */
export const EV_TENANT_END = 6;
/** the preemption monitor runs (subject 0) or a marked batch is killed (subject 1). */
export const EV_PREEMPT = 7;
/** An admitted job's set-up ends and its tasks may start (subject: the job; TraceJob.overheads), */
export const EV_RELEASE = 8;
/** its commit ends and it finishes (subject: the job). */
export const EV_COMMIT = 9;
export const EV_KINDS = 10;

/** The agenda code of event `kind` about `subject`. */
export function eventCode(subject: number, kind: number): number {
  return subject * EV_KINDS + kind;
}

/**
 * One run's state, shared by the engine's parts (events.ts, dispatch.ts, results.ts): the
 * agenda, the nodes and their slots, the jobs, the admitted jobs in dispatch order, and the
 * running totals the heartbeats are judged by. Randomness only from the seed, one stream per
 * use.
 */
export class EngineState {
  readonly queue = new CodeQueue();
  readonly nodes: NodeRt[];
  readonly slots: Slots;
  readonly jobs: JobRt[] = [];
  readonly jobIndex = new Map<string, number>();
  readonly blocks: BlockMap;
  readonly rngJitter: Rng;
  readonly rngFail: Rng;
  readonly log = new TaskLog();
  /** Another tenant sharing the CPU containers, or null (the admitted jobs own the cluster). */
  readonly tenant: TenantRt | null;
  /** Admitted, unfinished jobs, in dispatch order once orderedQueue() has run. */
  active: JobRt[] = [];
  orderDirty = false;
  /** Set when a job's pending maps run out or come back: mapQueue() is rebuilt. */
  mapQueueDirty = true;
  /** Map tasks waiting in all active jobs, and reduces ready (their job's maps done) but not started. */
  pendingMapTotal = 0;
  readyReduceTotal = 0;
  settled = 0;
  /** Attempts running now, over every node. */
  runningTotal = 0;
  /** Last simulated second a job arrived, a task started or ended, or a node came back. */
  lastActivity = 0;
  now = 0;
  private activeViews: JobView[] = [];
  /** The active jobs with pending maps, in dispatch order: what the placement port is shown. */
  private mapQueueViews: JobView[] = [];

  constructor(
    readonly cluster: ClusterSpec,
    readonly admission: AdmissionPort,
    readonly placement: PlacementPort,
    seed: number,
    tenant?: EngineTenant,
  ) {
    const root = mulberry32(seed);
    const rngPhase = root.fork('heartbeat-phase');
    this.rngJitter = root.fork('task-jitter');
    const rngBlocks = root.fork('block-placement');
    this.rngFail = root.fork('failures');
    this.nodes = createNodes(cluster, rngPhase);
    this.slots = new Slots(
      cluster,
      this.nodes,
      Boolean(admission.containerLanes),
      tenant ? tenant.shares.realtime : null,
    );
    this.blocks = new BlockMap(cluster, this.nodes.length, rngBlocks, (id) => this.jobNamed(id));
    if (cluster.failures) {
      for (const n of this.nodes)
        this.queue.push(
          this.rngFail.exponential(cluster.failures.meanTimeBetweenSeconds),
          eventCode(n.index, EV_FAIL),
        );
    }
    this.tenant = tenant ? this.createTenant(tenant) : null;
  }

  private createTenant(t: EngineTenant): TenantRt {
    const codes = { arrive: EV_TENANT_ARRIVE, end: EV_TENANT_END, tick: EV_PREEMPT, kill: EV_PREEMPT };
    const slots = this.slots;
    return new TenantRt(t.spec, t.shares, t.jobs, t.model, {
      now: () => this.now,
      nodes: this.nodes,
      realtimeOpen: () => this.active.length > 0,
      freeCpu: () => slots.freeCpuContainers(),
      freeCpuOn: (node) => slots.physicalCpu(node),
      realtimeUsed: () => slots.realtimeUsed,
      take: (node) => slots.takeOther(node),
      release: (node) => slots.releaseOther(node),
      schedule: (at, what, subject) =>
        this.queue.push(at, eventCode(what === 'kill' ? 1 : subject, codes[what])),
      wake: () => this.wakeAll(),
    });
  }

  jobNamed(jobId: string): JobRt | undefined {
    const i = this.jobIndex.get(jobId);
    return i === undefined ? undefined : this.jobs[i];
  }

  mustJob(jobId: string): JobRt {
    const job = this.jobNamed(jobId);
    if (job === undefined) throw new RangeError(`unknown job ${jobId}`);
    return job;
  }

  orderedQueue(): readonly JobView[] {
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
  mapQueue(): readonly JobView[] {
    this.orderedQueue();
    if (this.mapQueueDirty) {
      this.mapQueueViews = [];
      for (const j of this.active) if (j.pendingCount > 0) this.mapQueueViews.push(j.view);
      this.mapQueueDirty = false;
    }
    return this.mapQueueViews;
  }

  removeActive(job: JobRt): void {
    const i = this.active.indexOf(job);
    if (i >= 0) this.active.splice(i, 1);
    this.orderDirty = true;
  }

  /**
   * The index of the next reduce to start: a lost one again, else the next never started (while
   * none is lost, `reduces - pendingReduces` of them have been started).
   */
  nextReduceIndex(job: JobRt): number {
    return job.lostReduces.pop() ?? job.spec.reduces - job.pendingReduces;
  }

  // ---------------------------------------------------------------- heartbeats

  /**
   * A node that heartbeats with nothing to do parks until something changes (a job arrives,
   * one of its tasks ends); it resumes on its own heartbeat phase. This is exactly equivalent
   * to heartbeating idly and is what makes large traces fast.
   */
  worthHeartbeating(node: NodeRt): boolean {
    if (!node.alive || this.active.length === 0) return false;
    const freeMap = this.slots.freeFor(node, 'map');
    const freeReduce = this.slots.freeFor(node, 'reduce');
    if (freeMap === 0 && freeReduce === 0) return false;
    return (freeMap > 0 && this.pendingMapTotal > 0) || (freeReduce > 0 && this.readyReduceTotal > 0);
  }

  /** Schedule the node's next heartbeat on its own phase, strictly after `after`. */
  scheduleHeartbeat(node: NodeRt, after: number): void {
    if (!node.parked) return;
    node.parked = false;
    const h = this.cluster.heartbeatSeconds;
    const k = Math.floor((after - node.phase) / h) + 1;
    this.queue.push(node.phase + Math.max(0, k) * h, eventCode(node.index, EV_HEARTBEAT));
  }

  /** The node's next heartbeat, when it has something to do. */
  heartbeatIfWorth(node: NodeRt): void {
    if (this.worthHeartbeating(node)) this.scheduleHeartbeat(node, this.now);
  }

  wakeAll(): void {
    for (const n of this.nodes) if (n.parked) this.heartbeatIfWorth(n);
  }
}
