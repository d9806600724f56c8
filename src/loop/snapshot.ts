import type { PartitionView } from '../model/job-views';
import {
  GPU_RESOURCE,
  type NodeReport,
  type QueueInfo,
  type Resource,
  type SchedulerInfo,
} from '../yarn/model';

/**
 * What one poll of the RM tells the sidecar about capacity: label partitions (from the nodes)
 * and, for each leaf queue, how many task containers it is guaranteed in each partition.
 */
export interface ContainerSize {
  memoryMb: number;
  vcores: number;
}

export interface QueueSummary {
  name: string;
  path: string;
  capacity: number;
  absoluteCapacity: number;
  accessibleNodeLabels: string[];
  /** Guaranteed task containers per partition ('' = default partition). */
  containers: Record<string, number>;
  /** Task containers the queue uses now per partition (its absolute used share of them). */
  used?: Record<string, number>;
  /** Task containers the queue's apps ask for and do not have yet, per partition. */
  pending?: Record<string, number>;
}

/**
 * The CPU cores of a node, by its label partition (admission.nodeCores, nodeCoresByLabel): its
 * vcores count as the smaller of what it advertises and these. Absent: what it advertises.
 */
export interface NodeCores {
  /** Every node whose label has no entry of its own. */
  nodeCores?: number | undefined;
  nodeCoresByLabel?: Readonly<Record<string, number>>;
}

/** The cores a node of a partition counts, or undefined (its advertised vcores count). */
export function coresOf(cores: NodeCores | undefined, label: string): number | undefined {
  if (cores === undefined) return undefined;
  const own = label === '' ? undefined : cores.nodeCoresByLabel?.[label];
  return own ?? cores.nodeCores;
}

export interface CapacityView {
  partitions: PartitionView[];
  queues: QueueSummary[];
  /** Task containers free now per partition: what any queue can take at once. */
  free?: Record<string, number>;
  /** Task containers per partition, free or not. */
  total?: Record<string, number>;
}

/**
 * Task containers a node can hold: the smaller of what its memory and its vcores allow, its
 * vcores counted as min(advertised, cores) when its cores are known (a node overcommitting CPU
 * counts only what its cores run at full speed).
 */
export function nodeContainers(node: NodeReport, size: ContainerSize, cores?: number): number {
  return containersIn(countedTotal(node.total, cores), size);
}

function countedTotal(total: Resource, cores: number | undefined): Resource {
  return cores === undefined ? total : { ...total, vcores: Math.min(total.vcores, cores) };
}

function containersIn(r: Resource, size: ContainerSize): number {
  return Math.max(0, Math.min(Math.floor(r.memoryMB / size.memoryMb), Math.floor(r.vcores / size.vcores)));
}

/** Task containers of `size` that resources asked for amount to (the larger of memory and vcores). */
function containersAsked(r: Resource, size: ContainerSize): number {
  return Math.max(0, r.memoryMB / size.memoryMb, r.vcores / size.vcores);
}

/**
 * Task containers that still fit on a node now: what its total less its used leaves (its vcores
 * counted as in nodeContainers: the vcores in use take the cores first).
 */
function freeContainers(node: NodeReport, size: ContainerSize, cores?: number): number {
  const total = countedTotal(node.total, cores);
  return containersIn(
    {
      memoryMB: total.memoryMB - node.used.memoryMB,
      vcores: total.vcores - node.used.vcores,
      extra: {},
    },
    size,
  );
}

function partitionOf(node: NodeReport): string {
  return node.nodeLabels[0] ?? '';
}

function leaves(q: QueueInfo): QueueInfo[] {
  return q.kind === 'leaf' || q.children.length === 0 ? [q] : q.children.flatMap(leaves);
}

function reaches(q: QueueInfo, label: string): boolean {
  return label === '' || q.accessibleNodeLabels.includes('*') || q.accessibleNodeLabels.includes(label);
}

