import type { SidecarMetrics } from '../metrics';
import { estimatesView, type EstimatesView } from '../model/job-views';
import {
  DEFAULT_COMMIT_SECONDS,
  DEFAULT_SETUP_SECONDS,
  DEFAULT_TASK_SECONDS,
  type SidecarConfig,
} from '../config/schema';
import type { JobActuals } from '../core/admission';
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
  classedJob,
  withLearned,
  type EstimateBook,
  type LearnedEstimates,
} from '../core/estimate-book';
import {
  unitCosts,
  validateWorkloadClass,
  type Estimates,
  type FinishedJobObservation,
} from '../core/estimates';
import type { DeadlineJob } from '../core/job';
import { JOB_TYPES, type JobType } from '../core/kinds';
import { sparkRun } from '../core/spark';
import { estimatesFromSamples, fullEstimates, learnJob, type LearningOptions } from '../core/learning';
import {
  EMPTY_PROFILE_BOOK,
  estimateFor,
  learnProfile,
  profileKeyOf,
  runError,
  validateProfileBook,
  type EstimateFrom,
  type ProfileBook,
  type ProfileOptions,
  type ProfileRun,
} from '../core/profiles';
import { ValidationError } from '../errors/validation';
import type { Logger } from '../log';
import type { JobRecord, Ledger } from '../store/types';
import type { AppReport, TaskReport } from '../yarn/model';

/**
 * The estimates admission judges with (docs/estimates.md): the configured figures per workload
 * class, what finished jobs taught over them (kept in the ledger), and the observed distribution
 * of task unit costs beside them. Learning and an operator's reset say whether the figures
 * changed; the caller then rebuilds the lanes with them.
 */

const MB = 1024 * 1024;
/**
 * The learned estimates per workload class (LearnedEstimates). Before there were classes the
 * same key held one triple; it still loads, as the default (validateLearnedEstimates).
 */
const ESTIMATES_KEY = 'estimates';
/** The latest operator resets of a class's learning (who, when, figures before and after). */
const RESETS_KEY = 'estimates-resets';
const MAX_RESETS_KEPT = 100;
/** The observed distribution of task unit costs (cost-distribution.ts), beside the estimates. */
const OBSERVED_KEY = 'observedCosts';
/** The profiles of recurring jobs (src/core/profiles.ts). */
const PROFILES_KEY = 'profiles';

/** A class's figures as the API shows them (seconds per MB, seconds per task). */
export interface FiguresView {
  eta: number;
  mapSecondsPerMb: number;
  reduceSecondsPerMb: number;
  /** The per-task floor (0 under estimateModel paper). */
  mapTaskSeconds: number;
  reduceTaskSeconds: number;
  /** A job's time outside its tasks, and its AM's containers (0 under estimateModel paper). */
  setupSeconds: number;
  commitSeconds: number;
  amContainers: number;
}

/** POST /api/v1/estimates/{class}/reset. */
export interface EstimatesResetView {
  workloadClass: string;
  /** False when the class had learned nothing: the reset changed nothing. */
  hadLearned: boolean;
  before: FiguresView;
  after: FiguresView;
}

/** The figures under the API's names (seconds per MB), absent task floors as 0 as the core reads them. */
export function figuresView(e: Estimates): FiguresView {
  const f = fullEstimates(e);
  return {
    eta: f.eta,
    mapSecondsPerMb: f.mapCostMax,
    reduceSecondsPerMb: f.reduceCostMax,
    mapTaskSeconds: f.mapTaskSeconds,
    reduceTaskSeconds: f.reduceTaskSeconds,
    setupSeconds: f.setupSeconds,
    commitSeconds: f.commitSeconds,
    amContainers: f.amContainers,
  };
}

/** The fields of a ledger row the core's job is made of (name, user and queue name its profile). */
export type JobFields = Pick<
  JobRecord,
  'id' | 'arrivalMs' | 'deadlineMs' | 'maps' | 'reduces' | 'inputBytes' | 'spec' | 'jobType'
> &
  Partial<Pick<JobRecord, 'name' | 'user' | 'queue'>>;

