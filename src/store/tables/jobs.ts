/** The jobs table: a job's row, its pages, the open queue and the totals the metrics read. */
import { decodeRow, JOB_COLUMNS, jobFilters, toJson, type Row } from '../rows';
import type { JobCount, JobPatch, JobQuery, JobRecord, NewJob } from '../types';
import { placeholders, type SqlRunner } from './sql';

const COLUMN_OF = new Map(JOB_COLUMNS.map(([k, c, kind]) => [k, { column: c, kind }]));
const INSERT_JOB = `INSERT INTO jobs (${JOB_COLUMNS.map(([, c]) => c).join(', ')}) VALUES (${placeholders(JOB_COLUMNS.length)})`;

/** The admitted jobs not yet ended, by deadline (the open queue). */
export const OPEN_ADMITTED =
  "SELECT * FROM jobs WHERE decision = 'admitted' AND state IN ('accepted', 'submitted', 'running') ORDER BY deadline_ms, created_ms";

/**
 * A page of a table of jobs (`jobs`, `archived_jobs`) in `order`, filtered as `query` says, with
 * the total matching (counted once per change of the connection: SqlRunner.count).
 */
export function jobPage(
  run: SqlRunner,
  table: string,
  order: string,
  query: JobQuery,
): { rows: Row[]; total: number } {
  const filters = jobFilters(query);
  const values = filters.map(([, v]) => v);
  const clause = filters.length ? `WHERE ${filters.map(([c]) => `${c} = ?`).join(' AND ')}` : '';
  const total = run.count(`SELECT COUNT(*) AS n FROM ${table} ${clause}`, values);
  const rows = run
    .sql(`SELECT * FROM ${table} ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...values, query.limit ?? 100, query.offset ?? 0) as Row[];
  return { rows, total };
}

export class JobTable {
  constructor(private readonly run: SqlRunner) {}

  insertJob(job: NewJob): JobRecord {
    const now = this.run.now();
    const full: JobRecord = {
      ...job,
      predictedFinishMs: job.predictedFinishMs ?? null,
      createdMs: now,
      updatedMs: now,
    };
    const values = JOB_COLUMNS.map(([k, , kind]) => (kind === 'json' ? toJson(full[k]) : full[k]));
    this.run.sql(INSERT_JOB).run(...values);
    return full;
  }

  updateJob(id: string, patch: JobPatch): JobRecord {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      const col = COLUMN_OF.get(key as keyof JobRecord);
      if (!col) throw new Error(`unknown job field ${key}`);
      sets.push(`${col.column} = ?`);
      values.push(col.kind === 'json' ? toJson(value) : value);
    }
    sets.push('updated_ms = ?');
    values.push(this.run.now());
    const info = this.run.sql(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
    if (info.changes !== 1) throw new Error(`no job ${id}`);
    return this.getJob(id)!;
  }

  getJob(id: string): JobRecord | undefined {
    const row = this.run.sql('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? decodeRow.job(row) : undefined;
  }

  getJobByAppId(appId: string): JobRecord | undefined {
    const row = this.run.sql('SELECT * FROM jobs WHERE app_id = ?').get(appId) as Row | undefined;
    return row ? decodeRow.job(row) : undefined;
  }

  /** Newest first. */
  listJobs(query: JobQuery = {}): { jobs: JobRecord[]; total: number } {
    const { rows, total } = jobPage(this.run, 'jobs', 'created_ms DESC, rowid DESC', query);
    return { jobs: rows.map(decodeRow.job), total };
  }

  /**
   * Admitted jobs not yet ended: the queue the admission state is rebuilt from (with the
   * queued writes committed first, so none decided is left out).
   */
  openAdmittedJobs(): JobRecord[] {
    this.run.commitQueued();
    return (this.run.sql(OPEN_ADMITTED).all() as Row[]).map(decodeRow.job);
  }

  /**
   * How many admitted jobs have not ended: the queue depth, counted on the (decision, state)
   * index instead of reading and decoding every open job (that read made each submission cost
   * time in proportion to the queue).
   */
  countOpenAdmittedJobs(): number {
    return (
      this.run
        .sql(
          "SELECT COUNT(*) AS n FROM jobs WHERE decision = 'admitted' AND state IN ('accepted', 'submitted', 'running')",
        )
        .get() as { n: number }
    ).n;
  }

  /**
   * From the totals the triggers keep for the live jobs (migration 4) and those of the archived
   * ones (archive_totals, migration 7): a read of a few rows, whatever the ledger holds.
   */
  countJobs(): JobCount[] {
    return this.run
      .sql(
        `SELECT decision, state, NULLIF(outcome, '') AS outcome, SUM(n) AS n FROM (
           SELECT decision, state, outcome, n FROM job_totals
           UNION ALL SELECT decision, state, outcome, n FROM archive_totals)
         GROUP BY decision, state, outcome`,
      )
      .all() as JobCount[];
  }

  admittedEnergyByLabel(): Array<{ label: string | null; joules: number }> {
    return this.run
      .sql(
        `SELECT NULLIF(label, '') AS label, SUM(energy_joules) AS joules FROM (
           SELECT label, energy_joules, energy_n FROM job_totals WHERE decision = 'admitted'
           UNION ALL SELECT label, energy_joules, energy_n FROM archive_totals WHERE decision = 'admitted')
         GROUP BY label HAVING SUM(energy_n) > 0`,
      )
      .all() as Array<{ label: string | null; joules: number }>;
  }
}
