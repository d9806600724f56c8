/**
 * The archive on SQLite (ledger.retention): closed jobs moved out of the live tables with their
 * rows, read a page or a job at a time, and deleted once old enough. The PostgreSQL ledger's
 * working copy uses the move without the copy (PostgreSQL holds its archive).
 */
import { decodeRow, groupByJob, JOB_ROW_TABLES, type Row } from '../rows';
import {
  CLOSED_JOB_STATES,
  type ArchiveBatch,
  type ArchivedJob,
  type ArchivedJobDetail,
  type JobAppRecord,
  type JobQuery,
  type TicketRecord,
} from '../types';
import { jobPage } from './jobs';
import { IN_BATCH, type SqlRunner } from './sql';

const CLOSED_STATES_SQL = CLOSED_JOB_STATES.map((s) => `'${s}'`).join(', ');

/** What a batch of archiving moved, with the actions of no job and when. */
export type ArchiveMove = ArchiveBatch & { actionIds: number[]; archivedMs: number };

/** Rows per table, each at 0: jobs and JOB_ROW_TABLES. */
export function noRows(): Record<string, number> {
  const rows: Record<string, number> = { jobs: 0 };
  for (const t of JOB_ROW_TABLES) rows[t] = 0;
  return rows;
}

/** Throws RangeError unless `limit` is a whole number of jobs, one or more. */
export function checkBatch(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a batch of ${limit} jobs`);
}

export class ArchiveTables {
  /** Each live table's columns, in order: its archive has them too (migration 7). */
  private readonly columnsOf = new Map<string, string>();

  constructor(
    private readonly run: SqlRunner,
    /** The ledger's transaction: the writes queued for a group commit land first. */
    private readonly transaction: <T>(fn: () => T) => T,
  ) {}

  private columnList(table: string): string {
    let list = this.columnsOf.get(table);
    if (list === undefined) {
      const info = this.run.db.prepare(`PRAGMA main.table_info(${table})`).all() as Array<{ name: string }>;
      list = info.map((c) => `"${c.name}"`).join(', ');
      this.columnsOf.set(table, list);
    }
    return list;
  }

  /**
   * One batch of archiving, in one transaction (see Ledger.archiveClosedJobs): the rows are
   * copied into the archive tables (INSERT OR REPLACE: a job archived again, such as a
   * discovered app decided anew, keeps every decision and its latest row), the archived jobs'
   * totals added to archive_totals, and the live rows deleted, children first (job_totals'
   * trigger counts the jobs out of the live totals). Actions of no job, confirmed and as old,
   * go with the batch too. Read by index: jobs_closed finds the candidates, each job's rows by
   * their job's index. `copy: false` leaves the archive tables alone: the PostgreSQL ledger's
   * working copy, whose archive is PostgreSQL's, copies the rows there itself. The counts are
   * of the live rows moved; `actionIds` are the actions of no job moved.
   */
  archiveClosedJobsNow(
    closedBeforeMs: number,
    limit: number,
    o: { copy: boolean } = { copy: true },
  ): ArchiveMove {
    checkBatch(limit);
    return this.transaction(() => {
      const ids = (
        this.run
          .sql(
            `SELECT id FROM jobs WHERE state IN (${CLOSED_STATES_SQL}) AND updated_ms < ?
               AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.job_id = jobs.id AND a.status = 'pending')
               AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.job_id = jobs.id AND t.status = 'waiting')
             LIMIT ?`,
          )
          .all(closedBeforeMs, limit) as Array<{ id: string }>
      ).map((r) => r.id);
      const now = this.run.now();
      const rows = ids.length > 0 ? this.moveJobs(JSON.stringify(ids), now, o.copy) : noRows();
      const actionIds = this.moveOrphanActions(closedBeforeMs, limit, o.copy);
      rows.actions! += actionIds.length;
      return { jobIds: ids, rows, actionIds, archivedMs: now };
    });
  }

  /** The jobs of `batch` (a JSON array of ids) and their rows, moved (or dropped, without `copy`). */
  private moveJobs(batch: string, now: number, copy: boolean): Record<string, number> {
    const rows = noRows();
    if (copy) {
      const jobs = this.columnList('jobs');
      this.run
        .sql(
          `INSERT OR REPLACE INTO archived_jobs (${jobs}, archived_ms) SELECT ${jobs}, ? FROM jobs WHERE id ${IN_BATCH} ORDER BY created_ms, rowid`,
        )
        .run(now, batch);
      for (const t of JOB_ROW_TABLES) {
        const cols = this.columnList(t);
        this.run
          .sql(
            `INSERT OR REPLACE INTO archived_${t} (${cols}) SELECT ${cols} FROM ${t} WHERE job_id ${IN_BATCH} ORDER BY rowid`,
          )
          .run(batch);
      }
    }
    this.run
      .sql(
        `INSERT INTO archive_totals (decision, state, outcome, label, n, energy_joules, energy_n)
           SELECT decision, state, IFNULL(outcome, ''), IFNULL(label, ''), COUNT(*), TOTAL(energy_joules), COUNT(energy_joules)
           FROM jobs WHERE id ${IN_BATCH} GROUP BY 1, 2, 3, 4
         ON CONFLICT (decision, state, outcome, label) DO UPDATE SET n = n + excluded.n,
           energy_joules = energy_joules + excluded.energy_joules, energy_n = energy_n + excluded.energy_n`,
      )
      .run(batch);
    for (const t of JOB_ROW_TABLES)
      rows[t] = this.run.sql(`DELETE FROM ${t} WHERE job_id ${IN_BATCH}`).run(batch).changes;
    rows.jobs = this.run.sql(`DELETE FROM jobs WHERE id ${IN_BATCH}`).run(batch).changes;
    return rows;
  }

  /**
   * Confirmed writes of no job (the outbox allows them), as old as the batch's jobs, moved with
   * it: they would otherwise stay for ever. Their ids.
   */
  private moveOrphanActions(closedBeforeMs: number, limit: number, copy: boolean): number[] {
    const actionIds = (
      this.run
        .sql("SELECT id FROM actions WHERE job_id IS NULL AND status <> 'pending' AND updated_ms < ? LIMIT ?")
        .all(closedBeforeMs, limit) as Array<{ id: number }>
    ).map((r) => r.id);
    if (actionIds.length === 0) return actionIds;
    const orphans = JSON.stringify(actionIds);
    if (copy) {
      const cols = this.columnList('actions');
      this.run
        .sql(
          `INSERT OR REPLACE INTO archived_actions (${cols}) SELECT ${cols} FROM actions WHERE id ${IN_BATCH}`,
        )
        .run(orphans);
    }
    this.run.sql(`DELETE FROM actions WHERE id ${IN_BATCH}`).run(orphans);
    return actionIds;
  }

  /** One batch of deleting from the archive, in one transaction (see Ledger.deleteArchivedJobs). */
  deleteArchivedJobsNow(closedBeforeMs: number, limit: number): ArchiveBatch {
    checkBatch(limit);
    return this.transaction(() => {
      const ids = (
        this.run
          .sql('SELECT id FROM archived_jobs WHERE updated_ms < ? LIMIT ?')
          .all(closedBeforeMs, limit) as Array<{
          id: string;
        }>
      ).map((r) => r.id);
      const rows = noRows();
      if (ids.length > 0) {
        const batch = JSON.stringify(ids);
        for (const t of JOB_ROW_TABLES)
          rows[t] = this.run.sql(`DELETE FROM archived_${t} WHERE job_id ${IN_BATCH}`).run(batch).changes;
        rows.jobs = this.run.sql(`DELETE FROM archived_jobs WHERE id ${IN_BATCH}`).run(batch).changes;
      }
      rows.actions! += this.run
        .sql(
          'DELETE FROM archived_actions WHERE id IN (SELECT id FROM archived_actions WHERE job_id IS NULL AND updated_ms < ? LIMIT ?)',
        )
        .run(closedBeforeMs, limit).changes;
      return { jobIds: ids, rows };
    });
  }

  /** The archive's page of jobs (see Ledger.listArchivedJobs), read at once. */
  listArchivedJobsNow(query: JobQuery = {}): { jobs: ArchivedJob[]; total: number } {
    const { rows, total } = jobPage(this.run, 'archived_jobs', 'created_ms DESC, id DESC', query);
    const ids = rows.map((r) => r.id as string);
    const tickets = new Map<string, TicketRecord>();
    let apps = new Map<string, JobAppRecord[]>();
    if (ids.length > 0) {
      const batch = JSON.stringify(ids);
      for (const r of this.run
        .sql(`SELECT * FROM archived_tickets WHERE job_id ${IN_BATCH}`)
        .all(batch) as Row[])
        tickets.set(r.job_id as string, decodeRow.ticket(r));
      apps = groupByJob(
        (
          this.run
            .sql(`SELECT * FROM archived_job_apps WHERE job_id ${IN_BATCH} ORDER BY job_id, ordinal`)
            .all(batch) as Row[]
        ).map(decodeRow.jobApp),
      );
    }
    return {
      jobs: rows.map((r) => ({
        job: decodeRow.job(r),
        archivedMs: r.archived_ms as number,
        ticket: tickets.get(r.id as string),
        apps: apps.get(r.id as string) ?? [],
      })),
      total,
    };
  }

  /** One archived job with its rows (see Ledger.getArchivedJob), read at once. */
  getArchivedJobNow(id: string): ArchivedJobDetail | undefined {
    const row = this.run.sql('SELECT * FROM archived_jobs WHERE id = ?').get(id) as Row | undefined;
    if (!row) return undefined;
    const ticket = this.run.sql('SELECT * FROM archived_tickets WHERE job_id = ?').get(id) as Row | undefined;
    const of = (table: string, order: string) =>
      this.run.sql(`SELECT * FROM archived_${table} WHERE job_id = ? ORDER BY ${order}`).all(id) as Row[];
    return {
      job: decodeRow.job(row),
      archivedMs: row.archived_ms as number,
      ticket: ticket ? decodeRow.ticket(ticket) : undefined,
      apps: of('job_apps', 'ordinal').map(decodeRow.jobApp),
      decisions: of('decisions', 'id').map(decodeRow.decision),
      actions: of('actions', 'id').map(decodeRow.action),
    };
  }
}