/**
 * A job's profile name: the one its spec keeps (`profileKey`, set when it was decided), its
 * explicit `profile`, else its name, user and queue; undefined when none of these is known.
 */
export function profileKeyOfRecord(
  j: Pick<JobFields, 'spec' | 'name' | 'user' | 'queue'>,
): string | undefined {
  const spec = (j.spec ?? {}) as { profileKey?: unknown; profile?: unknown; name?: unknown; user?: unknown };
  if (typeof spec.profileKey === 'string') return spec.profileKey;
  if (typeof spec.profile === 'string') return spec.profile;
  const name = j.name ?? (typeof spec.name === 'string' ? spec.name : undefined);
  const user = j.user ?? (typeof spec.user === 'string' ? spec.user : undefined);
  if (name === undefined || user === undefined) return undefined;
  return profileKeyOf({ name, user, queue: j.queue ?? 'default' });
}

/** Configured figures as the core's estimates; under the floored model with a per-task floor. */
export function configuredBook(admission: SidecarConfig['admission']): EstimateBook {
  const floored = admission.estimateModel === 'floored';
  // Under the floored model a class without its own task floor gets DEFAULT_TASK_SECONDS, and
  // a job's time outside its tasks and its AM's container are counted (the papers' has none).
  const amContainers = admission.amContainers ?? (floored ? 1 : 0);
  const triple = (e: SidecarConfig['admission']['initialEstimates']): Estimates => ({
    eta: e.eta,
    mapCostMax: e.mapSecondsPerMb,
    reduceCostMax: e.reduceSecondsPerMb,
    ...(floored
      ? {
          mapTaskSeconds: e.mapTaskSeconds ?? DEFAULT_TASK_SECONDS,
          reduceTaskSeconds: e.reduceTaskSeconds ?? DEFAULT_TASK_SECONDS,
          setupSeconds: e.setupSeconds ?? DEFAULT_SETUP_SECONDS,
          commitSeconds: e.commitSeconds ?? DEFAULT_COMMIT_SECONDS,
        }
      : {}),
    ...(amContainers > 0 ? { amContainers } : {}),
  });
  return bookOf(
    triple(admission.initialEstimates),
    Object.fromEntries(Object.entries(admission.classEstimates).map(([c, e]) => [c, triple(e)])),
  );
}

export interface EstimateKeeperDeps {
  config: SidecarConfig;
  ledger: Ledger;
  metrics: SidecarMetrics;
  log: Logger;
  now: () => number;
  recentCostClasses?: number;
}

export class EstimateKeeper {
  /** The configured estimates with the learned ones over them: what admission reads. */
  private current: EstimateBook;
  /** What was learned (and is kept in the ledger), class by class. */
  private learned: LearnedEstimates;
  /** The configured estimates, before anything learned. */
  private readonly configured: EstimateBook;
  private readonly learning: LearningOptions;
  private observed: ObservedCostsBook;
  /** Which classes keep a distribution and metric series (ClassRetention). */
  private readonly retention: ClassRetention;
  /** A save of the learned figures is queued for the next group commit (saveSoon). */
  private saveQueued = false;
  /** The profiles of recurring jobs; judged by under `floored` only. */
  private profiles: ProfileBook;
  private readonly profileOptions: ProfileOptions | undefined;

  constructor(private readonly deps: EstimateKeeperDeps) {
    const { config, ledger } = deps;
    this.learning = { model: config.admission.estimateModel, ...config.admission.learning };
    this.configured = configuredBook(config.admission);
    const saved = ledger.getValue<unknown>(ESTIMATES_KEY);
    this.learned = saved === undefined ? { classes: {} } : validateLearnedEstimates(saved);
    this.current = this.bookFromLearned();
    // Pinned: the default, the job types (the class of every job without its own) and the
    // configured classes, a set the operator bounds; other classes are bounded by recency.
    this.retention = {
      pinned: ['*', ...JOB_TYPES, ...Object.keys(config.admission.classEstimates)],
      recent: deps.recentCostClasses ?? DEFAULT_RECENT_CLASSES,
    };
    this.observed = this.loadObserved();
    this.profileOptions =
      config.admission.estimateModel === 'floored' && config.admission.profiles.enabled
        ? config.admission.profiles
        : undefined;
    this.profiles = this.loadProfiles();
    this.publish();
  }

