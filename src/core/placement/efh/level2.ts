import type { Assignment, GrantedContainer, PendingTask, PlacementJob } from '../common/types';

/**
 * EFH level II, the AM's task dispatcher (He, dissertation, Table 6.4, Algorithm 2), for one job and
 * the containers granted to it.
 *
 * Line 1: tasks in non-decreasing L_k (how many granted containers are local to task k), the
 * tasks with L_k = 0 at the end; e.g. task A with one local container goes before task B with
 * two, so B does not take A's only local container. Line 2: containers in non-increasing h.
 * Lines 3-16: each task takes the best container local to it; a task with L_k = 0 takes the
 * best container left. Line 17: a task whose local containers were all taken goes to the end
 * of the queue with L_k = 0, so non-local tasks are placed only after every local one.
 * Sorts are stable: equal keys keep the job's task order and the grant order.
 */
export function dispatchTasks(
  job: PlacementJob,
  grants: readonly GrantedContainer[],
  fitnessOf: (g: GrantedContainer) => number,
): Assignment[] {
  const containers = grants
    .map((g, i) => ({ g, h: fitnessOf(g), i }))
    .sort((a, b) => b.h - a.h || a.i - b.i)
    .map((x) => x.g);
  const localCount = (t: PendingTask) => containers.filter((c) => t.replicaNodes.includes(c.nodeId)).length;
  const withL = job.pendingTasks.map((task, i) => ({ task, L: localCount(task), i }));
  const queue = [
    ...withL.filter((x) => x.L > 0).sort((a, b) => a.L - b.L || a.i - b.i),
    ...withL.filter((x) => x.L === 0),
  ];
  const out: Assignment[] = [];
  while (queue.length > 0 && containers.length > 0) {
    const t = queue.shift()!;
    const idx = t.L === 0 ? 0 : containers.findIndex((c) => t.task.replicaNodes.includes(c.nodeId));
    if (idx < 0) {
      queue.push({ ...t, L: 0 }); // line 17
      continue;
    }
    const [c] = containers.splice(idx, 1);
    out.push({
      jobId: job.jobId,
      taskId: t.task.taskId,
      nodeId: c.nodeId,
      containerKind: c.containerKind,
      local: t.task.replicaNodes.includes(c.nodeId),
    });
  }
  return out;
}
