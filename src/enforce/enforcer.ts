import { SidecarError } from '../errors/base';
import { RmAuthError } from '../errors/rm-auth';
import { RmRemoteError } from '../errors/rm-remote';
import { RmHttpError } from '../errors/rm-http';
import { ValidationError } from '../errors/validation';
import type { Logger } from '../log';
import type { SidecarMetrics } from '../api/metrics';
import type { ActionRecord, Ledger } from '../store/ledger';
import type { ResourceManagerApi } from '../yarn/api';
import type { ReservationDefinition } from '../yarn/model';
import { parseSubmissionRequest, type AppSubmission, type SubmissionRequest } from '../yarn/submission';

/**
 * The only component that writes to the ResourceManager.
 *
 * Every write is an outbox row in the ledger, written (with the decision that caused it)
 * before the call and marked done after it. When an earlier attempt of an action may have
 * reached the RM (its `attempts` count is above zero: the process died, or the call timed
 * out), the enforcer first reads the RM to see whether the effect is already there, and
 * only sends the write again if it is not. So a crash at any point neither loses an action
 * nor repeats one.
 */

export interface SubmitPayload {
  sidecarId: string;
  name: string;
  user: string;
  queue: string;
  priority: number;
  labelExpression: string | null;
  tags: string[];
  applicationType: string;
  /** The submitter's part of the submission context (its `yarnSubmission`, read and checked). */
  request?: SubmissionRequest;
  /**
   * Rows written before the request was typed hold the raw `yarnSubmission`; it is read (and
   * checked) when the action runs.
   */
  yarnSubmission?: Record<string, unknown>;
  reservationId?: string;
}

export type ActionPayload =
  | { kind: 'submit'; payload: SubmitPayload }
  | { kind: 'set-priority'; payload: { appId: string; priority: number } }
  | { kind: 'move-queue'; payload: { appId: string; queue: string } }
  | { kind: 'set-lifetime'; payload: { appId: string; expiryMs: number } }
  | {
      kind: 'reserve';
      payload: { queue: string; definition: ReservationDefinition; reservationId?: string };
    };

export type ActionKind = ActionPayload['kind'];

export interface EnforcerOptions {
  rm: ResourceManagerApi;
  ledger: Ledger;
  logger: Logger;
  metrics?: SidecarMetrics;
  /** Record and show, never write. Pending actions are marked `skipped`. */
  shadow: boolean;
  maxWritesPerCycle: number;
  /**
   * Called when the RM set a lower priority than the one written: it caps priorities at
   * yarn.cluster.max-application-priority (and a queue's or user's own limit).
   */
  onPriorityCapped?: (appId: string, requested: number, got: number) => void;
  /** How long writes wait after the RM refused one for want of authentication (401). */
  authPauseMs?: number;
  /** Monotonic ms, for the pause after a 401; injected for tests. */
  clock?: () => number;
}

export interface DrainResult {
  done: number;
  failed: number;
  skipped: number;
  /** Left pending because the RM could not be reached; retried next cycle. */
  deferred: number;
}

/** What the ledger keeps of an RM refusal beside its message: enough to tell one from another. */
export interface RefusalRecord {
  code: string;
  status?: number;
  exception?: string;
}

function refusalOf(err: unknown): RefusalRecord {
  if (err instanceof RmRemoteError) return { code: err.code, status: err.status, exception: err.exception };
  if (err instanceof RmHttpError) return { code: err.code, status: err.status };
  if (err instanceof SidecarError) return { code: err.code };
  return { code: 'UNKNOWN' };
}

/** Errors that say the RM did not take the write and never will: the action has failed. */
function isFinalRefusal(err: unknown): boolean {
  // A submission that cannot be built (no AM command in an old row) never will be.
  if (err instanceof ValidationError) return true;
  if (err instanceof RmRemoteError) return err.status >= 400 && err.status < 500 ? true : err.status === 503;
  if (err instanceof RmHttpError) return (err.status >= 400 && err.status < 500) || isUnwrittenXmlError(err);
  return false;
}

/**
 * A real RM answers a refused write in XML with 500 and no body (it cannot write its
 * RemoteException in XML): a refusal, not an outage, so it is not sent again.
 */
function isUnwrittenXmlError(err: RmHttpError): boolean {
  return err.status === 500 && err.text.startsWith('no body: the RM could not write its error in XML');
}

