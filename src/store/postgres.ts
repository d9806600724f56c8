/**
 * The ledger on PostgreSQL, shared by several sidecars of which one writes (the leader) and the
 * others follow. The Ledger interface is synchronous (a decision and its rows land in one
 * transaction with no await in between), so every read and write goes to a working copy: an
 * in-memory SqliteLedger, the same schema and code as the embedded store. Temporary triggers on
 * the working copy's tables note every changed row (table, primary key) in `_changes`; before
 * the next turn of the event loop the changed rows are read as they now stand and shipped to
 * PostgreSQL, in commit order, one PostgreSQL transaction per group. `flush()` resolves once
 * everything written so far is committed there.
 *
 * In PostgreSQL each ledger table has the same columns plus `row_id` (the SQLite rowid: the
 * rows' order) and `seq`, set from one sequence on
 * every upsert, so a follower fetches what changed after the last seq it saw; a deleted row
 * leaves a tombstone in `ledger_deleted`, pruned after TOMBSTONE_KEEP_MS (a follower that last
 * saw less than the highest seq pruned loads again). The archive (ARCHIVE_TABLES: closed jobs
 * moved out of the live tables by ledger.retention) is filled in PostgreSQL itself and never
 * loaded: a working copy holds the live rows only, and the archive is read in PostgreSQL. One `fence` row holds the
 * epoch of the writer: a writer takes over by raising it, and each shipping transaction first
 * reads it FOR SHARE and aborts when it is no longer its own (the row lock makes a new writer's
 * raise wait for an old writer's transaction in flight, whose later writes then fail).
 */
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { Pool, types as pgTypes, type PoolClient } from 'pg';
import { SidecarError } from '../errors/base';
import { LedgerFencedError } from '../errors/ledger-fenced';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { LedgerUnavailableError } from '../errors/ledger-unavailable';
import { ValidationError } from '../errors/validation';
import { redactText, type Logger } from '../log';
import { decodeRow, JOB_ROW_TABLES, SqliteLedger } from './ledger';
import {
  CLOSED_JOB_STATES,
  type ActionCount,
  type ActionRecord,
  type ActionStatus,
  type ArchiveBatch,
  type ArchivedJob,
  type ArchivedJobDetail,
  type DecisionRecord,
  type IdempotentAnswer,
  type JobAppRecord,
  type JobCount,
  type JobPatch,
  type JobQuery,
  type JobRecord,
  type Ledger,
  type NewJob,
  type TicketClient,
  type TicketRecord,
  type TicketStatus,
  type TrackedApp,
} from './types';

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
const SHIPPED_TABLES: readonly string[] = [...LEDGER_TABLES, ...ARCHIVE_TABLES];

/** The states a job ends in, as a list for SQL. */
const CLOSED_SQL = CLOSED_JOB_STATES.map((s) => `'${s}'`).join(', ');

/**
 * A job that is history at a cutoff ($1): closed, last written before it, with no write pending
 * and no ticket waiting (the jobs Ledger.archiveClosedJobs moves). With ledger.retention on, a
 * load leaves these in PostgreSQL's live tables, where the leader archives them from; `j` is the
 * job.
 */
const HISTORY_JOB = `j.state IN (${CLOSED_SQL}) AND j.updated_ms < $1
  AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.status = 'pending')
  AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.job_id = j.id AND t.status = 'waiting')`;

/**
 * The jobs a load takes at a cutoff ($1): every one that is not history, found by index
 * (migration 4) whatever the history beside them.
 */
const LOADED_JOB_IDS = `SELECT id FROM jobs WHERE updated_ms >= $1
  UNION SELECT id FROM jobs WHERE state NOT IN (${CLOSED_SQL})
  UNION SELECT job_id FROM actions WHERE status = 'pending' AND job_id IS NOT NULL
  UNION SELECT job_id FROM tickets WHERE status = 'waiting'`;

/**
 * The rows of each live table a load takes once the loaded jobs are known ($1, an array, and
 * the cutoff $2): those of the loaded jobs, and the actions of no job pending or written since the
 * cutoff. Tables absent here are loaded whole.
 */
