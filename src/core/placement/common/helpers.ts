import { z } from 'zod';
import { ValidationError } from '../../../errors/validation';
import type { Assignment, ContainerKind, FreeContainers, NodeView, PendingTask, PlacementJob } from './types';

/** Default name of the YARN node label of the GPU partition (config `yarn.gpuLabel`). */
export const DEFAULT_GPU_LABEL = 'gpu';

/**
 * Parses a policy's arguments with a strict schema (unknown keys are errors), applying the
 * schema's defaults, and turns every problem into a ValidationError issue under `path`.
 */
export function parseArgs<T extends z.ZodType>(schema: T, raw: unknown, path: string): z.output<T> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return Object.freeze(result.data) as z.output<T>;
  throw new ValidationError(
    result.error.issues.map((issue) => {
      const keys = (issue as { keys?: string[] }).keys;
      const at = [path, ...issue.path.map(String)].join('.');
      return { path: keys && keys.length > 0 ? `${at}.${keys.join(',')}` : at, message: issue.message };
    }),
  );
}

export const gpuLabelSchema = z.string().min(1).default(DEFAULT_GPU_LABEL);

/**
 * The container kinds job `kind` may use on `node`, in order of preference (He, dissertation, section
 * 6.1.4, "relevant containers"): a CPU job uses CPU containers; a GPU job only GPU containers
 * of a node carrying the GPU label; an adaptive job either, the GPU first because its device
 * check (Table 6.1 line 7) runs the GPU code whenever it finds an idle GPU. GPU capacity on a
 * node without the label is not a relevant container for anyone: YARN would not grant it to a
 * GPU request, and a CPU request does not ask for a GPU.
 */
export function relevantKinds(
  kind: PlacementJob['kind'],
  node: Pick<NodeView, 'labels'>,
  gpuLabel: string,
): ContainerKind[] {
  const gpuOk = node.labels.includes(gpuLabel);
  switch (kind) {
    case 'cpu':
      return ['cpu'];
    case 'gpu':
      return gpuOk ? ['gpu'] : [];
    case 'adaptive':
      return gpuOk ? ['gpu', 'cpu'] : ['cpu'];
  }
}

/** A mutable copy of a node's free containers, used while one heartbeat is being filled. */
export class FreeCounter {
  private cpu: number;
  private gpu: number;

  constructor(free: FreeContainers) {
    // Negative or fractional counts from a driver would let a policy over-assign; clamp to whole containers.
    this.cpu = Math.max(0, Math.floor(free.cpu));
    this.gpu = Math.max(0, Math.floor(free.gpu));
  }

  get total(): number {
    return this.cpu + this.gpu;
  }

  /** The first kind in `kinds` with a free container, or undefined. */
  firstAvailable(kinds: readonly ContainerKind[]): ContainerKind | undefined {
    return kinds.find((k) => this[k] > 0);
  }

  take(kind: ContainerKind): void {
    if (this[kind] <= 0) throw new Error(`no free ${kind} container left`);
    this[kind] -= 1;
  }
}

export function isLocal(task: PendingTask, nodeId: string): boolean {
  return task.replicaNodes.includes(nodeId);
}

/**
 * Accessors a driver may add to a PlacementJob so that a heartbeat costs what it assigns, not
 * the length of every job's pending list (the simulator's adapter keeps pending map tasks
 * indexed by replica node). Each must agree exactly with `pendingTasks`:
 *  - `pendingCount === pendingTasks.length`;
 *  - `pendingTaskAt(i) === pendingTasks[i]`;
 *  - `pendingLocalTo(nodeId)` lists `pendingTasks.filter((t) => isLocal(t, nodeId))`, in that order.
 * Policies never read them directly: HeartbeatTally uses them when present and scans
 * `pendingTasks` otherwise, so both give the same decisions (test/core/placement/indexed.test.ts).
 */
export interface PendingTaskIndex {
  readonly pendingCount: number;
  pendingTaskAt(i: number): PendingTask;
  pendingLocalTo(nodeId: string): readonly PendingTask[];
}

export type IndexedPlacementJob = PlacementJob & PendingTaskIndex;

function indexOf(job: PlacementJob): PendingTaskIndex | undefined {
  return typeof (job as Partial<PendingTaskIndex>).pendingLocalTo === 'function'
    ? (job as IndexedPlacementJob)
    : undefined;
}

function byFifo(a: PlacementJob, b: PlacementJob): number {
  return a.arrivalMs - b.arrivalMs || compareIds(a.jobId, b.jobId);
}

/**
 * FIFO order: submission time, then job id so equal times still give one order. A driver
 * usually hands the queue in this order already; then the input itself is returned (one
 * pass to check, no copy), which is what the same sort would give.
 */
export function fifoOrder(jobs: readonly PlacementJob[]): readonly PlacementJob[] {
  for (let i = 1; i < jobs.length; i++) {
    if (byFifo(jobs[i - 1] as PlacementJob, jobs[i] as PlacementJob) > 0) return [...jobs].sort(byFifo);
  }
  return jobs;
}

/**
 * Fair-share order (Hadoop fair scheduler, one pool, equal weights): fewest running tasks
 * first, counting those assigned earlier in this heartbeat; ties by FIFO order.
 */
