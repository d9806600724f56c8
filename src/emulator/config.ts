import type { ClusterSpec, TaskCostSpec } from '../sim/model';

/**
 * What the emulated RM is: the simulated cluster, a capacity-scheduler-like queue
 * configuration with label partitions, the cluster's priority cap, and how an application that
 * does not say its size becomes a MapReduce job. docs/emulator.md documents every field.
 */

export interface QueueConfig {
  /** Leaf name under root, e.g. `realtime`. */
  name: string;
  /** Share of the default partition, percent (capacity-scheduler `capacity`). */
  capacity: number;
  /** Upper bound of the share it may use, percent (`maximum-capacity`). */
  maxCapacity: number;
  /** Labels the queue may use (`accessible-node-labels`). */
  accessibleNodeLabels: string[];
  /** Share of each accessible labelled partition, percent (`accessible-node-labels.<l>.capacity`). */
  labelCapacity: Record<string, number>;
  /** `default-node-label-expression`: the partition of apps that name none. */
  defaultNodeLabelExpression: string;
  /** Whether the reservation system may plan in this queue (ReservationSystem.md). */
  reservable: boolean;
}

export interface DefaultJobSize {
  maps: number;
  reduces: number;
  inputBytes: number;
}

export interface EmulatorConfig {
  cluster: ClusterSpec;
  queues: QueueConfig[];
  /** `yarn.cluster.max-application-priority`: PUT priority caps here (INDEX.md 9.2). */
  maxApplicationPriority: number;
  /** Size of an app whose tags do not give `maps:`, `reduces:` or `input-bytes:`. */
  defaultJob: DefaultJobSize;
  /** Resources of one container (one simulator slot). */
  containerMemoryMB: number;
  containerVcores: number;
  /** The user reported for apps submitted without `user.name`. */
  defaultUser: string;
  /** Placement policy of the registry the simulated scheduler uses, and its arguments. */
  placementPolicy: string;
  placementArgs: unknown;
  /** Reported versions. */
  hadoopVersion: string;
}

/**
 * Task run times of the default cluster. Actual map time is at most
 * (mapFixedSeconds + mapSecondsPerMB · MB) · (1 + remoteReadPenalty) · jitter[1] / speed
 * simulated seconds: with these values 2 + 0.05 · MB, times 1.5 for a remote read, never more
 * (jitter ≤ 1, every speed 1). docs/emulator.md, "Task times".
 */
export const DEFAULT_COSTS: TaskCostSpec = {
  mapFixedSeconds: 2,
  mapSecondsPerMB: 0.05,
  reduceFixedSeconds: 2,
  reduceSecondsPerMB: 0.05,
  shuffleRatio: 0.1,
  jitter: [0.8, 1],
};

/** Four CPU nodes and two GPU nodes (label `gpu`), 8 containers each, unified slot model. */
export function defaultEmulatorCluster(): ClusterSpec {
  const base = {
    mapSlots: 0,
    reduceSlots: 0,
    speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
    idleWatts: 100,
    taskEnergyKWh: { cpu: 0.001, gpu: 0.002, gpuOnCpu: 0.001 },
  };
  return {
    version: 1,
    slotModel: 'unified',
    heartbeatSeconds: 1,
    remoteReadPenalty: 0.5,
    gpuLabel: 'gpu',
    nodeClasses: [
      { ...base, name: 'cpu', count: 4, containers: 8, gpuContainers: 0, labels: [] },
      { ...base, name: 'gpu', count: 2, containers: 8, gpuContainers: 4, labels: ['gpu'] },
    ],
    costs: { cpu: DEFAULT_COSTS, gpu: DEFAULT_COSTS },
    hdfs: { blockMB: 128, replication: 3, blocks: 0 },
    failures: null,
    energyWindowSeconds: null,
  };
}

/** realtime, besteffort and default, the layout the sidecar expects (docs/deploy.md). */
export function defaultQueues(gpuLabel = 'gpu'): QueueConfig[] {
  return [
    {
      name: 'realtime',
      capacity: 40,
      maxCapacity: 100,
      accessibleNodeLabels: [gpuLabel],
      labelCapacity: { [gpuLabel]: 50 },
      defaultNodeLabelExpression: '',
      reservable: true,
    },
    {
      name: 'besteffort',
      capacity: 30,
      maxCapacity: 100,
      accessibleNodeLabels: [gpuLabel],
      labelCapacity: { [gpuLabel]: 50 },
      defaultNodeLabelExpression: '',
      reservable: false,
    },
    {
      name: 'default',
      capacity: 30,
      maxCapacity: 100,
      accessibleNodeLabels: [],
      labelCapacity: {},
      defaultNodeLabelExpression: '',
      reservable: false,
    },
  ];
}

export function defaultEmulatorConfig(over: Partial<EmulatorConfig> = {}): EmulatorConfig {
  const cluster = over.cluster ?? defaultEmulatorCluster();
  return {
    cluster,
    queues: defaultQueues(cluster.gpuLabel),
    maxApplicationPriority: 10,
    defaultJob: { maps: 4, reduces: 1, inputBytes: 4 * 128 * 1024 * 1024 },
    containerMemoryMB: 2048,
    containerVcores: 1,
    defaultUser: 'dr.who',
    placementPolicy: 'fifo',
    placementArgs: {},
    hadoopVersion: '3.3.6',
    ...over,
  };
}

/** Every problem of a configuration, as `path: message`; empty when it is usable. */
export function checkEmulatorConfig(c: EmulatorConfig): string[] {
  const problems: string[] = [];
  const labels = new Set(c.cluster.nodeClasses.flatMap((n) => n.labels));
  const sum = c.queues.reduce((s, q) => s + q.capacity, 0);
  if (Math.abs(sum - 100) > 1e-6) problems.push(`queues: capacities add up to ${sum}, not 100`);
  const names = new Set<string>();
  c.queues.forEach((q, i) => {
    if (names.has(q.name)) problems.push(`queues[${i}].name: ${q.name} appears twice`);
    names.add(q.name);
    if (!/^[A-Za-z0-9_-]+$/.test(q.name)) problems.push(`queues[${i}].name: not a leaf queue name`);
    if (q.maxCapacity < q.capacity) problems.push(`queues[${i}].maxCapacity: below capacity`);
    for (const l of q.accessibleNodeLabels)
      if (!labels.has(l)) problems.push(`queues[${i}].accessibleNodeLabels: no node has label ${l}`);
  });
  for (const l of labels) {
    const s = c.queues.reduce((acc, q) => acc + (q.labelCapacity[l] ?? 0), 0);
    if (Math.abs(s - 100) > 1e-6)
      problems.push(`queues: capacities of partition ${l} add up to ${s}, not 100`);
  }
  if (!Number.isInteger(c.maxApplicationPriority) || c.maxApplicationPriority < 0)
    problems.push('maxApplicationPriority: a non-negative integer');
  if (c.defaultJob.maps < 1) problems.push('defaultJob.maps: at least 1');
  if (c.defaultJob.reduces < 0) problems.push('defaultJob.reduces: not negative');
  return problems;
}
