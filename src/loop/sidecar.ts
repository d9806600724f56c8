import { randomBytes } from 'node:crypto';
import type { SidecarService } from '../api/app';
import type { SidecarMetrics } from '../api/metrics';
import { resolveDeadline, type Submission, type SubmissionWithDeadline } from '../api/submission';
import {
  actionView,
  decisionView,
  estimatesView,
  jobView,
  type EstimatesView,
  type JobDetailView,
  type RejectionReason,
  type StatsSample,
} from '../api/views';
import { DEFAULT_TASK_SECONDS, type SidecarConfig } from '../config/schema';
import type { AdmissionResult, JobActuals } from '../core/admission';
import {
  committedSlotSeconds,
  progressOf,
  remainingWork,
  snapshotFromProgress,
  wholeWork,
  type TaskProgress,
} from '../core/admission/progress';
import type { RtmrState } from '../core/admission/rtmr/state';
import {
  DEFAULT_RECENT_CLASSES,
  emptyObservedCostsBook,
  observeClassJob,
  retainClasses,
  validateObservedCostsBook,
  type ClassRetention,
  type ObservedCostsBook,
} from '../core/cost-distribution';
import {
  bookOf,
  classOf,
  estimatesOf,
  forgetClass,
  learnForClass,
  validateLearnedEstimates,
  withClass,
  withLearned,
  type EstimateBook,
  type LearnedEstimates,
} from '../core/estimate-book';
import { JOB_TYPES, type JobType } from '../core/kinds';
import {
  taskEstimates,
  unitCosts,
  validateWorkloadClass,
  type Estimates,
  type FinishedJobObservation,
} from '../core/estimates';
import { estimatesFromSamples, learnJob, type LearningOptions } from '../core/learning';
import type { DeadlineJob } from '../core/job';
import { mapTaskEnergy } from '../core/energy/fitness';
import type { EnergyProfile } from '../core/energy/profile';
import {
  hostPartitionsOf,
  partitionDop,
  rankPartitions,
  uniformLocality,
  type PartitionLocality,
  type RankedPartition,
} from '../core/placement/locality';
import type { AnyAdmissionPolicy, PolicyRegistry } from '../core/registry';
import type { SlotModel } from '../core/slots/model';
import { Enforcer, type SubmitPayload } from '../enforce/enforcer';
import { IdempotencyConflictError, NotReadyError } from '../errors/api-errors';
import { SidecarError } from '../errors/base';
import { RmAuthError } from '../errors/rm-auth';
import { RmHttpError } from '../errors/rm-http';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import { RmRemoteError } from '../errors/rm-remote';
import { RmResponseTooLargeError } from '../errors/rm-response-too-large';
import { RmTimeoutError } from '../errors/rm-timeout';
import { RmUnavailableError } from '../errors/rm-unavailable';
import { ValidationError } from '../errors/validation';
import { redactText, redactUrl, type Logger } from '../log';
import type { JobQuery, JobRecord, Ledger } from '../store/ledger';
import type { ResourceManagerApi } from '../yarn/api';
import type { JobHistoryClient } from '../yarn/jobhistory';
import type { AppReport, ClusterInfo, TaskReport } from '../yarn/model';
import { readInput, type InputRead, type InputReader } from './locality';
import { buildCapacityView, type CapacityView } from './snapshot';
import { decodeTags, submissionTags } from '../yarn/tags';

/**
 * The live sidecar: poll the RM, decide with the admission core, enforce through the outbox.
 *
 * Admission runs per (queue, label partition): each pair has its own admission state sized
 * by the queue's guaranteed containers in that partition. A CPU job is decided in the default
 * partition, a GPU job in the `gpu` one, and an adaptive job in the partition where its map
 * tasks fit best by EFH's fitness h = ef * dop at partition level (energy from the profile,
 * dop from the input's WebHDFS block locations when known, else uniform), then the other.
 *
 * Time in the core is epoch seconds; data sizes are MB.
 */

/**
 * A submission whose deadline (given, or its queue's default) and input size (given, or read
 * from its input paths) are known.
 */
type ResolvedSubmission = SubmissionWithDeadline & { inputBytes: number };

const MB = 1024 * 1024;
const OPEN_STATES = new Set(['accepted', 'submitted', 'running']);
const ENDED_APP_STATES = new Set(['FINISHED', 'FAILED', 'KILLED']);
const NOT_YET_SCHEDULED = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED']);
/**
 * The learned estimates per workload class (LearnedEstimates). Before there were classes the
 * same key held one triple; it still loads, as the default (validateLearnedEstimates).
 */
const ESTIMATES_KEY = 'estimates';
/** The latest operator resets of a class's learning (who, when, figures before and after). */
const RESETS_KEY = 'estimates-resets';
const MAX_RESETS_KEPT = 100;

/** A class's figures as the API shows them (seconds per MB, seconds per task). */
export interface FiguresView {
  eta: number;
  mapSecondsPerMb: number;
  reduceSecondsPerMb: number;
  /** The per-task floor (0 under estimateModel paper). */
  mapTaskSeconds: number;
  reduceTaskSeconds: number;
}

/** POST /api/v1/estimates/{class}/reset. */
export interface EstimatesResetView {
  workloadClass: string;
  /** False when the class had learned nothing: the reset changed nothing. */
  hadLearned: boolean;
  before: FiguresView;
  after: FiguresView;
}

function figuresView(e: Estimates): FiguresView {
  return {
    eta: e.eta,
    mapSecondsPerMb: e.mapCostMax,
    reduceSecondsPerMb: e.reduceCostMax,
    mapTaskSeconds: e.mapTaskSeconds ?? 0,
    reduceTaskSeconds: e.reduceTaskSeconds ?? 0,
  };
}
/** The observed distribution of task unit costs (cost-distribution.ts), beside the estimates. */
const OBSERVED_KEY = 'observedCosts';
const CAPACITY_KEY = 'capacity';
/** The RM's priority cap as last learned from a capped write (PriorityCap). */
const PRIORITY_CAP_KEY = 'priorityCap';
/** What the sidecar assumes of the cap before the RM has said: Hadoop's documented example. */
const ASSUMED_PRIORITY_CAP = 10;
const STATS_KEY = 'stats';
const MAX_SAMPLES = 720;
/** AMs read at once when lanes are rebuilt: a slow AM holds one of these, not the whole cycle. */
const AM_READS_AT_ONCE = 4;

/** What the last rebuild of a lane counted (shown under /api/v1/cluster). */
interface LaneRebuild {
  at: string;
  jobs: number;
  /** Jobs whose running tasks were read from their AM; the others count whole. */
  fromProgress: number;
  remainingSlotSeconds: number;
  wholeSlotSeconds: number;
}

interface Lane {
  key: string;
  queue: string;
  label: string;
  containers: number;
  policy: AnyAdmissionPolicy;
  state: unknown;
  rebuild: LaneRebuild;
}

type SnapshotPolicy = AnyAdmissionPolicy & { fromSnapshot: (s: unknown) => unknown };

function takesSnapshot(p: AnyAdmissionPolicy): p is SnapshotPolicy {
  return typeof (p as { fromSnapshot?: unknown }).fromSnapshot === 'function';
}

/** An AM task report in core terms: SUCCEEDED is done, RUNNING runs since its start, the rest wait. */
function taskProgress(t: TaskReport): TaskProgress {
  return {
    kind: t.type === 'MAP' ? 'map' : 'reduce',
    state: t.state === 'SUCCEEDED' ? 'done' : t.state === 'RUNNING' ? 'running' : 'pending',
    start: t.startTime > 0 ? t.startTime / 1000 : -1,
  };
}

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
  /** Ids of new jobs; injected for tests. */
  newId?: () => string;
  /**
   * How many unconfigured workload classes keep an observed cost distribution (and metric
   * series) besides the pinned ones; DEFAULT_RECENT_CLASSES when not given.
   */
  recentCostClasses?: number;
}

/**
 * yarn.cluster.max-application-priority as the sidecar knows it: configured by the operator,
 * read from the RM's /conf, learned from a write the RM capped (the lowest wins), or assumed
 * until one of those says.
 */
interface PriorityCap {
  value: number;
  source: 'configured' | 'rm' | 'learned' | 'assumed';
}

interface Readiness {
  [key: string]: unknown;
  ready: boolean;
  reason?: string;
  lastPollOkAt?: string;
  lastPollError?: string;
  rmActive?: string;
}

/** One key per submitter and Idempotency-Key. */
const idempotencyRef = (submitter: string, key: string) => `${submitter}\u0000${key}`;

export class Sidecar implements SidecarService {
  private readonly lanes = new Map<string, Lane>();
  /** The configured estimates with the learned ones over them: what admission reads. */
  private book: EstimateBook;
  /** What was learned (and is kept in the ledger), class by class. */
  private learned: LearnedEstimates;
  /** The configured estimates, before anything learned. */
  private readonly configured: EstimateBook;
  private readonly learning: LearningOptions;
  private observed: ObservedCostsBook;
  /** Which classes keep a distribution and metric series (ClassRetention). */
  private readonly retention: ClassRetention;
  private capacity: CapacityView | undefined;
  private clusterInfo: ClusterInfo | undefined;
  private lastPollOkMs: number | undefined;
  private lastPollError: string | undefined;
  /** The typed error behind lastPollError, to say what kind of failure it is. */
  private lastPollFailure: unknown;
  private priorityCap: PriorityCap;
  /** Warned once: the cap leaves no room for the EDF order. */
  private warnedFlatPriorities = false;
  /** When the RM's /conf was last asked for the cap without an answer (epoch ms). */
  private capAskedMs: number | undefined;
  private capKnownFromRm = false;
  private polling: Promise<void> | null = null;
  readonly enforcer: Enforcer;
  private readonly log: Logger;
  private submitting: Promise<unknown> = Promise.resolve();
  /** Lanes rebuilt without their running jobs' progress, to refine once the AMs are read. */
  private readonly lanesToRead = new Set<string>();
  /** Running admitted jobs found past their estimated finish, each handled once (detectOverruns). */
  private readonly overran = new Set<string>();
  /** Jobs whose AM could not be read, logged once each. */
  private readonly progressUnavailable = new Set<string>();
  /** Warnings already given once (warnOnce). */
  private readonly warned = new Set<string>();
  /**
   * Answers decided but not yet committed, by submitter and idempotency key: a retry that
   * arrives before the commit gets the same answer, never a second decision.
   */
  private readonly uncommittedAnswers = new Map<
    string,
    { requestHash: string; status: number; response: unknown; durable: Promise<void> }
  >();
  /** Host name to label partition of each RUNNING node, from the last RM poll (for dop). */
  private hostPartitions: ReadonlyMap<string, string> | undefined;

