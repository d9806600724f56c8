import { randomBytes } from 'node:crypto';
import type { Submission } from '../api/submission';
import type { RejectionReason } from '../api/views';
import type { DeadlineJob } from '../core/job';
import { IdempotencyConflictError } from '../errors/api-errors';
import { LedgerFencedError } from '../errors/ledger-fenced';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { LedgerUnavailableError } from '../errors/ledger-unavailable';
import type { JobRecord } from '../store/types';
import type { LoopParts } from './context';
import type { LaneOutcome } from './lanes';
import type { InputRead } from './locality';
import { enforce, planAdmittedSubmission } from './plan';
import { ticketFor } from './tickets';
import { earliest, noDeadlineWithin, reasonOf } from './reasons';
import {
  checkQueue,
  inputBytesOf,
  localityOf,
  resolveSubmission,
  startInputRead,
  type ResolvedSubmission,
} from './resolve';

/**
 * POST /api/v1/jobs down the pipeline: resolve the submission (queue, deadline, input size,
 * locality), decide it in the lanes (core), plan its RM writes, and record decision, plan and
 * idempotent answer in one group commit (Ledger.writeSoon) before answering. Decisions are
 * serialised: each sees the lanes the previous one left, without waiting for its commit.
 */

export interface SubmitContext {
  submitter: string;
  idempotencyKey?: string;
  requestHash: string;
}

/** Random bytes drawn 4 KiB at a time (one call into the crypto library per 680 job ids). */
let idPool = Buffer.alloc(0);
let idOffset = 0;

/** A new job id: `dl-` and 12 random hex digits. */
function newJobId(): string {
  if (idOffset + 6 > idPool.length) {
    idPool = randomBytes(4096);
    idOffset = 0;
  }
  idOffset += 6;
  return `dl-${idPool.toString('hex', idOffset - 6, idOffset)}`;
}

/** An answer: its status, its body and the body's JSON text (serialised once, answered and kept as it is). */
export interface SubmitAnswer {
  status: number;
  body: unknown;
  /** JSON.stringify(body). */
  json: string;
}

/** One key per submitter and Idempotency-Key. */
const idempotencyRef = (submitter: string, key: string) => `${submitter}\u0000${key}`;

/** A submission resolved and decided, with what the answer and the ledger say of it. */
interface Judged {
  id: string;
  s: ResolvedSubmission;
  queue: string;
  record: Pick<
    JobRecord,
    'id' | 'arrivalMs' | 'deadlineMs' | 'maps' | 'reduces' | 'inputBytes' | 'jobType' | 'spec'
  >;
  job: DeadlineJob;
  outcome: LaneOutcome;
  /** Said in the answer and kept with the decision: the class and the figures it was judged with. */
  judgedWith: { workloadClass: string | undefined; estimates: unknown };
  /** Said in the answer, the job's spec and the decision: where the deadline came from. */
  deadlineFrom: Record<string, unknown>;
  /** The input size when it was read from the input paths. */
  derived: Record<string, unknown>;
  /** Why a partition was chosen, shown in the answer and kept with the decision. */
  placement: Record<string, unknown>;
}

/** What differs between an admission and a rejection; the recording is shared. */
interface Answer {
  status: number;
  body: Record<string, unknown>;
  fields: Pick<
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
  policyName: string;
  detail: Record<string, unknown>;
  /** Inside the transaction: the RM writes the decision calls for. */
  enqueue: () => void;
  /** After it was recorded: the in-memory admission state. */
  adopt: () => void;
}

/** The 201 answer of an admission (ticket included when the client is to submit the app). */
function admittedBody(
  j: Judged,
  a: {
    priority: number;
    label: string | null;
    estimatedFinishMs: number;
    energyJoules: number | null;
    ticket: ReturnType<typeof ticketFor> | undefined;
  },
) {
  const { id, s, queue, judgedWith, derived, deadlineFrom } = j;
  const { priority, label, estimatedFinishMs, energyJoules, ticket } = a;
  const result = (j.outcome as Extract<LaneOutcome, { lane: object }>).result;
  if (!result.admitted) throw new Error('not an admission');
  return {
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
    placement: j.placement,
    ...judgedWith,
    ...derived,
    ...deadlineFrom,
    dryRun: s.dryRun,
    ...(ticket === undefined ? {} : { ticket }),
  };
}

