import type {
  ContainerKind,
  GrantedContainer,
  NodeView,
  PlacementJob,
  PlacementPolicy,
} from '../../../src/core/placement/common/types';

/**
 * A small discrete-event cluster for tests: nodes with fixed containers, jobs arriving at
 * given times, task run times by container kind and node class. At every event (arrival,
 * task end, or a tick while work waits) the policy is driven either cluster-wide
 * (`allocate` then `dispatch`) or by one heartbeat per node in node-id order.
 */
export interface SimNode {
  nodeId: string;
  nodeClass: string;
  labels: string[];
  capacity: { cpu: number; gpu: number };
}
export interface SimJob {
  jobId: string;
  arrivalMs: number;
  kind: PlacementJob['kind'];
  replicas: string[][];
  workload?: string;
}
export interface SimResult {
  makespanMs: number;
  firstStartMs: Record<string, number>;
  finishMs: Record<string, number>;
  /** Per task: where it ran. */
  placements: Array<{ jobId: string; taskId: string; nodeId: string; kind: ContainerKind; startMs: number }>;
  unfinished: string[];
}

export function simulate<S>(opts: {
  policy: PlacementPolicy<S>;
  nodes: SimNode[];
  jobs: SimJob[];
  durationMs: (jobKind: PlacementJob['kind'], containerKind: ContainerKind, nodeClass: string) => number;
  mode: 'allocate' | 'heartbeat';
  tickMs: number;
  horizonMs: number;
}): SimResult {
  const { policy, nodes } = opts;
  let state = policy.initialState();
  const pending = new Map<string, PlacementJob>();
  const running: Array<{ jobId: string; nodeId: string; kind: ContainerKind; endMs: number }> = [];
  const result: SimResult = { makespanMs: 0, firstStartMs: {}, finishMs: {}, placements: [], unfinished: [] };
  const arrivals = [...opts.jobs].sort((a, b) => a.arrivalMs - b.arrivalMs);
  let next = 0;
  let now = arrivals.length > 0 ? arrivals[0].arrivalMs : 0;
  const runningOf = (jobId: string) => running.filter((r) => r.jobId === jobId).length;
  const view = (n: SimNode): NodeView => {
    const busy = running.filter((r) => r.nodeId === n.nodeId);
    return {
      nodeId: n.nodeId,
      nodeClass: n.nodeClass,
      labels: n.labels,
      capacity: n.capacity,
      free: {
        cpu: n.capacity.cpu - busy.filter((r) => r.kind === 'cpu').length,
        gpu: n.capacity.gpu - busy.filter((r) => r.kind === 'gpu').length,
      },
    };
  };
  const jobsNow = () =>
    [...pending.values()]
      .filter((j) => j.pendingTasks.length > 0)
      .map((j) => ({ ...j, runningTasks: runningOf(j.jobId) }));
  const start = (a: { jobId: string; taskId: string; nodeId: string; containerKind: ContainerKind }) => {
    const j = pending.get(a.jobId)!;
    const n = nodes.find((x) => x.nodeId === a.nodeId)!;
    pending.set(a.jobId, { ...j, pendingTasks: j.pendingTasks.filter((t) => t.taskId !== a.taskId) });
    running.push({
      jobId: a.jobId,
      nodeId: a.nodeId,
      kind: a.containerKind,
      endMs: now + opts.durationMs(j.kind, a.containerKind, n.nodeClass),
    });
    result.firstStartMs[a.jobId] ??= now;
    result.placements.push({
      jobId: a.jobId,
      taskId: a.taskId,
      nodeId: a.nodeId,
      kind: a.containerKind,
      startMs: now,
    });
  };

  while (now <= opts.horizonMs) {
    for (let i = running.length - 1; i >= 0; i--) if (running[i].endMs <= now) running.splice(i, 1);
    while (next < arrivals.length && arrivals[next].arrivalMs <= now) {
      const s = arrivals[next++];
      pending.set(s.jobId, {
        jobId: s.jobId,
        arrivalMs: s.arrivalMs,
        kind: s.kind,
        runningTasks: 0,
        workload: s.workload,
        pendingTasks: s.replicas.map((r, i) => ({ taskId: `${s.jobId}-m${i}`, replicaNodes: r })),
      });
    }
    for (const [id, j] of pending) {
      if (j.pendingTasks.length === 0 && runningOf(id) === 0) {
        result.finishMs[id] = now;
        result.makespanMs = Math.max(result.makespanMs, now);
        pending.delete(id);
      }
    }
    if (opts.mode === 'allocate') {
      const r = policy.allocate!(state, { nodes: nodes.map(view), jobs: jobsNow(), nowMs: now });
      state = r.state;
      const byJob = new Map<string, GrantedContainer[]>();
      for (const g of r.grants) byJob.set(g.jobId, [...(byJob.get(g.jobId) ?? []), g]);
      for (const [jobId, grants] of byJob) {
        for (const a of policy.dispatch!(pending.get(jobId)!, grants, nodes.map(view))) start(a);
      }
    } else {
      for (const n of [...nodes].sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1))) {
        const r = policy.onHeartbeat(state, { node: view(n), jobs: jobsNow(), nowMs: now });
        state = r.state;
        for (const a of r.assignments) start(a);
      }
    }
    if (next >= arrivals.length && pending.size === 0) break;
    const candidates = [
      ...running.map((r) => r.endMs),
      ...(next < arrivals.length ? [arrivals[next].arrivalMs] : []),
      ...(pending.size > 0 ? [now + opts.tickMs] : []),
    ];
    now = Math.min(...candidates);
  }
  result.unfinished = [...pending.keys()];
  return result;
}
