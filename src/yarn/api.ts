import type {
  AppAttempt,
  AppReport,
  AppStatItem,
  AppTimeout,
  ClusterInfo,
  ClusterMetrics,
  ContainerReport,
  KillResult,
  LabelMapping,
  NewApplication,
  NodeLabel,
  NodeReport,
  QueueMoveResult,
  ReservationDefinition,
  ReservationInfo,
  SchedulerInfo,
  SubmissionResult,
  TimeWindowQuery,
} from './model';
import type { PreemptionSettings } from './conf';
import type { AppSubmission } from './submission';

/** Filters of `GET /ws/v1/cluster/apps` (INDEX.md section 3, row 4). */
export interface AppQuery extends TimeWindowQuery {
  states?: string[];
  queue?: string;
  user?: string;
  applicationTags?: string[];
  applicationTypes?: string[];
  limit?: number;
  /** Fields the RM may leave out: resourceRequests, timeouts, appNodeLabelExpression, … */
  deSelects?: string[];
}

export interface ReservationQuery {
  queue?: string;
  reservationId?: string;
  startTime?: number;
  endTime?: number;
  includeResourceAllocations?: boolean;
}

/**
 * The ResourceManager as the sidecar sees it. The HTTP client implements it against a real RM
 * (or the fixture server, or the emulator); every implementation passes the same conformance
 * suite. Failures are SidecarErrors (RmRemoteError, RmHttpError, RmTimeoutError,
 * RmUnavailableError, RmMalformedResponseError).
 */
export interface ResourceManagerApi {
  /**
   * How many times the active RM changed since the client started (an HA failover), when the
   * client can tell: a reader anchored to the RM's clock reads everything again when it moves.
   */
  readonly activeChanges?: number;
  // reads
  clusterInfo(): Promise<ClusterInfo>;
  clusterMetrics(): Promise<ClusterMetrics>;
  scheduler(): Promise<SchedulerInfo>;
  nodes(states?: string[]): Promise<NodeReport[]>;
  node(nodeId: string): Promise<NodeReport>;
  apps(query?: AppQuery): Promise<AppReport[]>;
  app(appId: string): Promise<AppReport>;
  appStatistics(states?: string[], applicationType?: string): Promise<AppStatItem[]>;
  appAttempts(appId: string): Promise<AppAttempt[]>;
  attemptContainers(appId: string, attemptId: string): Promise<ContainerReport[]>;
  appState(appId: string): Promise<string>;
  appQueue(appId: string): Promise<string>;
  appPriority(appId: string): Promise<number>;
  appTimeouts(appId: string): Promise<AppTimeout[]>;
  /**
   * yarn.cluster.max-application-priority from the RM's /conf servlet; undefined when the RM
   * does not say (an RM that hides /conf, or a double without one).
   */
  maxApplicationPriority?(): Promise<number | undefined>;
  /** The RM's preemption settings from its /conf (optional: a double may not have them). */
  preemption?(): Promise<PreemptionSettings>;
  appTimeout(appId: string, type?: string): Promise<AppTimeout>;
  nodeLabels(): Promise<NodeLabel[]>;
  nodeToLabels(): Promise<Map<string, string[]>>;
  labelMappings(labels?: string[]): Promise<LabelMapping[]>;
  reservations(query?: ReservationQuery): Promise<ReservationInfo[]>;

  // writes
  moveApp(appId: string, queue: string): Promise<QueueMoveResult>;
  setAppPriority(appId: string, priority: number): Promise<number>;
  killApp(appId: string, diagnostics?: string): Promise<KillResult>;
  /** Set the LIFETIME timeout to an absolute time (epoch ms). */
  setAppLifetime(appId: string, expiryEpochMs: number): Promise<AppTimeout>;
  newApplication(): Promise<NewApplication>;
  submitApp(submission: AppSubmission): Promise<SubmissionResult>;
  newReservation(): Promise<string>;
  submitReservation(reservationId: string, queue: string, definition: ReservationDefinition): Promise<void>;
  updateReservation(reservationId: string, definition: ReservationDefinition): Promise<void>;
  deleteReservation(reservationId: string): Promise<void>;
}