export class Submissions {
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * Answers decided but not yet committed, by submitter and idempotency key: a retry that
   * arrives before the commit gets the same answer, never a second decision.
   */
  private readonly uncommittedAnswers = new Map<
    string,
    { requestHash: string; status: number; response: unknown; json: string; durable: Promise<void> }
  >();

  constructor(private readonly p: LoopParts) {}

  /** Resolves once the decisions queued so far are made. */
  settled(): Promise<unknown> {
    return this.chain;
  }

  submit(submission: Submission, context: SubmitContext): Promise<SubmitAnswer> {
    const { ledger, webHdfs, config } = this.p.deps;
    // The input is read from WebHDFS at once, beside the decisions queued before this one.
    const input = startInputRead({ ledger, webHdfs, placement: config.placement }, submission, context);
    const decided = this.chain.then(() => this.decideOne(submission, context, input));
    // The next decision waits for this one, not for its commit: decisions made in the same
    // turn of the event loop share one group commit (Ledger.writeSoon).
    this.chain = decided.catch(() => undefined);
    return decided.then(async ({ status, body, json, durable }) => {
      await durable;
      return { status, body, json };
    });
  }

  /** A retry's answer: the one given (or being committed) for the same key. */
  private answered(ctx: SubmitContext): (SubmitAnswer & { durable?: Promise<void> | undefined }) | undefined {
    if (ctx.idempotencyKey === undefined) return undefined;
    const seen =
      this.uncommittedAnswers.get(idempotencyRef(ctx.submitter, ctx.idempotencyKey)) ??
      this.p.deps.ledger.findIdempotent(ctx.submitter, ctx.idempotencyKey);
    if (!seen) return undefined;
    if (seen.requestHash !== ctx.requestHash) {
      throw new IdempotencyConflictError(
        `Idempotency-Key '${ctx.idempotencyKey}' was used before with a different request`,
      );
    }
    return {
      status: seen.status,
      body: seen.response,
      json: 'json' in seen ? seen.json : JSON.stringify(seen.response),
      // An answer read back from the ledger may not be durable yet where the ledger ships its
      // writes (PostgreSQL, after a 503): the replay answers once it is.
      durable: 'durable' in seen ? seen.durable : this.p.deps.ledger.flush(),
    };
  }

  /**
   * Decides one submission. The answer is given once `durable` resolves: the decision, its RM
   * actions and its idempotent answer are then on disk.
   */
  private async decideOne(
    submission: Submission,
    ctx: SubmitContext,
    input: Promise<InputRead> | undefined,
  ): Promise<SubmitAnswer & { durable?: Promise<void> | undefined }> {
    const seen = this.answered(ctx);
    if (seen) return seen;
    const { config, metrics } = this.p.deps;
    const queue = checkQueue(submission, this.p.observation, config);
    const read = await input;
    const inputBytes = inputBytesOf(submission, read);
    const started = process.hrtime.bigint();
    const nowMs = this.p.deps.now();
    const s = resolveSubmission(submission, queue, inputBytes, this.p.observation, nowMs);
    const judged = this.judge(submission, s, queue, read, nowMs);
    metrics.admissionSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    const answer =
      judged.outcome.lane && judged.outcome.result.admitted
        ? this.admitted(judged)
        : this.rejected(judged, nowMs);
    // Serialised once: the answer sent, and the idempotent answer kept, are this text.
    const json = JSON.stringify(answer.body);
    const durable = s.dryRun ? undefined : this.record(judged, answer, json, ctx);
    // At debug: the ledger keeps every decision (GET /api/v1/jobs/{id}, its decisions), and a
    // line per submission at info cost a tenth of the sidecar's time under load.
    this.p.log.debug('decided', {
      job: judged.id,
      decision: answer.body.decision,
      queue,
      jobType: s.jobType,
      workloadClass: judged.job.workloadClass,
      dryRun: s.dryRun,
    });
    return { status: answer.status, body: answer.body, json, durable };
  }

