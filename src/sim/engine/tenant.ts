import { heldContainers, preemptionReturns, type PreemptionModel } from '../../core/sharing';
import type { TenantJob, TenantShares, TenantSpec } from '../tenant';
import type { NodeRt } from './nodes';

/**
 * The other tenant in the engine: the CapacityScheduler's side of a cluster two queues share
 * (src/sim/tenant.ts gives the shapes). The rules, as docs/simulator.md ("Other tenants in the
 * simulator") states them:
 *
 * - The real-time queue (the admitted jobs) may hold up to its guarantee and never more (Slots'
 *   cap); the tenant its own guarantee at any time, and up to its maximum while the real-time
 *   queue has no admitted job open. A real-time queue with admitted work counts as asking for
 *   its whole guarantee (a queue below its guarantee is served first), so the tenant borrows only
 *   while it has none, and the containers it then holds beyond its guarantee are held: the
 *   real-time queue's (heldContainers).
 * - Preemption off: a held container comes back when one of the tenant's containers ends.
 * - Preemption on: the monitor runs every interval on the clock (0, interval, 2·interval, ...);
 *   while the real-time queue has open work and containers are held, a run with no container
 *   marked marks a batch of the youngest tenant containers, sized as core/sharing.ts's model
 *   sizes its first batch, and kills those still running max_wait_before_kill later; the killed
 *   containers' work starts again from nothing. A marked batch counts as taken until its kill, as
 *   in Hadoop, so the next batch is marked at the first run after it.
 *
 * The engine calls `changed()` after every event that frees or takes a container or opens or
 * closes the real-time queue's work, and routes the tenant's own events here.
 */

/** One attempt of one of the tenant's containers. */
interface TenantTask {
  readonly job: number;
  readonly node: NodeRt;
  readonly start: number;
  readonly end: number;
  running: boolean;
}

/** A batch of containers the preemption monitor marked, and what its kill did. */
export interface PreemptionBatch {
  /** When the monitor marked it. */
  readonly markedAt: number;
  /** When the kill was due (markedAt + max_wait_before_kill). */
  readonly killAt: number;
  /** Containers held when it was marked. */
  readonly heldAtMark: number;
  readonly marked: number;
  /** Of them, still running at the kill and killed (the others had ended). */
  killed: number;
}

/** What the tenant did in a run (Engine.tenantReport). */
export interface TenantReport {
  readonly shares: TenantShares;
  readonly jobs: number;
  /** Containers it started, a restart after preemption included. */
  readonly started: number;
  /** Containers killed by preemption. */
  readonly preempted: number;
  readonly batches: readonly PreemptionBatch[];
  /** Container-seconds the tenant held beyond its guarantee (borrowed). */
  readonly borrowedSeconds: number;
}

/** What the engine lends the tenant: its clock, agenda, nodes and whether admitted work is open. */
export interface TenantHost {
  now(): number;
  readonly nodes: readonly NodeRt[];
  /** Whether the real-time queue has an admitted job that has not ended. */
  realtimeOpen(): boolean;
  /** Free CPU containers on the nodes that are up, whoever may take them. */
  freeCpu(): number;
  /** A node's free CPU containers. */
  freeCpuOn(node: NodeRt): number;
  /** CPU containers the real-time queue holds now. */
  realtimeUsed(): number;
  take(node: NodeRt): void;
  release(node: NodeRt): void;
  /** Schedule a tenant event: `what` 'end' (subject a task), 'tick' or 'kill' (subject 0). */
  schedule(at: number, what: 'arrive' | 'end' | 'tick' | 'kill', subject: number): void;
  /** The real-time queue may now take containers it could not: wake its nodes. */
  wake(): void;
}

export class TenantRt {
  /** Containers the tenant holds now. */
  used = 0;
  private readonly tasks: TenantTask[] = [];
  /** The attempts running now (indices into tasks). */
  private readonly running = new Set<number>();
  /** Containers waiting to start, as job indices in arrival order (a killed one goes first). */
  private readonly waiting: number[] = [];
  private waitHead = 0;
  private readonly requeued: number[] = [];
  private tickAt: number | null = null;
  private marked: number[] = [];
  private readonly batches: PreemptionBatch[] = [];
  private started = 0;
  private preempted = 0;
  private borrowedSeconds = 0;
  private lastAccount = 0;
  readonly model: PreemptionModel;

  constructor(
    readonly spec: TenantSpec,
    readonly shares: TenantShares,
    readonly jobs: readonly TenantJob[],
    model: PreemptionModel,
    private readonly host: TenantHost,
  ) {
    this.model = model;
    jobs.forEach((j, i) => host.schedule(j.arrival, 'arrive', i));
  }

  /** Containers of the real-time queue's guarantee the tenant holds now. */
  held(): number {
    return heldContainers({
      guaranteed: this.shares.realtime,
      used: this.host.realtimeUsed(),
      free: this.host.freeCpu(),
    });
  }

  /** The ends of the tenant's running containers (absolute seconds), ascending. */
  runningEnds(): number[] {
    return [...this.running].map((id) => (this.tasks[id] as TenantTask).end).sort((a, b) => a - b);
  }

  get runningCount(): number {
    return this.used;
  }

