import type { AdmissionPort, JobView, MapAssignment, NodeView, PlacementPort } from '../sim/policy-port';

/**
 * How the emulated RM plugs the project's policies into the simulator's engine.
 *
 * Admission: a ResourceManager admits every application it accepts (the sidecar, not the RM,
 * decides deadlines), so the emulator's admission port admits all and orders the queue the way
 * the capacity scheduler's FIFO ordering policy does: priority first (the engine sorts on it
 * before asking `compare`), then submission order (CapacityScheduler.md, "Application priority").
 *
 * Placement: any placement policy of the registry, through the simulator's own adapter
 * (src/sim/policies.ts `placementPort`), with what a YARN scheduler adds around it:
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

/**
 * Wrap the simulator's placement port (src/sim/policies.ts: any registry policy) with the
 * partition and queue-maximum rules above. `orderKeys` is what the inner port's `orderKeyMs`
 * must read: filled here before each call.
 */
export function labelledPlacement(
  inner: PlacementPort,
  orderKeys: Map<string, number>,
  bind: () => PlacementBindings,
): PlacementPort {
  return {
    name: inner.name,
    jobAdded: (job, now) => inner.jobAdded(job, now),
    jobRemoved: (id, now) => inner.jobRemoved(id, now),
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
      const keys = eligible.map((j) => j.spec.arrival * 1000);
      for (let i = keys.length - 2; i >= 0; i--) keys[i] = Math.min(keys[i]!, keys[i + 1]! - 1);
      orderKeys.clear();
      eligible.forEach((j, i) => orderKeys.set(j.id, keys[i]!));
      const proposed = inner.assignMaps(node, eligible, now);
      // A queue at its maximum keeps it within this heartbeat too.
      const out: MapAssignment[] = [];
      for (const a of proposed) {
        if (out.length >= node.freeMapSlots) break;
        const info = b.job(a.jobId)!;
        const count = held.get(info.queue) ?? 0;
        if (count >= b.maxContainers(info.queue, partition)) continue;
        held.set(info.queue, count + 1);
        out.push(a);
      }
      b.started(node.id, out);
      return out;
    },
  };
}
