import type { ClusterSpec, NodeClassSpec } from '../model';
import type { NodeView } from '../policy-port';
import type { Rng } from '../rng';
import type { ContainerKind, TaskKind } from './types';

export interface NodeRt {
  index: number;
  id: string;
  cls: NodeClassSpec;
  freeMap: number;
  freeReduce: number;
  /** unified: one pool of containers for maps and reduces. */
  freeShared: number;
  /** Free GPU containers, a subset of freeMap (mr1) or freeShared (unified). */
  freeGpu: number;
  alive: boolean;
  phase: number;
  parked: boolean;
  /** Task-log rows of the attempts running here, in the order they started (a few slots' worth). */
  running: number[];
}

/** The cluster's nodes, class by class (`${class}-${i}`), each heartbeating at its own seeded phase. */
export function createNodes(cluster: ClusterSpec, rngPhase: Rng): NodeRt[] {
  const unified = cluster.slotModel === 'unified';
  const nodes: NodeRt[] = [];
  for (const cls of cluster.nodeClasses) {
    for (let i = 0; i < cls.count; i++) {
      nodes.push({
        index: nodes.length,
        id: `${cls.name}-${i + 1}`,
        cls,
        freeMap: unified ? 0 : cls.mapSlots,
        freeReduce: unified ? 0 : cls.reduceSlots,
        freeShared: unified ? cls.containers : 0,
        freeGpu: cls.gpuContainers,
        alive: true,
        phase: rngPhase.uniform(0, cluster.heartbeatSeconds),
        parked: true,
        running: [],
      });
    }
  }
  return nodes;
}

/**
 * The free slots of the nodes: map and reduce slots (mr1) or one pool of containers (unified),
 * GPU containers counted apart. With admission lanes by container kind (`containerLanes`), a
 * GPU lane's reduces run in its GPU containers.
 *
 * With another tenant (unified only, engine/tenant.ts), the admitted jobs run in the real-time
 * queue, which may hold at most `realtimeCap` CPU containers at once (its guarantee): what these
 * methods answer is what that queue may take (a node's free CPU containers, at most what is
 * left of its cap), and the tenant's containers are taken apart (takeOther, releaseOther).
 */
export class Slots {
  private readonly unified: boolean;
  /** CPU containers the admitted jobs hold now (counted only under a cap). */
  realtimeUsed = 0;

  constructor(
    private readonly cluster: ClusterSpec,
    private readonly nodes: readonly NodeRt[],
    private readonly containerLanes: boolean,
    /** The real-time queue's cap on CPU containers, with another tenant; null: no cap. */
    readonly realtimeCap: number | null = null,
  ) {
    this.unified = cluster.slotModel === 'unified';
    if (realtimeCap !== null && !this.unified) throw new RangeError('a real-time cap needs unified slots');
  }

  /** Containers the real-time queue may still take (its cap less what it holds). */
  private headroom(): number {
    return Math.max(0, (this.realtimeCap as number) - this.realtimeUsed);
  }

  freeFor(node: NodeRt, kind: TaskKind): number {
    if (!node.alive) return 0;
    if (this.realtimeCap !== null) {
      const cpu = Math.min(node.freeShared - node.freeGpu, this.headroom());
      return kind === 'map' || this.containerLanes ? cpu + node.freeGpu : cpu;
    }
    // Reduces run in CPU containers; in unified they share the pool with maps.
    if (this.unified)
      return kind === 'map' || this.containerLanes ? node.freeShared : node.freeShared - node.freeGpu;
    return kind === 'map' ? node.freeMap : node.freeReduce;
  }

  /** Free containers of one kind in the node's map (mr1) or shared (unified) pool. */
  freeKind(node: NodeRt, kind: ContainerKind): number {
    if (!node.alive) return 0;
    const pool = this.unified ? node.freeShared : node.freeMap;
    if (kind === 'gpu') return node.freeGpu;
    return this.realtimeCap !== null ? Math.min(pool - node.freeGpu, this.headroom()) : pool - node.freeGpu;
  }

  clusterFree(kind: TaskKind): number {
    if (this.realtimeCap !== null)
      return (
        this.clusterFreeKind('cpu') +
        (kind === 'map' || this.containerLanes ? this.clusterFreeKind('gpu') : 0)
      );
    let n = 0;
    for (const node of this.nodes) n += this.freeFor(node, kind);
    return n;
  }

  clusterFreeKind(kind: ContainerKind): number {
    if (this.realtimeCap !== null && kind === 'cpu')
      return Math.min(this.freeCpuContainers(), this.headroom());
    let n = 0;
    for (const node of this.nodes) n += this.freeKind(node, kind);
    return n;
  }

  /** Free CPU containers on the nodes that are up, whoever may take them. */
  freeCpuContainers(): number {
    let n = 0;
    for (const node of this.nodes) if (node.alive) n += this.physicalCpu(node);
    return n;
  }

  /** A node's free CPU containers, whoever may take them. */
  physicalCpu(node: NodeRt): number {
    return this.unified ? node.freeShared - node.freeGpu : node.freeMap - node.freeGpu;
  }

  take(node: NodeRt, kind: TaskKind, container: ContainerKind): void {
    if (container === 'gpu') node.freeGpu--;
    else if (this.realtimeCap !== null) this.realtimeUsed++;
    if (this.unified) node.freeShared--;
    else if (kind === 'map') node.freeMap--;
    else node.freeReduce--;
  }

  release(node: NodeRt, kind: TaskKind, container: ContainerKind): void {
    if (container === 'gpu') node.freeGpu++;
    else if (this.realtimeCap !== null) this.realtimeUsed--;
    if (this.unified) node.freeShared++;
    else if (kind === 'map') node.freeMap++;
    else node.freeReduce++;
  }

  /** Another queue's task takes a CPU container of the node (unified). */
  takeOther(node: NodeRt): void {
    node.freeShared--;
  }

  /** Another queue's task gives its CPU container of the node back. */
  releaseOther(node: NodeRt): void {
    node.freeShared++;
  }

  /** The node as placement policies see it now. */
  view(node: NodeRt): NodeView {
    return {
      index: node.index,
      id: node.id,
      className: node.cls.name,
      labels: node.cls.labels,
      freeMapSlots: this.freeFor(node, 'map'),
      freeReduceSlots: this.freeFor(node, 'reduce'),
      freeCpu: this.freeKind(node, 'cpu'),
      freeGpu: this.freeKind(node, 'gpu'),
      capacityCpu:
        (this.cluster.slotModel === 'mr1' ? node.cls.mapSlots : node.cls.containers) - node.cls.gpuContainers,
      capacityGpu: node.cls.gpuContainers,
      alive: node.alive,
    };
  }
}

/** Drops an attempt from its node's running list, keeping the others in start order. */
export function removeRunning(node: NodeRt, row: number): void {
  const list = node.running;
  const at = list.indexOf(row);
  if (at < 0) return;
  for (let i = at + 1; i < list.length; i++) list[i - 1] = list[i] as number;
  list.pop();
}
