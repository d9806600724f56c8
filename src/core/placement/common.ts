import { z } from 'zod';
import { ValidationError } from '../../errors/validation';
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
 * The container kinds job `kind` may use on `node`, in order of preference (seed 004 section
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

/** FIFO order: submission time, then job id so equal times still give one order. */
export function fifoOrder(jobs: readonly PlacementJob[]): PlacementJob[] {
  return [...jobs].sort((a, b) => a.arrivalMs - b.arrivalMs || compareIds(a.jobId, b.jobId));
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
 */
export class HeartbeatTally {
  readonly assignments: Assignment[] = [];
  readonly perJob = new Map<string, number>();
  private readonly taken = new Set<string>();

  constructor(readonly nodeId: string) {}

  pending(job: PlacementJob): PendingTask[] {
    return job.pendingTasks.filter((t) => !this.taken.has(key(job.jobId, t.taskId)));
  }

  firstLocal(job: PlacementJob): PendingTask | undefined {
    return this.pending(job).find((t) => isLocal(t, this.nodeId));
  }

  /** The next pending task in the job's own list, local or not (Hadoop's non-local pick). */
  firstAny(job: PlacementJob): PendingTask | undefined {
    return this.pending(job)[0];
  }

  assign(job: PlacementJob, task: PendingTask, kind: ContainerKind): void {
    this.taken.add(key(job.jobId, task.taskId));
    this.perJob.set(job.jobId, (this.perJob.get(job.jobId) ?? 0) + 1);
    this.assignments.push({
      jobId: job.jobId,
      taskId: task.taskId,
      nodeId: this.nodeId,
      containerKind: kind,
      local: isLocal(task, this.nodeId),
    });
  }
}

function key(jobId: string, taskId: string): string {
  return `${jobId}\u0000${taskId}`;
}
