/**
 * The typed model of what the ResourceManager, the JobHistory server and WebHDFS report.
 *
 * Free of transport types: nothing here knows whether a value came from JSON or XML, from
 * Hadoop or from the emulator. Times are epoch milliseconds (UTC), durations milliseconds,
 * memory MB, capacities percentages (0-100) as the RM reports them.
 *
 * A field that some RM versions do not send is optional (`| undefined`) and stays undefined
 * when the answer lacks it: it is never filled with a default, and the probe shows it as
 * "unknown". Each such field says since which Hadoop version the RM sends it, from the RM's
 * web-service DAO classes of 2.7.7, 2.8.5, 3.1.3, 3.3.6 and 3.4.1. Fields every RM since 2.7
 * sends are plain; the ones that identify a thing (an app id, a node id, an app state) are
 * required, and a body without them is an RmMalformedResponseError naming the field.
 */

/** A resource vector: memory, vcores, and any extra countable resource (e.g. `yarn.io/gpu`). */
export interface Resource {
  memoryMB: number;
  vcores: number;
  /** Extra resource types by name, e.g. `{ 'yarn.io/gpu': 2 }`. memory-mb and vcores are not repeated here. */
  extra: Readonly<Record<string, number>>;
}

export const GPU_RESOURCE = 'yarn.io/gpu';

export type HaState = 'INITIALIZING' | 'ACTIVE' | 'STANDBY' | 'STOPPED';

export interface ClusterInfo {
  id: number;
  startedOn: number;
  state: string;
  /**
   * Sent by every RM since 2.4 (2.7's ClusterInfo always sets it), but absent from older RMs
   * and from the 2.7 documentation's own sample, which is still the 0.23 one.
   */
  haState?: HaState | string;
  resourceManagerVersion: string;
  hadoopVersion: string;
  /** In the 2.7.3 and later answers checked; earlier RMs may lack it. */
  haZooKeeperConnectionState?: string;
}

export interface ClusterMetrics {
  appsSubmitted: number;
  appsCompleted: number;
  appsPending: number;
  appsRunning: number;
  appsFailed: number;
  appsKilled: number;
  totalMB: number;
  availableMB: number;
  allocatedMB: number;
  reservedMB: number;
  /** In the 2.6 and later answers checked; optional for the RMs before them. */
  reservedVirtualCores?: number;
  totalVirtualCores: number;
  availableVirtualCores: number;
  allocatedVirtualCores: number;
  containersAllocated: number;
  containersPending: number;
  containersReserved: number;
  totalNodes: number;
  activeNodes: number;
  lostNodes: number;
  unhealthyNodes: number;
  /** Since Hadoop 2.8 (graceful decommission); absent from 2.7 and earlier. */
  decommissioningNodes?: number;
  decommissionedNodes: number;
  rebootedNodes: number;
  /** Since Hadoop 2.8; absent from 2.7 and earlier. */
  shutdownNodes?: number;
}

export type NodeState =
  'NEW' | 'RUNNING' | 'UNHEALTHY' | 'DECOMMISSIONING' | 'DECOMMISSIONED' | 'LOST' | 'REBOOTED' | 'SHUTDOWN';

export interface NodeReport {
  id: string;
  host: string;
  rack: string;
  state: NodeState | string;
  httpAddress: string;
  /**
   * Node labels (partitions) of this node; empty means the default partition. Every RM since
   * 2.6 has this member and leaves it out when the list is empty (JAXB writes no element for an
   * empty list), and RMs before labels existed have only the default partition: so a missing
   * member is read as the default partition, not as unknown.
   */
  nodeLabels: string[];
  numContainers: number;
  lastHealthUpdate: number;
  healthReport: string;
  version: string;
  total: Resource;
  used: Resource;
  available: Resource;
}

