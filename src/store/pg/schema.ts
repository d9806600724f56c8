/**
 * The PostgreSQL ledger's schema: its tables (the SQLite ledger's, column for column, plus
 * `row_id` and `seq`), its migrations, and the queries a load of a working copy reads by.
 */
import { CLOSED_JOB_STATES } from '../types';

/**
 * Every live table of the ledger, shipped to PostgreSQL and loaded into each working copy,
 * referenced tables first. A migration that adds a table lists it here once (and a PostgreSQL
 * migration below creates it there).
 */
export const LEDGER_TABLES: readonly string[] = [
  'jobs',
  'decisions',
  'actions',
  'idempotency',
  'kv',
  'tickets',
  'job_apps',
  'archive_totals',
];

/**
 * The archive's tables (SQLite migration 7): filled in PostgreSQL by a batch of archiving
 * (PostgresLedger.archiveClosedJobs, moveToArchive), never loaded nor followed; a working copy's
 * stay empty. The archive is read in PostgreSQL.
 */
export const ARCHIVE_TABLES: readonly string[] = [
  'archived_jobs',
  'archived_decisions',
  'archived_actions',
  'archived_idempotency',
  'archived_tickets',
  'archived_job_apps',
];

/**
 * Every table a working copy knows the shape of: the live ones, then the archive's (whose keys a
 * batch of archiving upserts on; a working copy never writes them, so none of their rows ships).
 */
export const SHIPPED_TABLES: readonly string[] = [...LEDGER_TABLES, ...ARCHIVE_TABLES];

/** The states a job ends in, as a list for SQL. */
export const CLOSED_SQL = CLOSED_JOB_STATES.map((s) => `'${s}'`).join(', ');

/**
 * A job that is history at a cutoff ($1): closed, last written before it, with no write pending
 * and no ticket waiting (the jobs Ledger.archiveClosedJobs moves). With ledger.retention on, a
 * load leaves these in PostgreSQL's live tables, where the leader archives them from; `j` is the
 * job.
 */
export const HISTORY_JOB = `j.state IN (${CLOSED_SQL}) AND j.updated_ms < $1
  AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.status = 'pending')
  AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.job_id = j.id AND t.status = 'waiting')`;

/**
 * The jobs a load takes at a cutoff ($1): every one that is not history, found by index
 * (migration 4) whatever the history beside them.
 */
export const LOADED_JOB_IDS = `SELECT id FROM jobs WHERE updated_ms >= $1
  UNION SELECT id FROM jobs WHERE state NOT IN (${CLOSED_SQL})
  UNION SELECT job_id FROM actions WHERE status = 'pending' AND job_id IS NOT NULL
  UNION SELECT job_id FROM tickets WHERE status = 'waiting'`;

/**
 * The rows of each live table a load takes once the loaded jobs are known ($1, an array, and
 * the cutoff $2): those of the loaded jobs, and the actions of no job pending or written since the
 * cutoff. Tables absent here are loaded whole.
 */
export const LOADED_ROWS: Readonly<Record<string, string>> = {
  jobs: 'id = ANY($1::text[])',
  decisions: 'job_id = ANY($1::text[])',
  actions: "job_id = ANY($1::text[]) OR (job_id IS NULL AND (status = 'pending' OR updated_ms >= $2))",
  idempotency: 'job_id = ANY($1::text[])',
  tickets: 'job_id = ANY($1::text[])',
  job_apps: 'job_id = ANY($1::text[])',
};

/** Tombstones of deleted rows are kept this long (ms), for followers that fall behind; then pruned. */
export const TOMBSTONE_KEEP_MS = 3_600_000;
/** The writer prunes the tombstones at most this often (ms), with a batch of archiving. */
export const PRUNE_EVERY_MS = 60_000;