  /** Locality, the job in core terms, and the lanes' decision. */
  private judge(
    submission: Submission,
    s: ResolvedSubmission,
    queue: string,
    read: InputRead | undefined,
    nowMs: number,
  ): Judged {
    const { partitions, estimates, lanes } = this.p;
    const id = this.p.deps.newId?.() ?? newJobId();
    const labels = partitions.candidates(s.jobType);
    const { locality, note, input } = localityOf(
      this.p.log,
      id,
      labels,
      read,
      this.p.observation.hostPartitions,
    );
    // Why a partition was chosen, shown in the answer and kept with the decision.
    const placement = {
      locality: note,
      partitions: partitions.ranked(s.jobType, locality).map((r) => ({
        label: r.label === '' ? null : r.label,
        dop: r.dop,
        ef: r.ef,
        h: r.h,
      })),
      ...(input ? { input } : {}),
    };
    const record = {
      id,
      arrivalMs: nowMs,
      deadlineMs: s.deadlineMs,
      maps: s.maps,
      reduces: s.reduces,
      inputBytes: s.inputBytes,
      jobType: s.jobType,
      // The launch context stays in the submit action only: it may hold credentials.
      spec: { ...withoutRequest(s), deadline: new Date(s.deadlineMs).toISOString() },
    };
    const job = estimates.deadlineJob(record);
    const outcome = lanes.decide(job, queue, s.jobType, locality);
    return {
      id,
      s,
      queue,
      record,
      job,
      outcome,
      judgedWith: { workloadClass: job.workloadClass, estimates: job.estimates },
      deadlineFrom: {
        deadlineSource: s.deadlineSource,
        ...(s.defaultDeadlineSeconds === undefined
          ? {}
          : { defaultDeadlineSeconds: s.defaultDeadlineSeconds }),
      },
      derived:
        submission.inputBytes === undefined ? { inputBytes: s.inputBytes, inputBytesFrom: 'inputPaths' } : {},
      placement,
    };
  }

  private admitted(j: Judged): Answer {
    const { lane, result } = j.outcome as Extract<LaneOutcome, { lane: object }>;
    if (!result.admitted) throw new Error('not an admission');
    const { id, s, queue } = j;
    const label = lane.label === '' ? null : lane.label;
    const priority = this.p.cap.priorityAt(result.position);
    const estimatedFinishMs = Math.round(result.estimatedFinish * 1000);
    const energyJoules = this.p.partitions.energyJoules(s.jobType, lane.label, s.maps);
    const { judgedWith, deadlineFrom } = j;
    const { config } = this.p.deps;
    // Without a launch context the sidecar submits nothing: the client does, with the ticket.
    const ticket =
      s.request === undefined && !s.dryRun
        ? ticketFor({
            id,
            s,
            queue,
            label,
            priority,
            expiresMs: this.p.deps.now() + config.tickets.ttlSeconds * 1000,
          })
        : undefined;
    const body = admittedBody(j, { priority, label, estimatedFinishMs, energyJoules, ticket });
    return {
      status: 201,
      body,
      fields: {
        decision: 'admitted',
        reason: null,
        estimatedFinishMs,
        earliestDeadlineMs: null,
        label,
        priority,
        state: 'accepted',
        energyJoules,
      },
      policyName: lane.policy.name,
      detail: {
        lane: lane.key,
        position: result.position,
        estimatedFinish: body.estimatedFinish,
        ...judgedWith,
        placement: j.placement,
        ...deadlineFrom,
        ...(ticket === undefined ? {} : { ticket: { expiresAt: ticket.expiresAt, tags: ticket.tags } }),
      },
      enqueue: () => this.enqueueAdmitted(j, label, priority, ticket),
      adopt: () => {
        lane.state = result.state;
      },
    };
  }

  /** What an admission records when it commits: its ticket, or the RM writes that submit it. */
  private enqueueAdmitted(
    j: Judged,
    label: string | null,
    priority: number,
    ticket: ReturnType<typeof ticketFor> | undefined,
  ): void {
    const { id, s, queue } = j;
    const { ledger, config } = this.p.deps;
    if (ticket !== undefined) {
      ledger.insertTicket({ jobId: id, expiresMs: Date.parse(ticket.expiresAt), detail: ticket });
      return;
    }
    // Planned at commit time, with the estimates and clock of that moment.
    const nowMs = this.p.deps.now();
    const job = this.p.estimates.deadlineJob({ ...j.record, arrivalMs: nowMs, spec: s });
    const defaultEstimates = this.p.estimates.book.default;
    enforce(
      ledger,
      planAdmittedSubmission(config, { id, s, queue, label, priority, nowMs, job, defaultEstimates }),
    );
  }