export function fairOrder(
  jobs: readonly PlacementJob[],
  assignedNow: ReadonlyMap<string, number>,
): PlacementJob[] {
  const running = (j: PlacementJob) => j.runningTasks + (assignedNow.get(j.jobId) ?? 0);
  return [...jobs].sort(
    (a, b) => running(a) - running(b) || a.arrivalMs - b.arrivalMs || compareIds(a.jobId, b.jobId),
  );
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Book-keeping shared by the heartbeat policies: which tasks were taken in this heartbeat
 * (a task must not be assigned twice) and how many each job got (for fair order).
 *
 * Lookups never copy a job's pending list: they walk it (or the driver's per-node index,
 * PendingTaskIndex) and skip the few tasks taken in this heartbeat, so a heartbeat costs the
 * tasks it looks at rather than every pending task of every job it considers.
 */
export class HeartbeatTally {
  readonly assignments: Assignment[] = [];
  readonly perJob = new Map<string, number>();
  /** Task ids taken in this heartbeat, per job id. */
  private readonly taken = new Map<string, Set<string>>();

  constructor(readonly nodeId: string) {}

  /** The job's pending tasks not taken in this heartbeat (a copy; prefer hasPending / firstLocal / firstAny). */
  pending(job: PlacementJob): PendingTask[] {
    const taken = this.taken.get(job.jobId);
    return taken ? job.pendingTasks.filter((t) => !taken.has(t.taskId)) : job.pendingTasks.slice();
  }

  /** Whether the job has a pending task not taken in this heartbeat. */
  hasPending(job: PlacementJob): boolean {
    return this.firstAny(job) !== undefined;
  }

  /** The first pending task, in the job's own order, with a replica on this node. */
  firstLocal(job: PlacementJob): PendingTask | undefined {
    const taken = this.taken.get(job.jobId);
    const index = indexOf(job);
    if (index) {
      for (const t of index.pendingLocalTo(this.nodeId)) if (!taken?.has(t.taskId)) return t;
      return undefined;
    }
    for (const t of job.pendingTasks) if (!taken?.has(t.taskId) && isLocal(t, this.nodeId)) return t;
    return undefined;
  }

  /** The next pending task in the job's own list, local or not (Hadoop's non-local pick). */
  firstAny(job: PlacementJob): PendingTask | undefined {
    const taken = this.taken.get(job.jobId);
    const index = indexOf(job);
    if (index) {
      const n = index.pendingCount;
      if (!taken) return n > 0 ? index.pendingTaskAt(0) : undefined;
      // At most taken.size + 1 steps: everything skipped was taken in this heartbeat.
      for (let i = 0; i < n; i++) {
        const t = index.pendingTaskAt(i);
        if (!taken.has(t.taskId)) return t;
      }
      return undefined;
    }
    const tasks = job.pendingTasks;
    if (!taken) return tasks[0];
    for (const t of tasks) if (!taken.has(t.taskId)) return t;
    return undefined;
  }

  /** Counts an assignment made elsewhere (another policy's answer for this heartbeat) as taken. */
  adopt(a: Assignment): void {
    let taken = this.taken.get(a.jobId);
    if (!taken) this.taken.set(a.jobId, (taken = new Set()));
    taken.add(a.taskId);
    this.perJob.set(a.jobId, (this.perJob.get(a.jobId) ?? 0) + 1);
    this.assignments.push(a);
  }

  assign(job: PlacementJob, task: PendingTask, kind: ContainerKind): void {
    this.adopt({
      jobId: job.jobId,
      taskId: task.taskId,
      nodeId: this.nodeId,
      containerKind: kind,
      local: isLocal(task, this.nodeId),
    });
  }
}

/**
 * One heartbeat being filled on one node, as every heartbeat policy fills it: the node's free
 * containers (FreeCounter), the tasks taken so far (HeartbeatTally), and the kinds of container
 * a job may use there (relevantKinds with the GPU label).
 */
export class NodeFill {
  readonly free: FreeCounter;
  readonly tally: HeartbeatTally;

  constructor(
    private readonly node: Pick<NodeView, 'nodeId' | 'free' | 'labels'>,
    private readonly gpuLabel: string,
  ) {
    this.free = new FreeCounter(node.free);
    this.tally = new HeartbeatTally(node.nodeId);
  }

  /** The kinds `job` may use on this node, in order of preference. */
  kinds(job: PlacementJob): ContainerKind[] {
    return relevantKinds(job.kind, this.node, this.gpuLabel);
  }

  /** The first kind of free container `job` may use, or undefined. */
  kindFor(job: PlacementJob): ContainerKind | undefined {
    return this.free.firstAvailable(this.kinds(job));
  }

  /** Whether `job` has a task left to place and a free container it may use. */
  usable(job: PlacementJob): boolean {
    return this.tally.hasPending(job) && this.kindFor(job) !== undefined;
  }

  /** Places `task` of `job` in a free container of `kind`. */
  give(job: PlacementJob, task: PendingTask, kind: ContainerKind): void {
    this.tally.assign(job, task, kind);
    this.free.take(kind);
  }

  /** Places `job`'s next task, a local one if it has one, in a free container of `kind`. */
  giveNext(job: PlacementJob, kind: ContainerKind): void {
    this.give(job, this.tally.firstLocal(job) ?? this.tally.firstAny(job)!, kind);
  }

  get assignments(): Assignment[] {
    return this.tally.assignments;
  }
}
