import type { JobType } from '../../sim/model';
import type { SubmissionContext } from '../submission-context';
import type { TimeWindowQuery } from '../../yarn/model';

/** The emulated RM's app model: its states, the record it keeps of each app, and the view it reports. */

export type AppState =
  'NEW' | 'NEW_SAVING' | 'SUBMITTED' | 'ACCEPTED' | 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';
export const APP_STATES: readonly AppState[] = [
  'NEW',
  'NEW_SAVING',
  'SUBMITTED',
  'ACCEPTED',
  'RUNNING',
  'FINISHED',
  'FAILED',
  'KILLED',
];
export const FINAL: ReadonlySet<string> = new Set(['FINISHED', 'FAILED', 'KILLED']);

/**
 * The RM's own state of an app (RMAppState), which `GET /apps/{id}/state` and the answer to a
 * kill speak, though the app report never shows it: FINISHING while the AM has unregistered
 * and its container is still to end (the report says FINISHED already), KILLING while a kill
 * waits for the attempt, FINAL_SAVING while the end is stored (measured on 3.4.3).
 */
export type RmAppState = AppState | 'FINAL_SAVING' | 'FINISHING' | 'KILLING';

/**
 * RMAppState's for which the end is stored: a kill changes nothing (ClientRMService answers
 * it done, 200 with this state) and a move is refused.
 */
export const FINAL_STORED: ReadonlySet<string> = new Set(['FINISHING', 'FINISHED', 'FAILED', 'KILLED']);

/**
 * Simulated seconds an app is FINISHING after its last task: the MapReduce AM has unregistered
 * and its container has yet to exit and be reported by its NodeManager. 6 to 7 seconds on a
 * real RM 3.4.3 with SleepJobs.
 */
export const FINISHING_SECONDS = 6;

/**
 * Simulated seconds one attempt of an AM that exits at once lasts: on a real RM 3.4.3 an app
 * with an empty AM command failed its 2 attempts in about a second.
 */
export const AM_ATTEMPT_SECONDS = 0.5;

/** The RM's diagnostics when the lifetime monitor kills an app (RMAppLifetimeMonitor). */
export const LIFETIME_DIAGNOSTICS =
  'Application is killed by ResourceManager as it has exceeded the lifetime period.';

export interface AppRecord {
  id: string;
  seq: number;
  name: string;
  user: string;
  /** Leaf queue name (the name as given for a queue that does not exist). */
  queue: string;
  /** False when the submission named a queue the scheduler does not have. */
  queueKnown: boolean;
  priority: number;
  applicationType: string;
  /** Lower-cased and de-duplicated, as YARN stores them. */
  tags: string[];
  appNodeLabelExpression: string;
  /** The AM's label expression: the one given, else the app's (as the RM reports it). */
  amNodeLabelExpression: string;
  /** The partition its containers run in ('' = default). */
  partition: string;
  /** The submission context as received (submission-context.ts). */
  context: SubmissionContext;
  /** An unmanaged AM: the app waits in ACCEPTED for an AM the emulator never runs. */
  unmanaged: boolean;
  /**
   * The AM exits at once (no command): its attempts, each AM_ATTEMPT_SECONDS from the app's
   * submission on, and the app FAILED after the last. `localLimit` is the submission's
   * max-app-attempts when it is below the RM's global limit.
   */
  amFailure: { attempts: number; globalLimit: number; localLimit: number | undefined } | null;
  submittedSeconds: number;
  jobType: JobType;
  maps: number;
  reduces: number;
  inputBytes: number;
  deadlineEpochMs: number | null;
  lifetimeExpiryMs: number | null;
  /** Simulated second the app was killed (by a PUT or its lifetime). */
  killedSeconds: number | null;
  /**
   * When the app FAILS: at once for an unknown queue, after its attempts for an AM that exits
   * (the app is FAILED from this simulated second on).
   */
  failedSeconds: number | null;
  diagnostics: string[];
  reservationId: string | null;
  amResource: { memoryMB: number; vcores: number };
  inEngine: boolean;
}

/** POST /apps as the express layer read it: the context, and who sent it. */
export interface Submission {
  context: SubmissionContext;
  /** The authenticated user; undefined for an anonymous call (`defaultUser`). */
  user: string | undefined;
}

/** What the express layer needs for an answer about one app. */
export interface AppView {
  rec: AppRecord;
  /** YarnApplicationState, as the app report and the apps list show it. */
  state: AppState;
  /** RMAppState, as `GET /apps/{id}/state` says it (FINISHING for a while after FINISHED). */
  rmState: RmAppState;
  finalStatus: 'UNDEFINED' | 'SUCCEEDED' | 'FAILED' | 'KILLED';
  startedTime: number;
  finishedTime: number;
  elapsedTime: number;
  progress: number;
  runningContainers: number;
  pendingMaps: number;
  mapsDone: number;
  reducesDone: number;
  /** Simulated seconds the job first ran a task, or null. */
  launchedSeconds: number | null;
}

export interface AppQueryFilter extends TimeWindowQuery {
  states?: string[];
  finalStatus?: string;
  user?: string;
  queue?: string;
  limit?: number;
  applicationTypes?: string[];
  applicationTags?: string[];
  name?: string;
}

/** A file of the emulated HDFS that a simulated job may read: its blocks, by engine block id. */
export interface InputFile {
  readonly path: string;
  readonly blocks: ReadonlyArray<{ readonly id: string; readonly bytes: number }>;
}

export interface NodeUsage {
  id: string;
  host: string;
  className: string;
  labels: string[];
  alive: boolean;
  containers: number;
  usedContainers: number;
  gpus: number;
  usedGpus: number;
}
