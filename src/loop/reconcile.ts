import type { JobActuals } from '../core/admission';
import { estimatesOf } from '../core/estimate-book';
import { decodeActions, type DecodedSubmit, type OutboxAction } from '../enforce/outbox';
import { RmHttpError } from '../errors/rm-http';
import { RmRemoteError } from '../errors/rm-remote';
import type { JobRecord } from '../store/types';
import type { AppReport } from '../yarn/model';
import { decodeTags } from '../yarn/tags';
import type { LoopParts } from './context';
import { discover } from './discovery';
import {
  appEnded,
  bindLaterApp,
  currentAppOf,
  foldActuals,
  isLaterApp,
  jobEnd,
  planLaterAppWrites,
  trackedApp,
  type AppEnd,
} from './job-apps';
import { tasksOfApps } from './learning';
import { isSparkJob } from './spark-watch';
import { recordPlan } from './plan';
import { reasonOf } from './reasons';
import { bindTicket, type SeenBy } from './tickets';

const OPEN_STATES = new Set(['accepted', 'submitted', 'running']);
const ENDED_APP_STATES = new Set(['FINISHED', 'FAILED', 'KILLED']);
const NOT_YET_SCHEDULED = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED']);
/** Apps whose last tracked report is remembered (beyond it the memory starts again). */
const MAX_REMEMBERED = 100_000;

/**
 * What of an app's report tracking reads: an app whose fields here have not changed since it
 * was last tracked has nothing new to tell (its progress alone does not matter to tracking).
 */
const trackedFields = (a: AppReport) =>
  `${a.state}|${a.finalStatus}|${a.priority ?? ''}|${a.queue}|${a.finishedTime}|${a.startedTime}`;

/**
 * Reconcile, part of the pipeline's observe stage: the RM's apps against the ledger. An app
 * of an admitted job marks it running or ended (its outcome, learning, feedback, its lane
 * freed); an app with a deadline tag the sidecar never saw is discovered; an admitted app the
 * RM no longer knows is lost; a submission the RM refused for good ends its job.
 */
export class Reconciler {
  /** Warnings already given once (warnOnce). */
  private readonly warned = new Set<string>();
  /** Each app's tracked fields when it was last tracked in full (incremental reconcile). */
  private readonly tracked = new Map<string, string>();

  constructor(private readonly p: LoopParts) {}

  /**
   * The apps of one poll against the ledger: only those whose tracked fields changed since they
   * were last tracked (or never seen), then the open jobs whose app is missing (findLost). With
   * `full` (every app on the RM was read), apps no longer listed are forgotten.
   */
  async trackApps(apps: readonly AppReport[], full = true, open?: readonly JobRecord[]): Promise<void> {
    await this.track(apps, full, 'poll');
    await this.findLost(apps, open);
  }

  /**
   * An app a ticket's client reported it submitted (PUT /api/v1/jobs/{id}/client with its id),
   * read from the RM: tracked at once as a poll would track it (its ticket bound, or a later app
   * of the job bound). One app, not a list: no job is found lost for missing from it.
   */
  async trackReported(app: AppReport): Promise<void> {
    await this.track([app], false, 'client report');
  }