const LOADED_ROWS: Readonly<Record<string, string>> = {
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
const PRUNE_EVERY_MS = 60_000;

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
const MIGRATION_LOCK = 7_210_442_001;
/** Rows per INSERT statement when shipping or loading (27 columns a job: well under 65,535 parameters). */
const ROWS_PER_STATEMENT = 500;
/** Rows deleted per statement when shipping (a batch of archiving deletes thousands). */
const DELETES_PER_STATEMENT = 5_000;
/** Groups merged into one PostgreSQL transaction when shipping has fallen behind. */
const MAX_MERGED_GROUPS = 64;
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 5_000;

export interface PostgresLedgerOptions {
  /** The clock the rows are stamped with (as SqliteLedger's). */
  clock?: () => number;
  /** Connections in the pool (default 4). */
  poolSize?: number;
  /** How long flush (and a write awaiting it) waits for PostgreSQL before LedgerUnavailableError (default 5,000 ms). */
  flushTimeoutMs?: number;
  /**
   * `now`: take the ledger over at open with the fence's epoch + 1 (one sidecar on PostgreSQL,
   * no election); `later`: open as a follower, writes refused until takeOver.
   */
  writer: 'now' | 'later';
  /** Who holds the fence, as recorded there (default host:pid). */
  holder?: string;
  logger?: Logger;
  /**
   * ledger.retention.archiveAfterDays in ms, with retention on: a job closed and last written
   * longer ago than this, with no write pending and no ticket waiting, is history (HISTORY_JOB). A
   * load leaves history in PostgreSQL, counted in the totals, found by id and archived from
   * there by the writer (archiveClosedJobs): what an instance loads and holds is its open and
   * recent jobs, however long the ledger has lived. Unset: a load takes every live row.
   */
  archiveAfterMs?: number;
}

/** Totals as job_totals and archive_totals keep them: '' for no outcome or label. */
interface TotalsRow {
  decision: string;
  state: string;
  outcome: string;
  label: string;
  n: number;
  joules: number;
  energyN: number;
}

/** What the load of a working copy left in PostgreSQL's live tables (PostgresLedgerOptions.archiveAfterMs). */
interface History {
  /** The load's cutoff: history is closed jobs last written before it. */
  cutoffMs: number;
  /** Their totals, by decision, state, outcome and label; lowered as they are archived. */
  totals: Map<string, TotalsRow>;
}

const totalsKey = (t: Pick<TotalsRow, 'decision' | 'state' | 'outcome' | 'label'>): string =>
  JSON.stringify([t.decision, t.state, t.outcome, t.label]);

/** Adds `sign` times one job (its totals columns as PostgreSQL or SQLite reads them) to `totals`. */
function countInto(
  totals: Map<string, TotalsRow>,
  job: {
    decision: string;
    state: string;
    outcome: string | null;
    label: string | null;
    energy_joules: number | null;
  },
  sign: 1 | -1,
): void {
  const row = {
    decision: job.decision,
    state: job.state,
    outcome: job.outcome ?? '',
    label: job.label ?? '',
  };
  const k = totalsKey(row);
  const t = totals.get(k) ?? { ...row, n: 0, joules: 0, energyN: 0 };
  t.n += sign;
  if (job.energy_joules !== null) {
    t.joules += sign * job.energy_joules;
    t.energyN += sign;
  }
  if (t.n <= 0) totals.delete(k);
  else totals.set(k, t);
}

/** One table's shape in the working copy, read from SQLite. */
interface TableShape {
  name: string;
  columns: string[];
  /**
   * The columns in PostgreSQL: `row_id` (the SQLite rowid, so that a loaded copy keeps the
   * rows' order, which breaks ties in listJobs) and then `columns`. A row travels in this order.
   */
  pgColumns: string[];
  /** Which of pgColumns are whole numbers (INTEGER in SQLite, BIGINT in PostgreSQL). */
  integer: boolean[];
  pk: string[];
  /** The row (rowid first) with this primary key, raw. */
  select: Database.Statement;
  /** Writes a row read from PostgreSQL (rowid first) into the working copy, inserting or updating. */
  apply: (row: unknown[]) => void;
  remove: Database.Statement;
}

/** An in-memory SqliteLedger with its change capture: the working copy once installed. */
interface WorkingCopy {
  work: SqliteLedger;
  shapes: Map<string, TableShape>;
  changes: { read: Database.Statement; clear: Database.Statement };
  /** What its load left in PostgreSQL; undefined when it loaded every live row. */
  history?: History;
}

/** The columns of an archived job its totals are kept by, and when it was last written. */
interface ArchivedTotals {
  decision: string;
  state: string;
  outcome: string | null;
  label: string | null;
  energy_joules: number | null;
  updated_ms: number;
}

/** What a follower fetches of a job moved to the archive: its rows go from the working copy. */
const ARCHIVED_JOB = '(archived job)';

/** Rows read from PostgreSQL per FETCH when loading a fresh working copy, each batch applied at once. */
const LOAD_CHUNK = 5_000;

/** A changed row: its current values, or null when it was deleted. */
interface Change {
  table: string;
  pk: unknown[];
  row: unknown[] | null;
}

interface Group {
  no: number;
  changes: Change[];
  /**
   * A batch of archiving: these jobs (with their rows) and actions of no job are moved in
   * PostgreSQL, from the live tables into the archive's, in the group's transaction, before its
   * changes (the archive's totals). Such a group ships alone, after every group before it.
   */
  archive?: {
    jobIds: string[];
    actionIds: number[];
    archivedMs: number;
    /** The live rows the move deleted in PostgreSQL, by table: set once it has shipped. */
    rows?: Record<string, number>;
  };
}

interface Waiter {
  target: number;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

function quote(id: string): string {
  return `"${id.replace(/"/g, '""')}"`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** BIGINT as a JS number (the ledger's integers are milliseconds, counts and ids). */
const INT8_OID = 20;
const pgTypeParser = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (v: string) => Number(v)
      : pgTypes.getTypeParser(oid, format ?? 'text')) as typeof pgTypes.getTypeParser,
};

/** The password of a postgres:// URL, to be scrubbed from any text shown. */
function passwordOf(url: string): string | undefined {
  try {
    const p = decodeURIComponent(new URL(url).password);
    return p.length > 0 ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens (and migrates) the PostgreSQL ledger at `url`: a follower until takeOver, or the writer
 * at once with `writer: 'now'` (the fence's epoch + 1).
 */
export async function openPostgresLedger(
  url: string,
  options: PostgresLedgerOptions,
): Promise<PostgresLedger> {
  const ledger = new PostgresLedger(url, options);
  try {
    await ledger.migrate();
    if (options.writer === 'now') {
      const epoch = await ledger.fenceEpoch();
      await ledger.takeOver(epoch + 1, options.holder ?? `${hostname()}:${process.pid}`);
    }
  } catch (err) {
    await ledger.end();
    throw ledger.describe(err, 'opening the ledger');
  }
  return ledger;
}

/** The ledger on PostgreSQL through an in-memory working copy: see the module's comment. */
export class PostgresLedger implements Ledger {
  private readonly pool: Pool;
  private readonly clock: () => number;
  private readonly flushTimeoutMs: number;
  private readonly logger: Logger | undefined;
  private readonly password: string | undefined;
  private readonly archiveAfterMs: number | undefined;
  private work: SqliteLedger;
  /** What the working copy's load left in PostgreSQL (PostgresLedgerOptions.archiveAfterMs). */
  private history: History | undefined;
  private shapes = new Map<string, TableShape>();
  /** The working copy's `_changes`: read in order, and cleared up to a seq. */
  private changes!: { read: Database.Statement; clear: Database.Statement };

  /** The epoch this instance writes with; null while it follows. */
  private epoch: number | null = null;
  /** The epoch a takeOver in progress is raising the fence to. */
  private raising: number | null = null;
  private fenced: LedgerFencedError | undefined;
  private readonly fencedListeners: Array<(err: Error) => void> = [];
  /** Highest PostgreSQL seq applied to the working copy (followers, loads); null before any load. */
  private lastSeq: number | null = null;

  /** Off while rows read from PostgreSQL are applied: those are not changes to ship. */
  private capturing = true;
  private captureScheduled = false;
  private groups: Group[] = [];
  private captured = 0;
  private shipped = 0;
  private shipping = false;
  private waiters: Waiter[] = [];
  private lastError: string | undefined;

  private followTimer: NodeJS.Timeout | undefined;
  private catchingUp: Promise<void> | undefined;
  private closing = false;
  private ended: Promise<void> | undefined;

  /** Use openPostgresLedger: it migrates the schema and takes the writer's role when asked. */
  constructor(url: string, options: Omit<PostgresLedgerOptions, 'writer'>) {
    this.clock = options.clock ?? (() => Date.now());
    this.flushTimeoutMs = options.flushTimeoutMs ?? 5_000;
    this.logger = options.logger;
    this.archiveAfterMs = options.archiveAfterMs;
    this.password = passwordOf(url);
    this.pool = new Pool({
      connectionString: url,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: Math.max(1_000, this.flushTimeoutMs),
      // A query that hangs (a server that stopped answering) fails, and shipping retries it; a
      // takeover's raise may wait that long for an old writer's transaction in flight.
      query_timeout: Math.max(30_000, 4 * this.flushTimeoutMs),
      types: pgTypeParser,
    });
    // An idle client losing its connection (PostgreSQL restarted) must not crash the process.
    this.pool.on('error', (err) => {
      this.lastError = this.scrub(err.message);
    });
    this.work = this.newWorkingCopy();
  }

  // --- roles --------------------------------------------------------------------------

  /** True once takeOver succeeded and no newer writer has fenced this one. */
  isWriter(): boolean {
    return this.epoch !== null && this.fenced === undefined;
  }

  /** The fence's epoch now. */
  async fenceEpoch(): Promise<number> {
    const r = await this.pool.query<{ epoch: number }>('SELECT epoch FROM fence');
    return r.rows[0]?.epoch ?? 0;
  }

  /**
   * Becomes the writer with `epoch`: raises the fence in one transaction (throws
   * LedgerFencedError when it already holds `epoch` or more: a newer leader), then brings the
   * working copy up to date (all of PostgreSQL when it never followed, else what changed since).
   */
  async takeOver(epoch: number, holder: string): Promise<void> {
    try {
      await this.raiseAndLoad(epoch, holder);
    } catch (err) {
      throw this.describe(err, 'taking the ledger over');
    }
  }

  private async raiseAndLoad(epoch: number, holder: string): Promise<void> {
    if (this.fenced) throw this.fenced;
    if (this.closing) throw new Error('the ledger is closed');
    if (!Number.isSafeInteger(epoch) || epoch < 1)
      throw new ValidationError([
        { path: 'epoch', message: `must be a positive whole number, got ${epoch}` },
      ]);
    this.raising = epoch;
    try {
      await this.inTransaction(async (client) => {
        // The same holder raising to the same epoch again (a takeOver retried after its load
        // failed) is no newer writer.
        const r = await client.query(
          'UPDATE fence SET epoch = $1, holder = $2 WHERE epoch < $1 OR (epoch = $1 AND holder = $2)',
          [epoch, holder],
        );
        if (r.rowCount === 0) {
          const now = await client.query<{ epoch: number; holder: string | null }>(
            'SELECT epoch, holder FROM fence',
          );
          throw new LedgerFencedError(
            `the ledger is held with epoch ${now.rows[0]?.epoch} by ${now.rows[0]?.holder ?? 'another sidecar'}: epoch ${epoch} is not newer`,
            { epoch, currentEpoch: now.rows[0]?.epoch ?? null, holder: now.rows[0]?.holder ?? null },
          );
        }
      });
      if (this.epoch === null) {
        this.stopFollowing();
        // A follower's fetch begun before the fence was raised may miss the old writer's last
        // rows: let it end, then fetch again from after it.
        await this.catchingUp?.catch(() => undefined);
        await this.catchUp();
      }
      this.epoch = epoch;
    } finally {
      this.raising = null;
    }
  }

  /**
   * Keeps the working copy current while following: every `intervalMs`, fetches the rows whose
   * seq is above the last seen. Stops by itself at takeOver or close.
   */
  follow(intervalMs: number): void {
    if (this.epoch !== null || this.closing) return;
    this.stopFollowing();
    const tick = (): void => {
      this.catchUp().catch((err: unknown) => {
        this.lastError = this.scrub(err instanceof Error ? err.message : String(err));
        this.logger?.warn('ledger: following PostgreSQL failed; retrying', { error: this.lastError });
      });
    };
    this.followTimer = setInterval(tick, Math.max(10, intervalMs));
    this.followTimer.unref();
    tick();
  }

  /** `cb` is called once, when a newer writer fences this one: stop acting at once. */
  onFenced(cb: (err: Error) => void): void {
    if (this.fenced) cb(this.fenced);
    else this.fencedListeners.push(cb);
  }

  /** What went wrong with PostgreSQL last (password removed), while it is still failing. */
  get lastFailure(): string | undefined {
    return this.lastError;
  }

  /** The working copy, to inspect (its rows against PostgreSQL's); write through this ledger only. */
  workingCopy(): SqliteLedger {
    return this.work;
  }

  /** Groups of changes captured and not yet committed in PostgreSQL. */
  get unshipped(): number {
    return this.groups.length;
  }

  // --- the working copy ----------------------------------------------------------------

  /** A fresh in-memory SqliteLedger with the change capture on every ledger table. */
  private newWorkingCopy(): SqliteLedger {
    const copy = this.buildWorkingCopy();
    this.install(copy);
    return copy.work;
  }

  /** Makes `copy` the working copy, its shapes and change log those read and shipped. */
  private install(copy: WorkingCopy): void {
    this.work = copy.work;
    this.shapes = copy.shapes;
    this.changes = copy.changes;
    this.history = copy.history;
  }

  /**
   * A fresh in-memory SqliteLedger with the change capture on every shipped table, not yet the
   * working copy: its changes are captured only once it is (install).
   */
  private buildWorkingCopy(): WorkingCopy {
    const work = SqliteLedger.open(':memory:', { clock: this.clock });
    const db = work.connection;
    db.function('yss_capture', { deterministic: false }, () => {
      if (!this.capturing || this.work !== work) return 0;
      this.scheduleCapture();
      return 1;
    });
    db.exec(
      'CREATE TEMP TABLE _changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, pk TEXT NOT NULL)',
    );
    const shapes = new Map<string, TableShape>();
    for (const name of SHIPPED_TABLES) {
      const info = db.prepare(`PRAGMA main.table_info(${quote(name)})`).all() as Array<{
        name: string;
        type: string;
        pk: number;
      }>;
      if (info.length === 0) throw new Error(`the ledger has no table ${name}`);
      const columns = info.map((c) => c.name);
      const pk = info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      const key = (prefix: string) => `json_array(${pk.map((c) => `${prefix}.${quote(c)}`).join(', ')})`;
      const t = quote(name);
      db.exec(`
        CREATE TEMP TRIGGER yss_capture_${name}_insert AFTER INSERT ON main.${t} WHEN yss_capture()
          BEGIN INSERT INTO _changes (tbl, pk) VALUES ('${name}', ${key('NEW')}); END;
        CREATE TEMP TRIGGER yss_capture_${name}_update AFTER UPDATE ON main.${t} WHEN yss_capture()
          BEGIN
            INSERT INTO _changes (tbl, pk) VALUES ('${name}', ${key('NEW')});
            INSERT INTO _changes (tbl, pk) SELECT '${name}', ${key('OLD')} WHERE ${key('OLD')} IS NOT ${key('NEW')};
          END;
        CREATE TEMP TRIGGER yss_capture_${name}_delete AFTER DELETE ON main.${t} WHEN yss_capture()
          BEGIN INSERT INTO _changes (tbl, pk) VALUES ('${name}', ${key('OLD')}); END;
      `);
      const cols = columns.map(quote).join(', ');
      const wherePk = pk.map((c) => `${quote(c)} = ?`).join(' AND ');
      const notPk = columns.filter((c) => !pk.includes(c));
      // An INTEGER PRIMARY KEY is the rowid itself: written through its column only.
      const rowidIsPk =
        pk.length === 1 && info.find((c) => c.name === pk[0])!.type.toUpperCase() === 'INTEGER';
      const target = rowidIsPk ? cols : `rowid, ${cols}`;
      const upsert = db.prepare(
        `INSERT INTO main.${t} (${target}) VALUES (${[...(rowidIsPk ? [] : ['?']), ...columns.map(() => '?')].join(', ')})
         ON CONFLICT (${pk.map(quote).join(', ')}) ${
           notPk.length
             ? `DO UPDATE SET ${notPk.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`
             : 'DO NOTHING'
         }`,
      );
      // The same, the rowid left to SQLite.
      const upsertNumbered = db.prepare(
        `INSERT INTO main.${t} (${cols}) VALUES (${columns.map(() => '?').join(', ')})
         ON CONFLICT (${pk.map(quote).join(', ')}) ${
           notPk.length
             ? `DO UPDATE SET ${notPk.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`
             : 'DO NOTHING'
         }`,
      );
      shapes.set(name, {
        name,
        columns,
        pgColumns: ['row_id', ...columns],
        integer: [true, ...info.map((c) => c.type.toUpperCase() === 'INTEGER')],
        pk,
        select: db.prepare(`SELECT rowid, ${cols} FROM main.${t} WHERE ${wherePk}`).raw(true),
        apply: (row) => {
          if (rowidIsPk) return upsert.run(...row.slice(1));
          try {
            return upsert.run(...row);
          } catch (err) {
            // A row whose row_id another row of this copy holds: history a load left in
            // PostgreSQL (archiveAfterMs) keeps its row_id there while a writer that never held
            // it numbers new rows from its own highest. Only the order of rows made in the same
            // millisecond rests on it: the row is kept under a rowid of its own.
            if ((err as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_ROWID') throw err;
            return upsertNumbered.run(...row.slice(1));
          }
        },
        remove: db.prepare(`DELETE FROM main.${t} WHERE ${wherePk}`),
      });
    }
    return {
      work,
      shapes,
      changes: {
        read: db.prepare('SELECT seq, tbl, pk FROM _changes ORDER BY seq').raw(true),
        clear: db.prepare('DELETE FROM _changes WHERE seq <= ?'),
      },
    };
  }

  private get db(): Database.Database {
    return this.work.connection;
  }

  private scheduleCapture(): void {
    if (this.captureScheduled) return;
    this.captureScheduled = true;
    setImmediate(() => this.capture());
  }

  /**
   * Reads the rows `_changes` names as they stand now into the next group to ship, and clears
   * `_changes`. Outside a transaction only: inside one, the rows may yet roll back.
   */
  private capture(): void {
    this.captureScheduled = false;
    // A capture scheduled just before close() finds the working copy closed: close captured it.
    if (!this.db.open) return;
    if (this.db.inTransaction) {
      this.scheduleCapture();
      return;
    }
    const noted = this.changes.read.all() as Array<[number, string, string]>;
    if (noted.length === 0) return;
    const latest = new Map<string, [string, string]>();
    for (const [, tbl, pk] of noted) {
      const k = `${tbl}\u0000${pk}`;
      latest.delete(k);
      latest.set(k, [tbl, pk]);
    }
    const changes: Change[] = [];
    for (const [tbl, pkText] of latest.values()) {
      const shape = this.shapes.get(tbl)!;
      const pk = JSON.parse(pkText) as unknown[];
      const row = (shape.select.get(...pk) as unknown[] | undefined) ?? null;
      changes.push({ table: tbl, pk, row });
    }
    this.changes.clear.run(noted[noted.length - 1]![0]);
    this.groups.push({ no: ++this.captured, changes });
    void this.ship();
  }

  private assertWritable(): void {
    if (this.fenced) throw this.fenced;
    if (this.epoch === null) throw new LedgerReadOnlyError();
  }

  // --- shipping ----------------------------------------------------------------------

  /** Ships the captured groups in order, retrying with backoff; one loop at a time. */
  private async ship(): Promise<void> {
    if (this.shipping) return;
    this.shipping = true;
    let delay = RETRY_FIRST_MS;
    const giveUpAt = () => (this.closing ? this.closeDeadline : Infinity);
    try {
      while (this.groups.length > 0 && !this.fenced) {
        // A batch of archiving moves rows as PostgreSQL holds them: it ships alone, once every
        // group before it has (and no group after it is merged before it).
        const archiving = this.groups.findIndex((g) => g.archive !== undefined);
        const take =
          archiving === 0
            ? this.groups.slice(0, 1)
            : this.groups.slice(0, Math.min(MAX_MERGED_GROUPS, archiving < 0 ? Infinity : archiving));
        try {
          await this.shipGroups(take);
          this.groups.splice(0, take.length);
          this.shipped = take[take.length - 1]!.no;
          if (this.lastError !== undefined)
            this.logger?.info('ledger: PostgreSQL answers again; shipping resumed');
          this.lastError = undefined;
          delay = RETRY_FIRST_MS;
          this.settleWaiters();
        } catch (err) {
          if (err instanceof LedgerFencedError) {
            this.fence(err);
            break;
          }
          const first = this.lastError === undefined;
          this.lastError = this.scrub(err instanceof Error ? err.message : String(err));
          if (first)
            this.logger?.warn('ledger: shipping to PostgreSQL failed; retrying, nothing is dropped', {
              error: this.lastError,
              unshipped: this.groups.length,
            });
          if (Date.now() + delay > giveUpAt()) break;
          await sleep(delay);
          delay = Math.min(delay * 2, RETRY_MAX_MS);
        }
      }
    } finally {
      this.shipping = false;
    }
  }

  /** One PostgreSQL transaction: the fence checked (FOR SHARE), then every row upserted or deleted. */
  private async shipGroups(groups: Group[]): Promise<void> {
    const merged = new Map<string, Change>();
    for (const g of groups)
      for (const c of g.changes) {
        const k = `${c.table}\u0000${JSON.stringify(c.pk)}`;
        merged.delete(k);
        merged.set(k, c);
      }
    const epoch = this.epoch;
    await this.inTransaction(async (client) => {
      const f = await client.query<{ epoch: number; holder: string | null }>(
        'SELECT epoch, holder FROM fence FOR SHARE',
      );
      const current = f.rows[0]?.epoch ?? null;
      if (epoch === null || (current !== epoch && current !== this.raising))
        throw new LedgerFencedError(
          `a newer writer holds the ledger (epoch ${current}, ${f.rows[0]?.holder ?? 'unknown'}); this sidecar wrote with epoch ${epoch}`,
          { epoch: epoch ?? 0, currentEpoch: current, holder: f.rows[0]?.holder ?? null },
        );
      for (const g of groups) if (g.archive) await this.moveToArchive(client, g.archive);
      const byTable = new Map<string, Change[]>();
      for (const c of merged.values()) {
        const list = byTable.get(c.table);
        if (list) list.push(c);
        else byTable.set(c.table, [c]);
      }
      for (const name of SHIPPED_TABLES) {
        const shape = this.shapes.get(name)!;
        const mine = byTable.get(name) ?? [];
        const rows = mine.filter((c) => c.row !== null).map((c) => this.toPg(shape, c.row!));
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
          await this.upsertPg(client, shape, rows.slice(i, i + ROWS_PER_STATEMENT));
        const gone = mine.filter((c) => c.row === null).map((c) => c.pk);
        for (let i = 0; i < gone.length; i += DELETES_PER_STATEMENT)
          await this.deletePg(client, shape, gone.slice(i, i + DELETES_PER_STATEMENT));
      }
    });
  }

  /**
   * Moves a batch of archiving in PostgreSQL: each live table's rows of the jobs (and the actions
   * of no job) are copied into its archive table as they stand there (the groups before this one
   * have shipped: they are the working copy's rows), with a new seq each, then deleted. No
   * tombstone: a follower learns which jobs went from the archive's seq (fetchAndApply).
   */
  private async moveToArchive(client: PoolClient, a: NonNullable<Group['archive']>): Promise<void> {
    const ids = a.jobIds;
    const rows: Record<string, number> = {};
    for (const t of ['jobs', ...JOB_ROW_TABLES]) {
      const live = this.shapes.get(t)!;
      const archived = this.shapes.get(`archived_${t}`)!;
      const cols = live.pgColumns.map(quote).join(', ');
      const extra = t === 'jobs' ? ['archived_ms'] : [];
      const where =
        t === 'jobs'
          ? 'id = ANY($1::text[])'
          : t === 'actions'
            ? 'job_id = ANY($1::text[]) OR id = ANY($2::bigint[])'
            : 'job_id = ANY($1::text[])';
      const notPk = [...live.pgColumns, ...extra, 'seq'].filter((c) => !archived.pk.includes(c));
      const values: unknown[] = t === 'actions' ? [ids, a.actionIds] : [ids];
      if (t === 'jobs') values.push(a.archivedMs);
      await client.query(
        `INSERT INTO ${quote(`archived_${t}`)} (${cols}, ${[...extra, 'seq'].map(quote).join(', ')})
         SELECT ${cols}, ${t === 'jobs' ? '$2::bigint, ' : ''}nextval('ledger_seq') FROM ${quote(t)} WHERE ${where}
         ON CONFLICT (${archived.pk.map(quote).join(', ')}) DO UPDATE SET ${notPk
           .map((c) => `${quote(c)} = excluded.${quote(c)}`)
           .join(', ')}`,
        values,
      );
      const gone = await client.query(
        `DELETE FROM ${quote(t)} WHERE ${where}`,
        t === 'actions' ? [ids, a.actionIds] : [ids],
      );
      rows[t] = gone.rowCount ?? 0;
    }
    a.rows = rows;
  }

  /**
   * Deletes rows by primary key, and leaves a tombstone for each (followers delete them too):
   * two statements for a whole batch, each primary key column as one array parameter.
   */
  private async deletePg(client: PoolClient, shape: TableShape, pks: unknown[][]): Promise<void> {
    if (pks.length === 0) return;
    const arrays = shape.pk.map((col, i) => ({
      values: pks.map((pk) => pk[i]),
      type: shape.integer[shape.pgColumns.indexOf(col)] ? 'bigint' : 'text',
    }));
    await client.query(
      `DELETE FROM ${quote(shape.name)} WHERE (${shape.pk.map(quote).join(', ')}) IN
         (SELECT * FROM unnest(${arrays.map((a, i) => `$${i + 1}::${a.type}[]`).join(', ')}))`,
      arrays.map((a) => a.values),
    );
    await client.query(
      `INSERT INTO ledger_deleted (tbl, pk, seq) SELECT $1, pk, nextval('ledger_seq') FROM unnest($2::text[]) AS pk
       ON CONFLICT (tbl, pk) DO UPDATE SET seq = excluded.seq, at = now()`,
      [shape.name, pks.map((pk) => JSON.stringify(pk))],
    );
  }

  /** A row's values as PostgreSQL takes them: whole numbers in BIGINT columns. */
  private toPg(shape: TableShape, row: unknown[]): unknown[] {
    return row.map((v, i) =>
      shape.integer[i] && typeof v === 'number' && !Number.isInteger(v) ? Math.round(v) : v,
    );
  }

  private async upsertPg(client: PoolClient, shape: TableShape, rows: unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const n = shape.pgColumns.length;
    const values: unknown[] = [];
    const tuples = rows.map((row, r) => {
      values.push(...row);
      return `(${row.map((_, i) => `$${r * n + i + 1}`).join(', ')}, nextval('ledger_seq'))`;
    });
    const notPk = shape.pgColumns.filter((c) => !shape.pk.includes(c));
    await client.query(
      `INSERT INTO ${quote(shape.name)} (${shape.pgColumns.map(quote).join(', ')}, seq) VALUES ${tuples.join(', ')}
       ON CONFLICT (${shape.pk.map(quote).join(', ')}) DO UPDATE SET ${[...notPk, 'seq']
         .map((c) => `${quote(c)} = excluded.${quote(c)}`)
         .join(', ')}`,
      values,
    );
  }

  private fence(err: LedgerFencedError): void {
    if (this.fenced) return;
    this.fenced = err;
    this.logger?.error('ledger: a newer writer holds the ledger; this sidecar writes nothing more', {
      epoch: err.epoch,
      currentEpoch: err.currentEpoch,
    });
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    for (const cb of this.fencedListeners.splice(0)) {
      try {
        cb(err);
      } catch {
        // A listener's failure does not keep the others from hearing.
      }
    }
  }

  private settleWaiters(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.target <= this.shipped) {
        clearTimeout(w.timer);
        w.resolve();
      } else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Resolves once every write made so far is committed in PostgreSQL; rejects with
   * LedgerUnavailableError after flushTimeoutMs (the writes stay queued and ship later), or
   * LedgerFencedError. On a follower (nothing to ship) it resolves at once.
   */
  async flush(): Promise<void> {
    if (this.fenced) throw this.fenced;
    // Writes queued for the working copy's group commit are writes made so far: join it.
    await this.work.flush();
    return this.shippedSoFar();
  }

  /** Resolves once what the working copy has committed so far is committed in PostgreSQL. */
  private shippedSoFar(): Promise<void> {
    if (this.fenced) return Promise.reject(this.fenced);
    this.capture();
    const target = this.captured;
    if (this.shipped >= target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        target,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(
            new LedgerUnavailableError(
              `the ledger's PostgreSQL did not commit within ${this.flushTimeoutMs} ms${this.lastError ? `: ${this.lastError}` : ''}; the writes are kept and shipped when it answers`,
              { waitedMs: this.flushTimeoutMs, reason: this.lastError, retryAfterSeconds: 1 },
            ),
          );
        }, this.flushTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  // --- loading and following -------------------------------------------------------------

  /**
   * Applies to the working copy every row changed in PostgreSQL after the last seq seen (all of
   * them the first time, into a fresh working copy), in seq order, in one SQLite transaction,
   * from one consistent PostgreSQL snapshot.
   */
  catchUp(): Promise<void> {
    this.catchingUp ??= this.fetchAndApply().finally(() => (this.catchingUp = undefined));
    return this.catchingUp;
  }

  private async fetchAndApply(): Promise<void> {
    let fresh = this.lastSeq === null;
    let since = this.lastSeq ?? 0;
    const fetched: Array<{
      seq: number;
      table: string;
      row: unknown[] | null;
      pk: unknown[];
      /** An archived job's totals columns and last write. */
      job?: ArchivedTotals;
    }> = [];
    let archivedIds: Record<string, number> = {};
    let copy: WorkingCopy | undefined;
    let top = since;
    try {
      await this.inTransaction(async (client) => {
        // Tombstones up to the horizon are pruned: a copy that last saw less may have missed
        // deletions, and loads afresh.
        const horizon = await client.query<{ seq: number }>('SELECT seq FROM ledger_horizon');
        if (!fresh && since < (horizon.rows[0]?.seq ?? 0)) {
          fresh = true;
          since = 0;
          top = 0;
        }
        if (fresh) {
          // A fresh copy is filled as the rows come, a chunk at a time (each row once, as it
          // stands in this snapshot: their order does not matter), and replaces the working copy
          // once whole: what the process holds of PostgreSQL's rows at once is one chunk.
          copy = this.buildWorkingCopy();
          top = await this.loadInto(client, copy);
        } else {
          for (const name of LEDGER_TABLES) {
            const shape = this.shapes.get(name)!;
            const r = await client.query<unknown[]>({
              text: `SELECT ${shape.pgColumns.map(quote).join(', ')}, seq FROM ${quote(name)} WHERE seq > $1`,
              values: [since],
              rowMode: 'array',
            });
            for (const row of r.rows) {
              const seq = row.pop() as number;
              fetched.push({ seq, table: name, row, pk: [] });
            }
          }
          // Rows deleted since (a fresh copy needs no tombstone: it has none of the deleted rows).
          const d = await client.query<{ tbl: string; pk: string; seq: number }>(
            'SELECT tbl, pk, seq FROM ledger_deleted WHERE seq > $1',
            [since],
          );
          for (const t of d.rows)
            if (LEDGER_TABLES.includes(t.tbl))
              fetched.push({ seq: t.seq, table: t.tbl, row: null, pk: JSON.parse(t.pk) as unknown[] });
          // Jobs archived since (their rows left the live tables without tombstones), and
          // actions of no job.
          const jobs = await client.query<ArchivedTotals & { id: string; seq: number }>(
            'SELECT id, seq, decision, state, outcome, label, energy_joules, updated_ms FROM archived_jobs WHERE seq > $1',
            [since],
          );
          for (const j of jobs.rows)
            fetched.push({ seq: j.seq, table: ARCHIVED_JOB, row: null, pk: [j.id], job: j });
          const actions = await client.query<{ id: number; seq: number }>(
            'SELECT id, seq FROM archived_actions WHERE job_id IS NULL AND seq > $1',
            [since],
          );
          for (const a of actions.rows) fetched.push({ seq: a.seq, table: 'actions', row: null, pk: [a.id] });
        }
        // The highest ids of the archive and of the live rows, history included: a copy whose
        // live decisions and actions were all archived, or left in PostgreSQL as history, must
        // not number new ones from below them again (ids are keys there, and in the archive).
        const ids = await client.query<{ decisions: number | null; actions: number | null }>(
          `SELECT GREATEST((SELECT MAX(id) FROM archived_decisions), (SELECT MAX(id) FROM decisions)) AS decisions,
             GREATEST((SELECT MAX(id) FROM archived_actions), (SELECT MAX(id) FROM actions)) AS actions`,
        );
        archivedIds = { decisions: ids.rows[0]?.decisions ?? 0, actions: ids.rows[0]?.actions ?? 0 };
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      (copy as WorkingCopy | undefined)?.work.close();
      throw err;
    }
    if (copy !== undefined) {
      // The fresh load replaces the working copy: nothing of an earlier one is kept.
      const old = this.work;
      this.install(copy);
      old.close();
    }
    fetched.sort((a, b) => a.seq - b.seq);
    const db = this.db;
    this.capturing = false;
    db.pragma('foreign_keys = OFF');
    try {
      const archived = {
        held: db.prepare('SELECT 1 FROM main.jobs WHERE id = ?'),
        drop: [
          ...JOB_ROW_TABLES.map((t) => `DELETE FROM main.${t} WHERE job_id = ?`),
          'DELETE FROM main.jobs WHERE id = ?',
        ].map((sql) => db.prepare(sql)),
      };
      db.transaction(() => {
        for (const f of fetched) {
          if (f.table === ARCHIVED_JOB) {
            // A job this copy does not hold was history at its load: counted apart until now.
            const held = archived.held.get(f.pk[0]) !== undefined;
            if (!held && this.history !== undefined && f.job!.updated_ms < this.history.cutoffMs)
              countInto(this.history.totals, f.job!, -1);
            for (const drop of archived.drop) drop.run(f.pk[0]);
            continue;
          }
          const shape = this.shapes.get(f.table)!;
          if (f.row) shape.apply(f.row);
          else shape.remove.run(...f.pk);
        }
        for (const [table, id] of Object.entries(archivedIds)) {
          if (id <= 0) continue;
          const n = db
            .prepare('UPDATE main.sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?')
            .run(id, table);
          if (n.changes === 0)
            db.prepare('INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)').run(table, id);
        }
      })();
    } finally {
      db.pragma('foreign_keys = ON');
      this.capturing = true;
    }
    for (const f of fetched) top = Math.max(top, f.seq);
    this.lastSeq = top;
  }

  /**
   * Fills a fresh copy from PostgreSQL's snapshot (the transaction `client` is in), LOAD_CHUNK
   * rows per FETCH of a cursor, each chunk applied in one SQLite transaction; returns the highest
   * seq read. With archiveAfterMs, the rows of history (HISTORY_JOB at the cutoff) stay in
   * PostgreSQL: the loaded jobs are found by index first, then their rows by job, and the
   * history's totals are counted apart (copy.history).
   */
  private async loadInto(client: PoolClient, copy: WorkingCopy): Promise<number> {
    const db = copy.work.connection;
    const cutoffMs = this.archiveAfterMs === undefined ? undefined : this.clock() - this.archiveAfterMs;
    let values: unknown[] = [];
    if (cutoffMs !== undefined) {
      const ids = await client.query<[string]>({
        text: LOADED_JOB_IDS,
        values: [cutoffMs],
        rowMode: 'array',
      });
      values = [ids.rows.map((r) => r[0]), cutoffMs];
    }
    let top = 0;
    db.pragma('foreign_keys = OFF');
    try {
      for (const name of LEDGER_TABLES) {
        const shape = copy.shapes.get(name)!;
        const where = cutoffMs !== undefined ? LOADED_ROWS[name] : undefined;
        const uses = where === undefined ? [] : values.slice(0, where.includes('$2') ? 2 : 1);
        await client.query(
          `DECLARE yss_load NO SCROLL CURSOR FOR SELECT ${shape.pgColumns.map(quote).join(', ')}, seq FROM ${quote(name)}${
            where === undefined ? '' : ` WHERE ${where}`
          }`,
          uses,
        );
        for (;;) {
          const r = await client.query<unknown[]>({
            text: `FETCH ${LOAD_CHUNK} FROM yss_load`,
            rowMode: 'array',
          });
          if (r.rows.length === 0) break;
          db.transaction(() => {
            for (const row of r.rows) {
              top = Math.max(top, row.pop() as number);
              shape.apply(row);
            }
          })();
        }
        await client.query('CLOSE yss_load');
      }
    } finally {
      db.pragma('foreign_keys = ON');
    }
    if (cutoffMs !== undefined) copy.history = await this.historyAt(client, copy, cutoffMs);
    return top;
  }

  /**
   * The totals of the history a load at `cutoffMs` left in PostgreSQL: those of every closed job
   * last written before the cutoff (an index-only scan of jobs_closed), less those of such jobs
   * it loaded all the same (a write pending, a ticket waiting).
   */
  private async historyAt(client: PoolClient, copy: WorkingCopy, cutoffMs: number): Promise<History> {
    const totals = new Map<string, TotalsRow>();
    const add = (rows: TotalsRow[], sign: 1 | -1) => {
      for (const r of rows) {
        const k = totalsKey(r);
        const t = totals.get(k) ?? { ...r, n: 0, joules: 0, energyN: 0 };
        t.n += sign * r.n;
        t.joules += sign * r.joules;
        t.energyN += sign * r.energyN;
        totals.set(k, t);
      }
    };
    const closedBefore = await client.query<TotalsRow>(
      `SELECT decision, state, COALESCE(outcome, '') AS outcome, COALESCE(label, '') AS label, COUNT(*)::bigint AS n,
         COALESCE(SUM(energy_joules), 0) AS joules, COUNT(energy_joules)::bigint AS "energyN"
       FROM jobs WHERE state IN (${CLOSED_SQL}) AND updated_ms < $1 GROUP BY 1, 2, 3, 4`,
      [cutoffMs],
    );
    add(closedBefore.rows, 1);
    add(
      copy.work.connection
        .prepare(
          `SELECT decision, state, IFNULL(outcome, '') AS outcome, IFNULL(label, '') AS label, COUNT(*) AS n,
             TOTAL(energy_joules) AS joules, COUNT(energy_joules) AS energyN
           FROM main.jobs WHERE state IN (${CLOSED_SQL}) AND updated_ms < ? GROUP BY 1, 2, 3, 4`,
        )
        .all(cutoffMs) as TotalsRow[],
      -1,
    );
    for (const [k, t] of totals) if (t.n <= 0) totals.delete(k);
    const jobs = [...totals.values()].reduce((n, t) => n + t.n, 0);
    if (jobs > 0)
      this.logger?.info(
        'ledger: closed jobs past ledger.retention.archiveAfterDays left in PostgreSQL, to be archived',
        {
          jobs,
          cutoff: new Date(cutoffMs).toISOString(),
        },
      );
    return { cutoffMs, totals };
  }

  private stopFollowing(): void {
    if (this.followTimer) clearInterval(this.followTimer);
    this.followTimer = undefined;
  }

  // --- PostgreSQL plumbing ---------------------------------------------------------------

  async migrate(): Promise<void> {
    await this.inTransaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_version (version INT PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_version')).rows.map(
          (r) => r.version,
        ),
      );
      for (const m of PG_MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query(m.sql);
        await client.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
    });
  }

  /** The PostgreSQL schema's version (the highest migration applied). */
  async pgSchemaVersion(): Promise<number> {
    const r = await this.pool.query<{ v: number }>('SELECT MAX(version) AS v FROM schema_version');
    return r.rows[0]?.v ?? 0;
  }

  private async inTransaction(fn: (client: PoolClient) => Promise<void>, begin = 'BEGIN'): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // The server ending the connection between two queries (a restart) is an event on the client,
    // not a rejected query: without a listener it would crash the process.
    const onError = (err: Error): void => {
      broken = err;
      this.lastError = this.scrub(err.message);
    };
    client.on('error', onError);
    try {
      await client.query(begin);
      await fn(client);
      await client.query('COMMIT');
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollback) {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      }
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** `text` without the URL's password, in any form it may appear in. */
  private scrub(text: string): string {
    let out = redactText(text);
    if (this.password && this.password.length >= 4) out = out.split(this.password).join('[redacted]');
    return out;
  }

  /** An error from PostgreSQL as it may be shown: typed errors as they are, others scrubbed. */
  describe(err: unknown, doing: string): Error {
    // Ours already say what failed, without the password.
    if (err instanceof SidecarError) return err;
    const message = this.scrub(err instanceof Error ? err.message : String(err));
    return new LedgerUnavailableError(`${doing} on PostgreSQL failed: ${message}`, {
      waitedMs: 0,
      reason: message,
    });
  }

  private closeDeadline = Infinity;

  /**
   * Commits what writeSoon queued, stops following and ends the pool once the captured changes
   * are shipped (or after flushTimeoutMs, when PostgreSQL does not answer). `closed` resolves then.
   */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.stopFollowing();
    if (!this.fenced && this.epoch !== null) {
      this.work.commitQueued();
      this.capture();
    }
    this.closeDeadline = Date.now() + this.flushTimeoutMs;
    this.ended = this.drainThenEnd();
  }

  /** Resolves once close() has ended the pool. */
  get closed(): Promise<void> {
    return this.ended ?? Promise.resolve();
  }

  private async drainThenEnd(): Promise<void> {
    const deadline = this.closeDeadline;
    while (this.groups.length > 0 && !this.fenced && Date.now() < deadline) {
      if (!this.shipping) void this.ship();
      await sleep(20);
    }
    if (this.groups.length > 0 && !this.fenced)
      this.logger?.error('ledger: closed with changes PostgreSQL never committed', {
        unshipped: this.groups.length,
      });
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new LedgerUnavailableError('the ledger closed before PostgreSQL committed', { waitedMs: 0 }));
    }
    await this.catchingUp?.catch(() => undefined);
    this.work.close();
    await this.pool.end();
  }

  /** Ends the pool at once (a failed open). */
  async end(): Promise<void> {
    this.closing = true;
    this.stopFollowing();
    await this.pool.end().catch(() => undefined);
  }

  // --- the Ledger interface: writes checked, then the working copy ----------------------------

  transaction<T>(fn: () => T): T {
    return this.work.transaction(fn);
  }

  /** The working copy is in memory: no sync to skip; its rows are shipped as any others. */
  transactionUnsynced<T>(fn: () => T): T {
    return this.work.transaction(fn);
  }

  /**
   * Group commit as SqliteLedger's, resolving only once the group is committed in PostgreSQL
   * (rejects with LedgerUnavailableError when that takes longer than flushTimeoutMs: the
   * writes are kept locally and shipped later).
   */
  async writeSoon(fn: () => void): Promise<void> {
    this.assertWritable();
    await this.work.writeSoon(fn);
    // Its own group is committed in the working copy: wait for that to ship, not for the groups
    // queued since (flush would join the next one).
    await this.shippedSoFar();
  }

  insertJob(job: NewJob): JobRecord {
    this.assertWritable();
    return this.work.insertJob(job);
  }
  updateJob(id: string, patch: JobPatch): JobRecord {
    this.assertWritable();
    return this.work.updateJob(id, patch);
  }
  getJob(id: string): JobRecord | undefined {
    return this.work.getJob(id);
  }
  getJobByAppId(appId: string): JobRecord | undefined {
    return this.work.getJobByAppId(appId);
  }
  listJobs(query?: JobQuery): { jobs: JobRecord[]; total: number } {
    return this.work.listJobs(query);
  }
  openAdmittedJobs(): JobRecord[] {
    return this.work.openAdmittedJobs();
  }
  openAdmittedJobsReused(): JobRecord[] {
    return this.work.openAdmittedJobsReused();
  }
  countOpenAdmittedJobs(): number {
    return this.work.countOpenAdmittedJobs();
  }
  /** The working copy's totals (live and archived jobs) and those of the history its load left in PostgreSQL. */
  countJobs(): JobCount[] {
    const counts = this.work.countJobs();
    if (this.history === undefined || this.history.totals.size === 0) return counts;
    const byKey = new Map(counts.map((c) => [JSON.stringify([c.decision, c.state, c.outcome]), { ...c }]));
    for (const t of this.history.totals.values()) {
      const outcome = (t.outcome || null) as JobCount['outcome'];
      const k = JSON.stringify([t.decision, t.state, outcome]);
      const c = byKey.get(k);
      if (c) c.n += t.n;
      else
        byKey.set(k, {
          decision: t.decision as JobCount['decision'],
          state: t.state as JobCount['state'],
          outcome,
          n: t.n,
        });
    }
    return [...byKey.values()];
  }
  admittedEnergyByLabel(): Array<{ label: string | null; joules: number }> {
    const energy = this.work.admittedEnergyByLabel();
    if (this.history === undefined || this.history.totals.size === 0) return energy;
    const byLabel = new Map(energy.map((e) => [e.label, e.joules]));
    for (const t of this.history.totals.values()) {
      if (t.decision !== 'admitted' || t.energyN <= 0) continue;
      const label = t.label || null;
      byLabel.set(label, (byLabel.get(label) ?? 0) + t.joules);
    }
    return [...byLabel].map(([label, joules]) => ({ label, joules }));
  }
  recordDecision(jobId: string, policy: string, decision: string, detail: unknown): number {
    this.assertWritable();
    return this.work.recordDecision(jobId, policy, decision, detail);
  }
  decisionsOf(jobId: string): DecisionRecord[] {
    return this.work.decisionsOf(jobId);
  }
  enqueueAction(jobId: string | null, kind: string, payload: unknown): ActionRecord {
    this.assertWritable();
    return this.work.enqueueAction(jobId, kind, payload);
  }
  markActionAttempt(id: number): void {
    this.assertWritable();
    this.work.markActionAttempt(id);
  }
  completeAction(
    id: number,
    status: Exclude<ActionStatus, 'pending'>,
    result?: unknown,
    error?: string,
  ): void {
    this.assertWritable();
    this.work.completeAction(id, status, result, error);
  }
  updateActionPayload(id: number, payload: unknown): void {
    this.assertWritable();
    this.work.updateActionPayload(id, payload);
  }
  noteActionError(id: number, error: string): void {
    this.assertWritable();
    this.work.noteActionError(id, error);
  }
  getAction(id: number): ActionRecord | undefined {
    return this.work.getAction(id);
  }
  pendingActions(): ActionRecord[] {
    return this.work.pendingActions();
  }
  refusedSubmissions(): Array<{ job: JobRecord; error: string | null }> {
    return this.work.refusedSubmissions();
  }
  pendingBacklog(): { pending: number; oldestMs: number | null } {
    return this.work.pendingBacklog();
  }
  actionsOf(jobId: string): ActionRecord[] {
    return this.work.actionsOf(jobId);
  }
  countActions(): ActionCount[] {
    return this.work.countActions();
  }
  findIdempotent(submitter: string, key: string): IdempotentAnswer | undefined {
    return this.work.findIdempotent(submitter, key);
  }
  saveIdempotent(submitter: string, key: string, answer: IdempotentAnswer, responseJson?: string): void {
    this.assertWritable();
    this.work.saveIdempotent(submitter, key, answer, responseJson);
  }
  insertTicket(t: Pick<TicketRecord, 'jobId' | 'expiresMs' | 'detail'>): void {
    this.assertWritable();
    this.work.insertTicket(t);
  }
  getTicket(jobId: string): TicketRecord | undefined {
    return this.work.getTicket(jobId);
  }
  ticketsOf(jobIds: readonly string[]): Map<string, TicketRecord> {
    return this.work.ticketsOf(jobIds);
  }
  endTicket(jobId: string, status: Exclude<TicketStatus, 'waiting'>, appId?: string | null): boolean {
    this.assertWritable();
    return this.work.endTicket(jobId, status, appId);
  }
  expiredTickets(nowMs: number): TicketRecord[] {
    return this.work.expiredTickets(nowMs);
  }
  reportClient(jobId: string, state: TicketClient['state'], exitCode: number | null, atMs: number): boolean {
    this.assertWritable();
    return this.work.reportClient(jobId, state, exitCode, atMs);
  }
  trackJobApp(jobId: string, app: TrackedApp): JobAppRecord | undefined {
    this.assertWritable();
    return this.work.trackJobApp(jobId, app);
  }
  appsOf(jobId: string): JobAppRecord[] {
    return this.work.appsOf(jobId);
  }
  appsOfJobs(jobIds: readonly string[]): Map<string, JobAppRecord[]> {
    return this.work.appsOfJobs(jobIds);
  }
  jobOfApp(appId: string): JobRecord | undefined {
    return this.work.jobOfApp(appId);
  }
  jobsBetweenApps(): JobRecord[] {
    return this.work.jobsBetweenApps();
  }
  getValue<T>(key: string): T | undefined {
    return this.work.getValue<T>(key);
  }

  // --- the archive: moved by the working copy and shipped, read in PostgreSQL ----------------

  /**
   * One batch of archiving: the working copy picks the jobs and drops their rows in one SQLite
   * transaction (the same code as the SQLite store, without copying them: its archive tables
   * stay empty), with its change capture off; history its load left in PostgreSQL (archiveAfterMs)
   * fills the rest of the batch, picked there beforehand. The batch becomes one group of its own,
   * shipped in order after every write before it, in one PostgreSQL transaction that copies
   * those jobs' rows from PostgreSQL's live tables into the archive's and deletes them there
   * (moveToArchive), and writes the archive's totals. A crash before that transaction commits
   * leaves the jobs live in PostgreSQL, to be archived again by the next writer; once it commits,
   * they are archived, never both. Resolves once the batch is committed in PostgreSQL, with the
   * rows it moved there. Now and then it prunes the tombstones older than TOMBSTONE_KEEP_MS too.
   */
  async archiveClosedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    this.assertWritable();
    if (!Number.isSafeInteger(o.limit) || o.limit < 1) throw new RangeError(`a batch of ${o.limit} jobs`);
    const history = this.history;
    const old =
      history === undefined
        ? undefined
        : await this.historyDue(Math.min(o.closedBeforeMs, history.cutoffMs), o.limit);
    this.assertWritable();
    if (this.db.inTransaction) throw new Error('archiveClosedJobs runs outside a transaction');
    // Every write before the batch goes into the groups before it.
    this.work.commitQueued();
    this.capture();
    this.capturing = false;
    let batch: ReturnType<SqliteLedger['archiveClosedJobsNow']>;
    let jobIds: string[];
    let actionIds: number[];
    try {
      batch = this.work.archiveClosedJobsNow(o.closedBeforeMs, o.limit, { copy: false });
      jobIds = batch.jobIds;
      actionIds = batch.actionIds;
      if (old !== undefined && history !== undefined && history === this.history) {
        // History the copy holds after all (a job decided anew under the same id since) is
        // the copy's own to archive, as is what its batch took.
        const taken = new Set(jobIds);
        const jobs = old.jobs
          .filter((j) => !taken.has(j.id) && this.work.getJob(j.id) === undefined)
          .slice(0, o.limit - jobIds.length);
        const takenActions = new Set(actionIds);
        const actions = old.actionIds
          .filter((id) => !takenActions.has(id) && this.work.getAction(id) === undefined)
          .slice(0, o.limit - actionIds.length);
        this.countArchived(jobs, history);
        jobIds = [...jobIds, ...jobs.map((j) => j.id)];
        actionIds = [...actionIds, ...actions];
      }
    } finally {
      this.capturing = true;
    }
    let rows = batch.rows;
    if (jobIds.length > 0 || actionIds.length > 0) {
      // The archive's totals are a few rows: shipped whole with each batch.
      const shape = this.shapes.get('archive_totals')!;
      const totals = (
        this.db
          .prepare(`SELECT rowid, ${shape.columns.map(quote).join(', ')} FROM main.archive_totals`)
          .raw(true)
          .all() as unknown[][]
      ).map((row) => ({
        table: 'archive_totals',
        pk: shape.pk.map((c) => row[shape.columns.indexOf(c) + 1]),
        row,
      }));
      const archive: NonNullable<Group['archive']> = { jobIds, actionIds, archivedMs: batch.archivedMs };
      this.groups.push({ no: ++this.captured, changes: totals, archive });
      void this.ship();
      await this.shippedSoFar();
      rows = { ...rows, ...archive.rows };
    } else await this.shippedSoFar();
    if (Date.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await this.pruneTombstones(TOMBSTONE_KEEP_MS);
    }
    return { jobIds, rows };
  }

  /** History due for the archive (HISTORY_JOB before `beforeMs`), at most `limit` jobs and actions of no job. */
  private async historyDue(
    beforeMs: number,
    limit: number,
  ): Promise<{ jobs: Array<ArchivedTotals & { id: string }>; actionIds: number[] }> {
    try {
      const jobs = await this.pool.query<ArchivedTotals & { id: string }>(
        `SELECT j.id, j.decision, j.state, j.outcome, j.label, j.energy_joules, j.updated_ms FROM jobs j
         WHERE ${HISTORY_JOB} LIMIT $2`,
        [beforeMs, limit],
      );
      const actions = await this.pool.query<{ id: number }>(
        "SELECT id FROM actions WHERE job_id IS NULL AND status <> 'pending' AND updated_ms < $1 LIMIT $2",
        [beforeMs, limit],
      );
      return { jobs: jobs.rows, actionIds: actions.rows.map((r) => r.id) };
    } catch (err) {
      throw this.describe(err, 'reading the history to archive');
    }
  }

  /**
   * History jobs going to the archive: counted in the working copy's archive_totals (shipped
   * with the batch) and no longer apart, in one SQLite transaction.
   */
  private countArchived(jobs: ReadonlyArray<ArchivedTotals>, history: History): void {
    if (jobs.length === 0) return;
    const add = this.db.prepare(
      `INSERT INTO main.archive_totals (decision, state, outcome, label, n, energy_joules, energy_n)
       VALUES (?, ?, ?, ?, 1, ?, ?)
       ON CONFLICT (decision, state, outcome, label) DO UPDATE SET n = n + excluded.n,
         energy_joules = energy_joules + excluded.energy_joules, energy_n = energy_n + excluded.energy_n`,
    );
    this.db.transaction(() => {
      for (const j of jobs) {
        add.run(
          j.decision,
          j.state,
          j.outcome ?? '',
          j.label ?? '',
          j.energy_joules ?? 0,
          j.energy_joules === null ? 0 : 1,
        );
        if (j.updated_ms < history.cutoffMs) countInto(history.totals, j, -1);
      }
    })();
  }

  private prunedAt = -Infinity;

  /**
   * Deletes the tombstones older than `keepMs` (by PostgreSQL's clock), raising the horizon to
   * the highest seq deleted, in one transaction checked against the fence. Returns how many.
   */
  async pruneTombstones(keepMs: number): Promise<number> {
    this.assertWritable();
    let pruned = 0;
    await this.asWriter(async (client) => {
      const r = await client.query<{ n: number }>(
        `WITH gone AS (DELETE FROM ledger_deleted WHERE at < now() - $1 * interval '1 millisecond' RETURNING seq),
              raised AS (UPDATE ledger_horizon SET seq = GREATEST(seq, (SELECT COALESCE(MAX(seq), 0) FROM gone)))
         SELECT COUNT(*)::bigint AS n FROM gone`,
        [keepMs],
      );
      pruned = r.rows[0]?.n ?? 0;
    });
    return pruned;
  }

  /**
   * One batch of deleting from the archive, in PostgreSQL (the working copy holds none of it),
   * in one transaction checked against the fence.
   */
  async deleteArchivedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    this.assertWritable();
    if (!Number.isSafeInteger(o.limit) || o.limit < 1) throw new RangeError(`a batch of ${o.limit} jobs`);
    const rows: Record<string, number> = { jobs: 0 };
    for (const t of JOB_ROW_TABLES) rows[t] = 0;
    let jobIds: string[] = [];
    await this.asWriter(async (client) => {
      jobIds = (
        await client.query<{ id: string }>('SELECT id FROM archived_jobs WHERE updated_ms < $1 LIMIT $2', [
          o.closedBeforeMs,
          o.limit,
        ])
      ).rows.map((r) => r.id);
      let top = 0;
      if (jobIds.length > 0) {
        for (const t of JOB_ROW_TABLES)
          rows[t] = (
            await client.query(`DELETE FROM archived_${t} WHERE job_id = ANY($1::text[])`, [jobIds])
          ).rowCount!;
        const gone = await client.query<{ seq: number }>(
          'DELETE FROM archived_jobs WHERE id = ANY($1::text[]) RETURNING seq',
          [jobIds],
        );
        rows.jobs = gone.rowCount!;
        for (const r of gone.rows) top = Math.max(top, r.seq);
      }
      const orphans = await client.query<{ seq: number }>(
        'DELETE FROM archived_actions WHERE id IN (SELECT id FROM archived_actions WHERE job_id IS NULL AND updated_ms < $1 LIMIT $2) RETURNING seq',
        [o.closedBeforeMs, o.limit],
      );
      rows.actions! += orphans.rowCount!;
      for (const r of orphans.rows) top = Math.max(top, r.seq);
      // A follower learns of an archived job from its archived row: one that has not seen it
      // yet never will, and loads afresh (the horizon, as for pruned tombstones).
      if (top > 0) await client.query('UPDATE ledger_horizon SET seq = GREATEST(seq, $1)', [top]);
    });
    return { jobIds, rows };
  }

  /** A page of the archive, read in PostgreSQL (a follower reads it too). */
  async listArchivedJobs(query: JobQuery = {}): Promise<{ jobs: ArchivedJob[]; total: number }> {
    const where: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [
      ['decision', query.decision],
      ['state', query.state],
      ['queue', query.queue],
      ['user', query.user],
    ] as const) {
      if (value === undefined) continue;
      values.push(value);
      where.push(`${quote(column)} = $${values.length}`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    let out: { jobs: ArchivedJob[]; total: number } = { jobs: [], total: 0 };
    await this.reading(async (client) => {
      const total = await client.query<{ n: number }>(
        `SELECT COUNT(*)::bigint AS n FROM archived_jobs ${clause}`,
        values,
      );
      // The page's keys first, from the index alone (an offset deep in a million archived jobs
      // walks index entries, not rows), then its rows.
      const page = await client.query<Record<string, unknown>>(
        `WITH keys AS (
           SELECT id, created_ms FROM archived_jobs ${clause}
           ORDER BY created_ms DESC, id COLLATE "C" DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2})
         SELECT a.* FROM keys JOIN archived_jobs a USING (id) ORDER BY keys.created_ms DESC, keys.id COLLATE "C" DESC`,
        [...values, query.limit ?? 100, query.offset ?? 0],
      );
      const ids = page.rows.map((r) => r.id as string);
      const tickets = await client.query<Record<string, unknown>>(
        'SELECT * FROM archived_tickets WHERE job_id = ANY($1::text[])',
        [ids],
      );
      const apps = await client.query<Record<string, unknown>>(
        'SELECT * FROM archived_job_apps WHERE job_id = ANY($1::text[]) ORDER BY job_id, ordinal',
        [ids],
      );
      const ticketOf = new Map(tickets.rows.map((r) => [r.job_id as string, decodeRow.ticket(r)]));
      const appsOf = new Map<string, JobAppRecord[]>();
      for (const r of apps.rows) {
        const a = decodeRow.jobApp(r);
        appsOf.set(a.jobId, [...(appsOf.get(a.jobId) ?? []), a]);
      }
      out = {
        jobs: page.rows.map((r) => ({
          job: decodeRow.job(r),
          archivedMs: r.archived_ms as number,
          ticket: ticketOf.get(r.id as string),
          apps: appsOf.get(r.id as string) ?? [],
        })),
        total: total.rows[0]?.n ?? 0,
      };
    });
    return out;
  }

  /**
   * One archived job with its rows, read in PostgreSQL from one snapshot; or a job of the
   * history the working copy's load left there, not archived yet (archivedMs null).
   */
  async getArchivedJob(id: string): Promise<ArchivedJobDetail | undefined> {
    let out: ArchivedJobDetail | undefined;
    await this.reading(async (client) => {
      const job = await client.query<Record<string, unknown>>('SELECT * FROM archived_jobs WHERE id = $1', [
        id,
      ]);
      let row = job.rows[0];
      let prefix = 'archived_';
      // History the working copy's load left in PostgreSQL, not moved yet: read where it is.
      const history = this.history;
      if (row === undefined && history !== undefined && this.work.getJob(id) === undefined) {
        row = (
          await client.query<Record<string, unknown>>(
            `SELECT * FROM jobs WHERE id = $1 AND state IN (${CLOSED_SQL}) AND updated_ms < $2`,
            [id, history.cutoffMs],
          )
        ).rows[0];
        prefix = '';
      }
      if (row === undefined) return;
      const of = (table: string, order: string) =>
        client.query<Record<string, unknown>>(
          `SELECT * FROM ${prefix}${table} WHERE job_id = $1 ORDER BY ${order}`,
          [id],
        );
      const ticket = (await of('tickets', 'job_id')).rows[0];
      out = {
        job: decodeRow.job(row),
        archivedMs: prefix === '' ? null : (row.archived_ms as number),
        ticket: ticket ? decodeRow.ticket(ticket) : undefined,
        apps: (await of('job_apps', 'ordinal')).rows.map(decodeRow.jobApp),
        decisions: (await of('decisions', 'id')).rows.map(decodeRow.decision),
        actions: (await of('actions', 'id')).rows.map(decodeRow.action),
      };
    });
    return out;
  }

  /** `fn` in one read-only transaction from one snapshot; PostgreSQL's errors as the API shows them. */
  private async reading(fn: (client: PoolClient) => Promise<void>): Promise<void> {
    try {
      await this.inTransaction(fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      throw this.describe(err, 'reading the archive');
    }
  }

  /**
   * `fn` in one transaction that first reads the fence FOR SHARE (as shipping does), refused
   * with LedgerFencedError (and this ledger fenced) when a newer writer holds it.
   */
  private async asWriter(fn: (client: PoolClient) => Promise<void>): Promise<void> {
    const epoch = this.epoch;
    try {
      await this.inTransaction(async (client) => {
        const f = await client.query<{ epoch: number; holder: string | null }>(
          'SELECT epoch, holder FROM fence FOR SHARE',
        );
        const current = f.rows[0]?.epoch ?? null;
        if (epoch === null || current !== epoch)
          throw new LedgerFencedError(
            `a newer writer holds the ledger (epoch ${current}, ${f.rows[0]?.holder ?? 'unknown'}); this sidecar wrote with epoch ${epoch}`,
            { epoch: epoch ?? 0, currentEpoch: current, holder: f.rows[0]?.holder ?? null },
          );
        await fn(client);
      });
    } catch (err) {
      if (err instanceof LedgerFencedError) this.fence(err);
      throw this.describe(err, 'writing the archive');
    }
  }
  setValue(key: string, value: unknown): void {
    this.assertWritable();
    this.work.setValue(key, value);
  }
  valuesWithPrefix<T>(prefix: string): Array<{ key: string; value: T }> {
    return this.work.valuesWithPrefix<T>(prefix);
  }
  deleteValue(key: string): void {
    this.assertWritable();
    this.work.deleteValue(key);
  }
}
