import type { JobActuals } from '../core/admission';
import type { JobAppRecord, JobRecord, TicketRecord, TrackedApp } from '../store/types';
import { appIdOf, decodeActions } from '../enforce/outbox';
import type { AppReport } from '../yarn/model';
import type { LoopParts } from './context';
import { recordPlan, planMove } from './plan';

/**
 * Every app of a ticket's client. A client run by `run` may submit several apps one after the
 * other under the ticket's tag (Hadoop's grep: a search, then a sort; Pig and Hive stages). While
 * the client runs (it reported itself running and has not reported its exit) each app carrying
 * the tag is bound to the job: recorded among its apps, moved to the ticket's queue, given its
 * EDF priority. A job whose apps have all ended is between apps: it keeps its place in its lane
 * and is judged only once its client has exited, on its last app, or, should the client stop
 * reporting (a crashed `run`), once tickets.ttlSeconds have passed since it last reported.
 * A job whose client reported nothing (a ticket used by hand, a REST submission, a discovered
 * app) is judged on its one app, as before.
 */

const ENDED = new Set(['FINISHED', 'FAILED', 'KILLED']);

export const appEnded = (state: string): boolean => ENDED.has(state);

/** What the ledger keeps of an app's report. */
export function trackedApp(app: AppReport): TrackedApp {
  return {
    appId: app.id,
    state: app.state,
    finalStatus: app.finalStatus === '' ? null : app.finalStatus,
    queue: app.queue === '' ? null : app.queue,
    startedMs: app.startedTime > 0 ? app.startedTime : null,
    finishedMs: app.finishedTime > 0 ? app.finishedTime : null,
  };
}

/**
 * Whether an app carrying a job's `sidecar-id:` tag, other than its first, is another app of
 * that job: the job is a bound ticket's, still open, and its client reported itself running, or
 * exited after the app was submitted (an app the sidecar had not yet seen when the exit came).
 */
export function isLaterApp(job: JobRecord, ticket: TicketRecord | undefined, app: AppReport): boolean {
  if (ticket?.status !== 'bound' || ticket.client === null) return false;
  if (job.decision !== 'admitted' || !['submitted', 'running'].includes(job.state)) return false;
  if (ticket.client.state === 'running') return true;
  return app.startedTime > 0 && app.startedTime <= ticket.client.seenMs;
}

/**
 * Another app of a job's client appeared: recorded among the job's apps, then moved to the
 * ticket's queue if it landed elsewhere (its priority follows with the lanes' EDF order, as the
 * first app's). Inside the reconciler's transaction: the binding is in the ledger before any
 * RM write for it, which the outbox then carries out and confirms.
 */
export function bindLaterApp(p: LoopParts, job: JobRecord, app: AppReport): void {
  const { ledger } = p.deps;
  ledger.trackJobApp(job.id, trackedApp(app));
  const ordinal = ledger.appsOf(job.id).length;
  ledger.recordDecision(job.id, 'ticket', 'app-bound', { app: app.id, ordinal });
  if (job.queue !== null)
    recordPlan(
      ledger,
      planMove(job.id, app, job.queue, `app ${ordinal} of the ticket's client: moved to the ticket's queue`),
    );
  p.log.info('another app of a ticket bound', { job: job.id, app: app.id, ordinal });
}

const NOT_YET_SCHEDULED = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED']);

/**
 * A later app of a job, once the scheduler has accepted it, given what the first was: the job's
 * priority when the RM shows another (a client that passed the ticket's options to its first app
 * only) and, with enforcement.lifetimeTimeouts, the job's deadline as its lifetime. One write of
 * each kind per app, planned in the reconciler's transaction. The first app's follow the lanes'
 * EDF order (plan.ts, planPriorities).
 */