  constructor(private readonly deps: SidecarDeps) {
    const { config, ledger } = deps;
    this.log = deps.logger.child({ component: 'sidecar' });
    const floored = config.admission.estimateModel === 'floored';
    this.learning = { model: config.admission.estimateModel, ...config.admission.learning };
    // Under the floored model a class without its own task floor gets DEFAULT_TASK_SECONDS.
    const triple = (e: SidecarConfig['admission']['initialEstimates']): Estimates => ({
      eta: e.eta,
      mapCostMax: e.mapSecondsPerMb,
      reduceCostMax: e.reduceSecondsPerMb,
      ...(floored
        ? {
            mapTaskSeconds: e.mapTaskSeconds ?? DEFAULT_TASK_SECONDS,
            reduceTaskSeconds: e.reduceTaskSeconds ?? DEFAULT_TASK_SECONDS,
          }
        : {}),
    });
    this.configured = bookOf(
      triple(config.admission.initialEstimates),
      Object.fromEntries(Object.entries(config.admission.classEstimates).map(([c, e]) => [c, triple(e)])),
    );
    const saved = ledger.getValue<unknown>(ESTIMATES_KEY);
    this.learned = saved === undefined ? { classes: {} } : validateLearnedEstimates(saved);
    this.book = this.bookFromLearned();
    // Pinned: the default, the job types (the class of every job without its own) and the
    // configured classes, a set the operator bounds; other classes are bounded by recency.
    this.retention = {
      pinned: ['*', ...JOB_TYPES, ...Object.keys(config.admission.classEstimates)],
      recent: deps.recentCostClasses ?? DEFAULT_RECENT_CLASSES,
    };
    this.observed = this.loadObserved();
    this.publishEstimates();
    const configuredCap = config.yarn.maxApplicationPriority;
    const learnedCap = ledger.getValue<number>(PRIORITY_CAP_KEY);
    this.priorityCap =
      configuredCap !== undefined
        ? { value: Math.min(configuredCap, learnedCap ?? configuredCap), source: 'configured' }
        : learnedCap !== undefined
          ? { value: learnedCap, source: 'learned' }
          : { value: ASSUMED_PRIORITY_CAP, source: 'assumed' };
    this.enforcer = new Enforcer({
      rm: deps.rm,
      ledger,
      logger: deps.logger.child({ component: 'enforcer' }),
      metrics: deps.metrics,
      shadow: config.enforcement.shadow,
      maxWritesPerCycle: config.enforcement.maxWritesPerCycle,
      drainBudgetMs: config.enforcement.drainBudgetMs,
      concurrency: config.enforcement.writeConcurrency,
      wallClock: deps.now,
      onPriorityCapped: (appId, requested, got) => this.priorityCapped(appId, requested, got),
    });
    // Decide at once after a restart, even with the RM down: the last capacity seen is kept.
    const capacity = ledger.getValue<CapacityView>(CAPACITY_KEY);
    if (capacity) this.applyCapacity(capacity);
    this.deps.metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
  }

  // ------------------------------------------------------------------ admission lanes

  private slotModel(containers: number): SlotModel {
    if (this.deps.config.admission.slotModel === 'unified') return { name: 'unified', containers };
    // mr1 on a YARN cluster: the guaranteed containers split between map and reduce slots.
    return {
      name: 'mr1',
      mapSlots: Math.max(1, Math.ceil(containers / 2)),
      reduceSlots: Math.max(1, Math.floor(containers / 2)),
    };
  }

  private createPolicy(containers: number): AnyAdmissionPolicy {
    const { config, registry } = this.deps;
    return registry.createAdmission(config.admission.policy, {
      slotModel: this.slotModel(containers),
      // The default class's; every job carries its own class's (deadlineJob), read first.
      estimates: this.book.default,
      feedbackThresholdSeconds: config.admission.feedbackThresholdSeconds,
    });
  }

  /** Size every lane to the capacity seen; rebuild a lane's state when its size changed. */
  private applyCapacity(view: CapacityView): void {
    this.capacity = view;
    for (const q of view.queues) {
      for (const [label, containers] of Object.entries(q.containers)) {
        const key = `${q.name}|${label}`;
        const lane = this.lanes.get(key);
        if (containers < 1) {
          this.lanes.delete(key);
          continue;
        }
        if (!lane || lane.containers !== containers) this.rebuildLane(q.name, label, containers);
      }
    }
  }

  /**
   * A lane's state from the ledger's open admitted jobs. With `tasks` (a job's task list read
   * from its AM), a job counts only the work still to come: finished tasks not again, a running
   * one its estimate minus what it has run, pending ones their whole estimate (see
   * core/admission/progress.ts). A job without one counts its whole work from now, which can
   * only over-estimate the load (safe: it makes later admissions stricter). A lane rebuilt
   * without reading the AMs is marked, and the next cycle reads them and rebuilds it again.
   */
  /** Every lane again from the ledger's open admitted jobs. */
  private rebuildAllLanes(): void {
    for (const lane of [...this.lanes.values()]) this.rebuildLane(lane.queue, lane.label, lane.containers);
  }

  private rebuildLane(
    queue: string,
    label: string,
    containers: number,
    tasks?: ReadonlyMap<string, readonly TaskProgress[]>,
  ): void {
    const nowS = this.deps.now() / 1000;
    const key = `${queue}|${label}`;
    const policy = this.createPolicy(containers);
    const open = this.deps.ledger
      .openAdmittedJobs()
      .filter((j) => (j.queue ?? '') === queue && (j.label ?? '') === label);
    const jobs = open.map((j) => {
      const job = this.deadlineJob(j);
      const read = tasks?.get(j.id);
      return { job, progress: read ? progressOf(job, read, nowS) : undefined };
    });
    let state: unknown;
    if (takesSnapshot(policy)) {
      state = policy.fromSnapshot(
        snapshotFromProgress(this.slotModel(containers), this.book.default, nowS, jobs),
      );
      if (tasks === undefined) this.lanesToRead.add(key);
    } else {
      // Policies without a snapshot rebuild (dc, yarn-greedy) re-admit each job whole.
      state = policy.initialState(nowS);
      for (const { job } of jobs) state = policy.admit(state, job, nowS, { searchEarliest: false }).state;
    }
    const sum = (f: (x: (typeof jobs)[number]) => number) => jobs.reduce((a, x) => a + f(x), 0);
    this.lanes.set(key, {
      key,
      queue,
      label,
      containers,
      policy,
      state,
      rebuild: {
        at: new Date(this.deps.now()).toISOString(),
        jobs: jobs.length,
        fromProgress: jobs.filter((x) => x.progress !== undefined).length,
        wholeSlotSeconds: sum((x) => wholeWork(this.book.default, x.job).total),
        remainingSlotSeconds: sum((x) =>
          x.progress
            ? remainingWork(this.book.default, x.job, x.progress, nowS).total
            : wholeWork(this.book.default, x.job).total,
        ),
      },
    });
  }

  /**
   * Overruns (docs/estimates.md): a running admitted job past its estimated finish by more than
   * the feedback threshold shows its class's estimates were too low. Its lane is rebuilt from its
   * running jobs' task progress in this cycle (readLaneProgress), where a task past its estimate
   * keeps its slot (runningTaskEnd), so later submissions are judged against the delay the
   * overrun causes instead of slots the vectors count free. Each job is handled once; its end
   * then feeds the feedback controller and learning as any job's does.
   */
  private detectOverruns(): void {
    const nowMs = this.deps.now();
    const thresholdMs = this.deps.config.admission.feedbackThresholdSeconds * 1000;
    for (const j of this.deps.ledger.openAdmittedJobs()) {
      if (j.state !== 'running' || j.estimatedFinishMs === null || this.overran.has(j.id)) continue;
      if (nowMs <= j.estimatedFinishMs + thresholdMs) continue;
      this.overran.add(j.id);
      const lane = `${j.queue ?? ''}|${j.label ?? ''}`;
      const known = this.lanes.get(lane);
      // Without the AMs' task progress the lane is rebuilt at once, every job counted whole.
      if (this.deps.runningAppTasks) this.lanesToRead.add(lane);
      else if (known) this.rebuildLane(known.queue, known.label, known.containers);
      this.log.warn('admitted job overran its estimate; its lane is rebuilt from task progress', {
        job: j.id,
        app: j.appId,
        lane,
        estimatedFinish: new Date(j.estimatedFinishMs).toISOString(),
        overSeconds: (nowMs - j.estimatedFinishMs) / 1000,
      });
    }
  }

