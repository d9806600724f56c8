import type { ClusterSpec, TaskCostSpec } from '../sim/model';
import { AUTH_MODES, type AuthMode } from './auth';

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
  /**
   * `acl_submit_applications`, a YARN ACL (`alice,bob` users, `*` everyone, ` ` no one; groups
   * after a space are not known here). Checked only with `aclEnabled`. Default `*`.
   */
  submitAcl?: string;
}

export interface DefaultJobSize {
  maps: number;
  reduces: number;
  inputBytes: number;
}

export interface EmulatorConfig {
  cluster: ClusterSpec;
  queues: QueueConfig[];
  /**
   * `yarn.cluster.max-application-priority`: a submitted or PUT priority above it is answered
   * and kept as the cap (INDEX.md 9.2). 0 on a stock cluster, as here by default.
   */
  maxApplicationPriority: number;
  /** `yarn.resourcemanager.am.max-attempts`: attempts of an app whose AM fails (default 2). */
  amMaxAttempts: number;
  /**
   * HTTP authentication of the RM, its AM proxy and the JobHistory server (auth.ts): `none`
   * (stock: anonymous calls are `dr.who`) or `simple` (every call needs `user.name`).
   */
  auth: AuthMode;
  /** `yarn.acl.enable`: queue submit ACLs and app modify ACLs are checked. */
  aclEnabled: boolean;
  /** `yarn.admin.acl`: users who may modify any app (default `*`, everyone). */
  adminAcl: string;
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
  /**
   * The members `GET /apps?deSelects=` may leave out (Hadoop's DeSelectFields.DeSelectType):
   * every one the RM 3.4 knows by default; any other value is a 400, as on the RM. An older RM
   * knows only `resourceRequests`.
   */
  deSelectTypes: readonly string[];
}

/** The deSelects members of the RM 3.4, in the order its error message lists them. */
export const DESELECT_TYPES = [
  'resourceRequests',
  'timeouts',
  'appNodeLabelExpression',
  'amNodeLabelExpression',
  'resourceInfo',
] as const;

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
      submitAcl: '*',
    },
    {
      name: 'besteffort',
      capacity: 30,
      maxCapacity: 100,
      accessibleNodeLabels: [gpuLabel],
      labelCapacity: { [gpuLabel]: 50 },
      defaultNodeLabelExpression: '',
      reservable: false,
      submitAcl: '*',
    },
    {
      name: 'default',
      capacity: 30,
      maxCapacity: 100,
      accessibleNodeLabels: [],
      labelCapacity: {},
      defaultNodeLabelExpression: '',
      reservable: false,
      submitAcl: '*',
    },
  ];
}

/**
 * Whether a YARN ACL string admits a user: `*` everyone; otherwise the comma-separated users
 * before the first space (the groups after it are not known to the emulator).
 */
export function aclAllows(acl: string, user: string): boolean {
  if (acl.trim() === '*') return true;
  // `users groups`: a leading space means no users.
  const users = acl.split(' ')[0] ?? '';
  return users
    .split(',')
    .map((u) => u.trim())
    .includes(user);
}

export function defaultEmulatorConfig(over: Partial<EmulatorConfig> = {}): EmulatorConfig {
  const cluster = over.cluster ?? defaultEmulatorCluster();
  return {
    cluster,
    queues: defaultQueues(cluster.gpuLabel),
    maxApplicationPriority: 0,
    amMaxAttempts: 2,
    auth: 'none',
    aclEnabled: false,
    adminAcl: '*',
    defaultJob: { maps: 4, reduces: 1, inputBytes: 4 * 128 * 1024 * 1024 },
    containerMemoryMB: 2048,
    containerVcores: 1,
    defaultUser: 'dr.who',
    placementPolicy: 'fifo',
    placementArgs: {},
    hadoopVersion: '3.3.6',
    deSelectTypes: DESELECT_TYPES,
    ...over,
  };
}

/** One problem of a configuration: the path of the field at fault, and what is wrong. */
export interface EmulatorConfigIssue {
  path: Array<string | number>;
  message: string;
}

/** Labels carried by at least one node (a class with count 0 has no nodes). */
export function clusterLabels(c: EmulatorConfig['cluster']): Set<string> {
  return new Set(c.nodeClasses.filter((n) => n.count > 0).flatMap((n) => n.labels));
}

const PERCENT_TOLERANCE = 1e-6;

/**
 * Every problem of a configuration, with the path of the field it concerns; empty when it is
 * usable. The queue rules are the CapacityScheduler's: the children of a parent (here root,
 * the only parent) have capacities adding up to 100 in every partition (ParentQueue refuses
 * "Illegal capacity ... for children of queue root for label=..."), a queue's maximum is not
 * below its capacity, a queue has a capacity only in labels it may access, and its default
 * label expression is one of those.
 */
