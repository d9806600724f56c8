import { redactSubmissionRequest, type SubmissionRequest } from '../yarn/submission';
import {
  emptyObservedCosts,
  histogramBins,
  mostObservedClass,
  summarize,
  type CostSketch,
  type HistogramBin,
  type ObservedCostsBook,
  type SketchSummary,
} from '../core/cost-distribution';
import { estimatesOf, type EstimateBook } from '../core/estimate-book';
import {
  errorFactor,
  nearestRank,
  profileFigures,
  type ProfileBook,
  type ProfileOptions,
  type ProfileRun,
} from '../core/profiles';
import type { StretchFit } from '../core/slowdown';
import type {
  ActionRecord,
  DecisionRecord,
  JobAppRecord,
  JobIdentity,
  JobRecord,
  TicketRecord,
} from '../store/types';

/**
 * The shapes the read API answers with. The dashboard reads exactly these, as would any
 * outside client; times are ISO-8601 UTC strings.
 */
export interface RejectionReason {
  /** e.g. `new-job-misses`, `admitted-job-would-miss`, `no-capacity`, `label-unavailable` */
  kind: string;
  message: string;
  /** The job whose deadline would be missed (the new one, or an admitted one). */
  jobId?: string;
  lateBySeconds?: number;
  [key: string]: unknown;
}

export interface JobView extends JobIdentity {
  decision: 'admitted' | 'rejected';
  state: string;
  outcome: 'met' | 'missed' | null;
  queue: string | null;
  label: string | null;
  priority: number | null;
  appId: string | null;
  arrival: string;
  deadline: string;
  /** The admission's estimated finish: the promise made when the job was admitted, never changed. */
  estimatedFinish: string | null;
  /**
   * A running job's predicted finish: its lane's placement made again from its tasks' progress
   * (src/loop/lane-progress.ts), updated while it runs; the estimate until its tasks were read;
   * null for a rejected job.
   */
  predictedFinish: string | null;
  /** An open admitted job whose predicted finish is after its deadline. */
  predictedMiss: boolean;
  finishedAt: string | null;
  /** Deadline minus the actual finish (when ended) or the estimated finish; negative = late. */
  slackSeconds: number | null;
  reason: RejectionReason | null;
  earliestAdmissibleDeadline: string | null;
  energyJoules: number | null;
  /** 1-based place in the EDF queue, for admitted jobs not yet ended. */
  position: number | null;
  /**
   * Where the deadline came from: the request, the queue's default (admission.queueDefaults),
   * or a `deadline:` tag of an app found on the RM.
   */
  deadlineSource: 'request' | 'queue-default' | 'tag';
  /** The ticket of a job admitted before its app existed (tickets.ts's TicketView); null for others. */
  ticket: Record<string, unknown> | null;
  /**
   * Every app of the job, first bound first (appId is the first): one, or several for a ticket
   * whose client ran one app after another (src/loop/job-apps.ts).
   */
  apps: JobAppView[];
  /** An open job whose apps have all ended, waiting for its client's next app or its exit. */
  betweenApps: boolean;
  /**
   * A closed job moved to the ledger's archive (ledger.retention): listed with
   * `GET /api/v1/jobs?archived=true`, no longer in the live list.
   */
  archived: boolean;
}

