import { randomBytes } from 'node:crypto';
import type { Submission } from '../model/deadline-submission';
import { profileKeyOf } from '../core/profiles';
import { LedgerFencedError } from '../errors/ledger-fenced';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { LedgerUnavailableError } from '../errors/ledger-unavailable';
import { admittedAnswer, rejectedAnswer, type Answer, type Judged } from './answers';
import type { Decision } from '../store/types';
import type { LoopParts } from './context';
import { IdempotentAnswers, type KeptAnswer, type SubmitAnswer, type SubmitContext } from './idempotency';
import type { InputRead } from './locality';
import {
  checkQueue,
  inputBytesOf,
  localityOf,
  resolveSubmission,
  shapeOf,
  startInputRead,
  type ResolvedSubmission,
} from './resolve';

export type { SubmitAnswer, SubmitContext } from './idempotency';

/**
 * POST /api/v1/jobs down the pipeline: resolve the submission (queue, deadline, input size,
 * locality), decide it in the lanes (core), plan its RM writes, and record decision, plan and
 * idempotent answer in one group commit (Ledger.writeSoon) before answering. Decisions are
 * serialised: each sees the lanes the previous one left, without waiting for its commit.
 */

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

export class Submissions {
  private chain: Promise<unknown> = Promise.resolve();
  /** Answers given under an Idempotency-Key, for a retry of the same request. */
  private readonly kept: IdempotentAnswers;

  constructor(private readonly p: LoopParts) {
    this.kept = new IdempotentAnswers(p.deps.ledger);
  }

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

  /**
   * Decides one submission. The answer is given once `durable` resolves: the decision, its RM
   * actions and its idempotent answer are then on disk.
   */
  private async decideOne(
    submission: Submission,
    ctx: SubmitContext,
    input: Promise<InputRead> | undefined,
  ): Promise<KeptAnswer> {
    const seen = this.kept.find(ctx);
    if (seen) return seen;
    const { config, metrics } = this.p.deps;
    const queue = checkQueue(submission, this.p.observation, config);
    const read = await input;
    const shape = shapeOf(submission, inputBytesOf(submission, read), read, {
      memoryMb: config.admission.containerMemoryMb,
      vcores: config.admission.containerVcores,
    });
    const started = process.hrtime.bigint();
    const nowMs = this.p.deps.now();
    const s = resolveSubmission(submission, queue, shape, this.p.observation, nowMs);
    const judged = this.judge(submission, s, queue, read, nowMs);
    metrics.admissionSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    const answer =
      judged.outcome.lane && judged.outcome.result.admitted
        ? admittedAnswer(this.p, judged)
        : rejectedAnswer(this.p, judged, nowMs);
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
    const { estimates, lanes } = this.p;
    const id = this.p.deps.newId?.() ?? newJobId();
    const { locality, placement } = this.placementOf(id, s, read);
    const record = {
      id,
      arrivalMs: nowMs,
      deadlineMs: s.deadlineMs,
      maps: s.maps,
      reduces: s.reduces,
      inputBytes: s.inputBytes,
      jobType: s.jobType,
      // The launch context stays in the submit action only: it may hold credentials.
      spec: {
        ...withoutRequest(s),
        deadline: new Date(s.deadlineMs).toISOString(),
        // The profile its runs are learned into, fixed now: its queue is the one decided here.
        profileKey: profileKeyOf({ profile: s.profile, name: s.name, user: s.user, queue }),
      } as Record<string, unknown>,
    };
    const { job, from } = estimates.judge(record);
    // Kept with the job: its error is learned, when it ends, against the factor judged with.
    if (from !== undefined) record.spec.estimateFrom = from;
    const outcome = lanes.decide(job, queue, s.jobType, locality);
    return {
      id,
      s,
      queue,
      record,
      job,
      outcome,
      judgedWith: {
        workloadClass: job.workloadClass,
        estimates: job.estimates,
        ...(from === undefined ? {} : { estimateFrom: from }),
      },
      deadlineFrom: deadlineFromOf(s),
      derived: {
        ...(submission.inputBytes === undefined
          ? { inputBytes: s.inputBytes, inputBytesFrom: 'inputPaths' }
          : {}),
        ...(s.mapsFrom === undefined ? {} : { maps: s.maps, mapsFrom: s.mapsFrom }),
        ...(s.sparkPlan === undefined ? {} : { spark: s.sparkPlan }),
      },
      placement,
    };
  }

  /** The job's locality per candidate partition, and why a partition is chosen (the answer's `placement`). */
  private placementOf(id: string, s: ResolvedSubmission, read: InputRead | undefined) {
    const { partitions } = this.p;
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
    return { locality, placement };
  }

  /**
   * The decision, its RM actions and the idempotent answer land together, before the answer.
   * The next decision sees this one at once; should the write fail, the lanes are rebuilt from
   * the ledger, which never had it.
   */
  private record(j: Judged, a: Answer, json: string, ctx: SubmitContext): Promise<void> {
    const written = this.p.deps.ledger.writeSoon(() => this.write(j, a, json, ctx));
    a.adopt();
    const forget = this.kept.holdUntilCommitted(ctx, { status: a.status, body: a.body, json }, written);
    return written.then(
      () => {
        forget();
        this.committed(a.fields.decision);
      },
      (err: unknown) => {
        forget();
        if (err instanceof LedgerUnavailableError) {
          // Recorded in the working copy, not yet durable in PostgreSQL: answered 503; a retry
          // with the same Idempotency-Key gets this decision once it is.
          this.p.log.warn('a decision is not durable yet; answered 503', { job: j.id, error: err.message });
          throw err;
        }
        if (a.fields.decision === 'admitted') this.p.lanes.rebuildAll();
        if (err instanceof LedgerReadOnlyError || err instanceof LedgerFencedError) {
          // Not the writer (a follower, or a leader replaced): nothing was recorded; answered 503.
          this.p.log.warn('a decision was not recorded: this sidecar does not write the ledger', {
            job: j.id,
            code: err.code,
          });
          throw err;
        }
        this.p.log.error('a decision could not be recorded; it was not answered', {
          job: j.id,
          error: String(err),
        });
        throw err;
      },
    );
  }

  /** Inside the transaction: the job, its decision, what it calls for and its idempotent answer. */
  private write(j: Judged, a: Answer, json: string, ctx: SubmitContext): void {
    const { ledger } = this.p.deps;
    const { id, s, queue } = j;
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
    this.kept.save(ctx, id, { status: a.status, body: a.body, json });
  }

  /** Once a decision is on disk: its metrics, and an admission's RM writes started. */
  private committed(decision: Decision): void {
    const { ledger, metrics } = this.p.deps;
    metrics.decisions.inc({ outcome: decision, source: 'api' });
    if (decision !== 'admitted') return;
    metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
    // Enforce in the background: the answer does not wait for the RM.
    void this.p.enforcer
      .drain()
      .catch((err) => this.p.log.warn('enforcement failed', { error: String(err) }));
  }
}

/** Where the deadline came from (said in the answer, the job's spec and the decision). */
function deadlineFromOf(s: ResolvedSubmission): Record<string, unknown> {
  return {
    deadlineSource: s.deadlineSource,
    ...(s.defaultDeadlineSeconds === undefined ? {} : { defaultDeadlineSeconds: s.defaultDeadlineSeconds }),
  };
}

function withoutRequest<T extends { request?: unknown }>(s: T): Omit<T, 'request'> {
  const { request: _request, ...rest } = s;
  return rest;
}
