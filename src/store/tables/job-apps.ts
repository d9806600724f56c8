/** The job_apps table: each app of a job as the reconciler last tracked it. */
import { decodeRow, groupByJob, type Row } from '../rows';
import type { JobAppRecord, JobRecord, TrackedApp } from '../types';
import { inSlices, placeholders, type SqlRunner } from './sql';

export class JobAppTable {
  constructor(private readonly run: SqlRunner) {}

  trackJobApp(jobId: string, app: TrackedApp): JobAppRecord | undefined {
    const before = this.run.sql('SELECT * FROM job_apps WHERE app_id = ?').get(app.appId) as Row | undefined;
    const now = this.run.now();
    if (before) {
      this.run
        .sql(
          'UPDATE job_apps SET state = ?, final_status = ?, queue = ?, started_ms = ?, finished_ms = ?, updated_ms = ? WHERE app_id = ?',
        )
        .run(app.state, app.finalStatus, app.queue, app.startedMs, app.finishedMs, now, app.appId);
      return decodeRow.jobApp(before);
    }
    const last = this.run.sql('SELECT MAX(ordinal) AS n FROM job_apps WHERE job_id = ?').get(jobId) as {
      n: number | null;
    };
    this.run
      .sql(
        'INSERT INTO job_apps (app_id, job_id, ordinal, state, final_status, queue, started_ms, finished_ms, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        app.appId,
        jobId,
        (last.n ?? 0) + 1,
        app.state,
        app.finalStatus,
        app.queue,
        app.startedMs,
        app.finishedMs,
        now,
        now,
      );
    return undefined;
  }

  appsOf(jobId: string): JobAppRecord[] {
    return (this.run.sql('SELECT * FROM job_apps WHERE job_id = ? ORDER BY ordinal').all(jobId) as Row[]).map(
      decodeRow.jobApp,
    );
  }

  appsOfJobs(jobIds: readonly string[]): Map<string, JobAppRecord[]> {
    const apps: JobAppRecord[] = [];
    inSlices(jobIds, (part) => {
      const rows = this.run
        .sql(`SELECT * FROM job_apps WHERE job_id IN (${placeholders(part.length)}) ORDER BY job_id, ordinal`)
        .all(...part) as Row[];
      for (const r of rows) apps.push(decodeRow.jobApp(r));
    });
    return groupByJob(apps);
  }

  jobOfApp(appId: string): JobRecord | undefined {
    const row = this.run
      .sql('SELECT jobs.* FROM job_apps JOIN jobs ON jobs.id = job_apps.job_id WHERE job_apps.app_id = ?')
      .get(appId) as Row | undefined;
    return row ? decodeRow.job(row) : undefined;
  }

  jobsBetweenApps(): JobRecord[] {
    this.run.commitQueued();
    return (
      this.run
        .sql(
          `SELECT jobs.* FROM jobs JOIN tickets ON tickets.job_id = jobs.id
           WHERE jobs.decision = 'admitted' AND jobs.state IN ('submitted', 'running')
             AND tickets.status = 'bound' AND tickets.client_state IS NOT NULL
             AND EXISTS (SELECT 1 FROM job_apps a WHERE a.job_id = jobs.id)
             AND NOT EXISTS (SELECT 1 FROM job_apps a WHERE a.job_id = jobs.id
                               AND a.state NOT IN ('FINISHED', 'FAILED', 'KILLED'))
           ORDER BY jobs.deadline_ms, jobs.created_ms`,
        )
        .all() as Row[]
    ).map(decodeRow.job);
  }
}
