import type { SidecarMetrics } from '../metrics';
import type { SidecarConfig } from '../config/schema';
import type { EnergyProfile } from '../core/energy/profile';
import type { PolicyRegistry } from '../core/registry';
import type { AnyAdmissionPolicy } from '../core/policy-entry';
import type { Enforcer } from '../enforce/enforcer';
import type { Logger } from '../log';
import type { Ledger } from '../store/types';
import type { ResourceManagerApi } from '../yarn/api';
import type { JobHistoryClient } from '../yarn/jobhistory';
import type { TaskReport } from '../yarn/model';
import type { LaneBook } from './lanes';
import type { ProgressWatch } from './lane-progress';
import type { EstimateKeeper } from './learning';
import type { InputReader } from './locality';
import type { ClusterObservation } from './observe';
import type { Partitions } from './partitions';
import type { PriorityCapTracker } from './priority-cap';
import type { SlowdownWatch } from './slowdown';
import type { SparkWatch } from './spark-watch';
import type { SparkExecutors } from '../yarn/spark';

export interface SidecarDeps {
  config: SidecarConfig;
  rm: ResourceManagerApi;
  jobHistory?: JobHistoryClient;
  /**
   * The tasks of a running MapReduce app, from its AM through the RM's web proxy
   * (`/proxy/{appid}/ws/v1/mapreduce/jobs/{jobid}/tasks`). Without it, rebuilt lanes count
   * every admitted job whole.
   */
  runningAppTasks?: (appId: string) => Promise<readonly TaskReport[]>;
  /**
   * The executors of a running Spark app, from its driver through the RM's web proxy
   * (`/proxy/{appid}/api/v1/applications/{appid}/allexecutors`). Without it, a Spark run's
   * set-up is learned up to its AM's launch.
   */
  runningSparkExecutors?: (appId: string) => Promise<SparkExecutors>;
  /**
   * WebHDFS (rm.webHdfsAddress), to read a submission's input paths for data locality. Without
   * it, dop is uniform and a submission with input paths must give inputBytes.
   */
  webHdfs?: InputReader;
  ledger: Ledger;
  registry: PolicyRegistry<AnyAdmissionPolicy>;
  energyProfile?: EnergyProfile;
  metrics: SidecarMetrics;
  logger: Logger;
  /** Epoch milliseconds; injected so tests and the demo control time. */
  now: () => number;
  /** What `now` reads, as the API's cluster view says: `emulated` for the emulated RM's clock. */
  clockKind?: 'system' | 'emulated';
  /** Ids of new jobs; injected for tests. */
  newId?: () => string;
  /**
   * How many unconfigured workload classes keep an observed cost distribution (and metric
   * series) besides the pinned ones; DEFAULT_RECENT_CLASSES when not given.
   */
  recentCostClasses?: number;
}

/** The parts of the live loop, built once by the Sidecar and handed to each stage. */
export interface LoopParts {
  readonly deps: SidecarDeps;
  readonly log: Logger;
  readonly observation: ClusterObservation;
  readonly estimates: EstimateKeeper;
  /** How finished jobs' tasks stretched with the containers beside them (shown only). */
  readonly slowdown: SlowdownWatch;
  /** Running Spark apps' first executors, for learning their runs. */
  readonly spark: SparkWatch;
  readonly partitions: Partitions;
  readonly lanes: LaneBook;
  readonly progress: ProgressWatch;
  readonly cap: PriorityCapTracker;
  readonly enforcer: Enforcer;
}