  /** The profiles, as GET /api/v1/estimates shows them. */
  get profileBook(): ProfileBook {
    return this.profiles;
  }

  /** The options profiles are judged with; undefined under the papers' model (no profiles). */
  get profileSettings(): ProfileOptions | undefined {
    return this.profileOptions;
  }

  get book(): EstimateBook {
    return this.current;
  }

  /** GET /api/v1/estimates. */
  view(): EstimatesView {
    return estimatesView(
      this.current,
      this.observed,
      this.profileOptions && {
        book: this.profiles,
        options: this.profileOptions,
      },
    );
  }

  /**
   * A job's workload class: the `workloadClass` its spec holds (from the submission, or an RM
   * app's `class:` tag), else its job type.
   */
  classOfRecord(j: Pick<JobRecord, 'jobType' | 'spec'>): string {
    const own = (j.spec as { workloadClass?: unknown } | null)?.workloadClass;
    return classOf(j.jobType as JobType, typeof own === 'string' ? own : undefined);
  }

  /** The core's job, carrying its class and the figures it is judged with (judge). */
  deadlineJob(j: JobFields): DeadlineJob {
    return this.judge(j).job;
  }

  /**
   * The core's job and where its figures came from: under `floored` its profile's figures times
   * its error factor, or its class's times the margin (src/core/profiles.ts); under `paper` its
   * class's as they are (no `from`).
   */
  judge(j: JobFields): { job: DeadlineJob; from?: EstimateFrom } {
    const arrival = j.arrivalMs / 1000;
    const cls = this.classOfRecord(j);
    const job = classedJob(
      {
        id: j.id,
        arrival,
        deadline: j.deadlineMs / 1000 - arrival,
        maps: j.maps,
        reduces: j.reduces,
        inputBytes: j.inputBytes,
        splitBytes: (j.spec as { splitBytes?: number[] } | null)?.splitBytes,
      },
      cls,
      this.current,
      { minDeadline: 1e-3 },
    );
    const key = profileKeyOfRecord(j);
    if (this.profileOptions === undefined || key === undefined) return { job };
    const judged = estimateFor(
      this.profiles,
      key,
      { name: cls, figures: estimatesOf(this.current, cls), learnedJobs: this.learnedJobs(cls) },
      this.profileOptions,
    );
    return { job: { ...job, estimates: judged.estimates }, from: judged.from };
  }

  /** Finished jobs a class's figures were learned from (those still in its window). */
  private learnedJobs(cls: string): number {
    const samples = this.learned.samples?.[cls]?.samples.length;
    if (samples !== undefined) return samples;
    return Object.hasOwn(this.learned.classes, cls) ? 1 : 0;
  }

