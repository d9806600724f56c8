import { SidecarError } from '../errors/base';
import { LedgerFencedError } from '../errors/ledger-fenced';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { LedgerUnavailableError } from '../errors/ledger-unavailable';
import { RmAuthError } from '../errors/rm-auth';
import { RmRemoteError } from '../errors/rm-remote';
import { RmHttpError } from '../errors/rm-http';
import { ValidationError } from '../errors/validation';
import type { Logger } from '../log';
import type { OutboxActionInvalidError } from '../errors/outbox-action-invalid';
import type { SidecarMetrics } from '../metrics';
import type { ActionRecord, Ledger } from '../store/types';
import type { ResourceManagerApi } from '../yarn/api';
import type { AppSubmission } from '../yarn/submission';
import {
  appIdOf,
  decodeActions,
  reservationIdOf,
  type ActionPayload,
  type DecodedSubmit,
  type OutboxAction,
} from './outbox';

/**
 * The only component that writes to the ResourceManager.
 *
 * Every write is an outbox row in the ledger, written (with the decision that caused it)
 * before the call and marked done after it. When an earlier attempt of an action may have
 * reached the RM (its `attempts` count is above zero: the process died, or the call timed
 * out), the enforcer first reads the RM to see whether the effect is already there, and
 * only sends the write again if it is not. So a crash at any point neither loses an action
 * nor repeats one. Each pending row is decoded once, when the drain reads it (src/enforce/outbox.ts);
 * a row that does not decode is never sent: it is marked failed with the error naming it.
 */

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
  /** Monotonic ms, for the pause after a 401 and the drain's time budget; injected for tests. */
  clock?: () => number;
  /** Epoch ms, for the age of the oldest pending write; injected for tests. */
  wallClock?: () => number;
  /** How long one drain may take (DEFAULT_DRAIN_BUDGET_MS); the rest waits for the next. */
  drainBudgetMs?: number;
  /** Chains of writes carried out at once (DEFAULT_CONCURRENCY); 1 keeps the strict order. */
  concurrency?: number;
}