  /**
   * Rebuilds the lanes marked since the last cycle with their running jobs' progress: for each
   * open admitted job the RM reports RUNNING, its tasks from the AM. When an AM cannot be read
   * (404, a proxy redirect because the app just ended, a timeout, a non-MapReduce app), the job
   * counts whole, and that is logged once per job.
   */
  private async readLaneProgress(apps: readonly AppReport[]): Promise<void> {
    const reader = this.deps.runningAppTasks;
    if (this.lanesToRead.size === 0) return;
    const keys = new Set(this.lanesToRead);
    this.lanesToRead.clear();
    if (!reader) return;
    const tasks = new Map<string, readonly TaskProgress[]>();
    const byId = new Map(apps.map((a) => [a.id, a]));
    const running = this.deps.ledger
      .openAdmittedJobs()
      .filter((j) => keys.has(`${j.queue ?? ''}|${j.label ?? ''}`))
      .map((j) => ({ job: j, app: j.appId === null ? undefined : byId.get(j.appId) }))
      .filter((x): x is { job: JobRecord; app: AppReport } => x.app?.state === 'RUNNING');
    const read = async ({ job, app }: { job: JobRecord; app: AppReport }): Promise<void> => {
      let reason: string;
      if (app.applicationType.toUpperCase() !== 'MAPREDUCE') {
        reason = `not a MapReduce app (${app.applicationType})`;
      } else {
        try {
          tasks.set(job.id, (await reader(app.id)).map(taskProgress));
          return;
        } catch (err) {
          reason = err instanceof SidecarError ? `${err.code}: ${err.message}` : String(err);
        }
      }
      if (this.progressUnavailable.has(job.id)) return;
      this.progressUnavailable.add(job.id);
      this.log.info('task progress unavailable; the job counts whole', {
        job: job.id,
        app: app.id,
        reason,
      });
    };
    for (let i = 0; i < running.length; i += AM_READS_AT_ONCE)
      await Promise.all(running.slice(i, i + AM_READS_AT_ONCE).map(read));
    // Rebuilt from the ledger as it is now: jobs admitted while the AMs were read are included.
    for (const key of keys) {
      const lane = this.lanes.get(key);
      if (!lane || !takesSnapshot(lane.policy)) continue;
      this.rebuildLane(lane.queue, lane.label, lane.containers, tasks);
      const r = this.lanes.get(key)!.rebuild;
      if (r.jobs > 0) this.log.info('lane rebuilt from task progress', { lane: key, ...r });
    }
  }

  /**
   * A job's workload class: the `workloadClass` its spec holds (from the submission, or an RM
   * app's `class:` tag), else its job type.
   */
  private classOfRecord(j: Pick<JobRecord, 'jobType' | 'spec'>): string {
    const own = (j.spec as { workloadClass?: unknown } | null)?.workloadClass;
    return classOf(j.jobType as JobType, typeof own === 'string' ? own : undefined);
  }

  /** The core's job, carrying its class and its class's current estimates (withClass). */
  private deadlineJob(
    j: Pick<
      JobRecord,
      'id' | 'arrivalMs' | 'deadlineMs' | 'maps' | 'reduces' | 'inputBytes' | 'spec' | 'jobType'
    >,
  ): DeadlineJob {
    const splits = (j.spec as { splitBytes?: number[] } | null)?.splitBytes;
    const arrival = j.arrivalMs / 1000;
    const job: DeadlineJob = {
      id: j.id,
      arrival,
      deadline: Math.max(1e-3, j.deadlineMs / 1000 - arrival),
      maps: j.maps,
      reduces: Math.max(1, j.reduces),
      inputSize: j.inputBytes / MB,
      ...(splits ? { mapSplits: splits.map((b) => b / MB) } : {}),
    };
    return withClass(job, this.classOfRecord(j), this.book);
  }

  /** The label partitions a job type may use: an adaptive job either, the default one first. */
  private candidatePartitions(jobType: string): string[] {
    const gpu = this.deps.config.yarn.gpuLabel;
    if (jobType === 'cpu') return [''];
    if (jobType === 'gpu') return [gpu];
    return ['', gpu];
  }

  /**
   * Partitions to try for a job type, best first by EFH's fitness at partition level,
   * h = ef * dop (seed 004 eq. 6.1; core/placement/locality.ts). With uniform dop this is the
   * energy order: the partition whose map task costs less energy first.
   */
  private partitionsFor(jobType: string, locality?: PartitionLocality): RankedPartition[] {
    const labels = this.candidatePartitions(jobType);
    return rankPartitions(
      labels.map((label) => ({ label, mapEnergy: this.mapEnergy(jobType, label) })),
      locality ?? uniformLocality(labels),
    );
  }

  /** Energy of one map task of a job type in a partition, from the profile (kWh or relative units). */
  private mapEnergy(jobType: string, label: string): number | undefined {
    const profile = this.deps.energyProfile;
    if (!profile) return undefined;
    const { placement } = this.deps.config;
    const nodeClass =
      label === '' ? placement.defaultNodeClass : (placement.nodeClassByLabel[label] ?? label);
    const workload = profile.defaultWorkload[jobType as JobType];
    if (!workload) return undefined;
    const kind = label === '' || jobType === 'cpu' ? 'cpu' : 'gpu';
    return (
      mapTaskEnergy(profile, workload, nodeClass, kind) ?? mapTaskEnergy(profile, workload, nodeClass, 'cpu')
    );
  }

  private energyJoules(jobType: string, label: string, maps: number): number | null {
    const profile = this.deps.energyProfile;
    const e = this.mapEnergy(jobType, label);
    const workload = profile?.defaultWorkload[jobType as JobType];
    if (e === undefined || !workload || profile?.workloads[workload]?.unit !== 'kWh') return null;
    return e * maps * 3.6e6;
  }

  // ------------------------------------------------------------------ decisions

  private decide(
    job: DeadlineJob,
    queue: string,
    jobType: string,
    locality?: PartitionLocality,
  ): { lane: Lane; result: AdmissionResult<unknown> } | { lane: undefined; reason: RejectionReason } {
    const nowS = this.deps.now() / 1000;
    const tried: Array<{ lane: Lane; result: AdmissionResult<unknown> }> = [];
    for (const { label } of this.partitionsFor(jobType, locality)) {
      const lane = this.lanes.get(`${queue}|${label}`);
      if (!lane) continue;
      const result = lane.policy.admit(lane.state, job, nowS);
      if (result.admitted) return { lane, result };
      tried.push({ lane, result });
    }
    if (tried.length === 0) {
      const labels = this.candidatePartitions(jobType).map((l) =>
        l === '' ? 'the default partition' : `label '${l}'`,
      );
      return {
        lane: undefined,
        reason: {
          kind: 'no-capacity',
          message: `queue '${queue}' has no guaranteed containers in ${labels.join(' or ')}`,
        },
      };
    }
    // Report the partition whose earliest admissible deadline is soonest.
    tried.sort(
      (a, b) =>
        (earliest(a.result) ?? Number.POSITIVE_INFINITY) - (earliest(b.result) ?? Number.POSITIVE_INFINITY),
    );
    return tried[0]!;
  }

  private reasonOf(result: AdmissionResult<unknown>, label: string, ownId: string): RejectionReason {
    if (result.admitted) throw new Error('not a rejection');
    const r = result.reason;
    const whose = r.jobId === ownId ? 'this job' : `admitted job ${r.jobId}`;
    const late = r.lateBySeconds === null ? '' : ` by ${r.lateBySeconds.toFixed(1)} s`;
    const where = label === '' ? '' : ` (partition '${label}')`;
    const message =
      r.kind === 'new-job-misses' || r.kind === 'admitted-job-would-miss'
        ? `${whose} would miss its deadline ${isoOrNull(r.deadline * 1000)}${late}${where}`
        : `${r.kind}${where}`;
    return {
      kind: r.kind,
      message,
      jobId: r.jobId,
      deadline: isoOrNull(r.deadline * 1000),
      // Learned estimates can grow without bound (papers' model): a finish past what a Date can
      // show is shown as null.
      estimatedFinish: r.estimatedFinish === null ? null : isoOrNull(r.estimatedFinish * 1000),
      lateBySeconds: r.lateBySeconds ?? undefined,
      // null for the default partition, as the job's `label` and placement's partitions say it.
      partition: label === '' ? null : label,
    };
  }

  /**
   * The YARN priority of EDF position p (0 = first): cap - p, at least 1, within the RM's cap.
   * With a cap of 0 (a stock Hadoop) every app runs at 0 and EDF order is not expressible.
   */
  private priorityAt(position: number): number {
    const cap = this.priorityCap.value;
    return cap <= 0 ? 0 : Math.max(1, cap - position);
  }

  /** The RM set less than was written: it caps priorities lower than the sidecar thought. */
  private priorityCapped(appId: string, requested: number, got: number): void {
    if (got >= this.priorityCap.value) return;
    const before = this.priorityCap;
    this.priorityCap = { value: Math.max(0, got), source: 'learned' };
    this.deps.ledger.setValue(PRIORITY_CAP_KEY, this.priorityCap.value);
    this.log.warn('the RM caps application priorities lower than assumed; using its cap', {
      app: appId,
      requested,
      got,
      before: before.value,
      beforeSource: before.source,
      cap: this.priorityCap.value,
    });
    this.warnIfFlat();
  }

  private setPriorityCap(value: number, source: PriorityCap['source']): void {
    const { value: was } = this.priorityCap;
    this.priorityCap = { value, source };
    if (value !== was) this.log.info('application priority cap', { cap: value, source, before: was });
    this.warnIfFlat();
  }

  private warnIfFlat(): void {
    if (this.priorityCap.value > 0 || this.warnedFlatPriorities) return;
    this.warnedFlatPriorities = true;
    this.log.warn(
      'the RM caps application priorities at 0 (yarn.cluster.max-application-priority): every app runs at priority 0, so the EDF order cannot be given to YARN; set the property (e.g. to 10) in yarn-site.xml to enable it',
      { cap: 0, source: this.priorityCap.source },
    );
  }

  /** Reads the cap from the RM's /conf while it is only assumed; a failure leaves it assumed. */
  private async readPriorityCap(): Promise<void> {
    const { rm, config } = this.deps;
    if (this.capKnownFromRm || this.priorityCap.source === 'learned' || !rm.maxApplicationPriority) return;
    // An RM that hides /conf is asked again every ten minutes, not every cycle.
    const nowMs = this.deps.now();
    if (this.capAskedMs !== undefined && nowMs - this.capAskedMs < 600_000) return;
    this.capAskedMs = nowMs;
    let cap: number | undefined;
    try {
      cap = await rm.maxApplicationPriority();
    } catch (err) {
      cap = undefined;
      this.log.debug('the RM did not give its priority cap', { error: String(err) });
    }
    if (cap === undefined) return;
    this.capKnownFromRm = true;
    const configured = config.yarn.maxApplicationPriority;
    if (configured !== undefined && configured > cap) {
      this.log.warn("yarn.maxApplicationPriority is above the RM's cap; using the RM's", {
        configured,
        rm: cap,
      });
    }
    if (configured === undefined || cap < configured) this.setPriorityCap(cap, 'rm');
    else if (this.priorityCap.source === 'assumed') this.setPriorityCap(configured, 'configured');
  }

