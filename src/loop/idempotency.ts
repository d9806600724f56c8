import { IdempotencyConflictError } from '../errors/api-errors';
import type { Ledger } from '../store/types';

/**
 * Idempotent submissions: the answer given under a submitter's Idempotency-Key is given again
 * to a retry of the same request, from the ledger once it is committed and from memory while
 * the commit is under way (a retry then never gets a second decision); another request under
 * the same key is a conflict.
 */

export interface SubmitContext {
  submitter: string;
  idempotencyKey?: string;
  requestHash: string;
}

/** An answer: its status, its body and the body's JSON text (serialised once, answered and kept as it is). */
export interface SubmitAnswer {
  status: number;
  body: unknown;
  /** JSON.stringify(body). */
  json: string;
}

/** An answer given before, and the commit it waits for when that is still under way. */
export type KeptAnswer = SubmitAnswer & { durable?: Promise<void> | undefined };

/** One key per submitter and Idempotency-Key. */
const idempotencyRef = (submitter: string, key: string) => `${submitter}\u0000${key}`;

export class IdempotentAnswers {
  /** Answers decided but not yet committed, by submitter and idempotency key. */
  private readonly uncommitted = new Map<
    string,
    { requestHash: string; answer: SubmitAnswer; durable: Promise<void> }
  >();

  constructor(private readonly ledger: Ledger) {}

  /** A retry's answer: the one given (or being committed) for the same key; undefined without a key or answer. */
  find(ctx: SubmitContext): KeptAnswer | undefined {
    if (ctx.idempotencyKey === undefined) return undefined;
    const pending = this.uncommitted.get(idempotencyRef(ctx.submitter, ctx.idempotencyKey));
    const saved = pending ? undefined : this.ledger.findIdempotent(ctx.submitter, ctx.idempotencyKey);
    const requestHash = pending?.requestHash ?? saved?.requestHash;
    if (requestHash === undefined) return undefined;
    if (requestHash !== ctx.requestHash) {
      throw new IdempotencyConflictError(
        `Idempotency-Key '${ctx.idempotencyKey}' was used before with a different request`,
      );
    }
    if (pending) return { ...pending.answer, durable: pending.durable };
    const { status, response } = saved!;
    // Read back from the ledger, it may not be durable yet where the ledger ships its writes
    // (PostgreSQL, after a 503): the replay answers once it is.
    return { status, body: response, json: JSON.stringify(response), durable: this.ledger.flush() };
  }

  /** Inside the decision's transaction: keeps job `jobId`'s answer under the request's key, if it has one. */
  save(ctx: SubmitContext, jobId: string, answer: SubmitAnswer): void {
    if (ctx.idempotencyKey === undefined) return;
    const { status, body, json } = answer;
    this.ledger.saveIdempotent(
      ctx.submitter,
      ctx.idempotencyKey,
      { requestHash: ctx.requestHash, jobId, status, response: body },
      json,
    );
  }

  /**
   * Gives `answer` to a retry under the request's key until `durable` (its commit) settles;
   * returns what forgets it then (the ledger has it, or never will).
   */
  holdUntilCommitted(ctx: SubmitContext, answer: SubmitAnswer, durable: Promise<void>): () => void {
    if (ctx.idempotencyKey === undefined) return () => undefined;
    const ref = idempotencyRef(ctx.submitter, ctx.idempotencyKey);
    this.uncommitted.set(ref, { requestHash: ctx.requestHash, answer, durable });
    return () => this.uncommitted.delete(ref);
  }
}