export interface ResourceRequestInfo {
  resourceName: string;
  numContainers: number;
  capability: Resource;
  priority: number;
  relaxLocality: boolean;
  /** Absent when the request gave none (the RM omits a null expression) or the RM predates labels. */
  nodeLabelExpression?: string;
}

export interface AppReport {
  id: string;
  name: string;
  user: string;
  queue: string;
  state: string;
  finalStatus: string;
  progress: number;
  applicationType: string;
  /**
   * Tags, split from the RM's comma-separated string, as the RM reports them: the RM stores
   * tags lower-cased (`deadline:2026-11-24t19:48:22z`). Every RM since 2.7 sends the member
   * (`""` for none).
   */
  applicationTags: string[];
  /** Since Hadoop 2.8 (application priority); absent from 2.7 and earlier. */
  priority?: number;
  startedTime: number;
  /**
   * When the AM's container was launched (0 before; -1 for an unmanaged AM). Since Hadoop 2.8;
   * absent from older RMs.
   */
  launchTime?: number;
  /** 0 while the app runs. */
  finishedTime: number;
  elapsedTime: number;
  allocatedMB: number;
  allocatedVCores: number;
  runningContainers: number;
  trackingUI: string;
  trackingUrl: string;
  diagnostics: string;
  amHostHttpAddress: string;
  /**
   * Since Hadoop 2.8. Absent from 2.7 and earlier, and from later RMs when the app gave none
   * (the RM omits a null expression); `''` when the RM reports an empty one.
   */
  appNodeLabelExpression?: string;
  /** Since Hadoop 2.8; absent as appNodeLabelExpression is. */
  amNodeLabelExpression?: string;
  resourceRequests: ResourceRequestInfo[];
}

/**
 * The capacity a queue is configured with, per resource, as the RM writes it
 * (`queueCapacityVectorInfo`, since Hadoop 3.4): `[memory-mb=12.5%,vcores=12.5%]`,
 * `[memory-mb=2.0w,vcores=2.0w]` or `[memory-mb=8192,vcores=8]`.
 */
export interface CapacityVector {
  /** `configuredCapacityVector`, the whole vector as one string. */
  text: string;
  /** One entry per resource; values keep the RM's suffix (`%` percentage, `w` weight, none absolute). */
  entries: Array<{ resource: string; value: string }>;
}

/**
 * A queue's capacities in one partition (capacity scheduler `capacities.queueCapacitiesByPartition`,
 * since Hadoop 2.8). The percentages are in every entry; the rest is optional.
 */
export interface PartitionCapacity {
  /** `''` is the default partition. */
  partition: string;
  capacity: number;
  usedCapacity: number;
  maxCapacity: number;
  absoluteCapacity: number;
  absoluteUsedCapacity: number;
  absoluteMaxCapacity: number;
  /** Percent of the partition the queue's AMs may use (every RM that sends partitions). */
  maxAMLimitPercentage?: number;
  /** Since Hadoop 3.4; -1 when the queue's capacity is not given as a weight. */
  weight?: number;
  /** Since Hadoop 3.4. */
  normalizedWeight?: number;
  /** Since Hadoop 3.4. */
  capacityVector?: CapacityVector;
  /** Since Hadoop 3.1 (absolute resources): the configured minimum and maximum. */
  configuredMinResource?: Resource;
  configuredMaxResource?: Resource;
  /** Since Hadoop 3.1: what the minimum and maximum come to in resources. */
  effectiveMinResource?: Resource;
  effectiveMaxResource?: Resource;
}

/**
 * A queue's resources in one partition (capacity scheduler `resources.resourceUsagesByPartition`,
 * since Hadoop 2.8). Each resource is absent when the entry lacks it.
 */
export interface PartitionResources {
  /** `''` is the default partition. */
  partition: string;
  used?: Resource;
  reserved?: Resource;
  pending?: Resource;
  amUsed?: Resource;
  amLimit?: Resource;
  userAmLimit?: Resource;
}