  private knownQueue(name: string): boolean {
    return this.capacity?.queues.some((q) => q.name === name || q.path === name) ?? false;
  }

  /**
   * admission.queueDefaults for a queue as a submission names it: its own entry (by the name
   * given, the queue's short name, or its path), else `*`, else none.
   */
  private queueDefault(name: string): { key: string; deadlineSeconds: number } | undefined {
    const defaults = this.deps.config.admission.queueDefaults;
    const q = this.capacity?.queues.find((x) => x.name === name || x.path === name);
    for (const key of [name, q?.name, q?.path, '*']) {
      if (key !== undefined && Object.hasOwn(defaults, key)) return { key, ...defaults[key]! };
    }
    return undefined;
  }

  /** POST /api/v1/jobs. Decisions are serialised: each sees the state the previous one left. */
  submit(
    submission: Submission,
    context: { submitter: string; idempotencyKey?: string; requestHash: string },
  ): Promise<{ status: number; body: unknown }> {
    // The input is read from WebHDFS at once, beside the decisions queued before this one.
    const input = this.startInputRead(submission, context);
    const decided = this.submitting.then(() => this.submitNow(submission, context, input));
    // The next decision waits for this one, not for its commit: decisions made in the same
    // turn of the event loop share one group commit (Ledger.writeSoon).
    this.submitting = decided.catch(() => undefined);
    return decided.then(async ({ status, body, durable }) => {
      await durable;
      return { status, body };
    });
  }

  /** Starts reading a submission's input paths (bounded; never rejects), unless there is nothing to read. */
  private startInputRead(
    s: Submission,
    ctx: { submitter: string; idempotencyKey?: string },
  ): Promise<InputRead> | undefined {
    const paths = s.inputPaths ?? [];
    if (paths.length === 0) return undefined;
    // A retry is answered from the ledger: nothing to read.
    if (
      ctx.idempotencyKey !== undefined &&
      this.deps.ledger.findIdempotent(ctx.submitter, ctx.idempotencyKey)
    )
      return undefined;
    const reader = this.deps.webHdfs;
    if (!reader) {
      return Promise.resolve({
        files: null,
        blocks: null,
        unavailable: 'rm.webHdfsAddress is not configured',
        missing: [],
      });
    }
    const { placement } = this.deps.config;
    return readInput(reader, paths, {
      timeoutMs: placement.localityTimeoutMs,
      maxFiles: placement.localityMaxFiles,
      maxBlocks: placement.localityMaxBlocks,
    });
  }

  /**
   * dop per candidate partition from what was read, and how the answer describes it:
   * `known`, `uniform (...)` when there is nothing to go by, or `unavailable (<reason>)` when
   * WebHDFS failed, timed out or the input is past the bounds (logged once, at info).
   */
  private localityOf(
    id: string,
    jobType: string,
    read: InputRead | undefined,
  ): { locality: PartitionLocality; note: string; input?: Record<string, number> } {
    const labels = this.candidatePartitions(jobType);
    if (read === undefined) return { locality: uniformLocality(labels), note: 'uniform (no input paths)' };
    const files = read.files ?? [];
    const summary = { files: files.length, bytes: files.reduce((a, f) => a + f.length, 0) };
    let reason: string | null = read.unavailable;
    if (reason === null && !this.hostPartitions) reason = 'no node list from the RM yet';
    if (reason !== null || read.blocks === null || !this.hostPartitions) {
      const why = reason ?? 'block locations not read';
      this.log.info('input locality unavailable; dop is uniform', { job: id, reason: why });
      return {
        locality: uniformLocality(labels),
        note: `unavailable (${why})`,
        ...(read.files ? { input: summary } : {}),
      };
    }
    const locality = partitionDop(read.blocks, this.hostPartitions, labels);
    return {
      locality,
      note: locality.known ? 'known' : 'uniform (no replica on a node the RM reports)',
      input: { ...summary, blocks: read.blocks.length, locatedBytes: locality.locatedBytes },
    };
  }

  /**
   * Decides one submission. The answer is given once `durable` resolves: the decision, its RM
   * actions and its idempotent answer are then on disk.
   */
  private async submitNow(
    submission: Submission,
    ctx: { submitter: string; idempotencyKey?: string; requestHash: string },
    input: Promise<InputRead> | undefined,
  ): Promise<{ status: number; body: unknown; durable?: Promise<void> }> {
    const { ledger, config, metrics } = this.deps;
    if (ctx.idempotencyKey !== undefined) {
      const seen =
        this.uncommittedAnswers.get(idempotencyRef(ctx.submitter, ctx.idempotencyKey)) ??
        ledger.findIdempotent(ctx.submitter, ctx.idempotencyKey);
      if (seen) {
        if (seen.requestHash !== ctx.requestHash) {
          throw new IdempotencyConflictError(
            `Idempotency-Key '${ctx.idempotencyKey}' was used before with a different request`,
          );
        }
        return {
          status: seen.status,
          body: seen.response,
          durable: 'durable' in seen ? seen.durable : undefined,
        };
      }
    }
    if (!this.capacity) {
      throw new NotReadyError('the sidecar has not read the cluster from the RM yet; retry shortly');
    }
    const queue = submission.queue ?? config.yarn.realtimeQueue;
    if (!this.knownQueue(queue)) {
      throw new ValidationError([
        {
          path: 'queue',
          message: `unknown queue '${queue}'; known: ${this.capacity.queues.map((q) => q.name).join(', ')}`,
        },
      ]);
    }
    const read = await input;
    // A missing input is the submitter's mistake (the job would fail at once on YARN): refuse it.
    if (read && read.missing.length > 0) {
      throw new ValidationError(
        read.missing.map((p) => ({
          path: 'inputPaths',
          message: `${p} does not exist (WebHDFS: FileNotFoundException)`,
        })),
      );
    }
    let inputBytes = submission.inputBytes;
    if (inputBytes === undefined) {
      if (!read?.files) {
        throw new ValidationError([
          {
            path: 'inputBytes',
            message: `is required: the input paths' lengths could not be read (${read?.unavailable ?? 'no input paths'})`,
          },
        ]);
      }
      inputBytes = read.files.reduce((a, f) => a + f.length, 0);
    }
    const started = process.hrtime.bigint();
    const nowMs = this.deps.now();
    const s: ResolvedSubmission = {
      ...resolveDeadline(submission, queue, this.queueDefault(queue), nowMs),
      inputBytes,
    };
    // Said in the answer, the job's spec and the decision: where the deadline came from.
    const deadlineFrom = {
      deadlineSource: s.deadlineSource,
      ...(s.defaultDeadlineSeconds === undefined ? {} : { defaultDeadlineSeconds: s.defaultDeadlineSeconds }),
    };
    const id = this.deps.newId?.() ?? `dl-${randomBytes(6).toString('hex')}`;
    const { locality, note, input: inputSummary } = this.localityOf(id, s.jobType, read);
    // Why a partition was chosen, shown in the answer and kept with the decision.
    const placement = {
      locality: note,
      partitions: this.partitionsFor(s.jobType, locality).map((r) => ({
        label: r.label === '' ? null : r.label,
        dop: r.dop,
        ef: r.ef,
        h: r.h,
      })),
      ...(inputSummary ? { input: inputSummary } : {}),
    };
    const derived = submission.inputBytes === undefined ? { inputBytes, inputBytesFrom: 'inputPaths' } : {};
    const arrivalMs = nowMs;
    const record = {
      id,
      arrivalMs,
      deadlineMs: s.deadlineMs,
      maps: s.maps,
      reduces: s.reduces,
      inputBytes: s.inputBytes,
      jobType: s.jobType,
      // The launch context stays in the submit action only: it may hold credentials.
      spec: { ...withoutRequest(s), deadline: new Date(s.deadlineMs).toISOString() },
    };
    const job = this.deadlineJob(record);
    // Said in the answer and kept with the decision: the class and the figures it was judged with.
    const judgedWith = { workloadClass: job.workloadClass, estimates: job.estimates };
    const outcome = this.decide(job, queue, s.jobType, locality);
    metrics.admissionSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);

