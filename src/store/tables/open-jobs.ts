/** The open admitted jobs as the poll loop reads them every cycle: decoded again only when changed. */
import type Database from 'better-sqlite3';
import { decodeRow, type Row } from '../rows';
import type { JobRecord } from '../types';
import { OPEN_ADMITTED, type JobTable } from './jobs';
import type { SqlRunner } from './sql';

export class OpenJobs {
  /** Each open admitted job's row as last read and its record. */
  private rows = new Map<string, { raw: unknown[]; job: JobRecord }>();
  private rawStatement: Database.Statement | undefined;
  /** Writes to the jobs table by this connection, counted by a trigger (never rolled back). */
  private jobWrites = 0;
  /** The open jobs as last read, and the write count and data_version they were read at. */
  private list: { writes: number; dataVersion: number; jobs: JobRecord[] } | undefined;

  constructor(
    private readonly run: SqlRunner,
    private readonly jobs: JobTable,
  ) {}

  /**
   * openAdmittedJobs, read again only when the jobs table may have changed since the last call,
   * and then with each row decoded (its JSON columns parsed) only when one of its columns
   * changed: the poll loop reads every open job twice a cycle, and with hundreds open, reading
   * and decoding unchanged rows cost more than the RM's answers. A write by this connection is
   * seen by a temporary trigger that counts every insert, update and delete of a job (a count
   * in this process, so a rolled-back write still counts); a commit by another connection by
   * SQLite's data_version. Each call returns new records (shallow copies); their JSON values
   * (spec, reason) are shared between calls and must not be changed in place.
   */
  openAdmittedJobsReused(): JobRecord[] {
    this.run.commitQueued();
    const db = this.run.db;
    // The triggers are made outside a transaction: one made inside it would go with a rollback.
    if (this.rawStatement === undefined && db.inTransaction) return this.jobs.openAdmittedJobs();
    const st = (this.rawStatement ??= this.watch(db));
    const dataVersion = db.pragma('data_version', { simple: true }) as number;
    const seen = this.list;
    if (seen && seen.writes === this.jobWrites && seen.dataVersion === dataVersion)
      return seen.jobs.map((j) => ({ ...j }));
    const writes = this.jobWrites;
    const out = this.decodeChanged(st);
    // Read inside a transaction, the list may yet be rolled back: kept only when read outside one.
    this.list = db.inTransaction ? undefined : { writes, dataVersion, jobs: out.map((j) => ({ ...j })) };
    return out;
  }

  /** The triggers that count this connection's writes to jobs, and the raw read of the open ones. */
  private watch(db: Database.Database): Database.Statement {
    db.function('yss_job_written', { deterministic: false }, () => {
      this.jobWrites++;
      return null;
    });
    for (const event of ['INSERT', 'UPDATE', 'DELETE'])
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS yss_jobs_${event.toLowerCase()} AFTER ${event} ON main.jobs BEGIN SELECT yss_job_written(); END`,
      );
    return db.prepare(OPEN_ADMITTED).raw(true);
  }

  /** The open jobs read raw, each decoded only when its row differs from the last read. */
  private decodeChanged(st: Database.Statement): JobRecord[] {
    const names = st.columns().map((c) => c.name);
    const idAt = names.indexOf('id');
    const next = new Map<string, { raw: unknown[]; job: JobRecord }>();
    const out: JobRecord[] = [];
    for (const raw of st.all() as unknown[][]) {
      const id = raw[idAt] as string;
      let hit = this.rows.get(id);
      if (hit === undefined || hit.raw.length !== raw.length || hit.raw.some((v, i) => v !== raw[i])) {
        const row: Row = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = raw[i];
        hit = { raw, job: decodeRow.job(row) };
      }
      next.set(id, hit);
      out.push({ ...hit.job });
    }
    this.rows = next;
    return out;
  }
}