  /**
   * Learns the estimates from a finished job's tasks (read from the JobHistory server).
   * `changed`: the class's figures moved, and every lane must be rebuilt with them.
   */
  learnFrom(
    job: JobRecord,
    app: Pick<AppReport, 'finishedTime'> & { readonly startedTime?: number },
    tasks: readonly TaskReport[],
  ): { actuals: JobActuals; changed: boolean } | undefined {
    const maps = tasks.filter((t) => t.type === 'MAP' && t.finishTime > 0);
    const reduces = tasks.filter((t) => t.type === 'REDUCE' && t.finishTime > 0);
    if (maps.length === 0) return undefined;
    const inputMb = job.inputBytes / MB;
    // Learning is confined to the finished job's class (He et al., RTMR, IV.A, per class).
    const cls = this.classOfRecord(job);
    const before = estimatesOf(this.current, cls);
    const firstStart = Math.min(...[...maps, ...reduces].map((t) => t.startTime));
    const lastFinish = Math.max(...[...maps, ...reduces].map((t) => t.finishTime));
    const observation: FinishedJobObservation = {
      // The intermediate size is not reported by the task list: eta is not learned.
      inputSize: inputMb,
      // What the job spent outside its tasks, from the RM's times of its app (when known): from
      // its start to its first task (the AM's container, launch and set-up; waits for a
      // container count in, which only errs high) and from its last task to its end (commit).
      ...(app.startedTime !== undefined && app.startedTime > 0 && firstStart >= app.startedTime
        ? { setupSeconds: (firstStart - app.startedTime) / 1000 }
        : {}),
      ...(app.finishedTime > 0 && app.finishedTime >= lastFinish
        ? { commitSeconds: (app.finishedTime - lastFinish) / 1000 }
        : {}),
      mapTasks: maps.map((t) => ({ size: inputMb / job.maps, seconds: (t.finishTime - t.startTime) / 1000 })),
      reduceTasks: reduces.map((t) => ({
        size: (before.eta * inputMb) / Math.max(1, job.reduces),
        seconds: (t.finishTime - t.startTime) / 1000,
      })),
    };
    const after = this.learnClass(cls, before, observation);
    this.current = bookOf(this.current.default, { ...this.current.classes, [cls]: after });
    this.observe(cls, observation);
    const profiled = this.learnProfileOf(job, app, maps, reduces, firstStart, lastFinish);
    const changed = profiled || JSON.stringify(before) !== JSON.stringify(after);
    if (changed) {
      this.deps.log.info('estimates changed', { workloadClass: cls, before, after });
      const { ledger } = this.deps;
      this.written(
        ledger.writeSoon(() =>
          ledger.recordDecision(job.id, 'estimates', 'learned', { workloadClass: cls, before, after }),
        ),
      );
    }
    return {
      actuals: {
        mapFinishTimes: maps.map((t) => t.finishTime / 1000),
        reduceFinishTimes: reduces.map((t) => t.finishTime / 1000),
        finishedAt: (app.finishedTime || Math.max(...tasks.map((t) => t.finishTime))) / 1000,
      },
      changed,
    };
  }

  /**
   * The finished job's run learned into its profile (under `floored`): its longest map and
   * reduce with their data, its set-up and commit, and, when it was judged on its profile, its
   * error (actual / predicted duration, its error factor taken out). True when a profile learned.
   */
  private learnProfileOf(
    job: JobRecord,
    app: Pick<AppReport, 'finishedTime'> & { readonly startedTime?: number },
    maps: readonly TaskReport[],
    reduces: readonly TaskReport[],
    firstStart: number,
    lastFinish: number,
  ): boolean {
    const options = this.profileOptions;
    const key = profileKeyOfRecord(job);
    if (options === undefined || key === undefined) return false;
    const seconds = (ts: readonly TaskReport[]) =>
      ts.reduce((m, t) => Math.max(m, (t.finishTime - t.startTime) / 1000), 0);
    const inputMb = job.inputBytes / MB;
    const splits = (job.spec as { splitBytes?: number[] } | null)?.splitBytes;
    const from = (job.spec as { estimateFrom?: { source?: unknown; factor?: unknown } } | null)?.estimateFrom;
    const finishedMs = app.finishedTime > 0 ? app.finishedTime : lastFinish;
    const error =
      from?.source === 'profile' && typeof from.factor === 'number' && job.estimatedFinishMs !== null
        ? runError(
            (finishedMs - job.arrivalMs) / 1000,
            (job.estimatedFinishMs - job.arrivalMs) / 1000,
            from.factor,
          )
        : undefined;
    // A profile's set-up runs from the job's admission when its app came after it (a ticket's
    // client starting its JVM and submitting, the sidecar's own submission): the time before the
    // first task is what the next run will spend again. A job found on the RM (admitted after its
    // app started) counts from its app's start, as a class does.
    const appStart = app.startedTime !== undefined && app.startedTime > 0 ? app.startedTime : undefined;
    const setupFrom =
      appStart === undefined
        ? undefined
        : job.decision === 'admitted' && job.arrivalMs <= appStart
          ? job.arrivalMs
          : appStart;
    const run: ProfileRun = {
      maps: maps.length,
      reduces: reduces.length,
      mapMb:
        splits !== undefined && splits.length > 0
          ? Math.max(...splits) / MB
          : inputMb / Math.max(1, job.maps),
      mapSeconds: seconds(maps),
      reduceMb: reduces.length > 0 ? inputMb / Math.max(1, job.reduces) : 0,
      reduceSeconds: seconds(reduces),
      ...(setupFrom !== undefined && firstStart >= setupFrom
        ? { setupSeconds: (firstStart - setupFrom) / 1000 }
        : {}),
      ...(app.finishedTime > 0 && app.finishedTime >= lastFinish
        ? { commitSeconds: (app.finishedTime - lastFinish) / 1000 }
        : {}),
      ...(error === undefined ? {} : { error }),
    };
    this.profiles = learnProfile(this.profiles, key, run, options, this.classOfRecord(job));
    this.saveSoon();
    this.deps.log.info('profile learned', { job: job.id, profile: key, run });
    return true;
  }

