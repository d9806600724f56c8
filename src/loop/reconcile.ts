import type { JobActuals } from '../core/admission';
import type { SubmitPayload } from '../enforce/enforcer';
import { RmHttpError } from '../errors/rm-http';
import { RmRemoteError } from '../errors/rm-remote';
import type { JobRecord } from '../store/types';
import type { AppReport } from '../yarn/model';
import { decodeTags } from '../yarn/tags';
import type { LoopParts } from './context';
import { discover } from './discovery';
import { enforce } from './plan';
import { reasonOf } from './reasons';
import { bindTicket } from './tickets';

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
    const { ledger } = this.p.deps;
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
          const job = this.trackApp(app);
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
    // Ended jobs read the JobHistory server first, so they are handled one by one after it.
    for (const { job, app, fields } of ended) {
      await this.finish(job, app);
      this.tracked.set(app.id, fields);
    }
    await this.findLost(apps, open);
  }

  /** One app against the ledger; the admitted open job whose app ended, if it is one. */
  private trackApp(app: AppReport): JobRecord | undefined {
    const { ledger } = this.p.deps;
    const tags = decodeTags(app.applicationTags);
    // The recorded app id first: a sidecar-id tag only finds the job of an app whose id
    // was never recorded (a submission whose answer was lost), never another job's.
    const job = ledger.getJobByAppId(app.id) ?? this.jobNamedBy(app, tags.sidecarId);
    if (!job) {
      if (tags.deadlineMs !== undefined && !ENDED_APP_STATES.has(app.state)) discover(this.p, app, tags);
      return undefined;
    }
    if (job.appId === null) {
      ledger.updateJob(job.id, { appId: app.id });
      bindTicket(this.p, job, app);
    }
    if (job.decision !== 'admitted' || !OPEN_STATES.has(job.state)) return undefined;
    // Submitted at a priority the RM shows lower, before any write of ours: the RM capped it.
    if (
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
    const missing = (open ?? ledger.openAdmittedJobsReused())
      .filter(isMissing)
      .map((j) => (open ? ledger.getJob(j.id) : j))
      .filter((j): j is JobRecord => j !== undefined && j.decision === 'admitted' && isMissing(j));
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
          this.p.log.warn('could not confirm a missing app', {
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

  private lose(job: JobRecord): void {
    const { ledger, metrics } = this.p.deps;
    const nowMs = this.p.deps.now();
    this.p.lanes.left(job, nowMs / 1000);
    this.p.progress.forget(job.id);
    const spec = (job.spec ?? {}) as { resubmitIfLost?: boolean };
    const submit = ledger.actionsOf(job.id).find((a) => a.kind === 'submit');
    if (spec.resubmitIfLost === true && submit !== undefined && job.deadlineMs > nowMs) {
      if (this.resubmit(job, submit.payload as SubmitPayload, nowMs)) return;
    }
    const lostApp = job.appId;
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
  private resubmit(job: JobRecord, submitted: SubmitPayload, nowMs: number): boolean {
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
      });
      ledger.recordDecision(job.id, into.policy.name, 'resubmitted', {
        lostApp,
        lane: into.key,
        position: result.position,
        estimatedFinish: new Date(Math.round(result.estimatedFinish * 1000)).toISOString(),
      });
      enforce(ledger, [
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
    this.p.deps.ledger.updateJob(job.id, { state: 'running', appId: app.id });
    this.p.lanes.started(job);
  }

  /** An admitted job whose app ended: its outcome, learning, feedback, and its lane freed. */
  private async finish(job: JobRecord, app: AppReport): Promise<void> {
    const { ledger, metrics } = this.p.deps;
    const finishedMs = app.finishedTime > 0 ? app.finishedTime : this.p.deps.now();
    const state =
      app.state === 'FINISHED' && app.finalStatus !== 'FAILED'
        ? 'finished'
        : app.state === 'KILLED'
          ? 'killed'
          : 'failed';
    // Met or missed is said of a job that finished; one that FAILED or was KILLED is neither.
    const outcome = state !== 'finished' ? null : finishedMs <= job.deadlineMs ? 'met' : 'missed';
    const actuals = state === 'finished' ? await this.learn(job, app) : undefined;
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
    const jhs = this.p.deps.jobHistory;
    if (!jhs) return undefined;
    try {
      const tasks = await jhs.tasksOfApp(app.id);
      const learned = this.p.estimates.learnFrom(job, app, tasks);
      if (learned?.changed) this.p.lanes.rebuildAll();
      return learned?.actuals;
    } catch (err) {
      this.p.log.warn('could not read the job history', { job: job.id, app: app.id, error: String(err) });
      return undefined;
    }
  }
}