function leaf(queue: string): string {
  const i = queue.lastIndexOf('.');
  return i < 0 ? queue : queue.slice(i + 1);
}

export class Enforcer {
  private draining: Promise<DrainResult> | null = null;
  /** Set after a 401: writes wait until then (monotonic ms), so a refused user is not a storm. */
  private authPausedUntil: number | undefined;
  private authError: RmAuthError | undefined;

  constructor(private readonly options: EnforcerOptions) {}

  /** Record an action; the caller does this inside the transaction that records its decision. */
  static enqueue(ledger: Ledger, jobId: string | null, action: ActionPayload): ActionRecord {
    return ledger.enqueueAction(jobId, action.kind, action.payload);
  }

  /**
   * Carry out pending actions in order, at most maxWritesPerCycle writes. Concurrent calls
   * share one drain, so no action is ever sent by two callers at once.
   */
  drain(): Promise<DrainResult> {
    if (!this.draining) {
      this.draining = this.drainOnce().finally(() => {
        this.draining = null;
      });
    }
    return this.draining;
  }

  /** The RM's last 401 to a write, while writes wait for it; undefined once a write got through. */
  get writesRefused(): RmAuthError | undefined {
    return this.authError;
  }

  /** Resolves when no drain is running. */
  async idle(): Promise<void> {
    await this.draining?.catch(() => undefined);
  }

