/**
 * The typed model of what the ResourceManager, the JobHistory server and WebHDFS report.
 *
 * Free of transport types: nothing here knows whether a value came from JSON or XML, from
 * Hadoop or from the emulator. Times are epoch milliseconds (UTC), durations milliseconds,
 * memory MB, capacities percentages (0-100) as the RM reports them.
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
  haState: HaState | string;
  resourceManagerVersion: string;
  hadoopVersion: string;
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
  decommissioningNodes: number;
  decommissionedNodes: number;
  rebootedNodes: number;
  shutdownNodes: number;
}

export type NodeState =
  'NEW' | 'RUNNING' | 'UNHEALTHY' | 'DECOMMISSIONING' | 'DECOMMISSIONED' | 'LOST' | 'REBOOTED' | 'SHUTDOWN';

export interface NodeReport {
  id: string;
  host: string;
  rack: string;
  state: NodeState | string;
  httpAddress: string;
  /** Node labels (partitions) of this node; empty means the default partition. */
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
  nodeLabelExpression: string;
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
  /** Tags, split from the RM's comma-separated string. */
  applicationTags: string[];
  priority: number;
  startedTime: number;
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
  /** Empty string when the app gave none. */
  appNodeLabelExpression: string;
  amNodeLabelExpression: string;
  resourceRequests: ResourceRequestInfo[];
}

export interface PartitionCapacity {
  /** `''` is the default partition. */
  partition: string;
  capacity: number;
  usedCapacity: number;
  maxCapacity: number;
  absoluteCapacity: number;
  absoluteUsedCapacity: number;
  absoluteMaxCapacity: number;
}

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
  defaultNodeLabelExpression: string | undefined;
  partitions: PartitionCapacity[];
  resourcesUsed: Resource | undefined;
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

export interface AppSubmission {
  applicationId: string;
  name: string;
  queue?: string;
  priority?: number;
  applicationType?: string;
  tags?: string[];
  /** Default label expression for every container of the app. */
  appNodeLabelExpression?: string;
  /** Label expression for the AM container. */
  amNodeLabelExpression?: string;
  amResource: { memoryMB: number; vcores: number };
  commands: string[];
  environment?: Record<string, string>;
  maxAppAttempts?: number;
  unmanagedAM?: boolean;
  keepContainersAcrossApplicationAttempts?: boolean;
  reservationId?: string;
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

export interface TaskReport {
  id: string;
  type: TaskType;
  state: string;
  startTime: number;
  /** 0 while running. */
  finishTime: number;
  elapsedTime: number;
  progress: number;
  successfulAttempt: string;
}

export interface TaskAttemptReport {
  id: string;
  type: TaskType;
  state: string;
  startTime: number;
  finishTime: number;
  elapsedTime: number;
  progress: number;
  nodeHttpAddress: string;
  rack: string;
  assignedContainerId: string;
  /** Reduce attempts only. */
  shuffleFinishTime?: number;
  mergeFinishTime?: number;
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
