/** The decisions table: every decision on a job, with its policy and its reason. */
import { decodeRow, type Row } from '../rows';
import type { DecisionRecord } from '../types';
import type { SqlRunner } from './sql';

export class DecisionTable {
  constructor(private readonly run: SqlRunner) {}

  recordDecision(jobId: string, policy: string, decision: string, detail: unknown): number {
    return Number(
      this.run
        .sql('INSERT INTO decisions (job_id, at_ms, policy, decision, detail) VALUES (?, ?, ?, ?, ?)')
        .run(jobId, this.run.now(), policy, decision, JSON.stringify(detail ?? null)).lastInsertRowid,
    );
  }

  decisionsOf(jobId: string): DecisionRecord[] {
    return (this.run.sql('SELECT * FROM decisions WHERE job_id = ? ORDER BY id').all(jobId) as Row[]).map(
      decodeRow.decision,
    );
  }
}
