import type {
  GrantedContainer,
  NodeView,
  PendingTask,
  PlacementJob,
  PlacementPolicy,
} from '../../../src/core/placement/common/types';

export function node(
  nodeId: string,
  opts: {
    cpu?: number;
    gpu?: number;
    labels?: string[];
    nodeClass?: string;
    capacity?: { cpu: number; gpu: number };
  } = {},
): NodeView {
  return {
    nodeId,
    nodeClass: opts.nodeClass ?? ((opts.labels ?? []).includes('gpu') ? 'gpu' : 'cpu'),
    labels: opts.labels ?? [],
    free: { cpu: opts.cpu ?? 0, gpu: opts.gpu ?? 0 },
    ...(opts.capacity ? { capacity: opts.capacity } : {}),
  };
}

/** A job whose i-th task has its block on `replicas[i]` (an empty list: no locality information). */
export function job(
  jobId: string,
  replicas: string[][],
  opts: Partial<Omit<PlacementJob, 'jobId' | 'pendingTasks'>> = {},
): PlacementJob {
  const pendingTasks: PendingTask[] = replicas.map((r, i) => ({ taskId: `${jobId}-m${i}`, replicaNodes: r }));
  return { jobId, arrivalMs: 0, kind: 'cpu', runningTasks: 0, pendingTasks, ...opts };
}

export function withoutTasks(j: PlacementJob, taskIds: readonly string[]): PlacementJob {
  const gone = new Set(taskIds);
  return { ...j, pendingTasks: j.pendingTasks.filter((t) => !gone.has(t.taskId)) };
}

export function grant(jobId: string, nodeId: string, containerKind: 'cpu' | 'gpu' = 'cpu'): GrantedContainer {
  return { jobId, nodeId, containerKind };
}

/** Runs heartbeats in sequence, threading the state, and returns every result. */
export function heartbeats<S>(
  policy: PlacementPolicy<S>,
  steps: Array<{ node: NodeView; jobs: PlacementJob[]; nowMs: number }>,
  state: S = policy.initialState(),
) {
  const out = [];
  for (const s of steps) {
    const r = policy.onHeartbeat(state, s);
    out.push(r);
    state = r.state;
  }
  return { results: out, state };
}
