import type { ClientReport } from '../model/client-report';
import { NotFoundError, TicketNotWaitingError } from '../errors/api-errors';
import { RmHttpError } from '../errors/rm-http';
import { RmRemoteError } from '../errors/rm-remote';
import { ValidationError } from '../errors/validation';
import { redactText } from '../log';
import type { JobRecord, TicketRecord } from '../store/types';
import type { AppReport } from '../yarn/model';
import { decodeTags } from '../yarn/tags';
import type { LoopParts } from './context';
import { recordPlan, jobTags, planMove } from './plan';
import type { ResolvedSubmission } from './resolve';

/**
 * Tickets: admission before submission. A submission without a YARN launch context is decided
 * as any other; if admitted, the sidecar submits nothing and answers with a ticket instead: the
 * queue, priority, label expression and application tags the job's own client (hadoop jar,
 * spark-submit) is to submit it with. The job holds its place in its lane until an app carrying
 * the ticket's `sidecar-id:` tag appears on the RM (bound: then tracked and enforced as any
 * admitted job) or the ticket expires (tickets.ttlSeconds) or is cancelled: then it leaves its
 * lane. Each change is in the ledger before it takes effect.
 */

/**
 * What a ticket tells the job's own client: the one definition of the API's Ticket that the
 * sidecar answers with and `run` (src/cli/run.ts) reads.
 */
export interface TicketArgs {
  id: string;
  expiresAt: string;
  queue: string;
  priority: number;
  labelExpression: string | null;
  /** The application tags to add, exactly: the RM stores them lower-cased, which binding allows for. */
  tags: string[];
  /** Generic options for a MapReduce client (hadoop jar, yarn jar), after the main class. */
  mapreduce: string[];
  /** Options for spark-submit, before the application jar. */
  spark: string[];
  /** The same as environment variables, for any other client. */
  env: Record<string, string>;
}

/** A ticket as the sidecar keeps and shows it: what it told the client, its status and its app. */
export interface TicketView extends TicketArgs {
  status: TicketRecord['status'];
  /** The app it was bound to, once bound. */
  appId?: string | null;
}

/** The ticket of an admitted submission that carries no launch context. */
export function ticketFor(a: {
  id: string;
  s: ResolvedSubmission;
  queue: string;
  label: string | null;
  priority: number;
  expiresMs: number;
}): TicketView {
  const { id, s, queue, label, priority } = a;
  // Clients take the tags as one comma-separated value: a tag holding a comma cannot travel.
  const tags = jobTags(id, s).filter((t) => !t.includes(','));
  const joined = tags.join(',');
  return {
    id,
    status: 'waiting',
    expiresAt: new Date(a.expiresMs).toISOString(),
    queue,
    priority,
    labelExpression: label,
    tags,
    mapreduce: [
      `-Dmapreduce.job.queuename=${queue}`,
      `-Dmapreduce.job.tags=${joined}`,
      `-Dmapreduce.job.priority=${priority}`,
      ...(label === null ? [] : [`-Dmapreduce.job.node-label-expression=${label}`]),
    ],
    spark: [
      '--queue',
      queue,
      '--conf',
      `spark.yarn.tags=${joined}`,
      '--conf',
      `spark.yarn.priority=${priority}`,
      ...(label === null
        ? []
        : [
            '--conf',
            `spark.yarn.am.nodeLabelExpression=${label}`,
            '--conf',
            `spark.yarn.executor.nodeLabelExpression=${label}`,
          ]),
    ],
    env: {
      YSS_TICKET_ID: id,
      YSS_TICKET_QUEUE: queue,
      YSS_TICKET_TAGS: joined,
      YSS_TICKET_PRIORITY: String(priority),
      ...(label === null ? {} : { YSS_TICKET_LABEL_EXPRESSION: label }),
    },
  };
}

/** A ticket as the API shows it: what it told the client, its status now, and its app. */
export function ticketView(t: TicketRecord): TicketView {
  return { ...(t.detail as TicketView), status: t.status, appId: t.appId };
}

/**
 * PUT /api/v1/jobs/{id}/client: the ticket's client reports itself running (its first report
 * makes the job one of possibly several apps, judged once the client has exited: job-apps.ts),
 * or exited with its code. Recorded before it is answered; a report after the exit changes
 * nothing. A job that is no ticket, or whose ticket expired or was cancelled, is a
 * TicketNotWaitingError.
 */
export function reportClient(p: LoopParts, id: string, report: ClientReport, by: string): void {
  const { ledger } = p.deps;
  const ticket = reportingTicket(p, id);
  const exitCode = report.state === 'exited' ? report.exitCode : null;
  ledger.transaction(() => {
    if (!ledger.reportClient(id, report.state, exitCode, p.deps.now())) return;
    if (report.state === 'exited') ledger.recordDecision(id, 'ticket', 'client-exited', { exitCode, by });
    else if (ticket.client === null) ledger.recordDecision(id, 'ticket', 'client-running', { by });
  });
  if (report.state === 'exited') p.log.info("a ticket's client exited", { job: id, exitCode });
}

/** The ticket of a job whose client reports itself; NotFound or TicketNotWaiting otherwise. */
export function reportingTicket(p: LoopParts, id: string): TicketRecord {
  const { ledger } = p.deps;
  if (!ledger.getJob(id)) throw new NotFoundError(`no job ${id}`);
  const ticket = ledger.getTicket(id);
  if (!ticket)
    throw new TicketNotWaitingError(`job ${id} is no ticket: only a ticket's client reports itself`);
  if (ticket.status === 'expired' || ticket.status === 'cancelled')
    throw new TicketNotWaitingError(
      `the ticket of job ${id} is ${ticket.status}: its client has nothing to report`,
    );
  return ticket;
}