/**
 * The queue's absolute capacity (percent of the partition) in one partition: the per-partition
 * figure where the scheduler reports it, else the queue's own absolute capacity for the default
 * partition, and nothing for a label the queue cannot reach.
 */
function absoluteShare(q: QueueInfo, label: string): number {
  if (!reaches(q, label)) return 0;
  const p = q.partitions.find((x) => x.partition === label);
  if (p) return p.absoluteCapacity;
  return label === '' ? q.absoluteCapacity : 0;
}

/** The queue's absolute used share (percent of the partition) in one partition. */
function absoluteUsed(q: QueueInfo, label: string): number {
  if (!reaches(q, label)) return 0;
  const p = q.partitions.find((x) => x.partition === label);
  if (p) return p.absoluteUsedCapacity;
  return label === '' ? q.absoluteUsedCapacity : 0;
}

/** Each resource column of a partition, and how much of a node's resource it counts. */
const COUNTED: ReadonlyArray<readonly ['memoryMb' | 'vcores' | 'gpus', (r: Resource) => number]> = [
  ['memoryMb', (r) => r.memoryMB],
  ['vcores', (r) => r.vcores],
  ['gpus', (r) => r.extra[GPU_RESOURCE] ?? 0],
];

/**
 * A leaf queue's containers per partition: its guarantee (its absolute capacity of the
 * partition's containers), what it uses, and what its apps ask for and wait for.
 */
function queueSummary(
  q: QueueInfo,
  byLabel: ReadonlyMap<string, { containers: number }>,
  size: ContainerSize,
): QueueSummary {
  const containers: Record<string, number> = {};
  const used: Record<string, number> = {};
  const pending: Record<string, number> = {};
  for (const [label, p] of byLabel) {
    containers[label] = Math.floor((p.containers * absoluteShare(q, label)) / 100);
    used[label] = Math.round((p.containers * absoluteUsed(q, label)) / 100);
    const asked = q.resourcesByPartition?.find((r) => r.partition === label)?.pending;
    if (asked !== undefined) pending[label] = Math.ceil(containersAsked(asked, size));
  }
  return {
    name: q.name,
    path: q.path,
    capacity: q.capacity,
    absoluteCapacity: q.absoluteCapacity,
    accessibleNodeLabels: q.accessibleNodeLabels,
    containers,
    used,
    pending,
  };
}

export function buildCapacityView(
  nodes: readonly NodeReport[],
  scheduler: SchedulerInfo | undefined,
  size: ContainerSize,
  cores?: NodeCores,
): CapacityView {
  const byLabel = new Map<string, PartitionView & { containers: number }>();
  const free: Record<string, number> = {};
  for (const n of nodes) {
    if (n.state !== 'RUNNING') continue;
    const label = partitionOf(n);
    const p = byLabel.get(label) ?? {
      label,
      nodes: 0,
      memoryMb: { total: 0, used: 0 },
      vcores: { total: 0, used: 0 },
      gpus: { total: 0, used: 0 },
      utilization: 0,
      containers: 0,
    };
    p.nodes++;
    for (const [column, amount] of COUNTED) {
      p[column].total += amount(n.total);
      p[column].used += amount(n.used);
    }
    const c = coresOf(cores, label);
    p.containers += nodeContainers(n, size, c);
    free[label] = (free[label] ?? 0) + freeContainers(n, size, c);
    byLabel.set(label, p);
  }
  const partitions = [...byLabel.values()]
    .sort((a, b) => a.label.localeCompare(b.label))
    .map((p) => ({
      ...p,
      utilization: p.memoryMb.total > 0 ? p.memoryMb.used / p.memoryMb.total : 0,
      nodeCores: coresOf(cores, p.label) ?? null,
    }));
  const queues = scheduler ? leaves(scheduler.root).map((q) => queueSummary(q, byLabel, size)) : [];
  const total = Object.fromEntries([...byLabel].map(([label, p]) => [label, p.containers]));
  return { partitions, queues, free, total };
}