  private async drainOnce(): Promise<DrainResult> {
    const { ledger, logger, shadow, maxWritesPerCycle, metrics } = this.options;
    const result: DrainResult = { done: 0, failed: 0, skipped: 0, deferred: 0 };
    const pending = ledger.pendingActions();
    const clock = this.options.clock ?? (() => performance.now());
    if (!shadow && this.authPausedUntil !== undefined && clock() < this.authPausedUntil) {
      result.deferred = pending.length;
      return result;
    }
    let writes = 0;
    for (let i = 0; i < pending.length; i++) {
      const action = pending[i]!;
      if (shadow) {
        ledger.completeAction(action.id, 'skipped', { shadow: true });
        metrics?.rmWrites.inc({ kind: action.kind, status: 'skipped' });
        result.skipped++;
        continue;
      }
      if (writes >= maxWritesPerCycle) {
        result.deferred += pending.length - i;
        logger.warn('write limit reached for this cycle', {
          limit: maxWritesPerCycle,
          deferred: pending.length - i,
        });
        break;
      }
      writes++;
      try {
        const outcome = await this.execute(action);
        this.authError = undefined;
        this.authPausedUntil = undefined;
        ledger.completeAction(action.id, 'done', outcome);
        metrics?.rmWrites.inc({ kind: action.kind, status: 'done' });
        result.done++;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof RmAuthError) {
          // Not this action's fault: every write would get the same answer. Keep them all and
          // wait, saying once what to change.
          ledger.noteActionError(action.id, message);
          metrics?.rmWrites.inc({ kind: action.kind, status: 'refused' });
          if (this.authError === undefined) logger.error('RM refuses writes', { error: message });
          this.authError = err;
          this.authPausedUntil = clock() + (this.options.authPauseMs ?? 60_000);
          result.deferred += pending.length - i;
          break;
        }
        if (isFinalRefusal(err)) {
          ledger.completeAction(action.id, 'failed', { refusal: refusalOf(err) }, message);
          metrics?.rmWrites.inc({ kind: action.kind, status: 'failed' });
          logger.warn('RM refused an action', {
            action: action.id,
            kind: action.kind,
            job: action.jobId,
            error: message,
          });
          result.failed++;
          continue;
        }
        // The RM is unreachable or answered garbage: keep the action, stop for this cycle.
        ledger.noteActionError(action.id, message);
        result.deferred += pending.length - i;
        logger.warn('RM write deferred', {
          action: action.id,
          kind: action.kind,
          code: err instanceof SidecarError ? err.code : undefined,
          error: message,
        });
        break;
      }
    }
    metrics?.pendingActions.set(ledger.pendingActions().length);
    return result;
  }

  private async execute(action: ActionRecord): Promise<unknown> {
    const { ledger, rm } = this.options;
    const ambiguous = action.attempts > 0;
    switch (action.kind as ActionKind) {
      case 'submit': {
        const p = action.payload as SubmitPayload;
        const job = ledger.getJob(action.jobId!);
        if (!job) throw new Error(`action ${action.id}: no job ${action.jobId}`);
        let appId = job.appId;
        if (appId === null) {
          // new-application only hands out an id; an id lost in a crash is harmless.
          appId = (await rm.newApplication()).applicationId;
          ledger.updateJob(job.id, { appId });
        } else if (ambiguous && (await this.appExists(appId))) {
          ledger.updateJob(job.id, { state: 'submitted' });
          return { appId, reconciled: true };
        }
        // A reservation made for this job (an earlier action) is named in the submission.
        const reserved = ledger.actionsOf(job.id).find((a) => a.kind === 'reserve' && a.status === 'done')
          ?.result as { reservationId?: string } | undefined;
        ledger.markActionAttempt(action.id);
        const res = await rm.submitApp(
          this.submission(appId, { ...p, reservationId: reserved?.reservationId }),
        );
        ledger.updateJob(job.id, { state: 'submitted' });
        return { appId, status: res.status };
      }
      case 'set-priority': {
        const p = action.payload as { appId: string; priority: number };
        if (ambiguous && (await rm.appPriority(p.appId)) === p.priority)
          return { priority: p.priority, reconciled: true };
        ledger.markActionAttempt(action.id);
        const priority = await rm.setAppPriority(p.appId, p.priority);
        const job = ledger.getJobByAppId(p.appId);
        if (job) ledger.updateJob(job.id, { priority });
        if (priority < p.priority) this.options.onPriorityCapped?.(p.appId, p.priority, priority);
        return { requested: p.priority, priority };
      }
      case 'move-queue': {
        const p = action.payload as { appId: string; queue: string };
        if (ambiguous && leaf(await rm.appQueue(p.appId)) === leaf(p.queue))
          return { queue: p.queue, reconciled: true };
        ledger.markActionAttempt(action.id);
        const res = await rm.moveApp(p.appId, p.queue);
        const job = ledger.getJobByAppId(p.appId);
        if (job) ledger.updateJob(job.id, { queue: leaf(res.queue) });
        return res;
      }
      case 'set-lifetime': {
        const p = action.payload as { appId: string; expiryMs: number };
        if (ambiguous) {
          const t = await rm.appTimeout(p.appId, 'LIFETIME');
          if (t.expiryTime !== null && Math.abs(t.expiryTime - p.expiryMs) < 1000)
            return { reconciled: true };
        }
        ledger.markActionAttempt(action.id);
        return await rm.setAppLifetime(p.appId, p.expiryMs);
      }
      case 'reserve': {
        // Re-submitting the same reservation id with the same definition is accepted by the
        // RM without creating a second reservation (ReservationSystem docs), so a retry is safe.
        const p = action.payload as {
          queue: string;
          definition: ReservationDefinition;
          reservationId?: string;
        };
        let reservationId = p.reservationId;
        if (reservationId === undefined) {
          reservationId = await rm.newReservation();
          ledger.updateActionPayload(action.id, { ...p, reservationId });
        }
        ledger.markActionAttempt(action.id);
        await rm.submitReservation(reservationId, p.queue, p.definition);
        return { reservationId };
      }
      default:
        throw new Error(`unknown action kind ${action.kind}`);
    }
  }

  private async appExists(appId: string): Promise<boolean> {
    try {
      await this.options.rm.app(appId);
      return true;
    } catch (err) {
      if (err instanceof RmRemoteError && err.status === 404) return false;
      throw err;
    }
  }

  /** The whole submission context: the sidecar's decisions over the submitter's request. */
  private submission(appId: string, p: SubmitPayload): AppSubmission {
    const request =
      p.request ??
      parseSubmissionRequest(p.yarnSubmission ?? {}, `action payload (job ${p.sidecarId}).yarnSubmission`);
    return {
      ...request,
      applicationId: appId,
      name: p.name,
      queue: p.queue,
      priority: p.priority,
      applicationType: request.applicationType ?? p.applicationType,
      tags: p.tags,
      ...(p.labelExpression === null ? {} : { appNodeLabelExpression: p.labelExpression }),
      ...(p.reservationId === undefined ? {} : { reservationId: p.reservationId }),
    };
  }
}