  report(): TenantReport {
    this.account();
    return {
      shares: this.shares,
      jobs: this.jobs.length,
      started: this.started,
      preempted: this.preempted,
      batches: this.batches.map((b) => ({ ...b })),
      borrowedSeconds: this.borrowedSeconds,
    };
  }

  /** One of its jobs arrives: its containers wait for room. */
  arrive(job: number): void {
    this.account();
    const n = (this.jobs[job] as TenantJob).containers;
    for (let i = 0; i < n; i++) this.waiting.push(job);
    this.changed();
  }

  /** One of its containers ends (unless preemption killed it first). */
  ended(task: number): void {
    const t = this.tasks[task] as TenantTask;
    if (!t.running) return;
    this.account();
    this.stop(task);
    this.changed();
  }

  /** The preemption monitor runs. */
  tick(): void {
    this.tickAt = null;
    const held = this.held();
    if (!this.host.realtimeOpen() || held === 0) return;
    if (this.marked.length === 0) this.mark(held);
    this.scheduleTick();
  }

  /** A marked batch's wait is over: kill what still runs of it, if the real-time queue still wants it. */
  kill(): void {
    this.account();
    const batch = this.batches[this.batches.length - 1];
    const marked = this.marked;
    this.marked = [];
    if (!batch || !this.host.realtimeOpen()) {
      this.changed();
      return;
    }
    for (const id of marked) {
      const t = this.tasks[id] as TenantTask;
      if (!t.running) continue;
      this.stop(id);
      batch.killed++;
      this.preempted++;
      this.requeued.push(t.job);
    }
    this.changed();
  }

  /**
   * Something changed the containers or the real-time queue's work: start what the tenant may,
   * keep the monitor running while it has something to take back, wake the real-time queue.
   */
  changed(): void {
    this.account();
    let took = false;
    while (this.hasWaiting() && this.mayTake()) {
      this.startOne();
      took = true;
    }
    if (this.spec.preemption === 'on' && this.tickAt === null && this.host.realtimeOpen() && this.held() > 0)
      this.scheduleTick();
    if (this.host.realtimeOpen() && (took || this.host.freeCpu() > 0)) this.host.wake();
  }

  /** Whether the tenant may take a free container now (the rules above). */
  private mayTake(): boolean {
    if (this.host.freeCpu() === 0) return false;
    if (this.used < this.shares.guaranteed) return true;
    return this.used < this.shares.max && !this.host.realtimeOpen();
  }

  private hasWaiting(): boolean {
    return this.requeued.length > 0 || this.waitHead < this.waiting.length;
  }

  /** The next waiting container, on the node with the most free CPU containers (lowest index on a tie). */
  private startOne(): void {
    const job = this.requeued.length > 0 ? (this.requeued.shift() as number) : this.waiting[this.waitHead++]!;
    let best: NodeRt | null = null;
    let bestFree = 0;
    for (const n of this.host.nodes) {
      const free = n.alive ? this.host.freeCpuOn(n) : 0;
      if (free > bestFree) {
        best = n;
        bestFree = free;
      }
    }
    if (best === null) throw new Error('tenant: no free CPU container although one was counted');
    const now = this.host.now();
    const seconds = (this.jobs[job] as TenantJob).seconds;
    const task: TenantTask = { job, node: best, start: now, end: now + seconds, running: true };
    this.tasks.push(task);
    this.running.add(this.tasks.length - 1);
    this.host.take(best);
    this.used++;
    this.started++;
    this.host.schedule(task.end, 'end', this.tasks.length - 1);
  }

  private stop(id: number): void {
    const t = this.tasks[id] as TenantTask;
    this.running.delete(id);
    t.running = false;
    this.host.release(t.node);
    this.used--;
  }

  /**
   * Marks the first batch core/sharing.ts's model would return of `held` containers: the
   * youngest running containers (latest start first, as the policy takes the most recently
   * allocated), killed max_wait_before_kill from now.
   */
  private mark(held: number): void {
    const returns = preemptionReturns(held, this.model);
    const size = returns.filter((r) => r === returns[0]).length;
    const youngest = [...this.running].sort(
      (a, b) => (this.tasks[b] as TenantTask).start - (this.tasks[a] as TenantTask).start || b - a,
    );
    this.marked = youngest.slice(0, size);
    const killAt = this.host.now() + this.model.maxWaitBeforeKillSeconds;
    this.batches.push({
      markedAt: this.host.now(),
      killAt,
      heldAtMark: held,
      marked: this.marked.length,
      killed: 0,
    });
    this.host.schedule(killAt, 'kill', 0);
  }

  /** The monitor's next run on its clock, strictly after now. */
  private scheduleTick(): void {
    const i = this.model.monitoringIntervalSeconds;
    const at = (Math.floor(this.host.now() / i + 1e-9) + 1) * i;
    this.tickAt = at;
    this.host.schedule(at, 'tick', 0);
  }

  /** Adds the borrowed container-seconds since the last account. */
  private account(): void {
    const now = this.host.now();
    this.borrowedSeconds +=
      Math.max(0, this.used - this.shares.guaranteed) * Math.max(0, now - this.lastAccount);
    this.lastAccount = now;
  }
}