  /** The apps against the ledger (trackApps without the search for lost apps). */
  private async track(apps: readonly AppReport[], full: boolean, seenBy: SeenBy): Promise<void> {
    const { ledger } = this.p.deps;
    // Running Spark apps' first executors, read from their drivers in the background.
    this.p.spark.observe(apps);
    const ended: Array<{ job: JobRecord; app: AppReport; fields: string }> = [];
    const done: Array<[string, string]> = [];
    if (full && this.tracked.size > 0) {
      const listed = new Set(apps.map((a) => a.id));
      for (const id of this.tracked.keys()) if (!listed.has(id)) this.tracked.delete(id);
    }
    if (this.tracked.size > MAX_REMEMBERED) this.tracked.clear();
    // The cycle's bookkeeping in one transaction: one disk sync instead of one per row.
    ledger.transaction(() => {
      for (const app of apps) {
        const fields = trackedFields(app);
        if (this.tracked.get(app.id) === fields) continue;
        // One app's row failing (a constraint, a bug) is logged once and leaves the others tracked.
        try {
          const job = this.trackApp(app, seenBy);
          if (job) ended.push({ job, app, fields });
          else done.push([app.id, fields]);
        } catch (err) {
          this.warnOnce(`track ${app.id}`, 'could not track an app; left as it is', {
            app: app.id,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
    });
    // Remembered once committed: a rolled-back cycle tracks its apps again.
    for (const [id, fields] of done) this.tracked.set(id, fields);
    // Ended jobs read the JobHistory server first, so they are handled one by one after it;
    // a job two of whose apps ended in one poll is judged once.
    const finished = new Set<string>();
    for (const { job, app, fields } of ended) {
      if (!finished.has(job.id)) await this.finish(job, app);
      finished.add(job.id);
      this.tracked.set(app.id, fields);
    }
    await this.settleBetweenApps(finished);
  }

  /** One app against the ledger; the admitted open job whose app ended, if it is one. */
  private trackApp(app: AppReport, seenBy: SeenBy): JobRecord | undefined {
    const { ledger } = this.p.deps;
    const tags = decodeTags(app.applicationTags);
    // The recorded app id first: a sidecar-id tag only finds the job of an app whose id
    // was never recorded (a submission whose answer was lost), never another job's.
    const job =
      ledger.getJobByAppId(app.id) ?? ledger.jobOfApp(app.id) ?? this.jobNamedBy(app, tags.sidecarId);
    if (!job) {
      if (tags.deadlineMs !== undefined && !ENDED_APP_STATES.has(app.state)) discover(this.p, app, tags);
      return undefined;
    }
    if (job.appId === null) {
      ledger.updateJob(job.id, { appId: app.id });
      bindTicket(this.p, job, app, seenBy);
    } else if (job.appId !== app.id && ledger.jobOfApp(app.id) === undefined) {
      bindLaterApp(this.p, job, app);
    }
    if (job.decision !== 'admitted' || !OPEN_STATES.has(job.state)) return undefined;
    // Every app of an open admitted job is kept as last seen (the API's and dashboard's apps).
    const before = ledger.trackJobApp(job.id, trackedApp(app));
    if (ENDED_APP_STATES.has(app.state) && (before === undefined || !appEnded(before.state)))
      ledger.recordDecision(job.id, 'reconcile', 'app-ended', {
        app: app.id,
        state: app.state,
        finalStatus: app.finalStatus,
        finishedAt: app.finishedTime > 0 ? new Date(app.finishedTime).toISOString() : null,
      });
    // Submitted at a priority the RM shows lower, before any write of ours: the RM capped it.
    // (The first app only: a later app of a ticket's client is given the job's priority below.)
    const first = job.appId === null || job.appId === app.id;
    if (
      first &&
      app.priority !== undefined &&
      app.priority >= 0 &&
      !NOT_YET_SCHEDULED.has(app.state) &&
      job.priority !== null &&
      app.priority < job.priority
    ) {
      if (!ledger.actionsOf(job.id).some((a) => a.kind === 'set-priority'))
        this.p.cap.capped(app.id, job.priority, app.priority);
    }
    if (ENDED_APP_STATES.has(app.state)) return job;
    if (!first) planLaterAppWrites(this.p, job, app);
    if (app.state === 'RUNNING' && job.state !== 'running') this.markRunning(job, app);
    return undefined;
  }

  /**
   * The job an app's `sidecar-id:` tag names, when it may be that app's: admitted through the
   * API, still open, and with no app recorded yet. An app naming any other job (one with an
   * app of its own, a rejected one) is not that job's; it is logged once and then read as
   * any app found on the RM.
   */
  private jobNamedBy(app: AppReport, sidecarId: string | undefined): JobRecord | undefined {
    if (sidecarId === undefined) return undefined;
    const job = this.p.deps.ledger.getJob(sidecarId);
    if (!job) return undefined;
    // Another app of a ticket's client that is still running (job-apps.ts).
    if (
      job.appId !== null &&
      job.source === 'api' &&
      isLaterApp(job, this.p.deps.ledger.getTicket(job.id), app)
    )
      return job;
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
    this.p.log.warn(message, fields);
  }

  /**
   * Admitted jobs on the RM whose app the RM no longer lists: an RM restarted without recovery
   * forgets every app. Each is confirmed by asking for the app itself (404), then marked lost:
   * its capacity is released and, where the submission asked for it (resubmitIfLost), it is
   * decided again for the time left and, if admitted, submitted again as a new app.
   */
  private async findLost(apps: readonly AppReport[], open?: readonly JobRecord[]): Promise<void> {
    const { ledger, rm } = this.p.deps;
    const listed = new Set(apps.map((a) => a.id));
    const isMissing = (j: JobRecord) =>
      j.appId !== null && (j.state === 'submitted' || j.state === 'running') && !listed.has(j.appId);
    // From the jobs open before the poll when given (a job's app is only ever recorded before
    // its app is listed), each checked again as it is now.
    const candidates = (open ?? ledger.openAdmittedJobsReused())
      .filter(isMissing)
      .map((j) => (open ? ledger.getJob(j.id) : j))
      .filter((j): j is JobRecord => j !== undefined && j.decision === 'admitted' && isMissing(j));
    // A job of several apps is followed by its latest: one that ended is no loss (the job is
    // between apps, or judged), one still listed neither.
    const missing: Array<{ job: JobRecord; appId: string }> = [];
    for (const job of candidates) {
      const current = currentAppOf(this.p, job);
      if (current === undefined) missing.push({ job, appId: job.appId! });
      else if (!appEnded(current.state) && !listed.has(current.appId))
        missing.push({ job, appId: current.appId });
    }
    this.endRefused();
    for (const { job, appId } of missing) {
      try {
        await rm.app(appId);
        continue; // listed again (a list taken mid-change): nothing lost
      } catch (err) {
        const gone =
          (err instanceof RmRemoteError && err.status === 404) ||
          (err instanceof RmHttpError && err.status === 404);
        if (!gone) {
          this.p.log.warn('could not confirm a missing app', {
            job: job.id,
            app: job.appId,
            error: String(err),
          });
          continue;
        }
      }
      this.lose(job, appId);
    }
  }

  /**
   * Admitted jobs the RM refused to take (a final refusal of their submission): they will never
   * run, so they leave their lane, end as failed and are counted, instead of holding capacity
   * for ever.
   */
  private endRefused(): void {
    const { ledger, metrics } = this.p.deps;
    const nowMs = this.p.deps.now();
    for (const { job, error } of ledger.refusedSubmissions()) {
      this.p.lanes.left(job, nowMs / 1000);
      ledger.transaction(() => {
        ledger.updateJob(job.id, { state: 'failed', finishedMs: nowMs });
        ledger.recordDecision(job.id, 'reconcile', 'refused-by-rm', {
          message: `the RM refused to take the job's submission: ${error ?? 'no reason given'}`,
        });
      });
      metrics.deadlines.inc({ outcome: 'refused' });
      this.p.log.warn('the RM refused an admitted job; it leaves the queue', { job: job.id, error });
    }
  }

  private lose(job: JobRecord, lostApp: string | null = job.appId): void {
    const { ledger, metrics } = this.p.deps;
    const nowMs = this.p.deps.now();
    this.p.lanes.left(job, nowMs / 1000);
    this.p.progress.forget(job.id);
    const spec = (job.spec ?? {}) as { resubmitIfLost?: boolean };
    const submit = decodeActions(ledger.actionsOf(job.id)).actions.find(
      (a): a is Extract<OutboxAction, { kind: 'submit' }> => a.kind === 'submit',
    );
    if (spec.resubmitIfLost === true && submit !== undefined && job.deadlineMs > nowMs) {
      if (this.resubmit(job, submit.payload, nowMs)) return;
    }
    ledger.transaction(() => {
      ledger.updateJob(job.id, { state: 'lost', finishedMs: nowMs });
      ledger.recordDecision(job.id, 'reconcile', 'lost', {
        app: lostApp,
        message: `the RM no longer knows app ${lostApp ?? '?'} (restarted without recovery, or the app aged out of its list)`,
      });
    });
    metrics.deadlines.inc({ outcome: 'lost' });
    this.p.log.warn('the RM lost an admitted app', {
      job: job.id,
      app: lostApp,
      resubmit: spec.resubmitIfLost === true,
    });
  }

  /**
   * A lost job decided again as a job arriving now with the same deadline (its old place was
   * released) and, if admitted, submitted again. False when it is not admitted.
   */
  private resubmit(job: JobRecord, submitted: DecodedSubmit, nowMs: number): boolean {
    const { ledger, config } = this.p.deps;
    const lostApp = job.appId;
    const again = this.p.estimates.deadlineJob({ ...job, arrivalMs: nowMs });
    const outcome = this.p.lanes.decide(again, job.queue ?? config.yarn.realtimeQueue, job.jobType);
    if (!outcome.lane || !outcome.result.admitted) {
      const reason = outcome.lane ? reasonOf(outcome.result, outcome.lane, job.id) : outcome.reason;
      ledger.recordDecision(job.id, config.admission.policy, 'not-resubmitted', { lostApp, reason });
      return false;
    }
    const { lane: into, result } = outcome;
    const label = into.label === '' ? null : into.label;
    const priority = this.p.cap.priorityAt(result.position);
    const payload = { ...submitted, priority, labelExpression: label };
    ledger.transaction(() => {
      ledger.updateJob(job.id, {
        state: 'accepted',
        appId: null,
        label,
        priority,
        estimatedFinishMs: Math.round(result.estimatedFinish * 1000),
        // Decided again: a new promise, and nothing of the lost app's progress to predict from.
        predictedFinishMs: null,
      });
      ledger.recordDecision(job.id, into.policy.name, 'resubmitted', {
        lostApp,
        lane: into.key,
        position: result.position,
        estimatedFinish: new Date(Math.round(result.estimatedFinish * 1000)).toISOString(),
      });
      recordPlan(ledger, [
        {
          jobId: job.id,
          reason: 'the RM lost the app: submitted again',
          action: { kind: 'submit', payload },
        },
      ]);
    });
    into.state = result.state;
    this.p.log.warn('the RM lost an admitted app; submitted again', { job: job.id, app: lostApp });
    return true;
  }

  private markRunning(job: JobRecord, app: AppReport): void {
    this.p.deps.ledger.updateJob(job.id, { state: 'running', appId: job.appId ?? app.id });
    this.p.lanes.started(job);
  }

  /**
   * An admitted job whose app ended: judged on it, or, for a ticket whose client reported
   * itself (job-apps.ts), judged on its last app once every app ended and the client exited;
   * until then it keeps its place in its lane.
   */
  private async finish(job: JobRecord, app: AppReport): Promise<void> {
    const end = jobEnd(this.p, job);
    if (end.kind === 'waiting') return;
    if (end.kind === 'one') {
      const finishedMs = app.finishedTime > 0 ? app.finishedTime : this.p.deps.now();
      const last = { appId: app.id, state: app.state, finalStatus: app.finalStatus, finishedMs };
      return this.judge(job, last, [app.id]);
    }
    return this.judgeWhole(job, end);
  }

  /**
   * Ticket jobs between apps whose client has since exited or stopped reporting: judged on their
   * last app. `judged`: the jobs this poll already ended.
   */
  private async settleBetweenApps(judged: ReadonlySet<string>): Promise<void> {
    for (const job of this.p.deps.ledger.jobsBetweenApps()) {
      if (judged.has(job.id)) continue;
      const end = jobEnd(this.p, job);
      if (end.kind === 'whole') await this.judgeWhole(job, end);
    }
  }

  /** A job of one or several apps judged as a whole: recorded with its apps, then judged on its last. */
  private async judgeWhole(job: JobRecord, end: Extract<ReturnType<typeof jobEnd>, { kind: 'whole' }>) {
    const { ledger } = this.p.deps;
    // A client that exited with an error failed the job, whatever its last app did.
    const last =
      end.exitCode !== null && end.exitCode !== 0 && end.last.state === 'FINISHED'
        ? { ...end.last, finalStatus: 'FAILED' }
        : end.last;
    ledger
      .writeSoon(() =>
        ledger.recordDecision(job.id, 'reconcile', 'apps-ended', {
          apps: end.apps.map((a) => a.appId),
          lastApp: end.last.appId,
          clientExitCode: end.exitCode,
          ...(end.silent
            ? {
                message: `the client stopped reporting for over ${this.p.deps.config.tickets.ttlSeconds} s before reporting its exit: judged on its last app`,
              }
            : {}),
        }),
      )
      .catch((err: unknown) =>
        this.p.log.error('a job of several apps could not be recorded', { job: job.id, error: String(err) }),
      );
    await this.judge(
      job,
      last,
      end.apps.map((a) => a.appId),
    );
  }

  /** An admitted job judged on its (last) app's end: its outcome, learning, feedback, and its lane freed. */
  private async judge(job: JobRecord, last: AppEnd, appIds: readonly string[]): Promise<void> {
    const { ledger, metrics } = this.p.deps;
    const { finishedMs } = last;
    const state =
      last.state === 'FINISHED' && last.finalStatus !== 'FAILED'
        ? 'finished'
        : last.state === 'KILLED'
          ? 'killed'
          : 'failed';
    // Met or missed is said of a job that finished; one that FAILED or was KILLED is neither.
    const outcome = state !== 'finished' ? null : finishedMs <= job.deadlineMs ? 'met' : 'missed';
    const learned = state === 'finished' ? await this.learn(job, appIds, finishedMs) : undefined;
    const actuals = learned && foldActuals(learned, job.maps, job.reduces);
    // Looked up after learning: growing estimates rebuild every lane.
    this.p.lanes.finished(job, actuals);
    // In the next group commit with the learned figures: one sync for the poll's ended jobs.
    ledger
      .writeSoon(() => ledger.updateJob(job.id, { state, outcome, finishedMs }))
      .catch((err: unknown) =>
        this.p.log.error('an ended job could not be recorded', { job: job.id, error: String(err) }),
      );
    this.p.progress.forget(job.id);
    metrics.deadlines.inc({ outcome: outcome ?? state });
    this.p.log.info('job ended', {
      job: job.id,
      app: last.appId,
      apps: appIds.length,
      state,
      outcome,
      lateBySeconds: (finishedMs - job.deadlineMs) / 1000,
    });
  }

  /**
   * Reads a finished job's tasks from the JobHistory server and learns the estimates from
   * them. When the estimates change, every lane is rebuilt with them.
   */
  private async learn(
    job: JobRecord,
    appIds: readonly string[],
    finishedMs: number,
  ): Promise<JobActuals | undefined> {
    if (isSparkJob(job)) return this.learnSpark(job, appIds, finishedMs);
    const jhs = this.p.deps.jobHistory;
    if (!jhs) return undefined;
    try {
      // Every app of the job: its tasks, first app's to last app's (learning.ts, tasksOfApps).
      const tasks = await tasksOfApps((id) => jhs.tasksOfApp(id), appIds);
      // The job's start is its first app's (the set-up is learned from it, learning.ts).
      const first = this.p.deps.ledger
        .appsOfJobs([job.id])
        .get(job.id)
        ?.find((a) => a.ordinal === 1)?.startedMs;
      const learned = this.p.estimates.learnFrom(
        job,
        { finishedTime: finishedMs, ...(first == null ? {} : { startedTime: first }) },
        tasks,
      );
      const workloadClass = this.p.estimates.classOfRecord(job);
      this.p.slowdown.record({
        id: job.id,
        label: job.label ?? '',
        workloadClass,
        inputBytes: job.inputBytes,
        maps: job.maps,
        reduces: job.reduces,
        eta: estimatesOf(this.p.estimates.book, workloadClass).eta,
        tasks,
      });
      if (learned?.changed) this.p.lanes.rebuildAll();
      return learned?.actuals;
    } catch (err) {
      this.p.log.warn('could not read the job history', { job: job.id, apps: appIds, error: String(err) });
      return undefined;
    }
  }

  /**
   * A finished Spark job learned into its profile (EstimateKeeper.learnSpark): from its first
   * app's start, its AM's launch and first executor as seen while it ran (SparkWatch), to its
   * last app's end. No JobHistory server read: it knows MapReduce jobs only.
   */
  private learnSpark(job: JobRecord, appIds: readonly string[], finishedMs: number): undefined {
    const first = appIds[0];
    const startedMs = this.p.deps.ledger
      .appsOfJobs([job.id])
      .get(job.id)
      ?.find((a) => a.ordinal === 1)?.startedMs;
    const seen = first === undefined ? {} : this.p.spark.of(first);
    for (const id of appIds) this.p.spark.forget(id);
    if (startedMs == null) return undefined;
    const learned = this.p.estimates.learnSpark(job, { startedMs, finishedMs, ...seen });
    if (learned) this.p.lanes.rebuildAll();
    return undefined;
  }
}