/** One app of a job as last tracked; state null for an app tracked before apps were kept. */
export interface JobAppView {
  id: string;
  state: string | null;
  finalStatus: string | null;
  queue: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

const APP_ENDED = new Set(['FINISHED', 'FAILED', 'KILLED']);
const JOB_OPEN = new Set(['accepted', 'submitted', 'running']);

function appsView(job: JobRecord, apps: readonly JobAppRecord[]): JobAppView[] {
  if (apps.length === 0)
    return job.appId === null
      ? []
      : [{ id: job.appId, state: null, finalStatus: null, queue: null, startedAt: null, finishedAt: null }];
  return apps.map((a) => ({
    id: a.appId,
    state: a.state,
    finalStatus: a.finalStatus,
    queue: a.queue,
    startedAt: iso(a.startedMs),
    finishedAt: iso(a.finishedMs),
  }));
}

export interface ActionView {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  payload: unknown;
  result: unknown;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DecisionView {
  at: string;
  policy: string;
  decision: string;
  detail: unknown;
}

export interface JobDetailView extends JobView {
  decisions: DecisionView[];
  actions: ActionView[];
}

export interface PartitionView {
  /** '' is the default partition (nodes without a label). */
  label: string;
  nodes: number;
  memoryMb: { total: number; used: number };
  vcores: { total: number; used: number };
  gpus: { total: number; used: number };
  utilization: number;
  /** Task containers admission counts on the partition's nodes, free or not. */
  containers?: number;
  /** The cores each node's vcores are capped to (admission.nodeCores); null: as advertised. */
  nodeCores?: number | null;
}

export interface StatsSample {
  at: string;
  accepted: number;
  rejected: number;
  met: number;
  missed: number;
  /** Admitted jobs whose app FAILED or was KILLED: counted apart, never as missed. */
  failed?: number;
  killed?: number;
  acceptRatio: number | null;
  successRatio: number | null;
  utilizationByLabel: Record<string, number>;
  energyKWh: number;
  /** energyKWh per label partition ('' the default one) the admitted jobs were placed in. */
  energyKWhByLabel?: Record<string, number>;
  /**
   * Running admitted jobs whose predicted finish is after their deadline (predictedToMiss), as
   * yss_jobs_predicted_to_miss; absent in a sample from before they were counted.
   */
  predictedToMiss?: number;
}

/** The clock every time in the API's answers is read from (GET /api/v1/cluster `clock`). */
export interface ClockView {
  /** The sidecar's time when it answered. */
  now: string;
  /** `emulated`: the sidecar runs on the emulated RM's clock (the demo), not the system's. */
  kind: 'system' | 'emulated';
}

export function clockView(nowMs: number, kind: ClockView['kind'] = 'system'): ClockView {
  return { now: new Date(nowMs).toISOString(), kind };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * A job's predicted finish (ms): the last its lane's rebuild from task progress gave, else the
 * admission's estimate; null for a rejected job.
 */
export function predictedFinishOf(
  j: Pick<JobRecord, 'decision' | 'predictedFinishMs' | 'estimatedFinishMs'>,
): number | null {
  return j.decision === 'admitted' ? (j.predictedFinishMs ?? j.estimatedFinishMs) : null;
}

/** An open admitted job (queued or running) whose predicted finish is after its deadline. */
export function predictedMiss(j: JobRecord): boolean {
  const at = predictedFinishOf(j);
  return JOB_OPEN.has(j.state) && at !== null && at > j.deadlineMs;
}

/** A running admitted job predicted to miss its deadline: what yss_jobs_predicted_to_miss counts. */
export function predictedToMiss(j: JobRecord): boolean {
  return j.state === 'running' && predictedMiss(j);
}

export function jobView(
  job: JobRecord,
  position: number | null = null,
  ticket: TicketRecord | undefined = undefined,
  apps: readonly JobAppRecord[] = [],
  archived = false,
): JobView {
  const end = job.finishedMs ?? job.estimatedFinishMs;
  const client = ticket?.client ?? null;
  return {
    id: job.id,
    name: job.name,
    user: job.user,
    submitter: job.submitter,
    source: job.source,
    jobType: job.jobType,
    maps: job.maps,
    reduces: job.reduces,
    inputBytes: job.inputBytes,
    decision: job.decision,
    state: job.state,
    outcome: job.outcome,
    queue: job.queue,
    label: job.label,
    priority: job.priority,
    appId: job.appId,
    arrival: iso(job.arrivalMs)!,
    deadline: iso(job.deadlineMs)!,
    estimatedFinish: iso(job.estimatedFinishMs),
    predictedFinish: iso(predictedFinishOf(job)),
    predictedMiss: predictedMiss(job),
    finishedAt: iso(job.finishedMs),
    slackSeconds: end === null || job.decision === 'rejected' ? null : (job.deadlineMs - end) / 1000,
    reason: (job.reason as RejectionReason | null) ?? null,
    earliestAdmissibleDeadline: iso(job.earliestDeadlineMs),
    energyJoules: job.energyJoules,
    position,
    deadlineSource:
      job.source === 'discovered'
        ? 'tag'
        : (job.spec as { deadlineSource?: string } | null)?.deadlineSource === 'queue-default'
          ? 'queue-default'
          : 'request',
    ticket: ticket
      ? {
          ...(ticket.detail as Record<string, unknown>),
          status: ticket.status,
          appId: ticket.appId,
          client:
            client === null
              ? null
              : { state: client.state, exitCode: client.exitCode, reportedAt: iso(client.seenMs) },
        }
      : null,
    apps: appsView(job, apps),
    betweenApps:
      job.decision === 'admitted' &&
      JOB_OPEN.has(job.state) &&
      client !== null &&
      apps.length > 0 &&
      apps.every((a) => APP_ENDED.has(a.state)),
    archived,
  };
}

/**
 * A submit action's launch context may carry credentials (tokens, secrets): shown by name,
 * never by value. A row from before the context was typed holds it raw, as `yarnSubmission`.
 */
function redactPayload(payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object') return payload;
  const p = payload as { request?: SubmissionRequest; yarnSubmission?: Record<string, unknown> };
  let out: Record<string, unknown> = payload as Record<string, unknown>;
  if (p.request) out = { ...out, request: redactSubmissionRequest(p.request) };
  const spec = p.yarnSubmission?.['am-container-spec'] as Record<string, unknown> | undefined;
  if (spec && 'credentials' in spec) {
    out = {
      ...out,
      yarnSubmission: { ...p.yarnSubmission, 'am-container-spec': { ...spec, credentials: '[redacted]' } },
    };
  }
  return out;
}

export function actionView(a: ActionRecord): ActionView {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    attempts: a.attempts,
    payload: redactPayload(a.payload),
    result: a.result,
    error: a.error,
    createdAt: iso(a.createdMs)!,
    updatedAt: iso(a.updatedMs)!,
  };
}

export function decisionView(d: DecisionRecord): DecisionView {
  return { at: iso(d.atMs)!, policy: d.policy, decision: d.decision, detail: d.detail };
}

/** One stage's learned worst case beside the observed distribution (seconds per MB). */
export interface StageCostView {
  /** c^max: what admission plans every task of this stage with. */
  learnedWorstCase: number;
  observed: SketchSummary & {
    /** Tasks that took no measurable time (not drawn on the log axis). */
    zeros: number;
    histogram: HistogramBin[];
  };
  /** How pessimistic admission is: the worst case over the median task; null before any task. */
  worstCaseOverP50: number | null;
  /** The spread seen: the slowest task over the median one. */
  observedMaxOverP50: number | null;
}

/**
 * One workload class (GET /api/v1/estimates `classes`): the figures admission judges its jobs
 * with, and the distribution of its own finished tasks against them.
 */
export interface ClassEstimatesView {
  /** The class name; `*` for the default, which judges every class without figures of its own. */
  workloadClass: string;
  /** False when the class has no figures of its own and is judged with the default's. */
  ownFigures: boolean;
  eta: number;
  mapSecondsPerMb: number;
  reduceSecondsPerMb: number;
  /** Seconds every map / reduce task takes whatever its data (0 under the papers' model). */
  mapTaskSeconds: number;
  reduceTaskSeconds: number;
  /** Seconds from a job's start to its first task (its AM's launch and set-up), and from its last task to its end (commit). */
  setupSeconds: number;
  commitSeconds: number;
  /** Containers a job's AM holds for its whole life (1 for MapReduce; 0 in the papers' model). */
  amContainers: number;
  /** Finished jobs of this class its distribution holds. */
  jobs: number;
  /** The class's own distribution beside its own worst case (`learnedWorstCase`). */
  map: StageCostView;
  reduce: StageCostView;
}

/** GET /api/v1/estimates. */
export interface EstimatesView {
  /** Both the learned figures and the observed distributions are per workload class. */
  scope: 'class';
  unit: 'seconds per MB';
  /** Quantiles are within this fraction of the exact ones (relative). */
  quantileRelativeError: number;
  /** Finished jobs observed in all, including those of classes no longer kept. */
  jobs: number;
  /** The class with the most observed jobs (what the dashboard shows first); null before any. */
  mostObserved: string | null;
  /**
   * Per class: the default (`*`) first, then by name; every class with figures or a kept
   * distribution (the pinned classes and the most recently seen others, ClassRetention).
   */
  classes: ClassEstimatesView[];
  /** Profiles of recurring jobs, most recently learned first (none under estimateModel paper). */
  profiles: ProfileView[];
  /**
   * How finished jobs' tasks stretched with the containers running beside them, per label
   * partition (src/loop/slowdown.ts); the live sidecar's answer has it.
   */
  capacity?: SlowdownView;
}

/** One partition's fit of how tasks stretch with the containers beside them. */
export interface PartitionSlowdownView {
  label: string;
  /** RUNNING nodes in the partition at the last capacity read; null before one. */
  nodes: number | null;
  /** Finished jobs and tasks the fit reads (the latest, bounded). */
  jobs: number;
  tasks: number;
  fit: StretchFit;
  /** The fit's full-speed containers per node; null without a fit or a node count. */
  fullSpeedContainersPerNode: number | null;
  /** The admission.nodeCores those containers amount to (containerVcores each, rounded down). */
  suggestedNodeCores: number | null;
  /** The cores admission counts each node's vcores at in this partition (null: as advertised). */
  nodeCores: number | null;
}

export interface SlowdownView {
  /** The learned figures are shown only: admission counts admission.nodeCores, if set. */
  usedByAdmission: false;
  partitions: PartitionSlowdownView[];
}

/** One profile of a recurring job (GET /api/v1/estimates `profiles`). */
export interface ProfileView {
  profile: string;
  /** The class whose figures fill what the profile has not seen. */
  workloadClass: string | null;
  /** Runs learned in all, and those kept (its figures are fitted on these). */
  runs: number;
  keptRuns: number;
  /** The figures fitted on its runs, before its error factor (seconds, seconds per MB). */
  mapTaskSeconds: number;
  mapSecondsPerMb: number;
  reduceTaskSeconds: number;
  reduceSecondsPerMb: number;
  setupSeconds: number;
  commitSeconds: number;
  /** Runs judged on it whose error is known, and their median and quantile (actual / predicted). */
  errors: number;
  errorMedian: number | null;
  errorQuantile: number | null;
  quantile: number;
  /** What its figures are multiplied by when a job is judged. */
  factor: number;
  /** Its latest run: longest map and reduce (seconds), set-up, commit, error. */
  lastRun: ProfileRun;
}

/** The profiles, most recently learned first. */
function profilesView(
  book: EstimateBook,
  profiles: { book: ProfileBook; options: ProfileOptions },
): ProfileView[] {
  return Object.entries(profiles.book.profiles)
    .reverse()
    .map(([profile, p]) => {
      const figures = profileFigures(p, estimatesOf(book, p.workloadClass ?? '*'));
      const errors = p.runs.map((r) => r.error).filter((e): e is number => e !== undefined);
      const factor = errorFactor(p, profiles.options);
      return {
        profile,
        workloadClass: p.workloadClass ?? null,
        runs: p.totalRuns,
        keptRuns: p.runs.length,
        mapTaskSeconds: figures.mapTaskSeconds ?? 0,
        mapSecondsPerMb: figures.mapCostMax,
        reduceTaskSeconds: figures.reduceTaskSeconds ?? 0,
        reduceSecondsPerMb: figures.reduceCostMax,
        setupSeconds: figures.setupSeconds ?? 0,
        commitSeconds: figures.commitSeconds ?? 0,
        errors: errors.length,
        errorMedian: errors.length > 0 ? nearestRank(errors, 0.5) : null,
        errorQuantile: factor.quantileError,
        quantile: profiles.options.quantile,
        factor: factor.factor,
        lastRun: p.runs[p.runs.length - 1]!,
      };
    });
}

const HISTOGRAM_BINS = 24;

function stageView(worst: number, sketch: CostSketch): StageCostView {
  const summary = summarize(sketch);
  const ratio = (x: number | null) =>
    x === null || summary.p50 === null || summary.p50 <= 0 ? null : x / summary.p50;
  return {
    learnedWorstCase: worst,
    observed: {
      ...summary,
      zeros: sketch.zeroCount,
      // Binned for an axis that reaches the worst case, as the dashboard draws it.
      histogram: histogramBins(sketch, HISTOGRAM_BINS, worst),
    },
    worstCaseOverP50: ratio(worst),
    observedMaxOverP50: ratio(summary.max),
  };
}

export function estimatesView(
  book: EstimateBook,
  observed: ObservedCostsBook,
  profiles?: { book: ProfileBook; options: ProfileOptions },
): EstimatesView {
  const named = [...new Set([...Object.keys(book.classes), ...Object.keys(observed.classes)])]
    .filter((c) => c !== '*')
    .sort();
  const alpha = Object.values(observed.classes)[0]?.map.relativeAccuracy;
  const none = emptyObservedCosts(alpha);
  return {
    scope: 'class',
    unit: 'seconds per MB',
    quantileRelativeError: none.map.relativeAccuracy,
    jobs: observed.jobs,
    mostObserved: mostObservedClass(observed),
    classes: ['*', ...named].map((workloadClass) => {
      const e = estimatesOf(book, workloadClass);
      const costs = Object.hasOwn(observed.classes, workloadClass) ? observed.classes[workloadClass]! : none;
      return {
        workloadClass,
        ownFigures: workloadClass === '*' || Object.hasOwn(book.classes, workloadClass),
        eta: e.eta,
        mapSecondsPerMb: e.mapCostMax,
        reduceSecondsPerMb: e.reduceCostMax,
        mapTaskSeconds: e.mapTaskSeconds ?? 0,
        reduceTaskSeconds: e.reduceTaskSeconds ?? 0,
        setupSeconds: e.setupSeconds ?? 0,
        commitSeconds: e.commitSeconds ?? 0,
        amContainers: e.amContainers ?? 0,
        jobs: costs.jobs,
        map: stageView(e.mapCostMax, costs.map),
        reduce: stageView(e.reduceCostMax, costs.reduce),
      };
    }),
    profiles: profiles === undefined ? [] : profilesView(book, profiles),
  };
}