  /**
   * A finished Spark job's run learned into its profile (under `floored`), from its app's times
   * (src/core/spark.ts, sparkRun): set-up from the app's start to its first executor (else its
   * AM's launch), one "map" per executor container lasting from then to the app's end, and,
   * when it was judged on its profile, its error. Its class's figures, which are MapReduce
   * tasks', are not changed. True when a profile learned.
   */
  learnSpark(
    job: JobRecord,
    t: { startedMs: number; finishedMs: number; launchMs?: number; firstExecutorMs?: number },
  ): boolean {
    const options = this.profileOptions;
    const key = profileKeyOfRecord(job);
    const times = sparkRun(t);
    if (options === undefined || key === undefined || times === undefined) return false;
    const from = (job.spec as { estimateFrom?: { source?: unknown; factor?: unknown } } | null)?.estimateFrom;
    const error =
      from?.source === 'profile' && typeof from.factor === 'number' && job.estimatedFinishMs !== null
        ? runError(
            (t.finishedMs - job.arrivalMs) / 1000,
            (job.estimatedFinishMs - job.arrivalMs) / 1000,
            from.factor,
          )
        : undefined;
    const run: ProfileRun = {
      maps: job.maps,
      reduces: 0,
      mapMb: job.inputBytes / MB / Math.max(1, job.maps),
      mapSeconds: times.executorSeconds,
      reduceMb: 0,
      reduceSeconds: 0,
      setupSeconds: times.setupSeconds,
      commitSeconds: times.commitSeconds,
      ...(error === undefined ? {} : { error }),
    };
    this.profiles = learnProfile(this.profiles, key, run, options, this.classOfRecord(job));
    this.saveSoon();
    this.deps.log.info('profile learned', { job: job.id, profile: key, run, spark: true });
    const { ledger } = this.deps;
    this.written(
      ledger.writeSoon(() =>
        ledger.recordDecision(job.id, 'estimates', 'learned', { profile: key, spark: run }),
      ),
    );
    return true;
  }

  /**
   * The learned estimates and the observed distribution saved in the next group commit, once
   * however many jobs finish before it (the latest figures win): a poll that ends many jobs
   * costs one disk sync, off the event loop, instead of one per job on it.
   */
  private saveSoon(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    const { ledger } = this.deps;
    this.written(
      ledger.writeSoon(() => {
        this.saveQueued = false;
        ledger.setValue(ESTIMATES_KEY, this.learned);
        ledger.setValue(OBSERVED_KEY, this.observed);
        if (this.profileOptions !== undefined) ledger.setValue(PROFILES_KEY, this.profiles);
      }),
    );
  }

  private written(write: Promise<void>): void {
    write.catch((err: unknown) =>
      this.deps.log.error('learned estimates could not be saved', { error: String(err) }),
    );
  }