/**
 * The app a ticket's client reported it submitted, read from the RM, when it has to be tracked:
 * undefined when the job already has it, or when the RM could not be read (the next poll finds
 * it by the ticket's tag). An app the RM does not know, or one without the ticket's
 * `sidecar-id:` tag (another job's, or none of the sidecar's), is a ValidationError naming it.
 */
export async function reportedApp(p: LoopParts, id: string, appId: string): Promise<AppReport | undefined> {
  const { ledger, rm } = p.deps;
  const job = ledger.getJob(id);
  if (job?.appId === appId || ledger.jobOfApp(appId)?.id === id) return undefined;
  let app: AppReport;
  try {
    app = await rm.app(appId);
  } catch (err) {
    const status = (err as { status?: unknown } | null)?.status;
    if ((err instanceof RmRemoteError || err instanceof RmHttpError) && status === 404)
      throw new ValidationError([{ path: 'appId', message: `the RM knows no app ${appId}` }]);
    p.log.info("a client's app could not be read; the next poll finds it by its tag", {
      job: id,
      app: appId,
      error: redactText(err instanceof Error ? err.message : String(err)),
    });
    return undefined;
  }
  if (decodeTags(app.applicationTags).sidecarId !== id)
    throw new ValidationError([
      {
        path: 'appId',
        message: `${appId} does not carry the ticket's tag sidecar-id:${id}: it is not this ticket's app`,
      },
    ]);
  return app;
}

/** How an app came to be tracked: in a poll's reads, or named by a ticket's client. */
export type SeenBy = 'poll' | 'client report';

/**
 * An app carrying a waiting ticket's tag appeared: the ticket is bound to it, and the app is
 * moved to the ticket's queue if its client put it elsewhere (its priority follows with the
 * lanes' EDF order, as for any admitted app). Inside the reconciler's transaction.
 */
export function bindTicket(p: LoopParts, job: JobRecord, app: AppReport, seenBy: SeenBy): void {
  const { ledger } = p.deps;
  const ticket = ledger.getTicket(job.id);
  if (!ticket || ticket.status !== 'waiting') return;
  if (!ledger.endTicket(job.id, 'bound', app.id)) return;
  if (job.state === 'accepted') ledger.updateJob(job.id, { state: 'submitted' });
  const nowMs = p.deps.now();
  ledger.recordDecision(job.id, 'ticket', 'ticket-bound', {
    app: app.id,
    waitedSeconds: (nowMs - ticket.createdMs) / 1000,
    seenBy,
  });
  if (job.queue !== null)
    recordPlan(ledger, planMove(job.id, app, job.queue, "ticket bound: moved to the ticket's queue"));
  p.log.info('ticket bound', { job: job.id, app: app.id, waitedMs: nowMs - ticket.createdMs });
}

/** Waiting tickets past their expiry: recorded as expired, then their capacity is released. */
export function expireTickets(p: LoopParts): number {
  const { ledger } = p.deps;
  const nowMs = p.deps.now();
  let n = 0;
  for (const t of ledger.expiredTickets(nowMs)) {
    const job = ledger.getJob(t.jobId);
    if (!job) continue;
    const ended = ledger.transaction(() => {
      if (!ledger.endTicket(t.jobId, 'expired')) return false;
      ledger.updateJob(job.id, { state: 'expired', finishedMs: nowMs });
      ledger.recordDecision(job.id, 'ticket', 'ticket-expired', {
        expiresAt: new Date(t.expiresMs).toISOString(),
        message: "no app carrying the ticket's tag appeared before it expired; its capacity was released",
      });
      return true;
    });
    if (!ended) continue;
    p.lanes.left(job, nowMs / 1000);
    n++;
    p.log.info('ticket expired', { job: job.id });
  }
  return n;
}

/**
 * DELETE /api/v1/jobs/{id}: a waiting ticket cancelled by `by`, recorded, then its capacity
 * released. A job that is no ticket, or a ticket no longer waiting, is a TicketNotWaitingError.
 */
export function cancelTicket(p: LoopParts, id: string, by: string): JobRecord {
  const { ledger } = p.deps;
  const job = ledger.getJob(id);
  if (!job) throw new NotFoundError(`no job ${id}`);
  const ticket = ledger.getTicket(id);
  if (!ticket)
    throw new TicketNotWaitingError(`job ${id} is no ticket: only a waiting ticket can be cancelled`);
  if (ticket.status !== 'waiting')
    throw new TicketNotWaitingError(
      `the ticket of job ${id} is ${ticket.status}${ticket.appId ? ` (app ${ticket.appId})` : ''}: only a waiting ticket can be cancelled`,
    );
  const nowMs = p.deps.now();
  const updated = ledger.transaction(() => {
    ledger.endTicket(id, 'cancelled');
    ledger.recordDecision(id, 'ticket', 'ticket-cancelled', { by });
    return ledger.updateJob(id, { state: 'cancelled', finishedMs: nowMs });
  });
  p.lanes.left(job, nowMs / 1000);
  p.deps.metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
  p.log.info('ticket cancelled', { job: id, by });
  return updated;
}