export function emulatorConfigIssues(c: EmulatorConfig): EmulatorConfigIssue[] {
  const out: EmulatorConfigIssue[] = [];
  const add = (path: Array<string | number>, message: string) => out.push({ path, message });
  const labels = clusterLabels(c.cluster);
  const percent = (path: Array<string | number>, v: number) => {
    if (!(v >= 0 && v <= 100)) add(path, `${v} is not a percentage in [0, 100]`);
  };
  if (c.queues.length === 0) add(['queues'], 'at least one queue');
  const seen = new Map<string, number>();
  c.queues.forEach((q, i) => {
    const first = seen.get(q.name);
    if (first !== undefined)
      add(['queues', i, 'name'], `duplicate queue name ${q.name} (also queues[${first}])`);
    else seen.set(q.name, i);
    if (!/^[A-Za-z0-9_-]+$/.test(q.name))
      add(['queues', i, 'name'], `${JSON.stringify(q.name)} is not a leaf queue name`);
    percent(['queues', i, 'capacity'], q.capacity);
    percent(['queues', i, 'maxCapacity'], q.maxCapacity);
    if (q.maxCapacity < q.capacity)
      add(['queues', i, 'maxCapacity'], `maximum ${q.maxCapacity} is below the capacity ${q.capacity}`);
    q.accessibleNodeLabels.forEach((l, k) => {
      if (!labels.has(l)) add(['queues', i, 'accessibleNodeLabels', k], `no node has label ${l}`);
    });
    for (const [l, v] of Object.entries(q.labelCapacity)) {
      percent(['queues', i, 'labelCapacity', l], v);
      if (!q.accessibleNodeLabels.includes(l))
        add(['queues', i, 'labelCapacity', l], `a capacity in label ${l}, which the queue cannot access`);
    }
    const d = q.defaultNodeLabelExpression;
    if (d !== '' && !q.accessibleNodeLabels.includes(d))
      add(['queues', i, 'defaultNodeLabelExpression'], `label ${d} is not accessible to the queue`);
  });
  if (c.queues.length > 0) {
    const sum = c.queues.reduce((s, q) => s + q.capacity, 0);
    if (Math.abs(sum - 100) > PERCENT_TOLERANCE)
      add(['queues'], `children's capacities in the default partition add up to ${sum}, not 100`);
    for (const l of [...labels].sort()) {
      const s = c.queues.reduce((acc, q) => acc + (q.labelCapacity[l] ?? 0), 0);
      if (Math.abs(s - 100) > PERCENT_TOLERANCE)
        add(['queues'], `children's capacities in the partition ${l} add up to ${s}, not 100`);
    }
  }
  if (!Number.isInteger(c.maxApplicationPriority) || c.maxApplicationPriority < 0)
    add(['maxApplicationPriority'], 'a non-negative integer');
  if (!Number.isInteger(c.amMaxAttempts) || c.amMaxAttempts < 1)
    add(['amMaxAttempts'], 'an integer, at least 1');
  if (!AUTH_MODES.includes(c.auth)) add(['auth'], `one of ${AUTH_MODES.join(', ')}`);
  if (!Number.isInteger(c.defaultJob.maps) || c.defaultJob.maps < 1)
    add(['defaultJob', 'maps'], 'an integer, at least 1');
  if (!Number.isInteger(c.defaultJob.reduces) || c.defaultJob.reduces < 0)
    add(['defaultJob', 'reduces'], 'a non-negative integer');
  if (!(c.defaultJob.inputBytes >= 0)) add(['defaultJob', 'inputBytes'], 'not negative');
  if (!Number.isInteger(c.containerMemoryMB) || c.containerMemoryMB < 1)
    add(['containerMemoryMB'], 'a positive integer');
  if (!Number.isInteger(c.containerVcores) || c.containerVcores < 1)
    add(['containerVcores'], 'a positive integer');
  return out;
}

/** `queues[1].maxCapacity`: a path as the error messages write it. */
export function issuePath(path: ReadonlyArray<string | number>): string {
  let text = '';
  for (const p of path) text += typeof p === 'number' ? `[${p}]` : text ? `.${p}` : p;
  return text || '(root)';
}

/** Every problem of a configuration, as `path: message`; empty when it is usable. */
export function checkEmulatorConfig(c: EmulatorConfig): string[] {
  return emulatorConfigIssues(c).map((i) => `${issuePath(i.path)}: ${i.message}`);
}