    let status: number;
    let body: Record<string, unknown>;
    // What differs between an admission and a rejection; the recording below is shared.
    let fields: Pick<
      JobRecord,
      | 'decision'
      | 'reason'
      | 'estimatedFinishMs'
      | 'earliestDeadlineMs'
      | 'label'
      | 'priority'
      | 'state'
      | 'energyJoules'
    >;
    let policyName: string;
    let detail: Record<string, unknown>;
    /** Inside the transaction: the RM writes the decision calls for. */
    let enqueue: () => void = () => undefined;
    /** After it committed: the in-memory admission state. */
    let adopt: () => void = () => undefined;
    if (outcome.lane && outcome.result.admitted) {
      const { lane, result } = outcome;
      const label = lane.label === '' ? null : lane.label;
      const priority = this.priorityAt(result.position);
      const estimatedFinishMs = Math.round(result.estimatedFinish * 1000);
      const energyJoules = this.energyJoules(s.jobType, lane.label, s.maps);
      status = 201;
      body = {
        id,
        decision: 'admitted',
        deadline: new Date(s.deadlineMs).toISOString(),
        estimatedFinish: new Date(estimatedFinishMs).toISOString(),
        slackSeconds: (s.deadlineMs - estimatedFinishMs) / 1000,
        position: result.position + 1,
        queue,
        priority,
        label,
        energyJoules,
        placement,
        ...judgedWith,
        ...derived,
        ...deadlineFrom,
        dryRun: s.dryRun,
      };
      fields = {
        decision: 'admitted',
        reason: null,
        estimatedFinishMs,
        earliestDeadlineMs: null,
        label,
        priority,
        state: 'accepted',
        energyJoules,
      };
      policyName = lane.policy.name;
      detail = {
        lane: lane.key,
        position: result.position,
        estimatedFinish: body.estimatedFinish,
        ...judgedWith,
        placement,
        ...deadlineFrom,
      };
      enqueue = () => this.enqueueEnforcement(id, s, queue, label, priority);
      adopt = () => {
        lane.state = result.state;
      };
    } else {
      const reason = outcome.lane ? this.reasonOf(outcome.result, outcome.lane.label, id) : outcome.reason;
      const eD = outcome.lane ? earliest(outcome.result) : null;
      const earliestDeadlineMs = eD === null ? null : Math.ceil((arrivalMs / 1000 + eD) * 1000);
      status = 200;
      body = {
        id,
        decision: 'rejected',
        deadline: new Date(s.deadlineMs).toISOString(),
        reason,
        earliestAdmissibleDeadline:
          earliestDeadlineMs === null ? null : new Date(earliestDeadlineMs).toISOString(),
        ...(outcome.lane && !outcome.result.admitted && outcome.result.searchedUpTo !== undefined
          ? { earliestAdmissibleDeadlineNote: noDeadlineWithin(outcome.result.searchedUpTo) }
          : {}),
        placement,
        ...judgedWith,
        ...derived,
        ...deadlineFrom,
        dryRun: s.dryRun,
      };
      fields = {
        decision: 'rejected',
        reason,
        estimatedFinishMs: null,
        earliestDeadlineMs,
        label: null,
        priority: null,
        state: 'rejected',
        energyJoules: null,
      };
      policyName = outcome.lane?.policy.name ?? config.admission.policy;
      detail = {
        reason,
        earliestAdmissibleDeadline: body.earliestAdmissibleDeadline,
        ...judgedWith,
        placement,
        ...deadlineFrom,
      };
    }
    let durable: Promise<void> | undefined;
    if (!s.dryRun) {
      // The decision, its RM actions and the idempotent answer land together, before the answer.
      durable = ledger.writeSoon(() => {
        ledger.insertJob({
          ...record,
          ...fields,
          name: s.name,
          user: s.user,
          submitter: ctx.submitter,
          source: 'api',
          jobType: s.jobType,
          queue,
          appId: null,
          outcome: null,
          finishedMs: null,
        });
        ledger.recordDecision(id, policyName, fields.decision, detail);
        enqueue();
        if (ctx.idempotencyKey !== undefined)
          ledger.saveIdempotent(ctx.submitter, ctx.idempotencyKey, {
            requestHash: ctx.requestHash,
            jobId: id,
            status,
            response: body,
          });
      });
      // The next decision sees this one at once; should the write fail, the lanes are rebuilt
      // from the ledger, which never had it.
      adopt();
      const ref =
        ctx.idempotencyKey === undefined ? undefined : idempotencyRef(ctx.submitter, ctx.idempotencyKey);
      if (ref !== undefined)
        this.uncommittedAnswers.set(ref, { requestHash: ctx.requestHash, status, response: body, durable });
      const decision = fields.decision;
      durable = durable.then(
        () => {
          if (ref !== undefined) this.uncommittedAnswers.delete(ref);
          metrics.decisions.inc({ outcome: decision, source: 'api' });
          if (decision === 'admitted') {
            metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
            // Enforce in the background: the answer does not wait for the RM.
            void this.enforcer
              .drain()
              .catch((err) => this.log.warn('enforcement failed', { error: String(err) }));
          }
        },
        (err: unknown) => {
          if (ref !== undefined) this.uncommittedAnswers.delete(ref);
          if (decision === 'admitted') this.rebuildAllLanes();
          this.log.error('a decision could not be recorded; it was not answered', {
            job: id,
            error: String(err),
          });
          throw err;
        },
      );
    }
    this.log.info('decided', {
      job: id,
      decision: body.decision,
      queue,
      jobType: s.jobType,
      workloadClass: judgedWith.workloadClass,
      dryRun: s.dryRun,
    });
    return { status, body, durable };
  }

  /** The RM writes an admitted API job needs, recorded in the decision's transaction. */
  private enqueueEnforcement(
    id: string,
    s: ResolvedSubmission,
    queue: string,
    label: string | null,
    priority: number,
  ): void {
    const { ledger, config } = this.deps;
    if (config.enforcement.reservations) {
      const nowMs = this.deps.now();
      const t = this.deadlineJob({
        id,
        arrivalMs: nowMs,
        deadlineMs: s.deadlineMs,
        maps: s.maps,
        reduces: s.reduces,
        inputBytes: s.inputBytes,
        jobType: s.jobType,
        spec: s,
      });
      // The job's class's per-task estimates (t carries them), as admission planned them.
      const est = taskEstimates(this.book.default, t);
      const mapMs = Math.ceil(est.mapSeconds * 1000);
      const reduceMs = Math.ceil(est.reduceSeconds * 1000);
      const capability = {
        memoryMB: config.admission.containerMemoryMb,
        vcores: config.admission.containerVcores,
        extra: {},
      };
      Enforcer.enqueue(ledger, id, {
        kind: 'reserve',
        payload: {
          queue,
          definition: {
            arrival: nowMs,
            deadline: s.deadlineMs,
            name: id,
            interpreter: 2, // ORDER: maps, then reduces
            requests: [
              { durationMs: Math.max(1000, mapMs), numContainers: s.maps, minConcurrency: 1, capability },
              {
                durationMs: Math.max(1000, reduceMs),
                numContainers: t.reduces,
                minConcurrency: 1,
                capability,
              },
            ],
          },
        },
      });
    }
    const payload: SubmitPayload = {
      sidecarId: id,
      name: s.name,
      user: s.user,
      queue,
      priority,
      labelExpression: label,
      tags: submissionTags(
        {
          sidecarId: id,
          deadlineMs: s.deadlineMs,
          maps: s.maps,
          reduces: s.reduces,
          inputBytes: s.inputBytes,
          jobType: s.jobType,
          ...(s.workloadClass === undefined ? {} : { workloadClass: s.workloadClass }),
          ...(s.inputPaths === undefined ? {} : { inputPaths: s.inputPaths }),
        },
        s.tags ?? [],
      ),
      applicationType: config.yarn.applicationType,
      ...(s.request === undefined ? {} : { request: s.request }),
    };
    Enforcer.enqueue(ledger, id, { kind: 'submit', payload });
  }

  // ------------------------------------------------------------------ the cycle

  /** One poll-decide-enforce cycle. Concurrent calls share one run. */
  runOnce(): Promise<void> {
    if (!this.polling) {
      this.polling = this.cycle().finally(() => {
        this.polling = null;
      });
    }
    return this.polling;
  }

  /** Resolves once the running cycle, submissions and enforcement have settled (for shutdown). */
  async runOnceSettled(): Promise<void> {
    await this.polling?.catch(() => undefined);
    await this.submitting;
    await this.enforcer.idle();
  }

  private async cycle(): Promise<void> {
    const { rm, metrics, ledger, config } = this.deps;
    const end = metrics.pollSeconds.startTimer();
    let apps: AppReport[] = [];
    try {
      const [info, nodes, scheduler, appList] = await Promise.all([
        rm.clusterInfo(),
        rm.nodes(),
        rm.scheduler(),
        rm.apps({ deSelects: ['resourceRequests'] }),
      ]);
      this.clusterInfo = info;
      apps = appList;
      this.hostPartitions = hostPartitionsOf(nodes.filter((n) => n.state === 'RUNNING'));
      const view = buildCapacityView(nodes, scheduler, {
        memoryMb: config.admission.containerMemoryMb,
        vcores: config.admission.containerVcores,
      });
      this.applyCapacity(view);
      ledger.setValue(CAPACITY_KEY, view);
      this.lastPollOkMs = this.deps.now();
      this.lastPollError = undefined;
      this.lastPollFailure = undefined;
      metrics.rmUp.set(1);
    } catch (err) {
      // Shown by /readyz: an RM address in the message may carry user:password.
      this.lastPollError = redactText(err instanceof Error ? err.message : String(err));
      this.lastPollFailure = err;
      metrics.rmUp.set(0);
      this.log.warn('poll failed', {
        code: err instanceof SidecarError ? err.code : undefined,
        error: this.lastPollError,
      });
    }
    // Each part runs even if another failed; its error is logged, not thrown.
    if (this.lastPollError === undefined) {
      await this.step('track apps', () => this.trackApps(apps));
      await this.step('overruns', () => this.detectOverruns());
      await this.step('lane progress', () => this.readLaneProgress(apps));
      await this.step('priority cap', () => this.readPriorityCap());
      await this.step('priorities', () => ledger.transaction(() => this.reconcilePriorities(apps)));
    }
    await this.step('enforce', () => this.enforcer.drain());
    await this.step('stats', () => this.sample());
    metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
    end();
  }

  private async step(name: string, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.log.error('cycle step failed', {
        step: name,
        error: err instanceof Error ? err.stack : String(err),
      });
    }
  }

  private async trackApps(apps: readonly AppReport[]): Promise<void> {
    const { ledger } = this.deps;
    const ended: Array<{ job: JobRecord; app: AppReport }> = [];
    // The cycle's bookkeeping in one transaction: one disk sync instead of one per row.
    ledger.transaction(() => {
      for (const app of apps) {
        // One app's row failing (a constraint, a bug) is logged once and leaves the others tracked.
        try {
          const tags = decodeTags(app.applicationTags);
          // The recorded app id first: a sidecar-id tag only finds the job of an app whose id
          // was never recorded (a submission whose answer was lost), never another job's.
          const job = ledger.getJobByAppId(app.id) ?? this.jobNamedBy(app, tags.sidecarId);
          if (!job) {
            if (tags.deadlineMs !== undefined && !ENDED_APP_STATES.has(app.state)) this.discover(app, tags);
            continue;
          }
          if (job.appId === null) ledger.updateJob(job.id, { appId: app.id });
          if (job.decision !== 'admitted' || !OPEN_STATES.has(job.state)) continue;
          // Submitted at a priority the RM shows lower, before any write of ours: the RM capped it.
          if (
            app.priority !== undefined &&
            app.priority >= 0 &&
            !NOT_YET_SCHEDULED.has(app.state) &&
            job.priority !== null &&
            app.priority < job.priority
          ) {
            if (!ledger.actionsOf(job.id).some((a) => a.kind === 'set-priority'))
              this.priorityCapped(app.id, job.priority, app.priority);
          }
          if (ENDED_APP_STATES.has(app.state)) ended.push({ job, app });
          else if (app.state === 'RUNNING' && job.state !== 'running') this.markRunning(job, app);
        } catch (err) {
          this.warnOnce(`track ${app.id}`, 'could not track an app; left as it is', {
            app: app.id,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
    });
    // Ended jobs read the JobHistory server first, so they are handled one by one after it.
    for (const { job, app } of ended) await this.finish(job, app);
    await this.findLost(apps);
  }

  /**
   * The job an app's `sidecar-id:` tag names, when it may be that app's: admitted through the
   * API, still open, and with no app recorded yet. An app naming any other job (one with an
   * app of its own, a rejected one) is not that job's; it is logged once and then read as
   * any app found on the RM.
   */
  private jobNamedBy(app: AppReport, sidecarId: string | undefined): JobRecord | undefined {
    if (sidecarId === undefined) return undefined;
    const job = this.deps.ledger.getJob(sidecarId);
    if (!job) return undefined;
    if (
      job.appId === null &&
      job.source === 'api' &&
      job.decision === 'admitted' &&
      OPEN_STATES.has(job.state)
    )
      return job;
    this.warnOnce(
      `names ${app.id}`,
      "an app's sidecar-id tag names a job that is not its own; not tracked as it",
      {
        app: app.id,
        job: job.id,
        jobApp: job.appId,
      },
    );
    return undefined;
  }

  /** Logs a warning the first time only, for what would otherwise be said every cycle. */
  private warnOnce(key: string, message: string, fields: Record<string, unknown>): void {
    if (this.warned.has(key)) return;
    if (this.warned.size >= 10_000) this.warned.clear();
    this.warned.add(key);
    this.log.warn(message, fields);
  }

  /**
   * Admitted jobs on the RM whose app the RM no longer lists: an RM restarted without recovery
   * forgets every app. Each is confirmed by asking for the app itself (404), then marked lost:
   * its capacity is released and, where the submission asked for it (resubmitIfLost), it is
   * decided again for the time left and, if admitted, submitted again as a new app.
   */
  private async findLost(apps: readonly AppReport[]): Promise<void> {
    const { ledger, rm } = this.deps;
    const listed = new Set(apps.map((a) => a.id));
    const missing = ledger
      .openAdmittedJobs()
      .filter(
        (j) => j.appId !== null && (j.state === 'submitted' || j.state === 'running') && !listed.has(j.appId),
      );
    this.endRefused();
    for (const job of missing) {
      try {
        await rm.app(job.appId!);
        continue; // listed again (a list taken mid-change): nothing lost
      } catch (err) {
        const gone =
          (err instanceof RmRemoteError && err.status === 404) ||
          (err instanceof RmHttpError && err.status === 404);
        if (!gone) {
          this.log.warn('could not confirm a missing app', {
            job: job.id,
            app: job.appId,
            error: String(err),
          });
          continue;
        }
      }
      this.lose(job);
    }
  }

  /**
   * Admitted jobs the RM refused to take (a final refusal of their submission): they will never
   * run, so they leave their lane, end as failed and are counted, instead of holding capacity
   * for ever.
   */
  private endRefused(): void {
    const { ledger, metrics } = this.deps;
    const nowMs = this.deps.now();
    for (const { job, error } of ledger.refusedSubmissions()) {
      const lane = this.lanes.get(`${job.queue ?? ''}|${job.label ?? ''}`);
      if (lane) lane.state = lane.policy.leave(lane.state, job.id, nowMs / 1000);
      ledger.transaction(() => {
        ledger.updateJob(job.id, { state: 'failed', finishedMs: nowMs });
        ledger.recordDecision(job.id, 'reconcile', 'refused-by-rm', {
          message: `the RM refused to take the job's submission: ${error ?? 'no reason given'}`,
        });
      });
      metrics.deadlines.inc({ outcome: 'refused' });
      this.log.warn('the RM refused an admitted job; it leaves the queue', { job: job.id, error });
    }
  }

  private lose(job: JobRecord): void {
    const { ledger, metrics } = this.deps;
    const nowMs = this.deps.now();
    const nowS = nowMs / 1000;
    const lane = this.lanes.get(`${job.queue ?? ''}|${job.label ?? ''}`);
    if (lane) lane.state = lane.policy.leave(lane.state, job.id, nowS);
    this.progressUnavailable.delete(job.id);
    this.overran.delete(job.id);
    const spec = (job.spec ?? {}) as { resubmitIfLost?: boolean };
    const submit = ledger.actionsOf(job.id).find((a) => a.kind === 'submit');
    const lostApp = job.appId;
    if (spec.resubmitIfLost === true && submit !== undefined && job.deadlineMs > nowMs) {
      // Decided again as a job arriving now with the same deadline; its old place was released.
      const again = this.deadlineJob({ ...job, arrivalMs: nowMs });
      const outcome = this.decide(again, job.queue ?? this.deps.config.yarn.realtimeQueue, job.jobType);
      if (outcome.lane && outcome.result.admitted) {
        const { lane: into, result } = outcome;
        const label = into.label === '' ? null : into.label;
        const priority = this.priorityAt(result.position);
        const payload = { ...(submit.payload as SubmitPayload), priority, labelExpression: label };
        ledger.transaction(() => {
          ledger.updateJob(job.id, {
            state: 'accepted',
            appId: null,
            label,
            priority,
            estimatedFinishMs: Math.round(result.estimatedFinish * 1000),
          });
          ledger.recordDecision(job.id, into.policy.name, 'resubmitted', {
            lostApp,
            lane: into.key,
            position: result.position,
            estimatedFinish: new Date(Math.round(result.estimatedFinish * 1000)).toISOString(),
          });
          Enforcer.enqueue(ledger, job.id, { kind: 'submit', payload });
        });
        into.state = result.state;
        this.log.warn('the RM lost an admitted app; submitted again', { job: job.id, app: lostApp });
        return;
      }
      const reason = outcome.lane
        ? this.reasonOf(outcome.result, outcome.lane.label, job.id)
        : outcome.reason;
      ledger.recordDecision(job.id, this.deps.config.admission.policy, 'not-resubmitted', {
        lostApp,
        reason,
      });
    }
    ledger.transaction(() => {
      ledger.updateJob(job.id, { state: 'lost', finishedMs: nowMs });
      ledger.recordDecision(job.id, 'reconcile', 'lost', {
        app: lostApp,
        message: `the RM no longer knows app ${lostApp ?? '?'} (restarted without recovery, or the app aged out of its list)`,
      });
    });
    metrics.deadlines.inc({ outcome: 'lost' });
    this.log.warn('the RM lost an admitted app', {
      job: job.id,
      app: lostApp,
      resubmit: spec.resubmitIfLost === true,
    });
  }

  private markRunning(job: JobRecord, app: AppReport): void {
    this.deps.ledger.updateJob(job.id, { state: 'running', appId: app.id });
    const lane = this.lanes.get(`${job.queue ?? ''}|${job.label ?? ''}`);
    if (lane) lane.state = lane.policy.markStarted(lane.state, job.id);
  }

  /** An admitted job whose app ended: its outcome, learning, feedback, and its lane freed. */
  private async finish(job: JobRecord, app: AppReport): Promise<void> {
    const { ledger, metrics } = this.deps;
    const finishedMs = app.finishedTime > 0 ? app.finishedTime : this.deps.now();
    const state =
      app.state === 'FINISHED' && app.finalStatus !== 'FAILED'
        ? 'finished'
        : app.state === 'KILLED'
          ? 'killed'
          : 'failed';
    const outcome = state === 'finished' && finishedMs <= job.deadlineMs ? 'met' : 'missed';
    const actuals = state === 'finished' ? await this.learn(job, app) : undefined;
    const nowS = this.deps.now() / 1000;
    // Looked up after learning: growing estimates rebuild every lane.
    const lane = this.lanes.get(`${job.queue ?? ''}|${job.label ?? ''}`);
    if (lane) {
      lane.state = actuals
        ? lane.policy.complete(lane.state, job.id, actuals, nowS)
        : lane.policy.leave(lane.state, job.id, nowS);
    }
    ledger.updateJob(job.id, { state, outcome, finishedMs });
    this.progressUnavailable.delete(job.id);
    this.overran.delete(job.id);
    metrics.deadlines.inc({ outcome });
    this.log.info('job ended', {
      job: job.id,
      app: app.id,
      state,
      outcome,
      lateBySeconds: (finishedMs - job.deadlineMs) / 1000,
    });
  }

  /**
   * Reads a finished job's tasks from the JobHistory server and learns the estimates from
   * them. When the estimates change, every lane is rebuilt with them.
   */
  private async learn(job: JobRecord, app: AppReport): Promise<JobActuals | undefined> {
    const jhs = this.deps.jobHistory;
    if (!jhs) return undefined;
    try {
      const tasks = await jhs.tasksOfApp(app.id);
      const maps = tasks.filter((t) => t.type === 'MAP' && t.finishTime > 0);
      const reduces = tasks.filter((t) => t.type === 'REDUCE' && t.finishTime > 0);
      if (maps.length === 0) return undefined;
      const inputMb = job.inputBytes / MB;
      // Learning is confined to the finished job's class (seed 000 IV.A, per class).
      const cls = this.classOfRecord(job);
      const before = estimatesOf(this.book, cls);
      const observation = {
        // The intermediate size is not reported by the task list: eta is not learned.
        inputSize: inputMb,
        mapTasks: maps.map((t) => ({
          size: inputMb / job.maps,
          seconds: (t.finishTime - t.startTime) / 1000,
        })),
        reduceTasks: reduces.map((t) => ({
          size: (before.eta * inputMb) / Math.max(1, job.reduces),
          seconds: (t.finishTime - t.startTime) / 1000,
        })),
      };
      const after = this.learnClass(cls, before, observation);
      this.book = bookOf(this.book.default, { ...this.book.classes, [cls]: after });
      // The same unit costs c^max is the maximum of, kept as a distribution beside it.
      const unit = unitCosts(observation);
      const observed = observeClassJob(this.observed, cls, unit, this.retention);
      this.observed = observed.book;
      this.deps.ledger.transaction(() => {
        this.deps.ledger.setValue(ESTIMATES_KEY, this.learned);
        this.deps.ledger.setValue(OBSERVED_KEY, this.observed);
      });
      const costs = this.deps.metrics.taskUnitCost;
      for (const v of unit.map) costs.observe({ stage: 'map', class: cls }, v);
      for (const v of unit.reduce) costs.observe({ stage: 'reduce', class: cls }, v);
      // A class dropped from the distributions leaves the metrics too: the series stay bounded.
      for (const c of observed.dropped)
        for (const stage of ['map', 'reduce']) costs.remove({ stage, class: c });
      this.publishEstimates();
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        this.log.info('estimates changed', { workloadClass: cls, before, after });
        this.deps.ledger.recordDecision(job.id, 'estimates', 'learned', {
          workloadClass: cls,
          before,
          after,
        });
        for (const lane of [...this.lanes.values()])
          this.rebuildLane(lane.queue, lane.label, lane.containers);
      }
      return {
        mapFinishTimes: maps.map((t) => t.finishTime / 1000),
        reduceFinishTimes: reduces.map((t) => t.finishTime / 1000),
        finishedAt: (app.finishedTime || Math.max(...tasks.map((t) => t.finishTime))) / 1000,
      };
    } catch (err) {
      this.log.warn('could not read the job history', { job: job.id, app: app.id, error: String(err) });
      return undefined;
    }
  }

  /**
   * One finished job learned into its class (src/core/learning.ts): the papers' rule, or the
   * floored one whose samples are kept so that figures decay. Returns the class's new figures.
   */
  private learnClass(cls: string, before: Estimates, observation: FinishedJobObservation): Estimates {
    if (this.learning.model === 'paper') {
      const after = estimatesOf(learnForClass(this.book, cls, observation), cls);
      this.learned = { ...this.learned, classes: { ...this.learned.classes, [cls]: after } };
      return after;
    }
    // A class learned before there were samples starts from its learned figures as one sample,
    // which then leaves the window like any other.
    const prior = this.learned.samples?.[cls] ?? {
      samples: Object.hasOwn(this.learned.classes, cls) ? [this.learned.classes[cls]!] : [],
    };
    const r = learnJob(estimatesOf(this.configured, cls), before, prior, observation, this.learning);
    this.learned = {
      ...this.learned,
      classes: { ...this.learned.classes, [cls]: r.estimates },
      samples: { ...this.learned.samples, [cls]: r.learning },
    };
    return r.estimates;
  }

  /**
   * The configured estimates with what was learned over them. Under the floored model each
   * class is its configured figures raised to its samples; a class (or the default) learned
   * before there were samples, or under the papers' model, counts its learned figures as one
   * sample, so it keeps its configured floor and comes down like any other. Under the papers'
   * model learned figures win and no floor applies, whatever was learned before.
   */
  private bookFromLearned(): EstimateBook {
    const book = withLearned(this.configured, this.learned);
    if (this.learning.model === 'paper') {
      const noFloor = ({ eta, mapCostMax, reduceCostMax }: Estimates): Estimates => ({
        eta,
        mapCostMax,
        reduceCostMax,
      });
      return bookOf(
        noFloor(book.default),
        Object.fromEntries(Object.entries(book.classes).map(([c, e]) => [c, noFloor(e)])),
      );
    }
    const samplesOf = (cls: string, learned: Estimates): readonly Estimates[] =>
      this.learned.samples?.[cls]?.samples ?? [learned];
    const classes = { ...book.classes };
    for (const [cls, e] of Object.entries(this.learned.classes))
      classes[cls] = estimatesFromSamples(estimatesOf(this.configured, cls), samplesOf(cls, e));
    const def = this.learned.default;
    return bookOf(
      def === undefined ? book.default : estimatesFromSamples(this.configured.default, [def]),
      classes,
    );
  }

  /**
   * An operator's reset of one class's learning (POST /api/v1/estimates/{class}/reset, the CLI's
   * `estimates reset`): what it learned and its samples are forgotten, it is judged with its
   * configured figures again, and every lane is rebuilt with them. Recorded in the ledger.
   */
  resetEstimates(workloadClass: string, by: string): EstimatesResetView {
    const cls = validateWorkloadClass(workloadClass, 'workloadClass');
    const before = estimatesOf(this.book, cls);
    const hadLearned = Object.hasOwn(this.learned.classes, cls) || this.learned.samples?.[cls] !== undefined;
    this.learned = forgetClass(this.learned, cls);
    this.book = this.bookFromLearned();
    const after = estimatesOf(this.book, cls);
    const reset = { workloadClass: cls, by, atMs: this.deps.now(), before, after };
    const resets = this.deps.ledger.getValue<unknown[]>(RESETS_KEY) ?? [];
    this.deps.ledger.transaction(() => {
      this.deps.ledger.setValue(ESTIMATES_KEY, this.learned);
      this.deps.ledger.setValue(RESETS_KEY, [...resets, reset].slice(-MAX_RESETS_KEPT));
    });
    this.publishEstimates();
    this.log.info('estimates reset', reset);
    if (JSON.stringify(before) !== JSON.stringify(after))
      for (const lane of [...this.lanes.values()]) this.rebuildLane(lane.queue, lane.label, lane.containers);
    return { workloadClass: cls, hadLearned, before: figuresView(before), after: figuresView(after) };
  }

  /**
   * The saved distribution, or an empty one. A stored value that does not read back is logged
   * and replaced: it is shown to operators, admission does not depend on it.
   */
  private loadObserved(): ObservedCostsBook {
    const saved = this.deps.ledger.getValue<unknown>(OBSERVED_KEY);
    if (saved === undefined) return emptyObservedCostsBook();
    try {
      // The retention may have changed since it was saved (a class configured, a smaller cap).
      return retainClasses(validateObservedCostsBook(saved), this.retention).book;
    } catch (err) {
      this.log.warn('the saved task cost distribution is unreadable; starting a new one', {
        error: err instanceof ValidationError ? err.issues : String(err),
      });
      return emptyObservedCostsBook();
    }
  }

  /**
   * One gauge series per stage and class: the pinned classes and those keeping a distribution,
   * the same bounded set as the observed costs, each with the figures admission judges it with.
   */
  private publishEstimates(): void {
    const gauge = this.deps.metrics.learnedUnitCost;
    gauge.reset();
    for (const cls of new Set([...this.retention.pinned, ...Object.keys(this.observed.classes)])) {
      const e = estimatesOf(this.book, cls);
      gauge.set({ stage: 'map', class: cls }, e.mapCostMax);
      gauge.set({ stage: 'reduce', class: cls }, e.reduceCostMax);
    }
  }

  /** An app with a deadline tag that did not come through the API: same admission, then a move. */
  private discover(app: AppReport, tags: ReturnType<typeof decodeTags>): void {
    const { ledger, config, metrics } = this.deps;
    const id = `dl-${app.id.replace(/^application_/, '')}`;
    if (ledger.getJob(id)) return;
    const jobType = tags.jobType ?? 'cpu';
    const arrivalMs = app.startedTime > 0 ? Math.min(app.startedTime, this.deps.now()) : this.deps.now();
    const deadlineMs = tags.deadlineMs!;
    const record = {
      id,
      arrivalMs,
      deadlineMs: Math.max(deadlineMs, arrivalMs + 1),
      maps: tags.maps ?? 1,
      reduces: Math.max(1, tags.reduces ?? 1),
      inputBytes: tags.inputBytes ?? 0,
      jobType,
      spec: {
        appId: app.id,
        tags: app.applicationTags,
        ...(tags.workloadClass === undefined ? {} : { workloadClass: tags.workloadClass }),
      },
    };
    const queue = config.yarn.realtimeQueue;
    const outcome =
      deadlineMs <= this.deps.now() ? undefined : this.decide(this.deadlineJob(record), queue, jobType);
    const admitted = outcome?.lane !== undefined && outcome.result.admitted;
    const base = {
      ...record,
      name: app.name,
      user: app.user,
      submitter: 'discovered',
      source: 'discovered' as const,
      jobType,
      appId: app.id,
      outcome: null,
      finishedMs: null,
      energyJoules: null,
    };
    ledger.transaction(() => {
      if (admitted && outcome?.lane && outcome.result.admitted) {
        const lane = outcome.lane;
        lane.state = outcome.result.state;
        const priority = this.priorityAt(outcome.result.position);
        ledger.insertJob({
          ...base,
          decision: 'admitted',
          reason: null,
          estimatedFinishMs: Math.round(outcome.result.estimatedFinish * 1000),
          earliestDeadlineMs: null,
          queue,
          label: lane.label === '' ? null : lane.label,
          priority,
          state: app.state === 'RUNNING' ? 'running' : 'submitted',
        });
        ledger.recordDecision(id, lane.policy.name, 'admitted', { lane: lane.key, discovered: app.id });
        if (app.queue.split('.').pop() !== queue)
          Enforcer.enqueue(ledger, id, { kind: 'move-queue', payload: { appId: app.id, queue } });
      } else {
        const reason: RejectionReason =
          outcome === undefined
            ? { kind: 'deadline-passed', message: 'the deadline in its tags has already passed' }
            : outcome.lane
              ? this.reasonOf(outcome.result, outcome.lane.label, id)
              : outcome.reason;
        ledger.insertJob({
          ...base,
          decision: 'rejected',
          reason,
          estimatedFinishMs: null,
          earliestDeadlineMs: null,
          queue: config.yarn.besteffortQueue,
          label: null,
          priority: null,
          state: 'rejected',
        });
        ledger.recordDecision(id, config.admission.policy, 'rejected', { reason, discovered: app.id });
        if (app.queue.split('.').pop() !== config.yarn.besteffortQueue)
          Enforcer.enqueue(ledger, id, {
            kind: 'move-queue',
            payload: { appId: app.id, queue: config.yarn.besteffortQueue },
          });
      }
    });
    metrics.decisions.inc({ outcome: admitted ? 'admitted' : 'rejected', source: 'discovered' });
    this.log.info('discovered a deadline app', {
      app: app.id,
      job: id,
      decision: admitted ? 'admitted' : 'rejected',
    });
  }

  /**
   * EDF order as YARN application priorities: for each lane's queue order, the target priority
   * of position p is max(1, cap - p) within the RM's cap (priorityAt). A write is enqueued only
   * where the app's priority on the RM differs, no write for it is pending, and the last write
   * for the app did not already ask for this target: at most one write per app per change.
   */
  private reconcilePriorities(apps: readonly AppReport[]): void {
    const { ledger, config } = this.deps;
    if (!config.enforcement.priorities && !config.enforcement.lifetimeTimeouts) return;
    const byId = new Map(apps.map((a) => [a.id, a]));
    const pending = ledger.pendingActions();
    const pendingFor = (kind: string, appId: string) =>
      pending.some((a) => a.kind === kind && (a.payload as { appId?: string }).appId === appId);
    for (const lane of this.lanes.values()) {
      const queue = lane.policy.queue(lane.state);
      queue.forEach((job, position) => {
        const rec = ledger.getJob(job.id);
        if (!rec?.appId) return;
        const app = byId.get(rec.appId);
        // Until the scheduler has accepted an app (NEW, NEW_SAVING, SUBMITTED) a real RM shows its
        // priority as -1: it has none yet, and a write now would only repeat the submission's.
        if (!app || ENDED_APP_STATES.has(app.state) || NOT_YET_SCHEDULED.has(app.state)) return;
        const actions = ledger.actionsOf(rec.id);
        if (config.enforcement.priorities) {
          const target = this.priorityAt(position);
          // Once per change of target: the last write for the app asked for this target and the RM
          // answered it (capped or not) or refused it for good: not sent again. A real RM answers
          // 503 (a NullPointerException in the scheduler) to a write that comes before the app's
          // first attempt exists; that refusal is tried again, up to 3 times in all.
          const last = actions.filter((a) => a.kind === 'set-priority' && a.status !== 'skipped').at(-1);
          const lastTarget = (last?.payload as { priority?: number } | undefined)?.priority;
          const refusals503 = actions.filter(
            (a) =>
              a.kind === 'set-priority' &&
              a.status === 'failed' &&
              (a.payload as { priority?: number }).priority === target &&
              (a.result as { refusal?: { status?: number } } | null)?.refusal?.status === 503,
          ).length;
          const settled =
            lastTarget === target && !(last?.status === 'failed' && refusals503 > 0 && refusals503 < 3);
          const shown = app.priority ?? rec.priority ?? undefined;
          const unset = shown !== undefined && shown < 0;
          if (!unset && shown !== target && !settled && !pendingFor('set-priority', app.id)) {
            Enforcer.enqueue(ledger, rec.id, {
              kind: 'set-priority',
              payload: { appId: app.id, priority: target },
            });
          }
        }
        if (config.enforcement.lifetimeTimeouts && !actions.some((a) => a.kind === 'set-lifetime')) {
          Enforcer.enqueue(ledger, rec.id, {
            kind: 'set-lifetime',
            payload: { appId: app.id, expiryMs: rec.deadlineMs },
          });
        }
      });
    }
  }

  private sample(): void {
    const { ledger } = this.deps;
    const counts = ledger.countJobs();
    const sum = (f: (c: (typeof counts)[number]) => boolean) => counts.filter(f).reduce((a, c) => a + c.n, 0);
    const accepted = sum((c) => c.decision === 'admitted');
    const rejected = sum((c) => c.decision === 'rejected');
    const met = sum((c) => c.outcome === 'met');
    const missed = sum((c) => c.outcome === 'missed');
    const energy = ledger
      .listJobs({ decision: 'admitted', limit: 100000 })
      .jobs.reduce((a, j) => a + (j.energyJoules ?? 0), 0);
    const utilizationByLabel: Record<string, number> = {};
    for (const p of this.capacity?.partitions ?? []) utilizationByLabel[p.label] = p.utilization;
    const sample: StatsSample = {
      at: new Date(this.deps.now()).toISOString(),
      accepted,
      rejected,
      met,
      missed,
      acceptRatio: accepted + rejected > 0 ? accepted / (accepted + rejected) : null,
      successRatio: met + missed > 0 ? met / (met + missed) : null,
      utilizationByLabel,
      energyKWh: energy / 3.6e6,
    };
    const samples = [...(ledger.getValue<StatsSample[]>(STATS_KEY) ?? []), sample].slice(-MAX_SAMPLES);
    ledger.setValue(STATS_KEY, samples);
  }

  // ------------------------------------------------------------------ reads

  listJobs(query: JobQuery): { jobs: unknown[]; total: number } {
    const { jobs, total } = this.deps.ledger.listJobs(query);
    const positions = this.positions();
    return { jobs: jobs.map((j) => jobView(j, positions.get(j.id) ?? null)), total };
  }

  private positions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const lane of this.lanes.values()) {
      lane.policy.queue(lane.state).forEach((j, i) => out.set(j.id, i + 1));
    }
    return out;
  }

  getJob(id: string): JobDetailView | undefined {
    const { ledger } = this.deps;
    const job = ledger.getJob(id);
    if (!job) return undefined;
    return {
      ...jobView(job, this.positions().get(id) ?? null),
      decisions: ledger.decisionsOf(id).map(decisionView),
      actions: ledger.actionsOf(id).map(actionView),
    };
  }

  cluster(): unknown {
    const { config } = this.deps;
    return {
      rm: {
        // Shown without their user information: an address may carry user:password.
        addresses: config.rm.addresses.map(redactUrl),
        haState: this.clusterInfo?.haState ?? null,
        version: this.clusterInfo?.hadoopVersion ?? null,
        // yarn.cluster.max-application-priority as known, and how (configured, rm, learned, assumed).
        priorityCap: this.priorityCap,
        reachable: this.lastPollError === undefined && this.lastPollOkMs !== undefined,
      },
      partitions: this.capacity?.partitions ?? [],
      queues: this.capacity?.queues ?? [],
      admission: {
        policy: config.admission.policy,
        slotModel: config.admission.slotModel,
        // Per workload class; a class not listed is judged with the default.
        estimates: { default: this.book.default, classes: this.book.classes },
        shadow: config.enforcement.shadow,
        lanes: [...this.lanes.values()].map((l) => ({
          queue: l.queue,
          label: l.label,
          containers: l.containers,
          queued: l.policy.queue(l.state).length,
          committedSlotSeconds:
            (l.state as { kind?: string }).kind === 'rtmr'
              ? committedSlotSeconds(l.state as RtmrState, this.deps.now() / 1000)
              : null,
          lastRebuild: l.rebuild,
        })),
      },
      // RM writes recorded and not yet confirmed: the enforcer's backlog.
      outbox: (() => {
        const { pending, oldestMs } = this.deps.ledger.pendingBacklog();
        return {
          pending,
          oldestPendingSeconds: oldestMs === null ? null : Math.max(0, (this.deps.now() - oldestMs) / 1000),
          writesRefused: this.enforcer.writesRefused !== undefined,
        };
      })(),
      polledAt: this.lastPollOkMs === undefined ? null : new Date(this.lastPollOkMs).toISOString(),
    };
  }

  taskCosts(): EstimatesView {
    return estimatesView(this.book, this.observed);
  }

  stats(): { samples: StatsSample[] } {
    return { samples: this.deps.ledger.getValue<StatsSample[]>(STATS_KEY) ?? [] };
  }

  /** What kind of failure the last poll met, in the words /readyz uses. */
  private pollFailureKind(): string {
    const err = this.lastPollFailure;
    if (err instanceof RmAuthError) return 'RM refuses the sidecar (authentication)';
    if (err instanceof RmMalformedResponseError) return 'RM answer unreadable';
    if (err instanceof RmResponseTooLargeError) return 'RM answer too large';
    if (err instanceof RmTimeoutError) return 'RM too slow';
    if (err instanceof RmUnavailableError && err.noActiveRm) return 'no active RM (standby)';
    if (err instanceof RmRemoteError) return 'RM refused a read';
    if (err instanceof RmHttpError) return 'RM answered an error';
    return 'RM unreachable';
  }

  readiness(): Readiness {
    // Writes refused for want of authentication: the sidecar decides, but nothing reaches YARN.
    const refused = this.enforcer.writesRefused;
    const writes = refused ? { writesRefused: redactText(refused.message) } : {};
    if (this.lastPollOkMs === undefined) {
      return {
        ready: false,
        reason: this.lastPollError ? `${this.pollFailureKind()}: ${this.lastPollError}` : 'no poll yet',
        ...writes,
      };
    }
    if (this.lastPollError !== undefined) {
      return {
        ready: false,
        reason: `${this.pollFailureKind()}: ${this.lastPollError}`,
        lastPollOkAt: new Date(this.lastPollOkMs).toISOString(),
        lastPollError: this.lastPollError,
        ...writes,
      };
    }
    return { ready: true, lastPollOkAt: new Date(this.lastPollOkMs).toISOString(), ...writes };
  }
}

function withoutRequest<T extends { request?: unknown }>(s: T): Omit<T, 'request'> {
  const { request: _request, ...rest } = s;
  return rest;
}

function earliest(r: AdmissionResult<unknown>): number | null {
  return r.admitted ? null : r.earliestAdmissibleDeadline;
}

/** Why a rejection names no earliest deadline: none is admitted within the search's horizon. */
function noDeadlineWithin(seconds: number): string {
  return `no feasible deadline within ${seconds} s (${(seconds / 86400).toFixed(1)} days) of the job's arrival would be admitted now`;
}

/** An epoch-ms time as ISO-8601, or null where a Date cannot hold it. */
function isoOrNull(ms: number): string | null {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : null;
}
