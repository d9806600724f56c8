import type { PlacementJob, PlacementPolicy } from '../core/placement/types';
import type { AdmissionPort, JobView, MapAssignment, NodeView, PlacementPort } from '../sim/policy-port';

/**
 * How the emulated RM plugs the project's policies into the simulator's engine.
 *
 * Admission: a ResourceManager admits every application it accepts (the sidecar, not the RM,
 * decides deadlines), so the emulator's admission port admits all and orders the queue the way
 * the capacity scheduler's FIFO ordering policy does: priority first (the engine sorts on it
 * before asking `compare`), then submission order (CapacityScheduler.md, "Application priority").
 *
 * Placement: any placement policy of the registry (src/core/registry.ts), adapted from the
 * core contract (`onHeartbeat` over plain data) to the engine's port, with what a YARN
 * scheduler adds around it:
 * - node labels: a job's map tasks are offered only to nodes of its partition (an exclusive
 *   partition serves only apps that ask for its label; unlabelled nodes form the default
 *   partition), as NodeLabel.md describes;
 * - queue maximum capacity: a queue already holding its maximum share of a partition's
 *   containers gets no more map containers there.
 */

export interface JobPlacementInfo {
  /** The partition the job's containers must run in: '' is the default partition. */
  partition: string;
  /** Leaf queue name. */
  queue: string;
  user: string;
}

export interface PlacementBindings {
  /** Node id by the engine's node index (replica lists carry indices). */
  nodeId(index: number): string;
  /** Label facts of a job, by its id (the application id). */
  job(jobId: string): JobPlacementInfo | undefined;
  /** Containers a queue may hold in a partition at most (its maximum capacity), or Infinity. */
  maxContainers(queue: string, partition: string): number;
  /** Told of every map the engine will start (the engine throws rather than drop one). */
  started(nodeId: string, assignments: readonly MapAssignment[]): void;
}

export function admitAllPort(): AdmissionPort {
  return {
    name: 'yarn-rm',
    promisesDeadlines: false,
    decide: () => ({ admit: true }),
    compare: (a: JobView, b: JobView) => a.spec.arrival - b.spec.arrival,
    jobStarted: () => undefined,
    jobFinished: () => undefined,
    jobKilled: () => undefined,
  };
}

/** The partition a node belongs to: its first label, or '' (the default partition). */
export function nodePartition(labels: readonly string[]): string {
  return labels[0] ?? '';
}

export function placementPort(
  policy: PlacementPolicy<unknown>,
  bind: () => PlacementBindings,
): PlacementPort {
  let state = policy.initialState();
  return {
    name: policy.name,
    jobAdded: () => undefined,
    jobRemoved: () => undefined,
    assignMaps(node: NodeView, queue: readonly JobView[], now: number): MapAssignment[] {
      const b = bind();
      const partition = nodePartition(node.labels);
      // Containers each queue holds now in this partition (maps and reduces alike).
      const held = new Map<string, number>();
      for (const j of queue) {
        const info = b.job(j.id);
        if (!info || info.partition !== partition) continue;
        held.set(info.queue, (held.get(info.queue) ?? 0) + j.runningMaps + j.runningReduces);
      }
      const eligible = queue.filter((j) => {
        const info = b.job(j.id);
        if (!info || info.partition !== partition || j.pendingMaps.length === 0) return false;
        return (held.get(info.queue) ?? 0) < b.maxContainers(info.queue, partition);
      });
      if (eligible.length === 0) return [];
      // The policies order by arrival; the engine's queue is already in the RM's order (priority,
      // then submission). Lower each arrival to below its successor's so that a raised priority
      // moves a job ahead in the policy's FIFO order too, without changing anyone else's place.
      const arrivals = eligible.map((j) => j.spec.arrival * 1000);
      for (let i = arrivals.length - 2; i >= 0; i--) {
        arrivals[i] = Math.min(arrivals[i]!, arrivals[i + 1]! - 1);
      }
      const jobs: PlacementJob[] = eligible.map((j, i) => ({
        jobId: j.id,
        arrivalMs: arrivals[i]!,
        kind: j.spec.type,
        pendingTasks: j.pendingMaps.map((m) => ({
          taskId: String(m),
          replicaNodes: j.mapReplicas(m).map((r) => b.nodeId(r)),
        })),
        runningTasks: j.runningMaps + j.runningReduces,
        user: b.job(j.id)?.user ?? '',
        totalTasks: j.spec.maps,
        remainingReduceWork: j.pendingReduces + j.runningReduces,
      }));
      const result = policy.onHeartbeat(state, {
        node: {
          nodeId: node.id,
          nodeClass: node.className,
          labels: node.labels,
          free: { cpu: node.freeCpu, gpu: node.freeGpu },
          capacity: { cpu: node.capacityCpu, gpu: node.capacityGpu },
        },
        jobs,
        nowMs: now * 1000,
      });
      state = result.state;
      // A queue at its maximum keeps it within this heartbeat too.
      const out: MapAssignment[] = [];
      for (const a of result.assignments) {
        if (out.length >= node.freeMapSlots) break;
        const info = b.job(a.jobId)!;
        const now = held.get(info.queue) ?? 0;
        if (now >= b.maxContainers(info.queue, partition)) continue;
        held.set(info.queue, now + 1);
        out.push({ jobId: a.jobId, mapIndex: Number(a.taskId), containerKind: a.containerKind });
      }
      b.started(node.id, out);
      return out;
    },
  };
}