export interface DrainResult {
  done: number;
  /** Refused for good by the RM, or a row that could not be read (never sent). */
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

/** An error of the ledger itself, not of the RM: the write was not made. */
function isLedgerError(
  err: unknown,
): err is LedgerUnavailableError | LedgerFencedError | LedgerReadOnlyError {
  return (
    err instanceof LedgerUnavailableError ||
    err instanceof LedgerFencedError ||
    err instanceof LedgerReadOnlyError
  );
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

/** How long one drain may take before it leaves the rest for the next (ms). */
export const DEFAULT_DRAIN_BUDGET_MS = 4_000;
/** Chains of writes (one per job) carried out at once. */
export const DEFAULT_CONCURRENCY = 8;
/** Writes in a row that found the RM unreachable before a drain gives up for this cycle. */
const STOP_AFTER_UNREACHABLE = 3;

/** Why a drain stopped taking new writes. */
type StopReason = 'limit' | 'budget' | 'auth' | 'unreachable' | 'ledger';

interface DrainRun {
  writes: number;
  unreachableInARow: number;
  stop: StopReason | undefined;
  /** The confirmations queued for group commits. */
  confirmations: Promise<void>[];
}

/** What an action's writes are about: its job, else its app, else itself. */
function subjectOf(action: OutboxAction): string {
  if (action.jobId !== null) return `job:${action.jobId}`;
  const appId = appIdOf(action);
  return appId === undefined ? `action:${action.id}` : `app:${appId}`;
}

/** What carrying out one action settled, and what to write with its confirmation. */
interface Executed {
  outcome: unknown;
  after?: () => void;
}

/** One action about to be carried out, of kind K. */
interface Step<K extends OutboxAction['kind']> {
  action: Extract<OutboxAction, { kind: K }>;
  /** An earlier attempt may have reached the RM: read it before writing again. */
  ambiguous: boolean;
  /** Commits the attempt count (and `first`'s writes) before the call goes out. */
  attempt: (first?: () => void) => Promise<void>;
}

export class Enforcer {
  private draining: Promise<DrainResult> | null = null;
  /** The drain that runs once the current one ends, for callers that came during it. */
  private followUp: Promise<DrainResult> | null = null;
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
   * share one drain, so no action is ever sent by two callers at once; a call made while a
   * drain runs is answered by the drain after it, which sees what was recorded since.
   */
  drain(): Promise<DrainResult> {
    if (!this.draining) {
      this.draining = this.drainOnce().finally(() => {
        this.draining = null;
      });
      return this.draining;
    }
    this.followUp ??= this.draining
      .catch(() => undefined)
      .then(() => {
        this.followUp = null;
        return this.drain();
      });
    return this.followUp;
  }

  /** The RM's last 401 to a write, while writes wait for it; undefined once a write got through. */
  get writesRefused(): RmAuthError | undefined {
    return this.authError;
  }

  /** Resolves when no drain is running. */
  async idle(): Promise<void> {
    while (this.draining || this.followUp) await (this.followUp ?? this.draining)?.catch(() => undefined);
  }

  private async drainOnce(): Promise<DrainResult> {
    const { ledger, shadow } = this.options;
    const result: DrainResult = { done: 0, failed: 0, skipped: 0, deferred: 0 };
    const { actions: pending, invalid } = decodeActions(ledger.pendingActions());
    this.failInvalid(invalid, result);
    const clock = this.options.clock ?? (() => performance.now());
    if (shadow) this.skipAll(pending, result);
    else if (this.authPausedUntil !== undefined && clock() < this.authPausedUntil)
      result.deferred = pending.length;
    else await this.runChains(pending, result, clock);
    this.publishBacklog();
    return result;
  }

  /**
   * Rows that do not decode, marked failed in one commit, whatever the mode: never sent, never
   * read again, and the job's later writes go on (a failed submission ends the job as refused,
   * src/loop/reconcile.ts). The result holds the error's code and issues, the error column its
   * message, which names the action, its kind and each field at fault.
   */
  private failInvalid(
    invalid: ReadonlyArray<{ record: ActionRecord; error: OutboxActionInvalidError }>,
    result: DrainResult,
  ): void {
    if (invalid.length === 0) return;
    const { ledger, logger, metrics } = this.options;
    ledger.transaction(() => {
      for (const { record, error } of invalid)
        ledger.completeAction(
          record.id,
          'failed',
          { invalid: { code: error.code, issues: error.issues } },
          error.message,
        );
    });
    for (const { record, error } of invalid) {
      metrics?.rmWrites.inc({ kind: record.kind, status: 'invalid' });
      logger.error('an outbox action cannot be read; marked failed, never sent', {
        action: record.id,
        kind: record.kind,
        job: record.jobId,
        error: error.message,
      });
    }
    result.failed += invalid.length;
  }

  /** Shadow mode: every pending action is marked skipped, in one commit. */
  private skipAll(pending: readonly OutboxAction[], result: DrainResult): void {
    const { ledger, metrics } = this.options;
    ledger.transaction(() => {
      for (const action of pending) ledger.completeAction(action.id, 'skipped', { shadow: true });
    });
    for (const action of pending) metrics?.rmWrites.inc({ kind: action.kind, status: 'skipped' });
    result.skipped += pending.length;
  }

  /**
   * The pending actions as chains, one per job (or app), each carried out in order; up to
   * `concurrency` chains at once. A chain stops at its first write that did not get through
   * (the job's later writes wait for it); the other chains go on. The drain stops taking new
   * writes at maxWritesPerCycle, at the time budget, after a 401 (every write would get it),
   * or after STOP_AFTER_UNREACHABLE writes in a row found the RM unreachable.
   */
  private async runChains(
    pending: readonly OutboxAction[],
    result: DrainResult,
    clock: () => number,
  ): Promise<void> {
    const { logger, maxWritesPerCycle } = this.options;
    const chains = new Map<string, OutboxAction[]>();
    for (const a of pending) {
      const key = subjectOf(a);
      const chain = chains.get(key);
      if (chain) chain.push(a);
      else chains.set(key, [a]);
    }
    const queue = [...chains.values()];
    const started = clock();
    const budgetMs = this.options.drainBudgetMs ?? DEFAULT_DRAIN_BUDGET_MS;
    const run: DrainRun = { writes: 0, unreachableInARow: 0, stop: undefined, confirmations: [] };
    const worker = async (): Promise<void> => {
      for (let chain = queue.shift(); chain; chain = queue.shift()) {
        for (let k = 0; k < chain.length; k++) {
          if (run.stop === undefined && run.writes >= maxWritesPerCycle) run.stop = 'limit';
          if (run.stop === undefined && clock() - started >= budgetMs) run.stop = 'budget';
          if (run.stop !== undefined) {
            result.deferred += chain.length - k;
            break;
          }
          run.writes++;
          if (!(await this.attempt(chain[k]!, result, run, clock))) {
            result.deferred += chain.length - k - 1;
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency ?? DEFAULT_CONCURRENCY }, worker));
    for (const chain of queue) result.deferred += chain.length;
    // The confirmations were queued for group commits: the drain ends once they are on disk.
    await Promise.all(run.confirmations);
    if (run.stop === 'limit' || run.stop === 'budget')
      logger.warn(
        run.stop === 'limit' ? 'write limit reached for this cycle' : 'time budget of this drain spent',
        run.stop === 'limit'
          ? { limit: maxWritesPerCycle, deferred: result.deferred }
          : { budgetMs, deferred: result.deferred },
      );
  }

  /**
   * One write: carried out and confirmed (true), refused for good and marked failed (true: the
   * chain goes on), or left pending (false: the chain stops here).
   */
  private async attempt(
    action: OutboxAction,
    result: DrainResult,
    run: DrainRun,
    clock: () => number,
  ): Promise<boolean> {
    try {
      const executed = await this.execute(action);
      this.authError = undefined;
      this.authPausedUntil = undefined;
      run.unreachableInARow = 0;
      run.confirmations.push(this.confirm(action, executed));
      this.options.metrics?.rmWrites.inc({ kind: action.kind, status: 'done' });
      result.done++;
      return true;
    } catch (err) {
      return this.notDone(action, err, result, run, clock);
    }
  }

  /**
   * Record after the call: the action done, with what it settled, queued for a group commit.
   * A confirmation that cannot be written leaves the action pending (its attempt count says to
   * read the RM before writing again); on a shared ledger that is down it waits in the working copy.
   */
  private confirm(action: OutboxAction, { outcome, after }: Executed): Promise<void> {
    const { ledger, logger } = this.options;
    return ledger
      .writeSoon(() => {
        after?.();
        ledger.completeAction(action.id, 'done', outcome);
      })
      .catch((err: unknown) => {
        if (err instanceof LedgerUnavailableError) {
          // Confirmed in the working copy; shipped to PostgreSQL once it answers.
          logger.warn('an RM write was confirmed, not yet durable in the shared ledger', {
            action: action.id,
            error: err.message,
          });
          return;
        }
        // Still pending: the next drain reads the RM before it writes again (attempts > 0).
        logger.error('an RM write went through but could not be confirmed in the ledger', {
          action: action.id,
          error: String(err),
        });
      });
  }

  /**
   * A write that did not go through, by why: the ledger could not record it (deferred, the drain
   * stops), the RM refuses this user (deferred, writes pause), the RM refused it for good (failed,
   * the chain goes on), or the RM could not be reached or answered badly (deferred).
   */
  private notDone(
    action: OutboxAction,
    err: unknown,
    result: DrainResult,
    run: DrainRun,
    clock: () => number,
  ): boolean {
    const { ledger, logger, metrics } = this.options;
    const message = err instanceof Error ? err.message : String(err);
    if (isLedgerError(err)) {
      // The record before the call could not be made durable (the shared ledger is slow or
      // down, or this sidecar is no longer the writer): the RM call was not made. The action
      // stays pending for the next cycle; nothing more is sent in this one.
      run.stop ??= 'ledger';
      result.deferred++;
      logger.warn('RM write deferred: the ledger could not make its record durable', {
        action: action.id,
        kind: action.kind,
        code: err.code,
        error: message,
      });
      return false;
    }
    if (err instanceof RmAuthError) {
      this.pauseForAuth(action, err, message, clock);
      run.stop = 'auth';
      result.deferred++;
      return false;
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
      return true;
    }
    // Unreachable, too slow, or an answer that was lost or garbled: keep the action for the
    // next drain; the job's later writes wait, the other jobs' go on.
    ledger.noteActionError(action.id, message);
    result.deferred++;
    run.unreachableInARow++;
    if (run.unreachableInARow >= STOP_AFTER_UNREACHABLE) run.stop ??= 'unreachable';
    logger.warn('RM write deferred', {
      action: action.id,
      kind: action.kind,
      code: err instanceof SidecarError ? err.code : undefined,
      error: message,
    });
    return false;
  }

  /**
   * A 401 is not this action's fault: every write would get the same answer. Keep them all and
   * wait `authPauseMs`, saying once what to change.
   */
  private pauseForAuth(action: OutboxAction, err: RmAuthError, message: string, clock: () => number): void {
    const { ledger, logger, metrics } = this.options;
    ledger.noteActionError(action.id, message);
    metrics?.rmWrites.inc({ kind: action.kind, status: 'refused' });
    if (this.authError === undefined) logger.error('RM refuses writes', { error: message });
    this.authError = err;
    this.authPausedUntil = clock() + (this.options.authPauseMs ?? 60_000);
  }

  /** The outbox's backlog as metrics: pending writes and the age of the oldest. */
  private publishBacklog(): void {
    const { ledger, metrics } = this.options;
    if (!metrics) return;
    const { pending, oldestMs } = ledger.pendingBacklog();
    metrics.pendingActions.set(pending);
    const now = this.options.wallClock?.() ?? Date.now();
    metrics.oldestPendingActionSeconds.set(oldestMs === null ? 0 : Math.max(0, (now - oldestMs) / 1000));
  }

  /**
   * Carries out one action. Whatever must be on disk before the call (an app id handed out,
   * the attempt count that makes a retry read the RM first) is committed before it; what the
   * call settled comes back as `after`, written with the action's confirmation.
   */
  private async execute(action: OutboxAction): Promise<Executed> {
    const { ledger } = this.options;
    const ambiguous = action.attempts > 0;
    const step = {
      ambiguous,
      // Durable before the call (record before, confirm after): queued with the other chains'
      // marks and the decisions of the moment, so writes going out together share one commit;
      // then the barrier, so that a ledger shipping elsewhere (PostgreSQL) holds the action
      // and its attempt before the RM sees the write.
      attempt: async (first?: () => void) => {
        await ledger.writeSoon(() => {
          first?.();
          ledger.markActionAttempt(action.id);
        });
        await ledger.flush();
      },
    };
    switch (action.kind) {
      case 'submit':
        return this.submit({ ...step, action });
      case 'set-priority':
        return this.setPriority({ ...step, action });
      case 'move-queue':
        return this.moveQueue({ ...step, action });
      case 'set-lifetime':
        return this.setLifetime({ ...step, action });
      case 'reserve':
        return this.reserve({ ...step, action });
    }
  }

  private async submit({ action, ambiguous, attempt }: Step<'submit'>): Promise<Executed> {
    const { ledger, rm } = this.options;
    const p = action.payload;
    const job = ledger.getJob(action.jobId!);
    if (!job) throw new Error(`action ${action.id}: no job ${action.jobId}`);
    const submitted = () => ledger.updateJob(job.id, { state: 'submitted' });
    let appId = job.appId;
    let keepAppId: (() => void) | undefined;
    if (appId === null) {
      // new-application only hands out an id; an id lost in a crash is harmless.
      const id = (await rm.newApplication()).applicationId;
      appId = id;
      keepAppId = () => ledger.updateJob(job.id, { appId: id });
    } else if (ambiguous && (await this.appExists(appId))) {
      return { outcome: { appId, reconciled: true }, after: submitted };
    }
    // A reservation made for this job (an earlier action) is named in the submission.
    const reserved = ledger.actionsOf(job.id).find((a) => a.kind === 'reserve' && a.status === 'done');
    const reservationId = reservationIdOf(reserved?.result);
    await attempt(keepAppId);
    const res = await rm.submitApp(submission(appId, { ...p, reservationId }));
    return { outcome: { appId, status: res.status }, after: submitted };
  }

  private async setPriority({ action, ambiguous, attempt }: Step<'set-priority'>): Promise<Executed> {
    const { ledger, rm } = this.options;
    const p = action.payload;
    if (ambiguous && (await rm.appPriority(p.appId)) === p.priority)
      return { outcome: { priority: p.priority, reconciled: true } };
    await attempt();
    const priority = await rm.setAppPriority(p.appId, p.priority);
    if (priority < p.priority) this.options.onPriorityCapped?.(p.appId, p.priority, priority);
    return {
      outcome: { requested: p.priority, priority },
      after: () => {
        const job = ledger.getJobByAppId(p.appId);
        if (job) ledger.updateJob(job.id, { priority });
      },
    };
  }

  private async moveQueue({ action, ambiguous, attempt }: Step<'move-queue'>): Promise<Executed> {
    const { ledger, rm } = this.options;
    const p = action.payload;
    if (ambiguous && leaf(await rm.appQueue(p.appId)) === leaf(p.queue))
      return { outcome: { queue: p.queue, reconciled: true } };
    await attempt();
    const res = await rm.moveApp(p.appId, p.queue);
    return {
      outcome: res,
      after: () => {
        const job = ledger.getJobByAppId(p.appId);
        if (job) ledger.updateJob(job.id, { queue: leaf(res.queue) });
        // The app as the job's apps show it (a ticket's later app too): in the queue the RM
        // answered, not the one it was seen in before the move, until the app is read again.
        const owner = job ?? ledger.jobOfApp(p.appId);
        const row = owner && ledger.appsOf(owner.id).find((a) => a.appId === p.appId);
        if (owner && row) {
          const { appId, state, finalStatus, startedMs, finishedMs } = row;
          ledger.trackJobApp(owner.id, {
            appId,
            state,
            finalStatus,
            queue: res.queue,
            startedMs,
            finishedMs,
          });
        }
      },
    };
  }

  private async setLifetime({ action, ambiguous, attempt }: Step<'set-lifetime'>): Promise<Executed> {
    const { rm } = this.options;
    const p = action.payload;
    if (ambiguous) {
      const t = await rm.appTimeout(p.appId, 'LIFETIME');
      if (t.expiryTime !== null && Math.abs(t.expiryTime - p.expiryMs) < 1000)
        return { outcome: { reconciled: true } };
    }
    await attempt();
    return { outcome: await rm.setAppLifetime(p.appId, p.expiryMs) };
  }

  /**
   * Re-submitting the same reservation id with the same definition is accepted by the RM
   * without creating a second reservation (ReservationSystem docs), so a retry is safe.
   */
  private async reserve({ action, attempt }: Step<'reserve'>): Promise<Executed> {
    const { ledger, rm } = this.options;
    const p = action.payload;
    let reservationId = p.reservationId;
    let keepId: (() => void) | undefined;
    if (reservationId === undefined) {
      const id = await rm.newReservation();
      reservationId = id;
      keepId = () => ledger.updateActionPayload(action.id, { ...p, reservationId: id });
    }
    await attempt(keepId);
    await rm.submitReservation(reservationId, p.queue, p.definition);
    return { outcome: { reservationId } };
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
}

/** The whole submission context: the sidecar's decisions over the submitter's request. */
function submission(appId: string, p: DecodedSubmit): AppSubmission {
  return {
    ...p.request,
    applicationId: appId,
    name: p.name,
    queue: p.queue,
    priority: p.priority,
    applicationType: p.request.applicationType ?? p.applicationType,
    tags: p.tags,
    ...(p.labelExpression === null ? {} : { appNodeLabelExpression: p.labelExpression }),
    ...(p.reservationId === undefined ? {} : { reservationId: p.reservationId }),
  };
}