/**
 * How a capacity-scheduler queue's capacity is configured (`mode`, since Hadoop 3.4). The RM
 * itself may say `unknown`.
 */
export type CapacityMode = 'percentage' | 'absolute' | 'weight' | 'mixed' | 'unknown';

export type SchedulerType = 'capacity' | 'fair' | 'fifo';

export interface QueueInfo {
  /** Leaf name, e.g. `a`. */
  name: string;
  /** Full path, e.g. `root.a`. */
  path: string;
  kind: 'parent' | 'leaf';
  state: string;
  capacity: number;
  absoluteCapacity: number;
  maxCapacity: number;
  absoluteMaxCapacity: number;
  usedCapacity: number;
  absoluteUsedCapacity: number;
  numApplications: number;
  /** Labels the queue may reach (`*` = all); capacity scheduler `nodeLabels`. */
  accessibleNodeLabels: string[];
  /** Capacity-scheduler leaves since Hadoop 2.8, every queue since 3.4; undefined when none is set. */
  defaultNodeLabelExpression: string | undefined;
  /** Capacity scheduler since Hadoop 2.8; empty when the RM sends none (2.7, fair, fifo). */
  partitions: PartitionCapacity[];
  resourcesUsed: Resource | undefined;
  /** Capacity scheduler since Hadoop 2.8: used, reserved, pending … per partition. */
  resourcesByPartition?: PartitionResources[];
  /** Capacity scheduler since Hadoop 3.4: percentage, absolute, weight or mixed. */
  capacityMode?: CapacityMode | string;
  /** Capacity scheduler since Hadoop 3.4; -1 when the capacity is not given as a weight. */
  weight?: number;
  /** Capacity scheduler since Hadoop 3.4: the weight as a share of its siblings' weights. */
  normalizedWeight?: number;
  /** Capacity scheduler since Hadoop 3.4, on the root only (the others carry it per partition). */
  capacityVector?: CapacityVector;
  /**
   * Capacity scheduler leaves: the queue's containers are never preempted
   * (`yarn.scheduler.capacity.<queue>.disable_preemption`); undefined when the RM does not say.
   */
  preemptionDisabled?: boolean;
  /** Capacity scheduler since Hadoop 3.1 (`minEffectiveCapacity`): the guaranteed resources. */
  effectiveMinResource?: Resource;
  /** Capacity scheduler since Hadoop 3.1 (`maxEffectiveCapacity`): the most it may use. */
  effectiveMaxResource?: Resource;
  children: QueueInfo[];
}

export interface SchedulerInfo {
  type: SchedulerType;
  root: QueueInfo;
}

export interface AppAttempt {
  id: number;
  appAttemptId: string | undefined;
  startTime: number;
  finishedTime: number;
  containerId: string;
  nodeId: string;
  nodeHttpAddress: string;
  logsLink: string;
  state: string | undefined;
}

export interface ContainerReport {
  containerId: string;
  allocatedMB: number;
  allocatedVCores: number;
  nodeId: string;
  state: string;
  priority: number;
  startedTime: number;
  finishedTime: number;
  elapsedTime: number;
  exitStatus: number;
}

export interface AppTimeout {
  type: string;
  /** Epoch ms, or null when the RM says `UNLIMITED`. */
  expiryTime: number | null;
  /** -1: no timeout set; 0: expired. */
  remainingTimeInSeconds: number;
}

export interface AppStatItem {
  state: string;
  type: string;
  count: number;
}

export interface NewApplication {
  applicationId: string;
  maximumResourceCapability: Resource;
}

export interface NodeLabel {
  name: string;
  /** Read as true when the RM gives a bare name (2.7's label list), as the RM's default is. */
  exclusive: boolean;
  resourceAvailable: Resource | undefined;
  activeNMs: number | undefined;
}

export interface LabelMapping {
  label: NodeLabel;
  nodes: string[];
}

export interface ReservationRequest {
  capability: Resource;
  numContainers: number;
  minConcurrency: number;
  durationMs: number;
}