  /** The same unit costs c^max is the maximum of, kept as a distribution beside it, and saved. */
  private observe(cls: string, observation: FinishedJobObservation): void {
    const unit = unitCosts(observation);
    const observed = observeClassJob(this.observed, cls, unit, this.retention);
    this.observed = observed.book;
    this.saveSoon();
    const costs = this.deps.metrics.taskUnitCost;
    for (const v of unit.map) costs.observe({ stage: 'map', class: cls }, v);
    for (const v of unit.reduce) costs.observe({ stage: 'reduce', class: cls }, v);
    // A class dropped from the distributions leaves the metrics too: the series stay bounded.
    for (const c of observed.dropped)
      for (const stage of ['map', 'reduce']) costs.remove({ stage, class: c });
    this.publish();
  }

  /**
   * One finished job learned into its class (src/core/learning.ts): the papers' rule, or the
   * floored one whose samples are kept so that figures decay. Returns the class's new figures.
   */
  private learnClass(cls: string, before: Estimates, observation: FinishedJobObservation): Estimates {
    if (this.learning.model === 'paper') {
      const after = estimatesOf(learnForClass(this.current, cls, observation), cls);
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
   * `estimates reset`): what it learned and its samples are forgotten, and it is judged with its
   * configured figures again. Recorded in the ledger. `changed`: the lanes must be rebuilt.
   */
  reset(workloadClass: string, by: string): { view: EstimatesResetView; changed: boolean } {
    const cls = validateWorkloadClass(workloadClass, 'workloadClass');
    const before = estimatesOf(this.current, cls);
    const hadLearned = Object.hasOwn(this.learned.classes, cls) || this.learned.samples?.[cls] !== undefined;
    this.learned = forgetClass(this.learned, cls);
    this.current = this.bookFromLearned();
    const after = estimatesOf(this.current, cls);
    const reset = { workloadClass: cls, by, atMs: this.deps.now(), before, after };
    const resets = this.deps.ledger.getValue<unknown[]>(RESETS_KEY) ?? [];
    this.deps.ledger.transaction(() => {
      this.deps.ledger.setValue(ESTIMATES_KEY, this.learned);
      this.deps.ledger.setValue(RESETS_KEY, [...resets, reset].slice(-MAX_RESETS_KEPT));
    });
    this.publish();
    this.deps.log.info('estimates reset', reset);
    return {
      view: { workloadClass: cls, hadLearned, before: figuresView(before), after: figuresView(after) },
      changed: JSON.stringify(before) !== JSON.stringify(after),
    };
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
      this.deps.log.warn('the saved task cost distribution is unreadable; starting a new one', {
        error: err instanceof ValidationError ? err.issues : String(err),
      });
      return emptyObservedCostsBook();
    }
  }

  /** The saved profiles, or none. One that does not read back is logged and started anew. */
  private loadProfiles(): ProfileBook {
    const saved = this.deps.ledger.getValue<unknown>(PROFILES_KEY);
    if (saved === undefined) return EMPTY_PROFILE_BOOK;
    try {
      return validateProfileBook(saved);
    } catch (err) {
      this.deps.log.warn('the saved job profiles are unreadable; starting new ones', {
        error: err instanceof ValidationError ? err.issues : String(err),
      });
      return EMPTY_PROFILE_BOOK;
    }
  }

  /**
   * One gauge series per stage and class: the pinned classes and those keeping a distribution,
   * the same bounded set as the observed costs, each with the figures admission judges it with.
   */
  private publish(): void {
    const gauge = this.deps.metrics.learnedUnitCost;
    gauge.reset();
    for (const cls of new Set([...this.retention.pinned, ...Object.keys(this.observed.classes)])) {
      const e = estimatesOf(this.current, cls);
      gauge.set({ stage: 'map', class: cls }, e.mapCostMax);
      gauge.set({ stage: 'reduce', class: cls }, e.reduceCostMax);
    }
  }
}

/**
 * The tasks of a job that ran as several apps (a ticket's client running one app after another,
 * src/loop/job-apps.ts), read from the JobHistory server app by app and learned from as one
 * job's: every app's maps and reduces, from its first app's start to its last app's finish.
 */
export async function tasksOfApps(
  read: (appId: string) => Promise<readonly TaskReport[]>,
  appIds: readonly string[],
): Promise<TaskReport[]> {
  const out: TaskReport[] = [];
  for (const id of appIds) out.push(...(await read(id)));
  return out;
}
