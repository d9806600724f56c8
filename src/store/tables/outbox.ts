/**
 * The actions table, the outbox: every RM write recorded before it is made and confirmed after
 * it, so a crash leaves a pending row to reconcile or a done one never sent again.
 */
import { decodeRow, toJson, type Row } from '../rows';
import type { ActionCount, ActionEnd, ActionRecord, JobRecord } from '../types';
import type { SqlRunner } from './sql';

export class Outbox {
  constructor(private readonly run: SqlRunner) {}

  /** Record an RM write before it is made. */
  enqueueAction(jobId: string | null, kind: string, payload: unknown): ActionRecord {
    const now = this.run.now();
    const text = JSON.stringify(payload ?? null);
    const id = Number(
      this.run
        .sql(
          "INSERT INTO actions (job_id, kind, payload, status, created_ms, updated_ms) VALUES (?, ?, ?, 'pending', ?, ?)",
        )
        .run(jobId, kind, text, now, now).lastInsertRowid,
    );
    // The row as getAction would read it back, without reading it.
    return decodeRow.action({
      id,
      job_id: jobId,
      kind,
      payload: text,
      status: 'pending',
      attempts: 0,
      result: null,
      error: null,
      created_ms: now,
      updated_ms: now,
    });
  }

  /** Count an attempt just before the call goes out. */
  markActionAttempt(id: number): void {
    this.run
      .sql('UPDATE actions SET attempts = attempts + 1, updated_ms = ? WHERE id = ?')
      .run(this.run.now(), id);
  }

  /** Confirm a write after the RM answered (or after reconciliation showed its effect). */
  completeAction(id: number, status: ActionEnd, result?: unknown, error?: string): void {
    const info = this.run
      .sql(
        "UPDATE actions SET status = ?, result = ?, error = ?, updated_ms = ? WHERE id = ? AND status = 'pending'",
      )
      .run(status, toJson(result), error ?? null, this.run.now(), id);
    if (info.changes !== 1) throw new Error(`action ${id} is not pending`);
  }

  /** Keep what an action learned before its write (e.g. the reservation id it was handed). */
  updateActionPayload(id: number, payload: unknown): void {
    this.run
      .sql('UPDATE actions SET payload = ?, updated_ms = ? WHERE id = ?')
      .run(JSON.stringify(payload ?? null), this.run.now(), id);
  }

  /** Record a failed attempt, leaving the action pending for the next cycle. */
  noteActionError(id: number, error: string): void {
    this.run.sql('UPDATE actions SET error = ?, updated_ms = ? WHERE id = ?').run(error, this.run.now(), id);
  }

  getAction(id: number): ActionRecord | undefined {
    const row = this.run.sql('SELECT * FROM actions WHERE id = ?').get(id) as Row | undefined;
    return row ? decodeRow.action(row) : undefined;
  }

  /** Pending actions in the order they were recorded (queued writes committed first). */
  pendingActions(): ActionRecord[] {
    this.run.commitQueued();
    return (this.run.sql("SELECT * FROM actions WHERE status = 'pending' ORDER BY id").all() as Row[]).map(
      decodeRow.action,
    );
  }

  /**
   * Admitted jobs still waiting to reach the RM whose submission the RM refused for good: no
   * submit of theirs is pending or done, one has failed. They will never run.
   */
  refusedSubmissions(): Array<{ job: JobRecord; error: string | null }> {
    this.run.commitQueued();
    const rows = this.run
      .sql(
        `SELECT j.*, (SELECT a.error FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status = 'failed' ORDER BY a.id DESC LIMIT 1) AS refusal
         FROM jobs j
         WHERE j.decision = 'admitted' AND j.state = 'accepted'
           AND EXISTS (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status = 'failed')
           AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status IN ('pending', 'done'))`,
      )
      .all() as Row[];
    return rows.map((r) => ({ job: decodeRow.job(r), error: (r.refusal as string | null) ?? null }));
  }

  /** The outbox's backlog: how many actions are pending, and when the oldest was recorded. */
  pendingBacklog(): { pending: number; oldestMs: number | null } {
    const row = this.run
      .sql("SELECT COUNT(*) AS n, MIN(created_ms) AS oldest FROM actions WHERE status = 'pending'")
      .get() as { n: number; oldest: number | null };
    return { pending: row.n, oldestMs: row.oldest };
  }

  actionsOf(jobId: string): ActionRecord[] {
    return (this.run.sql('SELECT * FROM actions WHERE job_id = ? ORDER BY id').all(jobId) as Row[]).map(
      decodeRow.action,
    );
  }

  countActions(): ActionCount[] {
    return this.run
      .sql('SELECT kind, status, COUNT(*) AS n FROM actions GROUP BY kind, status ORDER BY kind, status')
      .all() as ActionCount[];
  }
}