export interface ReservationDefinition {
  arrival: number;
  deadline: number;
  name: string;
  /** Lower number = higher priority. */
  priority?: number;
  /** Period in ms as a string, `'0'` or absent = not periodic. */
  recurrenceExpression?: string;
  /** 0 ANY, 1 ALL, 2 ORDER, 3 ORDER_NO_GAP. */
  interpreter: number;
  requests: ReservationRequest[];
}

export interface ReservationAllocation {
  startTime: number;
  endTime: number;
  resource: Resource;
}

export interface ReservationInfo {
  id: string;
  user: string;
  acceptanceTime: number;
  definition: ReservationDefinition;
  allocations: ReservationAllocation[];
}

/** Result of a submission: where the RM says the new app lives. */
export interface SubmissionResult {
  status: number;
  location: string | undefined;
}

export interface QueueMoveResult {
  /** The queue the RM reports after the move (may be the full path). */
  queue: string;
  /** True when the reported queue's leaf is the requested leaf (INDEX.md 9.1). */
  moved: boolean;
}

export interface KillResult {
  /** 202 while the kill runs, 200 once KILLED. */
  status: number;
  state: string;
}

/**
 * The time filters of the RM's app list and the JobHistory server's job list (epoch ms, both
 * bounds inclusive; INDEX.md section 3).
 */
export interface TimeWindowQuery {
  startedTimeBegin?: number;
  startedTimeEnd?: number;
  finishedTimeBegin?: number;
  finishedTimeEnd?: number;
}

// --- JobHistory server and MapReduce AM ----------------------------------------------------

export type TaskType = 'MAP' | 'REDUCE';

export interface JobSummary {
  id: string;
  name: string;
  user: string;
  queue: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  mapsTotal: number;
  mapsCompleted: number;
  reducesTotal: number;
  reducesCompleted: number;
}

/** What the JobHistory server and the AM report of a task and of a task attempt alike. */
export interface TaskRun {
  id: string;
  type: TaskType;
  state: string;
  startTime: number;
  /** 0 while running. */
  finishTime: number;
  elapsedTime: number;
  progress: number;
}

export interface TaskReport extends TaskRun {
  successfulAttempt: string;
}

export interface TaskAttemptReport extends TaskRun {
  nodeHttpAddress: string;
  rack: string;
  assignedContainerId: string;
  /** Reduce attempts only. */
  shuffleFinishTime?: number;
  mergeFinishTime?: number;
}

/**
 * A job's counters (`/jobs/{id}/counters`): by counter name (`HDFS_BYTES_READ`,
 * `REDUCE_SHUFFLE_BYTES`, ...), its total and its maps' and reduces' shares. A name found in
 * two groups keeps the first group's (the file system counters come before the others).
 */
export interface JobCounters {
  readonly [name: string]: { readonly total: number; readonly map: number; readonly reduce: number };
}

/** A task's counters (`/jobs/{id}/tasks/{taskid}/counters`): by counter name, its value. */
export interface TaskCounters {
  readonly [name: string]: number;
}

// --- WebHDFS --------------------------------------------------------------------------------

/** One entry of WebHDFS `GETFILESTATUS` (`FileStatus`) or `LISTSTATUS` (`FileStatuses.FileStatus[]`). */
export interface FileStatus {
  /** The name under the listed directory; `""` for GETFILESTATUS, and for LISTSTATUS of a file. */
  pathSuffix: string;
  type: 'FILE' | 'DIRECTORY' | 'SYMLINK' | string;
  /** Bytes; 0 for a directory. */
  length: number;
  blockSize: number;
  replication: number;
  modificationTime: number;
}

export interface BlockLocation {
  offset: number;
  length: number;
  hosts: string[];
  names: string[];
  topologyPaths: string[];
  storageTypes: string[];
  cachedHosts: string[];
  corrupt: boolean;
}