/**
 * The PostgreSQL schema's migrations, applied in order at open under an advisory lock, each in
 * its own transaction. The ledger tables mirror the SQLite ones (src/store/migrations.ts) column
 * for column (INTEGER -> BIGINT, REAL -> DOUBLE PRECISION, TEXT -> TEXT) plus `row_id` and `seq`; their
 * checks, foreign keys and unique constraints are the working copy's to enforce (PostgreSQL
 * receives only rows the working copy accepted). Never edit one that has shipped: add the next.
 */
export const PG_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'ledger tables (SQLite migrations 1 to 3), seq, tombstones, fence',
    sql: `
      CREATE SEQUENCE ledger_seq;
      CREATE TABLE fence (epoch BIGINT NOT NULL, holder TEXT);
      INSERT INTO fence (epoch, holder) VALUES (0, NULL);
      CREATE TABLE ledger_deleted (
        tbl TEXT NOT NULL, pk TEXT NOT NULL, seq BIGINT NOT NULL, PRIMARY KEY (tbl, pk)
      );
      CREATE INDEX ledger_deleted_seq ON ledger_deleted (seq);

      CREATE TABLE jobs (
        row_id BIGINT NOT NULL,
        id TEXT PRIMARY KEY, name TEXT NOT NULL, "user" TEXT NOT NULL, submitter TEXT NOT NULL,
        source TEXT NOT NULL, job_type TEXT NOT NULL, maps BIGINT NOT NULL, reduces BIGINT NOT NULL,
        input_bytes BIGINT NOT NULL, arrival_ms BIGINT NOT NULL, deadline_ms BIGINT NOT NULL,
        decision TEXT NOT NULL, reason TEXT, estimated_finish_ms BIGINT, earliest_deadline_ms BIGINT,
        queue TEXT, label TEXT, priority BIGINT, app_id TEXT, state TEXT NOT NULL, outcome TEXT,
        finished_ms BIGINT, energy_joules DOUBLE PRECISION, spec TEXT NOT NULL,
        created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX jobs_seq ON jobs (seq);

      CREATE TABLE decisions (
        row_id BIGINT NOT NULL,
        id BIGINT PRIMARY KEY, job_id TEXT NOT NULL, at_ms BIGINT NOT NULL, policy TEXT NOT NULL,
        decision TEXT NOT NULL, detail TEXT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX decisions_seq ON decisions (seq);

      CREATE TABLE actions (
        row_id BIGINT NOT NULL,
        id BIGINT PRIMARY KEY, job_id TEXT, kind TEXT NOT NULL, payload TEXT NOT NULL,
        status TEXT NOT NULL, attempts BIGINT NOT NULL, result TEXT, error TEXT,
        created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX actions_seq ON actions (seq);

      CREATE TABLE idempotency (
        row_id BIGINT NOT NULL,
        submitter TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, job_id TEXT NOT NULL,
        status BIGINT NOT NULL, response TEXT NOT NULL, created_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        PRIMARY KEY (submitter, key)
      );
      CREATE INDEX idempotency_seq ON idempotency (seq);

      CREATE TABLE kv (
        row_id BIGINT NOT NULL,
        key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX kv_seq ON kv (seq);

      CREATE TABLE tickets (
        row_id BIGINT NOT NULL,
        job_id TEXT PRIMARY KEY, status TEXT NOT NULL, expires_ms BIGINT NOT NULL, app_id TEXT,
        detail TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX tickets_seq ON tickets (seq);
    `,
  },
  {
    version: 2,
    name: 'job_apps, and the client of a ticket (SQLite migration 5)',
    sql: `
      CREATE TABLE job_apps (
        row_id BIGINT NOT NULL,
        app_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, ordinal BIGINT NOT NULL, state TEXT NOT NULL,
        final_status TEXT, queue TEXT, started_ms BIGINT, finished_ms BIGINT,
        created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX job_apps_seq ON job_apps (seq);
      ALTER TABLE tickets ADD COLUMN client_state TEXT, ADD COLUMN client_exit_code BIGINT,
        ADD COLUMN client_seen_ms BIGINT;
      -- seq stays the last column, as in every ledger table.
      DROP INDEX tickets_seq;
      ALTER TABLE tickets RENAME COLUMN seq TO seq_before;
      ALTER TABLE tickets ADD COLUMN seq BIGINT;
      UPDATE tickets SET seq = seq_before;
      ALTER TABLE tickets ALTER COLUMN seq SET NOT NULL, DROP COLUMN seq_before;
      CREATE INDEX tickets_seq ON tickets (seq);
    `,
  },
  {
    version: 3,
    name: "a running job's predicted finish (SQLite migration 6)",
    sql: `
      ALTER TABLE jobs ADD COLUMN predicted_finish_ms BIGINT;
      -- seq stays the last column, as in every ledger table.
      DROP INDEX jobs_seq;
      ALTER TABLE jobs RENAME COLUMN seq TO seq_before;
      ALTER TABLE jobs ADD COLUMN seq BIGINT;
      UPDATE jobs SET seq = seq_before;
      ALTER TABLE jobs ALTER COLUMN seq SET NOT NULL, DROP COLUMN seq_before;
      CREATE INDEX jobs_seq ON jobs (seq);
    `,
  },
  {
    version: 4,
    name: 'the archive, its totals, and tombstones pruned past a horizon (SQLite migration 7)',
    // The archive is read here, never loaded: its indexes serve the API's pages (newest first,
    // then by id in SQLite's order, hence COLLATE "C"), a job's rows, deletion by age, and
    // followers, which learn from the seq of archived jobs (and of actions of no job) which
    // rows left the live tables: a batch of archiving leaves no tombstone.
    // Tombstones record when they were made; the writer prunes those older than an hour, and
    // ledger_horizon holds the highest seq pruned: a follower that last saw less loads again.
    // A load reads the open and recent jobs by these indexes, never the history beside them
    // (HISTORY_JOB): the jobs written since the cutoff, those not closed, those with a write
    // pending or a ticket waiting; then their rows by job. The history's totals come from
    // jobs_closed alone (an index-only scan), and the leader picks history to archive by it.
    sql: `
      -- A batch of archiving moves each job's rows by their job; a load reads them so too.
      CREATE INDEX decisions_job ON decisions (job_id);
      CREATE INDEX actions_job ON actions (job_id);
      CREATE INDEX idempotency_job ON idempotency (job_id);
      CREATE INDEX job_apps_job ON job_apps (job_id);
      CREATE INDEX jobs_updated ON jobs (updated_ms);
      -- The closed states (CLOSED_JOB_STATES) as they are now: a load's query names the same.
      CREATE INDEX jobs_open ON jobs (id)
        WHERE state NOT IN ('rejected', 'finished', 'failed', 'killed', 'lost', 'expired', 'cancelled');
      CREATE INDEX jobs_closed ON jobs (state, updated_ms) INCLUDE (decision, outcome, label, energy_joules);
      CREATE INDEX actions_pending ON actions (job_id) WHERE status = 'pending';
      CREATE INDEX actions_orphans ON actions (updated_ms) WHERE job_id IS NULL;
      CREATE INDEX tickets_waiting ON tickets (job_id) WHERE status = 'waiting';

      ALTER TABLE ledger_deleted ADD COLUMN at TIMESTAMPTZ NOT NULL DEFAULT now();
      CREATE INDEX ledger_deleted_at ON ledger_deleted (at);
      CREATE TABLE ledger_horizon (seq BIGINT NOT NULL);
      INSERT INTO ledger_horizon (seq) VALUES (0);

      CREATE TABLE archive_totals (
        row_id BIGINT NOT NULL,
        decision TEXT NOT NULL, state TEXT NOT NULL, outcome TEXT NOT NULL, label TEXT NOT NULL,
        n BIGINT NOT NULL, energy_joules DOUBLE PRECISION NOT NULL, energy_n BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        PRIMARY KEY (decision, state, outcome, label)
      );
      CREATE INDEX archive_totals_seq ON archive_totals (seq);

      CREATE TABLE archived_jobs (
        row_id BIGINT NOT NULL,
        id TEXT PRIMARY KEY, name TEXT NOT NULL, "user" TEXT NOT NULL, submitter TEXT NOT NULL,
        source TEXT NOT NULL, job_type TEXT NOT NULL, maps BIGINT NOT NULL, reduces BIGINT NOT NULL,
        input_bytes BIGINT NOT NULL, arrival_ms BIGINT NOT NULL, deadline_ms BIGINT NOT NULL,
        decision TEXT NOT NULL, reason TEXT, estimated_finish_ms BIGINT, earliest_deadline_ms BIGINT,
        queue TEXT, label TEXT, priority BIGINT, app_id TEXT, state TEXT NOT NULL, outcome TEXT,
        finished_ms BIGINT, energy_joules DOUBLE PRECISION, spec TEXT NOT NULL,
        created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL, predicted_finish_ms BIGINT,
        archived_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX archived_jobs_created ON archived_jobs (created_ms, id COLLATE "C");
      CREATE INDEX archived_jobs_decision_created ON archived_jobs (decision, created_ms, id COLLATE "C");
      CREATE INDEX archived_jobs_state_created ON archived_jobs (state, created_ms, id COLLATE "C");
      CREATE INDEX archived_jobs_queue_created ON archived_jobs (queue, created_ms, id COLLATE "C");
      CREATE INDEX archived_jobs_user_created ON archived_jobs ("user", created_ms, id COLLATE "C");
      CREATE INDEX archived_jobs_updated ON archived_jobs (updated_ms);
      CREATE INDEX archived_jobs_seq ON archived_jobs (seq);

      CREATE TABLE archived_decisions (
        row_id BIGINT NOT NULL,
        id BIGINT PRIMARY KEY, job_id TEXT NOT NULL, at_ms BIGINT NOT NULL, policy TEXT NOT NULL,
        decision TEXT NOT NULL, detail TEXT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX archived_decisions_job ON archived_decisions (job_id);

      CREATE TABLE archived_actions (
        row_id BIGINT NOT NULL,
        id BIGINT PRIMARY KEY, job_id TEXT, kind TEXT NOT NULL, payload TEXT NOT NULL,
        status TEXT NOT NULL, attempts BIGINT NOT NULL, result TEXT, error TEXT,
        created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX archived_actions_job ON archived_actions (job_id);
      CREATE INDEX archived_actions_orphans ON archived_actions (updated_ms) WHERE job_id IS NULL;
      CREATE INDEX archived_actions_orphans_seq ON archived_actions (seq) WHERE job_id IS NULL;

      CREATE TABLE archived_idempotency (
        row_id BIGINT NOT NULL,
        submitter TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, job_id TEXT NOT NULL,
        status BIGINT NOT NULL, response TEXT NOT NULL, created_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        PRIMARY KEY (job_id, submitter, key)
      );

      CREATE TABLE archived_tickets (
        row_id BIGINT NOT NULL,
        job_id TEXT PRIMARY KEY, status TEXT NOT NULL, expires_ms BIGINT NOT NULL, app_id TEXT,
        detail TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        client_state TEXT, client_exit_code BIGINT, client_seen_ms BIGINT,
        seq BIGINT NOT NULL
      );

      CREATE TABLE archived_job_apps (
        row_id BIGINT NOT NULL,
        app_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, ordinal BIGINT NOT NULL, state TEXT NOT NULL,
        final_status TEXT, queue TEXT, started_ms BIGINT, finished_ms BIGINT,
        created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL
      );
      CREATE INDEX archived_job_apps_job ON archived_job_apps (job_id, ordinal);
    `,
  },
];

/** The advisory lock key the migrations run under (two sidecars opening at once migrate once). */
export const MIGRATION_LOCK = 7_210_442_001;