export function planLaterAppWrites(p: LoopParts, job: JobRecord, app: AppReport): void {
  const { ledger, config } = p.deps;
  if (NOT_YET_SCHEDULED.has(app.state) || ENDED.has(app.state)) return;
  const actions = decodeActions(ledger.actionsOf(job.id)).actions.filter((a) => appIdOf(a) === app.id);
  if (
    config.enforcement.priorities &&
    job.priority !== null &&
    app.priority !== undefined &&
    app.priority >= 0 &&
    app.priority !== job.priority &&
    !actions.some((a) => a.kind === 'set-priority')
  )
    recordPlan(ledger, [
      {
        jobId: job.id,
        reason: "another app of the ticket's client: given the job's priority",
        action: { kind: 'set-priority', payload: { appId: app.id, priority: job.priority } },
      },
    ]);
  if (config.enforcement.lifetimeTimeouts && !actions.some((a) => a.kind === 'set-lifetime'))
    recordPlan(ledger, [
      {
        jobId: job.id,
        reason:
          "enforcement.lifetimeTimeouts: another app of the ticket's client stops at the job's deadline",
        action: { kind: 'set-lifetime', payload: { appId: app.id, expiryMs: job.deadlineMs } },
      },
    ]);
}

/** An app's end, as the job is judged on it. */
export interface AppEnd {
  appId: string;
  state: string;
  finalStatus: string | null;
  finishedMs: number;
}

/**
 * Where a job whose app ended stands: judged on that one app (`one`: no client reported, as
 * before), still waiting (`waiting`: another app runs, or the client runs on between apps), or
 * to be judged as a whole (`whole`: every app ended and the client exited or stopped reporting).
 */
export type JobEnd =
  | { kind: 'one' }
  | { kind: 'waiting'; why: 'app-running' | 'client-running' }
  | {
      kind: 'whole';
      last: AppEnd;
      apps: readonly JobAppRecord[];
      exitCode: number | null;
      /** The client stopped reporting before it reported its exit. */
      silent: boolean;
    };

export function jobEnd(p: LoopParts, job: JobRecord): JobEnd {
  const { ledger } = p.deps;
  const client = ledger.getTicket(job.id)?.client ?? null;
  if (client === null) return { kind: 'one' };
  const apps = ledger.appsOf(job.id);
  if (apps.length === 0 || apps.some((a) => !appEnded(a.state)))
    return { kind: 'waiting', why: 'app-running' };
  const silent =
    client.state === 'running' && p.deps.now() - client.seenMs > p.deps.config.tickets.ttlSeconds * 1000;
  if (client.state === 'running' && !silent) return { kind: 'waiting', why: 'client-running' };
  // The last app is the one that ended last (the order they were bound breaks a tie).
  const last = apps.reduce((a, b) => ((b.finishedMs ?? 0) >= (a.finishedMs ?? 0) ? b : a));
  return {
    kind: 'whole',
    last: {
      appId: last.appId,
      state: last.state,
      finalStatus: last.finalStatus,
      finishedMs: last.finishedMs ?? p.deps.now(),
    },
    apps,
    exitCode: client.exitCode,
    silent,
  };
}

/**
 * The app a job is followed by now: its latest app, else its first (a job without recorded
 * apps). For the reconciler's search for lost apps and the priorities' writes.
 */
export function currentAppOf(p: LoopParts, job: JobRecord): JobAppRecord | undefined {
  return p.deps.ledger.appsOf(job.id).at(-1);
}

/**
 * The feedback of a job of several apps in the job's own terms: its lanes hold as many map and
 * reduce slots as it declared, and its apps ran more tasks than that in all. Each slot is counted
 * busy until the latest of the tasks' finishes (the `maps` latest map finishes, the `reduces`
 * latest reduce finishes): never sooner than the slots were freed, so the lanes over-count
 * rather than under-count what is left. A job of one app is unchanged.
 */
export function foldActuals(actuals: JobActuals, maps: number, reduces: number): JobActuals {
  const latest = (times: readonly number[], n: number) =>
    times.length <= n ? times : [...times].sort((a, b) => b - a).slice(0, n);
  return {
    mapFinishTimes: latest(actuals.mapFinishTimes, maps),
    reduceFinishTimes: latest(actuals.reduceFinishTimes, reduces),
    finishedAt: actuals.finishedAt,
  };
}
