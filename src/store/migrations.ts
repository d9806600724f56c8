/** A job counted into job_totals (migration 4): its group gains one, and its energy. */
const TOTALS_ADD = `INSERT INTO job_totals (decision, state, outcome, label, n, energy_joules, energy_n)
          VALUES (NEW.decision, NEW.state, IFNULL(NEW.outcome, ''), IFNULL(NEW.label, ''), 1,
            IFNULL(NEW.energy_joules, 0), NEW.energy_joules IS NOT NULL)
          ON CONFLICT (decision, state, outcome, label) DO UPDATE SET n = n + 1,
            energy_joules = energy_joules + excluded.energy_joules, energy_n = energy_n + excluded.energy_n;`;
/** A job counted out of job_totals: its group loses one, and goes when empty. */
const TOTALS_REMOVE = `UPDATE job_totals SET n = n - 1, energy_joules = energy_joules - IFNULL(OLD.energy_joules, 0),
            energy_n = energy_n - (OLD.energy_joules IS NOT NULL)
          WHERE decision = OLD.decision AND state = OLD.state
            AND outcome = IFNULL(OLD.outcome, '') AND label = IFNULL(OLD.label, '');
        DELETE FROM job_totals WHERE n <= 0;`;

/**
 * Schema migrations of the ledger, applied in order at open, each in its own transaction.
 * Never edit a migration that has shipped: add the next one.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'jobs, decisions, actions outbox, idempotency keys, estimates',
    sql: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        user TEXT NOT NULL,
        submitter TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('api', 'discovered')),
        job_type TEXT NOT NULL,
        maps INTEGER NOT NULL,
        reduces INTEGER NOT NULL,
        input_bytes INTEGER NOT NULL,
        arrival_ms INTEGER NOT NULL,
        deadline_ms INTEGER NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('admitted', 'rejected')),
        reason TEXT,
        estimated_finish_ms INTEGER,
        earliest_deadline_ms INTEGER,
        queue TEXT,
        label TEXT,
        priority INTEGER,
        app_id TEXT UNIQUE,
        state TEXT NOT NULL,
        outcome TEXT CHECK (outcome IN ('met', 'missed') OR outcome IS NULL),
        finished_ms INTEGER,
        energy_joules REAL,
        spec TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE INDEX jobs_decision_state ON jobs (decision, state);
      CREATE INDEX jobs_created ON jobs (created_ms);

      CREATE TABLE decisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL REFERENCES jobs (id),
        at_ms INTEGER NOT NULL,
        policy TEXT NOT NULL,
        decision TEXT NOT NULL,
        detail TEXT NOT NULL
      );
      CREATE INDEX decisions_job ON decisions (job_id);

      CREATE TABLE actions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT REFERENCES jobs (id),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed', 'skipped')),
        attempts INTEGER NOT NULL DEFAULT 0,
        result TEXT,
        error TEXT,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE INDEX actions_status ON actions (status);
      CREATE INDEX actions_job ON actions (job_id);

      CREATE TABLE idempotency (
        submitter TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        job_id TEXT NOT NULL REFERENCES jobs (id),
        status INTEGER NOT NULL,
        response TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        PRIMARY KEY (submitter, key)
      );

      CREATE TABLE kv (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_ms INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'job list pages by filter',
    // A page of jobs filtered by one field, newest first, walks its index instead of sorting
    // every matching row (116 ms for one page of 40,000 rejections without it).
    sql: `
      CREATE INDEX jobs_decision_created ON jobs (decision, created_ms);
      CREATE INDEX jobs_state_created ON jobs (state, created_ms);
      CREATE INDEX jobs_queue_created ON jobs (queue, created_ms);
      CREATE INDEX jobs_user_created ON jobs (user, created_ms);
    `,
  },
  {
    version: 3,
    name: 'tickets: admission before submission',
    // One row per ticket (a job admitted before its app exists): its status, when it expires,
    // the app it was bound to, and what the client was told to submit with.
    sql: `
      CREATE TABLE tickets (
        job_id TEXT PRIMARY KEY REFERENCES jobs (id),
        status TEXT NOT NULL CHECK (status IN ('waiting', 'bound', 'expired', 'cancelled')),
        expires_ms INTEGER NOT NULL,
        app_id TEXT,
        detail TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE INDEX tickets_status_expires ON tickets (status, expires_ms);
    `,
  },
  {
    version: 4,
    name: 'job totals kept by triggers',
    // How many jobs there are per decision, state, outcome and partition, and their energy: what
    // the dashboard's sample reads every cycle. Counting them from the jobs took time in
    // proportion to the ledger (55 ms for 100,000 jobs, and 170 ms more to read the admitted
    // ones again for their energy whenever a count changed); the triggers keep the totals as each
    // job is written, in the same transaction. A NULL outcome or label is kept as ''; energy_n
    // counts the jobs that recorded an energy (energy_joules their sum). The table is
    // derived from the jobs: not shipped to PostgreSQL, rebuilt in each working copy as its rows
    // are loaded (DERIVED_TABLES).
    sql: `
      CREATE TABLE job_totals (
        decision TEXT NOT NULL,
        state TEXT NOT NULL,
        outcome TEXT NOT NULL,
        label TEXT NOT NULL,
        n INTEGER NOT NULL,
        energy_joules REAL NOT NULL,
        energy_n INTEGER NOT NULL,
        PRIMARY KEY (decision, state, outcome, label)
      ) WITHOUT ROWID;
      INSERT INTO job_totals (decision, state, outcome, label, n, energy_joules, energy_n)
        SELECT decision, state, IFNULL(outcome, ''), IFNULL(label, ''), COUNT(*), TOTAL(energy_joules), COUNT(energy_joules)
        FROM jobs GROUP BY 1, 2, 3, 4;
      CREATE TRIGGER job_totals_insert AFTER INSERT ON jobs BEGIN
        ${TOTALS_ADD}
      END;
      CREATE TRIGGER job_totals_delete AFTER DELETE ON jobs BEGIN
        ${TOTALS_REMOVE}
      END;
      CREATE TRIGGER job_totals_update AFTER UPDATE OF decision, state, outcome, label, energy_joules ON jobs BEGIN
        ${TOTALS_REMOVE}
        ${TOTALS_ADD}
      END;
    `,
  },
  {
    version: 5,
    name: 'every app of a job, and the client of a ticket',
    // A ticket's client may run several apps one after another under the ticket's tag (Hadoop's
    // grep: a search, then a sort; Pig and Hive stages): each is a row here, in the order they
    // were bound (ordinal 1 the first, the job's app_id), with its state as last tracked. A
    // ticket's client (run) reports itself running and then exited: until it has exited, a job
    // whose apps have all ended waits for its next app instead of being judged.
    sql: `
      CREATE TABLE job_apps (
        app_id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL REFERENCES jobs (id),
        ordinal INTEGER NOT NULL,
        state TEXT NOT NULL,
        final_status TEXT,
        queue TEXT,
        started_ms INTEGER,
        finished_ms INTEGER,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX job_apps_job ON job_apps (job_id, ordinal);
      ALTER TABLE tickets ADD COLUMN client_state TEXT
        CHECK (client_state IN ('running', 'exited') OR client_state IS NULL);
      ALTER TABLE tickets ADD COLUMN client_exit_code INTEGER;
      ALTER TABLE tickets ADD COLUMN client_seen_ms INTEGER;
    `,
  },
  {
    version: 6,
    name: "a running job's predicted finish",
    // The admission's estimated finish is its promise and stays as it was; a running job's
    // predicted finish is its lane's placement made again from its tasks' progress, written
    // whenever its lane is rebuilt from them (src/loop/lane-progress.ts). NULL until then: the
    // API then shows the estimate as the prediction.
    sql: `
      ALTER TABLE jobs ADD COLUMN predicted_finish_ms INTEGER;
    `,
  },
  {
    version: 7,
    name: 'the archive: closed jobs moved out of the live tables, and their totals',
    // A ledger that keeps every job forever grows without end, and so does what an instance on
    // PostgreSQL holds in memory (its working copy). Closed jobs older than
    // ledger.retention.archiveAfterDays are moved, with their decisions, actions, idempotent
    // answers, tickets and apps, into these tables, a batch per transaction (src/store/ledger.ts,
    // archiveClosedJobsNow). Each keeps its live table's columns in the same order (a migration
    // that adds a column to a live table adds it here too); archived_jobs adds when it was moved.
    // No foreign keys: a job and its rows are moved and deleted together. An idempotency key
    // may be used again once its job is archived, so its archived rows are keyed by the job too.
    // archive_totals holds the counts of the archived jobs as job_totals does for the live ones:
    // countJobs adds both, and deleting archived jobs (ledger.retention.deleteAfterDays) keeps
    // them counted. jobs_closed finds the jobs to archive; idempotency_job moves a job's keys.
    sql: `
      CREATE TABLE archived_jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        user TEXT NOT NULL,
        submitter TEXT NOT NULL,
        source TEXT NOT NULL,
        job_type TEXT NOT NULL,
        maps INTEGER NOT NULL,
        reduces INTEGER NOT NULL,
        input_bytes INTEGER NOT NULL,
        arrival_ms INTEGER NOT NULL,
        deadline_ms INTEGER NOT NULL,
        decision TEXT NOT NULL,
        reason TEXT,
        estimated_finish_ms INTEGER,
        earliest_deadline_ms INTEGER,
        queue TEXT,
        label TEXT,
        priority INTEGER,
        app_id TEXT,
        state TEXT NOT NULL,
        outcome TEXT,
        finished_ms INTEGER,
        energy_joules REAL,
        spec TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        predicted_finish_ms INTEGER,
        archived_ms INTEGER NOT NULL
      );
      CREATE INDEX archived_jobs_created ON archived_jobs (created_ms, id);
      CREATE INDEX archived_jobs_decision_created ON archived_jobs (decision, created_ms, id);
      CREATE INDEX archived_jobs_state_created ON archived_jobs (state, created_ms, id);
      CREATE INDEX archived_jobs_queue_created ON archived_jobs (queue, created_ms, id);
      CREATE INDEX archived_jobs_user_created ON archived_jobs (user, created_ms, id);
      CREATE INDEX archived_jobs_updated ON archived_jobs (updated_ms);

      CREATE TABLE archived_decisions (
        id INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        policy TEXT NOT NULL,
        decision TEXT NOT NULL,
        detail TEXT NOT NULL
      );
      CREATE INDEX archived_decisions_job ON archived_decisions (job_id);

      CREATE TABLE archived_actions (
        id INTEGER PRIMARY KEY,
        job_id TEXT,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        result TEXT,
        error TEXT,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE INDEX archived_actions_job ON archived_actions (job_id);

      CREATE TABLE archived_idempotency (
        submitter TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        job_id TEXT NOT NULL,
        status INTEGER NOT NULL,
        response TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        PRIMARY KEY (job_id, submitter, key)
      );

      CREATE TABLE archived_tickets (
        job_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        expires_ms INTEGER NOT NULL,
        app_id TEXT,
        detail TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        client_state TEXT,
        client_exit_code INTEGER,
        client_seen_ms INTEGER
      );

      CREATE TABLE archived_job_apps (
        app_id TEXT PRIMARY KEY,
        job_id TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        state TEXT NOT NULL,
        final_status TEXT,
        queue TEXT,
        started_ms INTEGER,
        finished_ms INTEGER,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE INDEX archived_job_apps_job ON archived_job_apps (job_id, ordinal);

      CREATE TABLE archive_totals (
        decision TEXT NOT NULL,
        state TEXT NOT NULL,
        outcome TEXT NOT NULL,
        label TEXT NOT NULL,
        n INTEGER NOT NULL,
        energy_joules REAL NOT NULL,
        energy_n INTEGER NOT NULL,
        PRIMARY KEY (decision, state, outcome, label)
      );

      CREATE INDEX jobs_closed ON jobs (state, updated_ms);
      CREATE INDEX idempotency_job ON idempotency (job_id);
    `,
  },
];

/** Tables derived from others by triggers: each ledger keeps its own, none is shipped. */
export const DERIVED_TABLES: readonly string[] = ['job_totals'];
