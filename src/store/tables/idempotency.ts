/** The idempotency table: the answer given to a submitter's key, given again for the same key. */
import { fromJson, type Row } from '../rows';
import type { IdempotentAnswer } from '../types';
import type { SqlRunner } from './sql';

export class IdempotencyTable {
  constructor(private readonly run: SqlRunner) {}

  findIdempotent(submitter: string, key: string): IdempotentAnswer | undefined {
    const row = this.run
      .sql('SELECT * FROM idempotency WHERE submitter = ? AND key = ?')
      .get(submitter, key) as Row | undefined;
    return row
      ? {
          requestHash: row.request_hash as string,
          jobId: row.job_id as string,
          status: row.status as number,
          response: fromJson(row.response),
        }
      : undefined;
  }

  saveIdempotent(submitter: string, key: string, answer: IdempotentAnswer, responseJson?: string): void {
    this.run
      .sql(
        'INSERT INTO idempotency (submitter, key, request_hash, job_id, status, response, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        submitter,
        key,
        answer.requestHash,
        answer.jobId,
        answer.status,
        responseJson ?? JSON.stringify(answer.response),
        this.run.now(),
      );
  }
}