  private rejected(j: Judged, arrivalMs: number): Answer {
    const { outcome, id, s } = j;
    const reason: RejectionReason = outcome.lane
      ? reasonOf(outcome.result, outcome.lane, id)
      : outcome.reason;
    const eD = outcome.lane ? earliest(outcome.result) : null;
    const earliestDeadlineMs = eD === null ? null : Math.ceil((arrivalMs / 1000 + eD) * 1000);
    const { judgedWith, deadlineFrom, derived } = j;
    const body = {
      id,
      decision: 'rejected',
      deadline: new Date(s.deadlineMs).toISOString(),
      reason,
      earliestAdmissibleDeadline:
        earliestDeadlineMs === null ? null : new Date(earliestDeadlineMs).toISOString(),
      ...(outcome.lane && !outcome.result.admitted && outcome.result.searchedUpTo !== undefined
        ? { earliestAdmissibleDeadlineNote: noDeadlineWithin(outcome.result.searchedUpTo) }
        : {}),
      placement: j.placement,
      ...judgedWith,
      ...derived,
      ...deadlineFrom,
      dryRun: s.dryRun,
    };
    return {
      status: 200,
      body,
      fields: {
        decision: 'rejected',
        reason,
        estimatedFinishMs: null,
        earliestDeadlineMs,
        label: null,
        priority: null,
        state: 'rejected',
        energyJoules: null,
      },
      policyName: outcome.lane?.policy.name ?? this.p.deps.config.admission.policy,
      detail: {
        reason,
        earliestAdmissibleDeadline: body.earliestAdmissibleDeadline,
        ...judgedWith,
        placement: j.placement,
        ...deadlineFrom,
      },
      enqueue: () => undefined,
      adopt: () => undefined,
    };
  }

  /**
   * The decision, its RM actions and the idempotent answer land together, before the answer.
   * The next decision sees this one at once; should the write fail, the lanes are rebuilt from
   * the ledger, which never had it.
   */
  private record(j: Judged, a: Answer, json: string, ctx: SubmitContext): Promise<void> {
    const { ledger, metrics } = this.p.deps;
    const { id, s, queue } = j;
    const written = ledger.writeSoon(() => {
      ledger.insertJob({
        ...j.record,
        ...a.fields,
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
      ledger.recordDecision(id, a.policyName, a.fields.decision, a.detail);
      a.enqueue();
      if (ctx.idempotencyKey !== undefined)
        ledger.saveIdempotent(
          ctx.submitter,
          ctx.idempotencyKey,
          { requestHash: ctx.requestHash, jobId: id, status: a.status, response: a.body },
          json,
        );
    });
    a.adopt();
    const ref =
      ctx.idempotencyKey === undefined ? undefined : idempotencyRef(ctx.submitter, ctx.idempotencyKey);
    if (ref !== undefined)
      this.uncommittedAnswers.set(ref, {
        requestHash: ctx.requestHash,
        status: a.status,
        response: a.body,
        json,
        durable: written,
      });
    const decision = a.fields.decision;
    return written.then(
      () => {
        if (ref !== undefined) this.uncommittedAnswers.delete(ref);
        metrics.decisions.inc({ outcome: decision, source: 'api' });
        if (decision === 'admitted') {
          metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
          // Enforce in the background: the answer does not wait for the RM.
          void this.p.enforcer
            .drain()
            .catch((err) => this.p.log.warn('enforcement failed', { error: String(err) }));
        }
      },
      (err: unknown) => {
        if (ref !== undefined) this.uncommittedAnswers.delete(ref);
        if (err instanceof LedgerUnavailableError) {
          // Recorded in the working copy, not yet durable in PostgreSQL: answered 503; a retry
          // with the same Idempotency-Key gets this decision once it is.
          this.p.log.warn('a decision is not durable yet; answered 503', { job: id, error: err.message });
          throw err;
        }
        if (decision === 'admitted') this.p.lanes.rebuildAll();
        if (err instanceof LedgerReadOnlyError || err instanceof LedgerFencedError) {
          // Not the writer (a follower, or a leader replaced): nothing was recorded; answered 503.
          this.p.log.warn('a decision was not recorded: this sidecar does not write the ledger', {
            job: id,
            code: err.code,
          });
          throw err;
        }
        this.p.log.error('a decision could not be recorded; it was not answered', {
          job: id,
          error: String(err),
        });
        throw err;
      },
    );
  }
}

function withoutRequest<T extends { request?: unknown }>(s: T): Omit<T, 'request'> {
  const { request: _request, ...rest } = s;
  return rest;
}
