import type { Engine } from '../../sim/engine';
import type { MapAssignment } from '../../sim/policy-port';
import { queueLeaf } from '../../yarn/ids';
import type { EmulatorConfig, QueueConfig } from '../config';
import { nodePartition } from '../ports';
import type { NodeUsage } from './types';

/**
 * The cluster as the scheduler sees it: nodes with their containers, GPUs and label partition,
 * the queues and their shares of each partition.
 */
export class ClusterTopology {
  private readonly queues: Map<string, QueueConfig>;
  private readonly gpuStarted = new Map<string, number>();
  private readonly gpuEnded = new Map<string, number>();
  private tasksSeen = 0;
  private readonly nodeHosts: string[] = [];
  /** Partition of each node, by the engine's node index. */
  private readonly nodePartitions: string[] = [];
  private readonly nodeClassOf = new Map<string, { containers: number; gpus: number }>();

  constructor(
    private readonly config: EmulatorConfig,
    private readonly engine: Engine,
  ) {
    this.queues = new Map(config.queues.map((q) => [q.name, q]));
    const unified = config.cluster.slotModel === 'unified';
    for (const cls of config.cluster.nodeClasses) {
      for (let i = 0; i < cls.count; i++) {
        this.nodeClassOf.set(`${cls.name}-${i + 1}`, {
          containers: unified ? cls.containers : cls.mapSlots + cls.reduceSlots,
          gpus: cls.gpuContainers,
        });
        // The engine numbers nodes in this same order (class by class).
        this.nodePartitions.push(nodePartition(cls.labels));
      }
    }
    for (let i = 0; i < engine.nodeCount; i++) this.nodeHosts.push(engine.nodeId(i));
  }

  /** A queue by leaf name or full path. */
  queue(name: string): QueueConfig | undefined {
    return this.queues.get(queueLeaf(name));
  }

  /** Containers of a partition on live nodes. */
  partitionContainers(partition: string): number {
    let n = 0;
    for (let i = 0; i < this.nodeHosts.length; i++) {
      if (this.nodePartitions[i] !== partition || !this.engine.nodeAlive(i)) continue;
      n += this.nodeClassOf.get(this.nodeHosts[i]!)!.containers;
    }
    return n;
  }

  /** Percent of a partition a queue is guaranteed (capacity) or may use at most. */
  queueShare(q: QueueConfig, partition: string, which: 'capacity' | 'max'): number {
    if (partition === '') return which === 'capacity' ? q.capacity : q.maxCapacity;
    if (!q.accessibleNodeLabels.includes(partition)) return 0;
    // Per-label maximum capacity is not configurable here: a queue may use all of a partition it can reach.
    return which === 'capacity' ? (q.labelCapacity[partition] ?? 0) : 100;
  }

  /**
   * Containers a queue is guaranteed (capacity) or may hold at most (max) in a partition. The
   * guarantee is fractional (40% of 32 is 12.8): the queue ordering compares shares, not counts.
   */
  queueContainers(queue: string, partition: string, which: 'capacity' | 'max'): number {
    const q = this.queues.get(queue);
    if (!q) return 0;
    const exact = (this.partitionContainers(partition) * this.queueShare(q, partition, which)) / 100;
    return which === 'max' ? Math.floor(exact + 1e-9) : exact;
  }

  nodeUsage(): NodeUsage[] {
    return this.engine.snapshot().nodes.map((n) => {
      const shape = this.nodeClassOf.get(n.id)!;
      const usedGpus = (this.gpuStarted.get(n.id) ?? 0) - (this.gpuEnded.get(n.id) ?? 0);
      return {
        id: `${n.id}:45454`,
        host: n.id,
        className: n.className,
        labels: n.labels,
        alive: n.alive,
        containers: shape.containers,
        usedContainers: n.runningTasks,
        gpus: shape.gpus,
        usedGpus,
      };
    });
  }

  labels(): string[] {
    return [
      ...new Set(this.config.cluster.nodeClasses.filter((c) => c.count > 0).flatMap((c) => c.labels)),
    ].sort();
  }

  /** The largest container a node can hold: its whole memory and vcores. */
  maximumAllocation(): { memoryMB: number; vcores: number } {
    const most = Math.max(...[...this.nodeClassOf.values()].map((c) => c.containers));
    return { memoryMB: most * this.config.containerMemoryMB, vcores: most * this.config.containerVcores };
  }

  /** GPU containers the scheduler just started on a node (the engine tells which). */
  noteStarted(nodeId: string, assignments: readonly MapAssignment[]): void {
    const gpus = assignments.filter((a) => a.containerKind === 'gpu').length;
    if (gpus > 0) this.gpuStarted.set(nodeId, (this.gpuStarted.get(nodeId) ?? 0) + gpus);
  }

  /** Counts the GPU tasks that ended since the last call, so the GPUs in use stay right. */
  countEndedGpuTasks(): void {
    const records = this.engine.taskRecords();
    for (; this.tasksSeen < records.length; this.tasksSeen++) {
      const t = records[this.tasksSeen]!;
      if (t.container === 'gpu') this.gpuEnded.set(t.node, (this.gpuEnded.get(t.node) ?? 0) + 1);
    }
  }
}
