/** The tickets table: jobs admitted before their app exists, waiting for an app with their tag. */
import { decodeRow, type Row } from '../rows';
import type { TicketClient, TicketRecord, TicketStatus } from '../types';
import { inSlices, placeholders, type SqlRunner } from './sql';

export class TicketTable {
  constructor(private readonly run: SqlRunner) {}

  insertTicket(t: Pick<TicketRecord, 'jobId' | 'expiresMs' | 'detail'>): void {
    const now = this.run.now();
    this.run
      .sql(
        "INSERT INTO tickets (job_id, status, expires_ms, app_id, detail, created_ms, updated_ms) VALUES (?, 'waiting', ?, NULL, ?, ?, ?)",
      )
      .run(t.jobId, t.expiresMs, JSON.stringify(t.detail ?? null), now, now);
  }

  getTicket(jobId: string): TicketRecord | undefined {
    const row = this.run.sql('SELECT * FROM tickets WHERE job_id = ?').get(jobId) as Row | undefined;
    return row ? decodeRow.ticket(row) : undefined;
  }

  /** The tickets of the given jobs, by job id (one query for a page of jobs). */
  ticketsOf(jobIds: readonly string[]): Map<string, TicketRecord> {
    const out = new Map<string, TicketRecord>();
    inSlices(jobIds, (part) => {
      const rows = this.run
        .sql(`SELECT * FROM tickets WHERE job_id IN (${placeholders(part.length)})`)
        .all(...part) as Row[];
      for (const r of rows) out.set(r.job_id as string, decodeRow.ticket(r));
    });
    return out;
  }

  /**
   * A waiting ticket's end: bound (to `appId`), expired or cancelled. Only a waiting ticket
   * changes; false when it was not waiting any more.
   */
  endTicket(jobId: string, status: Exclude<TicketStatus, 'waiting'>, appId: string | null = null): boolean {
    const info = this.run
      .sql(
        "UPDATE tickets SET status = ?, app_id = ?, updated_ms = ? WHERE job_id = ? AND status = 'waiting'",
      )
      .run(status, appId, this.run.now(), jobId);
    return info.changes === 1;
  }

  /** Waiting tickets whose expiry is at or before `nowMs` (queued writes committed first). */
  expiredTickets(nowMs: number): TicketRecord[] {
    this.run.commitQueued();
    return (
      this.run
        .sql("SELECT * FROM tickets WHERE status = 'waiting' AND expires_ms <= ? ORDER BY expires_ms")
        .all(nowMs) as Row[]
    ).map(decodeRow.ticket);
  }

  reportClient(jobId: string, state: TicketClient['state'], exitCode: number | null, atMs: number): boolean {
    const info = this.run
      .sql(
        "UPDATE tickets SET client_state = ?, client_exit_code = ?, client_seen_ms = ?, updated_ms = ? WHERE job_id = ? AND (client_state IS NULL OR client_state = 'running')",
      )
      .run(state, state === 'exited' ? exitCode : null, atMs, this.run.now(), jobId);
    return info.changes === 1;
  }
}
