import { closeSync, fsync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

/**
 * The sidecar's ledger: every job it has decided on, every decision with its reason, and
 * every RM write as an outbox row that is recorded before the call and marked after it.
 * A crash at any point therefore leaves either a pending row (the call may or may not have
 * reached the RM: the enforcer reconciles it against what the RM shows) or a done row
 * (never sent again). SQLite in WAL mode: a row committed by `transaction` is on disk when it
 * returns (synchronous=FULL); one written by `writeSoon` when its promise resolves (the group is
 * committed, then its log synced: in the event loop while the disk's syncs are quick, in libuv's
 * thread pool once they are slow; syncGroup).
 */

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

export type {
  ActionRecord,
  ActionStatus,
  Decision,
  DecisionRecord,
  IdempotentAnswer,
  JobIdentity,
  JobQuery,
  JobRecord,
  JobState,
  Outcome,
  TicketRecord,
  TicketStatus,
} from './types';

type Row = Record<string, unknown>;

const JOB_COLUMNS: Array<[keyof JobRecord, string, 'json' | 'plain']> = [
  ['id', 'id', 'plain'],
  ['name', 'name', 'plain'],
  ['user', 'user', 'plain'],
  ['submitter', 'submitter', 'plain'],
  ['source', 'source', 'plain'],
  ['jobType', 'job_type', 'plain'],
  ['maps', 'maps', 'plain'],
  ['reduces', 'reduces', 'plain'],
  ['inputBytes', 'input_bytes', 'plain'],
  ['arrivalMs', 'arrival_ms', 'plain'],
  ['deadlineMs', 'deadline_ms', 'plain'],
  ['decision', 'decision', 'plain'],
  ['reason', 'reason', 'json'],
  ['estimatedFinishMs', 'estimated_finish_ms', 'plain'],
  ['earliestDeadlineMs', 'earliest_deadline_ms', 'plain'],
  ['queue', 'queue', 'plain'],
  ['label', 'label', 'plain'],
  ['priority', 'priority', 'plain'],
  ['appId', 'app_id', 'plain'],
  ['state', 'state', 'plain'],
  ['outcome', 'outcome', 'plain'],
  ['finishedMs', 'finished_ms', 'plain'],
  ['energyJoules', 'energy_joules', 'plain'],
  ['spec', 'spec', 'json'],
  ['createdMs', 'created_ms', 'plain'],
  ['updatedMs', 'updated_ms', 'plain'],
  ['predictedFinishMs', 'predicted_finish_ms', 'plain'],
];
const COLUMN_OF = new Map(JOB_COLUMNS.map(([k, c, kind]) => [k, { column: c, kind }]));
const INSERT_JOB = `INSERT INTO jobs (${JOB_COLUMNS.map(([, c]) => c).join(', ')}) VALUES (${JOB_COLUMNS.map(() => '?').join(', ')})`;

function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function fromJson(value: unknown): unknown {
  return typeof value === 'string' ? (JSON.parse(value) as unknown) : null;
}

function jobFromRow(row: Row): JobRecord {
  const out: Record<string, unknown> = {};
  for (const [key, column, kind] of JOB_COLUMNS) {
    out[key] = kind === 'json' ? fromJson(row[column]) : (row[column] ?? null);
  }
  return out as unknown as JobRecord;
}

function actionFromRow(row: Row): ActionRecord {
  return {
    id: row.id as number,
    jobId: (row.job_id as string | null) ?? null,
    kind: row.kind as string,
    payload: fromJson(row.payload),
    status: row.status as ActionStatus,
    attempts: row.attempts as number,
    result: fromJson(row.result),
    error: (row.error as string | null) ?? null,
    createdMs: row.created_ms as number,
    updatedMs: row.updated_ms as number,
  };
}

function ticketFromRow(row: Row): TicketRecord {
  return {
    jobId: row.job_id as string,
    status: row.status as TicketStatus,
    expiresMs: row.expires_ms as number,
    appId: (row.app_id as string | null) ?? null,
    detail: fromJson(row.detail),
    client:
      row.client_state === null || row.client_state === undefined
        ? null
        : {
            state: row.client_state as TicketClient['state'],
            exitCode: (row.client_exit_code as number | null) ?? null,
            seenMs: row.client_seen_ms as number,
          },
    createdMs: row.created_ms as number,
    updatedMs: row.updated_ms as number,
  };
}

function decisionFromRow(r: Row): DecisionRecord {
  return {
    id: r.id as number,
    jobId: r.job_id as string,
    atMs: r.at_ms as number,
    policy: r.policy as string,
    decision: r.decision as string,
    detail: fromJson(r.detail),
  };
}

function jobAppFromRow(row: Row): JobAppRecord {
  return {
    jobId: row.job_id as string,
    appId: row.app_id as string,
    ordinal: row.ordinal as number,
    state: row.state as string,
    finalStatus: (row.final_status as string | null) ?? null,
    queue: (row.queue as string | null) ?? null,
    startedMs: (row.started_ms as number | null) ?? null,
    finishedMs: (row.finished_ms as number | null) ?? null,
    createdMs: row.created_ms as number,
    updatedMs: row.updated_ms as number,
  };
}

/**
 * A row of a ledger table as a record, whichever store read it (by column name): the PostgreSQL
 * ledger reads its archive with these.
 */
export const decodeRow = {
  job: jobFromRow,
  action: actionFromRow,
  decision: decisionFromRow,
  ticket: ticketFromRow,
  jobApp: jobAppFromRow,
} as const;

/** A job's rows in the live tables other than its own, each moved to `archived_<table>` with it. */
export const JOB_ROW_TABLES = ['decisions', 'actions', 'idempotency', 'tickets', 'job_apps'] as const;

const CLOSED_STATES_SQL = CLOSED_JOB_STATES.map((s) => `'${s}'`).join(', ');
/** The ids in a JSON array bound as one parameter: a batch is one statement per table. */
const IN_BATCH = 'IN (SELECT value FROM json_each(?))';

/** Distinct SQL texts kept prepared; the ledger builds fewer than this (filters and patches are bounded). */
const STATEMENT_CACHE = 256;

/** A queued write threw in a group's first run (commitQueued): the group runs again, a savepoint per write. */
class WriteFailed extends Error {}

/** A write queued for the next group commit, and whom to tell when it is on disk. */
interface QueuedWrite {
  fn: () => void;
  settle: (err?: unknown) => void;
}

/** Syncs of the write-ahead log running at once, at most: half of libuv's default thread pool. */
const SYNCS_AT_ONCE = 2;

type Settle = (err?: unknown) => void;

/**
 * A group commit syncs its log in the event loop while the log's syncs there take less than this
 * (ms, the median of the last SYNCS_MEASURED); off the loop, in the thread pool, from then on.
 */
const INLINE_SYNC_MS = 1;
/** Syncs in the event loop whose median is the disk's speed: one slow sync now and then moves nothing. */
const SYNCS_MEASURED = 8;
/**
 * While group commits sync in the pool, one of them syncs in the event loop this often (ms), to
 * measure the disk again: its time replaces the average, so a disk that is quick again is used
 * in the loop again at once (the average of the syncs in the loop would hear of it only slowly,
 * a sample at a time).
 */
const PROBE_EVERY_MS = 250;

/** A sync of the write-ahead log failed: what was committed before it may not be on disk. */
function syncFailed(path: string, cause: unknown): Error {
  const code = (cause as { code?: unknown }).code;
  return new Error(
    `the ledger's write-ahead log ${path} could not be synced to disk${typeof code === 'string' ? ` (${code})` : ''}: ` +
      'the writes committed since the last sync may not be durable',
    { cause },
  );
}

/** `fn`'s value as a promise, or its error as a rejection: a synchronous store's async method. */
function settled<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/** The ledger on SQLite (better-sqlite3), in process: see Ledger (./types) for the contract. */
export class SqliteLedger implements Ledger {
  private readonly statements = new Map<string, Database.Statement>();
  /** Writes waiting for the next group commit (writeSoon), in the order they were queued. */
  private queued: QueuedWrite[] = [];
  private commitScheduled = false;
  /**
   * The write-ahead log's path, when group commits sync it themselves (a file in WAL mode);
   * undefined for a database in memory, whose writers are settled at once.
   */
  private readonly walPath: string | undefined;
  /** The log, open for syncs from the first one on (SQLite keeps the file while it is open). */
  private walFd: number | undefined;
  /** Writers whose group is committed and waits for a sync of the log to begin (syncLog). */
  private unsynced: Settle[] = [];
  /** The writers of each sync running, in the order the syncs began. */
  private readonly syncing: Settle[][] = [];
  private closed = false;
  /** What the last syncs of the log made in the event loop took (ms), newest last. */
  private syncTimes: number[] = [];
  /** Their median: the disk's speed, as the choice of syncGroup reads it. */
  private syncMs = 0;
  /** When the last sync of the log was made in the event loop (performance.now). */
  private lastInlineMs = 0;
  /** Job counts by query, valid while the connection has made no change since (total_changes). */
  private readonly counts = new Map<string, { changes: number; n: number }>();

  /**
   * Runs its argument in a transaction, or in a savepoint inside one: better-sqlite3's own
   * wrapper, made once (db.transaction(fn) builds four wrappers on every call).
   */
  private readonly atomically: <T>(fn: () => T) => T;

  private constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {
    this.atomically = db.transaction((fn: () => unknown) => fn()) as <T>(fn: () => T) => T;
    const wal = !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    this.walPath = wal ? `${db.name}-wal` : undefined;
  }

  /** A prepared statement, prepared once per SQL text. */
  private sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (!st) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      st = this.db.prepare(text);
      this.statements.set(text, st);
    }
    return st;
  }

  /** Open (creating the file and its folder if needed) and migrate. `:memory:` for tests. */
  static open(path: string, options: { clock?: () => number } = {}): SqliteLedger {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const ledger = new SqliteLedger(db, options.clock ?? (() => Date.now()));
    ledger.migrate();
    return ledger;
  }

  /**
   * Resolves once every write made so far is durable: at once when none waits, else with the
   * group commit writeSoon has pending (joining it, so a barrier costs no commit of its own) or
   * the sync of the log that covers the last group committed; rejects if that failed.
   */
  flush(): Promise<void> {
    if (this.queued.length > 0) return this.writeSoon(() => undefined);
    if (this.unsynced.length === 0 && this.syncing.length === 0) return Promise.resolve();
    // Committed, not yet synced: every commit so far is covered by the next sync to begin, or,
    // when none waits to begin, by the last one that began (a sync covers the commits before it).
    return new Promise<void>((resolve, reject) => {
      const settle: Settle = (err) => (err === undefined ? resolve() : reject(err));
      if (this.unsynced.length > 0) this.unsynced.push(settle);
      else this.syncing.at(-1)!.push(settle);
      this.syncLog();
    });
  }

  /** Commits what writeSoon queued, makes it durable, then closes. */
  close(): void {
    this.commitQueued();
    this.closed = true;
    const waiting = [...this.syncing.flat(), ...this.unsynced];
    this.unsynced = [];
    if (waiting.length > 0 && this.walPath !== undefined) {
      // Synced here, before the connection closes (and its last checkpoint removes the log):
      // the writers of the syncs still running are settled now, and those syncs' own answers
      // come too late to change that (a promise settles once).
      let error: unknown;
      try {
        fsyncSync(this.logFd());
      } catch (err) {
        error = syncFailed(this.walPath, err);
      }
      for (const settle of waiting) settle(error);
    }
    // A sync still running has the descriptor: the last one to end closes it.
    if (this.syncing.length === 0) this.closeLog();
    this.db.close();
  }

  /**
   * The log sync of a group committed without one (commitQueued): in the event loop while syncs
   * are quick (under INLINE_SYNC_MS on average: waiting costs less than handing the sync to the
   * pool and hearing back), else in the pool (syncLog), except once every PROBE_EVERY_MS, when
   * it is made here again to measure the disk anew (a sync in the pool is only seen ending when
   * the event loop gets to it, later under load, so its time is not the disk's). A sync here covers every commit before it:
   * the groups waiting for a sync in the pool to begin are told with this one.
   */
  private syncGroup(landed: Settle[]): void {
    const now = performance.now();
    const quick = this.syncMs < INLINE_SYNC_MS;
    const inline = quick || now - this.lastInlineMs >= PROBE_EVERY_MS;
    if (!inline) {
      this.unsynced.push(...landed);
      this.syncLog();
      return;
    }
    if (landed.length === 0) return;
    let error: unknown;
    try {
      fsyncSync(this.logFd());
    } catch (err) {
      error = syncFailed(this.walPath!, err);
    }
    this.lastInlineMs = performance.now();
    this.measured(this.lastInlineMs - now, !quick);
    const covered = [...this.unsynced, ...landed];
    this.unsynced = [];
    for (const settle of covered) settle(error);
  }

  /**
   * How its write-ahead log syncs, for the metrics: the median of the last syncs made in the
   * event loop (seconds; 0 before the first), and whether group commits now sync in the pool.
   * Undefined for a database in memory, which has no log of its own.
   */
  get logSync(): { seconds: number; inPool: boolean } | undefined {
    if (this.walPath === undefined) return undefined;
    return { seconds: this.syncMs / 1000, inPool: this.syncMs >= INLINE_SYNC_MS };
  }

  /** A sync's time; `anew`, it replaces those before (a probe made while the syncs were slow). */
  private measured(ms: number, anew: boolean): void {
    if (anew) this.syncTimes = [];
    this.syncTimes.push(ms);
    if (this.syncTimes.length > SYNCS_MEASURED) this.syncTimes.shift();
    const sorted = [...this.syncTimes].sort((a, b) => a - b);
    this.syncMs = sorted[Math.floor(sorted.length / 2)]!;
  }

  private logFd(): number {
    this.walFd ??= openSync(this.walPath!, 'r+');
    return this.walFd;
  }

  private closeLog(): void {
    if (this.walFd === undefined) return;
    closeSync(this.walFd);
    this.walFd = undefined;
  }

  /**
   * Syncs the write-ahead log in libuv's thread pool, then settles the writers whose groups were
   * committed before that sync began: the event loop goes on (answering, deciding, committing
   * the next groups) while the disk works, where a commit with synchronous=FULL held it for the
   * whole sync. A group's sync begins as soon as it is committed, up to SYNCS_AT_ONCE at once
   * (a group then waits for one sync, not for the end of another first); the groups committed
   * while that many run wait for the next to begin, which covers them all. The commits
   * themselves are as safe as before: each one is in the log before COMMIT returns (a crash of
   * the process loses nothing), and its writers hear nothing until the log is on disk. A sync
   * that fails hands its own writers the error.
   */
  private syncLog(): void {
    while (this.unsynced.length > 0 && this.syncing.length < SYNCS_AT_ONCE && !this.closed) {
      const batch = this.unsynced;
      this.unsynced = [];
      // Only a ledger with a log has writers waiting for its sync.
      const path = this.walPath!;
      this.syncing.push(batch);
      const done = (err: unknown): void => {
        this.syncing.splice(this.syncing.indexOf(batch), 1);
        const error = err === null || err === undefined ? undefined : syncFailed(path, err);
        for (const settle of batch) settle(error);
        if (this.closed) {
          if (this.syncing.length === 0) this.closeLog();
          return;
        }
        // The group that grew while this sync ran is committed now, and synced with any
        // committed meanwhile (syncLog, called by the commit).
        this.syncLog();
        this.commitWhenFree();
      };
      let fd: number;
      try {
        fd = this.logFd();
      } catch (err) {
        done(err);
        continue;
      }
      fsync(fd, done);
    }
  }

  /**
   * The SQLite connection itself, for the store's own modules only: the PostgreSQL ledger
   * (./postgres.ts) adds its change capture to a working copy and loads rows into it.
   */
  get connection(): Database.Database {
    return this.db;
  }

  get schemaVersion(): number {
    return (this.sql('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
  }

  private migrate(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)',
    );
    const applied = new Set(
      (this.db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map(
        (r) => r.version,
      ),
    );
    for (const m of MIGRATIONS) {
      if (applied.has(m.version)) continue;
      this.db.transaction(() => {
        this.db.exec(m.sql);
        this.db
          .prepare('INSERT INTO schema_migrations (version, name, applied_ms) VALUES (?, ?, ?)')
          .run(m.version, m.name, this.clock());
      })();
    }
  }

  /**
   * Run `fn` in one transaction: all of its writes land, or none. Writes queued by writeSoon
   * land in the same commit (one fsync), before `fn`'s, so rows land in the order they were
   * decided; should `fn` throw, only its own writes are rolled back.
   */
  transaction<T>(fn: () => T): T {
    if (this.queued.length === 0) return this.atomically(fn);
    return this.commitQueued(fn) as T;
  }

  /**
   * A transaction committed with synchronous=NORMAL, for it alone: in WAL mode its frames are
   * written to the log before COMMIT returns (in the page cache: a crash of the process loses
   * nothing) and synced by the next sync of the log (a synchronous commit, a group commit's, a
   * checkpoint); the database stays consistent whatever happens. SQLite does not change the setting inside a
   * transaction, and writes queued by writeSoon are owed their sync: both get `transaction`.
   */
  transactionUnsynced<T>(fn: () => T): T {
    if (this.queued.length > 0 || this.db.inTransaction) return this.transaction(fn);
    this.sql('PRAGMA synchronous = NORMAL').run();
    try {
      return this.atomically(fn);
    } finally {
      this.sql('PRAGMA synchronous = FULL').run();
    }
  }

  /**
   * Group commit: `fn`'s writes go into one transaction with every other write queued before
   * the event loop next checks for I/O (setImmediate), so many decisions share one commit and
   * one sync. The promise resolves once they are on disk (the group committed, then its
   * write-ahead log synced: syncGroup) and rejects with `fn`'s own
   * error if it threw: its writes are rolled back (a savepoint), the others' are kept. A
   * transaction(), a read that rebuilds admission state or the outbox commits the queue first.
   * `fn` only reads and writes the ledger: it runs again when another write of its group fails
   * (commitQueued).
   */
  writeSoon(fn: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ fn, settle: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.commitScheduled) {
        this.commitScheduled = true;
        setImmediate(() => {
          this.commitScheduled = false;
          this.commitWhenFree();
        });
      }
    });
  }

  /**
   * Commits the queued group, unless as many syncs of the log run as may: the group then grows
   * until one of them ends (syncLog), and is committed then, so that a slow disk makes fewer,
   * larger groups instead of a queue of syncs.
   */
  private commitWhenFree(): void {
    if (this.queued.length === 0) return;
    if (this.walPath !== undefined && this.syncing.length >= SYNCS_AT_ONCE) return;
    try {
      this.commitQueued();
    } catch {
      // Each queued writer was handed the error.
    }
  }

  /**
   * Commits the queued writes now (see writeSoon), and `last` after them in the same
   * transaction; returns what `last` returned, or throws what it threw (its writes rolled back).
   *
   * The queued writes first run one after another with no savepoint of their own: a savepoint
   * and its release cost about a quarter of a job's write, and a write seldom fails. Should one
   * throw, that whole transaction is rolled back and the group runs again with a savepoint per
   * write, so that only the failing write's rows are lost. A queued write may therefore run twice;
   * it only reads and writes the ledger (writeSoon), so the second run starts from the same rows.
   * A write that fails in the first run and not in the second (a passing error) lands, and its
   * writer is told so once it is on disk, as any other write of the group.
   */
  commitQueued(last?: () => unknown): unknown {
    this.commitScheduled = false;
    if (this.queued.length === 0 && last === undefined) return undefined;
    const batch = this.queued;
    this.queued = [];
    // Alone (not inside a transaction, nor with a synchronous one after it), in a file in WAL
    // mode, the group is committed without SQLite's sync (the setting changes only outside a
    // transaction), and its log is synced here, in the event loop, or in the pool (syncLog).
    const alone = last === undefined && this.walPath !== undefined && !this.db.inTransaction;
    if (alone) this.sql('PRAGMA synchronous = NORMAL').run();
    const failed = new Map<QueuedWrite, unknown>();
    let out: { value: unknown } | { error: unknown } = { value: undefined };
    const runLast = () => {
      if (!last) return;
      try {
        out = { value: this.atomically(last) };
      } catch (error) {
        out = { error };
      }
    };
    try {
      // Without a savepoint per write; a write that throws sends the group to the run below.
      let landed = false;
      if (batch.length > 0) {
        try {
          this.atomically(() => {
            for (const w of batch) {
              try {
                w.fn();
              } catch (err) {
                throw new WriteFailed('a queued write failed', { cause: err });
              }
            }
            runLast();
          });
          landed = true;
        } catch (err) {
          if (!(err instanceof WriteFailed)) throw err;
        }
      }
      if (!landed) {
        this.atomically(() => {
          for (const w of batch) {
            try {
              // Nested: a savepoint, so one write's failure rolls back only its own rows.
              this.atomically(w.fn);
            } catch (err) {
              failed.set(w, err);
            }
          }
          runLast();
        });
      }
    } catch (err) {
      // The commit itself failed (disk full, I/O error): nothing of the batch landed.
      for (const w of batch) w.settle(err);
      throw err;
    } finally {
      if (alone) this.sql('PRAGMA synchronous = FULL').run();
    }
    const landed: Settle[] = [];
    for (const w of batch) {
      const err = failed.get(w);
      // A write that failed left nothing to sync: its writer is told at once.
      if (err === undefined) landed.push(w.settle);
      else w.settle(err);
    }
    if (alone) this.syncGroup(landed);
    else if (this.walPath !== undefined && (this.unsynced.length > 0 || this.syncing.length > 0)) {
      // Synced with the commit (synchronous=FULL) unless it wrote nothing: with groups before it
      // still waiting for their sync, its writers wait for the next one too.
      this.unsynced.push(...landed);
      this.syncLog();
    } else for (const settle of landed) settle();
    if ('error' in out) throw out.error;
    return out.value;
  }

  // --- jobs ---------------------------------------------------------------------------

  insertJob(job: NewJob): JobRecord {
    const now = this.clock();
    const full: JobRecord = {
      ...job,
      predictedFinishMs: job.predictedFinishMs ?? null,
      createdMs: now,
      updatedMs: now,
    };
    const values = JOB_COLUMNS.map(([k, , kind]) => (kind === 'json' ? toJson(full[k]) : full[k]));
    this.sql(INSERT_JOB).run(...values);
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
    values.push(this.clock());
    const info = this.sql(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
    if (info.changes !== 1) throw new Error(`no job ${id}`);
    return this.getJob(id)!;
  }

  getJob(id: string): JobRecord | undefined {
    const row = this.sql('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? jobFromRow(row) : undefined;
  }

  getJobByAppId(appId: string): JobRecord | undefined {
    const row = this.sql('SELECT * FROM jobs WHERE app_id = ?').get(appId) as Row | undefined;
    return row ? jobFromRow(row) : undefined;
  }

  /** Newest first. */
  listJobs(query: JobQuery = {}): { jobs: JobRecord[]; total: number } {
    const where: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [
      ['decision', query.decision],
      ['state', query.state],
      ['queue', query.queue],
      ['user', query.user],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      values.push(value);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.countOf(`SELECT COUNT(*) AS n FROM jobs ${clause}`, values);
    const rows = this.sql(
      `SELECT * FROM jobs ${clause} ORDER BY created_ms DESC, rowid DESC LIMIT ? OFFSET ?`,
    ).all(...values, query.limit ?? 100, query.offset ?? 0) as Row[];
    return { jobs: rows.map(jobFromRow), total };
  }

  /**
   * A count, kept until this connection next changes a row: a page of a long list asks for
   * its total each time, and counting 100,000 rows on every page would cost more than the page.
   */
  private countOf(text: string, values: unknown[]): number {
    const changes = (this.sql('SELECT total_changes() AS c').get() as { c: number }).c;
    const key = `${text}\u0000${JSON.stringify(values)}`;
    const hit = this.counts.get(key);
    if (hit && hit.changes === changes) return hit.n;
    const n = (this.sql(text).get(...values) as { n: number }).n;
    if (this.counts.size >= STATEMENT_CACHE) this.counts.clear();
    this.counts.set(key, { changes, n });
    return n;
  }

  /**
   * Admitted jobs not yet ended: the queue the admission state is rebuilt from (with the
   * queued writes committed first, so none decided is left out).
   */
  openAdmittedJobs(): JobRecord[] {
    this.commitQueued();
    return (
      this.sql(
        "SELECT * FROM jobs WHERE decision = 'admitted' AND state IN ('accepted', 'submitted', 'running') ORDER BY deadline_ms, created_ms",
      ).all() as Row[]
    ).map(jobFromRow);
  }

  /**
   * How many admitted jobs have not ended: the queue depth, counted on the (decision, state)
   * index instead of reading and decoding every open job (that read made each submission cost
   * time in proportion to the queue).
   */
  countOpenAdmittedJobs(): number {
    return (
      this.sql(
        "SELECT COUNT(*) AS n FROM jobs WHERE decision = 'admitted' AND state IN ('accepted', 'submitted', 'running')",
      ).get() as { n: number }
    ).n;
  }

  /**
   * From the totals the triggers keep for the live jobs (migration 4) and those of the archived
   * ones (archive_totals, migration 7): a read of a few rows, whatever the ledger holds.
   */
  countJobs(): JobCount[] {
    return this.sql(
      `SELECT decision, state, NULLIF(outcome, '') AS outcome, SUM(n) AS n FROM (
         SELECT decision, state, outcome, n FROM job_totals
         UNION ALL SELECT decision, state, outcome, n FROM archive_totals)
       GROUP BY decision, state, outcome`,
    ).all() as JobCount[];
  }

  admittedEnergyByLabel(): Array<{ label: string | null; joules: number }> {
    return this.sql(
      `SELECT NULLIF(label, '') AS label, SUM(energy_joules) AS joules FROM (
         SELECT label, energy_joules, energy_n FROM job_totals WHERE decision = 'admitted'
         UNION ALL SELECT label, energy_joules, energy_n FROM archive_totals WHERE decision = 'admitted')
       GROUP BY label HAVING SUM(energy_n) > 0`,
    ).all() as Array<{ label: string | null; joules: number }>;
  }

  // --- decisions ----------------------------------------------------------------------

  recordDecision(jobId: string, policy: string, decision: string, detail: unknown): number {
    return Number(
      this.sql('INSERT INTO decisions (job_id, at_ms, policy, decision, detail) VALUES (?, ?, ?, ?, ?)').run(
        jobId,
        this.clock(),
        policy,
        decision,
        JSON.stringify(detail ?? null),
      ).lastInsertRowid,
    );
  }

  decisionsOf(jobId: string): DecisionRecord[] {
    return (this.sql('SELECT * FROM decisions WHERE job_id = ? ORDER BY id').all(jobId) as Row[]).map(
      decisionFromRow,
    );
  }

  // --- actions (the outbox) -------------------------------------------------------------

  /** Record an RM write before it is made. */
  enqueueAction(jobId: string | null, kind: string, payload: unknown): ActionRecord {
    const now = this.clock();
    const text = JSON.stringify(payload ?? null);
    const id = Number(
      this.sql(
        "INSERT INTO actions (job_id, kind, payload, status, created_ms, updated_ms) VALUES (?, ?, ?, 'pending', ?, ?)",
      ).run(jobId, kind, text, now, now).lastInsertRowid,
    );
    // The row as getAction would read it back, without reading it.
    return actionFromRow({
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
    this.sql('UPDATE actions SET attempts = attempts + 1, updated_ms = ? WHERE id = ?').run(this.clock(), id);
  }

  /** Confirm a write after the RM answered (or after reconciliation showed its effect). */
  completeAction(
    id: number,
    status: Exclude<ActionStatus, 'pending'>,
    result?: unknown,
    error?: string,
  ): void {
    const info = this.sql(
      "UPDATE actions SET status = ?, result = ?, error = ?, updated_ms = ? WHERE id = ? AND status = 'pending'",
    ).run(status, toJson(result), error ?? null, this.clock(), id);
    if (info.changes !== 1) throw new Error(`action ${id} is not pending`);
  }

  /** Keep what an action learned before its write (e.g. the reservation id it was handed). */
  updateActionPayload(id: number, payload: unknown): void {
    this.sql('UPDATE actions SET payload = ?, updated_ms = ? WHERE id = ?').run(
      JSON.stringify(payload ?? null),
      this.clock(),
      id,
    );
  }

  /** Record a failed attempt, leaving the action pending for the next cycle. */
  noteActionError(id: number, error: string): void {
    this.sql('UPDATE actions SET error = ?, updated_ms = ? WHERE id = ?').run(error, this.clock(), id);
  }

  getAction(id: number): ActionRecord | undefined {
    const row = this.sql('SELECT * FROM actions WHERE id = ?').get(id) as Row | undefined;
    return row ? actionFromRow(row) : undefined;
  }

  /** Pending actions in the order they were recorded (queued writes committed first). */
  pendingActions(): ActionRecord[] {
    this.commitQueued();
    return (this.sql("SELECT * FROM actions WHERE status = 'pending' ORDER BY id").all() as Row[]).map(
      actionFromRow,
    );
  }

  /**
   * Admitted jobs still waiting to reach the RM whose submission the RM refused for good: no
   * submit of theirs is pending or done, one has failed. They will never run.
   */
  refusedSubmissions(): Array<{ job: JobRecord; error: string | null }> {
    this.commitQueued();
    const rows = this.sql(
      `SELECT j.*, (SELECT a.error FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status = 'failed' ORDER BY a.id DESC LIMIT 1) AS refusal
       FROM jobs j
       WHERE j.decision = 'admitted' AND j.state = 'accepted'
         AND EXISTS (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status = 'failed')
         AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.job_id = j.id AND a.kind = 'submit' AND a.status IN ('pending', 'done'))`,
    ).all() as Row[];
    return rows.map((r) => ({ job: jobFromRow(r), error: (r.refusal as string | null) ?? null }));
  }

  /** The outbox's backlog: how many actions are pending, and when the oldest was recorded. */
  pendingBacklog(): { pending: number; oldestMs: number | null } {
    const row = this.sql(
      "SELECT COUNT(*) AS n, MIN(created_ms) AS oldest FROM actions WHERE status = 'pending'",
    ).get() as {
      n: number;
      oldest: number | null;
    };
    return { pending: row.n, oldestMs: row.oldest };
  }

  actionsOf(jobId: string): ActionRecord[] {
    return (this.sql('SELECT * FROM actions WHERE job_id = ? ORDER BY id').all(jobId) as Row[]).map(
      actionFromRow,
    );
  }

  countActions(): ActionCount[] {
    return this.sql(
      'SELECT kind, status, COUNT(*) AS n FROM actions GROUP BY kind, status ORDER BY kind, status',
    ).all() as ActionCount[];
  }

  // --- idempotency keys -------------------------------------------------------------------

  findIdempotent(submitter: string, key: string): IdempotentAnswer | undefined {
    const row = this.sql('SELECT * FROM idempotency WHERE submitter = ? AND key = ?').get(submitter, key) as
      Row | undefined;
    return row
      ? {
          requestHash: row.request_hash as string,
          jobId: row.job_id as string,
          status: row.status as number,
          response: fromJson(row.response),
        }
      : undefined;
  }

  saveIdempotent(submitter: string, key: string, answer: IdempotentAnswer, responseJson?: string): void {
    this.sql(
      'INSERT INTO idempotency (submitter, key, request_hash, job_id, status, response, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(
      submitter,
      key,
      answer.requestHash,
      answer.jobId,
      answer.status,
      responseJson ?? JSON.stringify(answer.response),
      this.clock(),
    );
  }

  // --- tickets -------------------------------------------------------------------------

  insertTicket(t: Pick<TicketRecord, 'jobId' | 'expiresMs' | 'detail'>): void {
    const now = this.clock();
    this.sql(
      "INSERT INTO tickets (job_id, status, expires_ms, app_id, detail, created_ms, updated_ms) VALUES (?, 'waiting', ?, NULL, ?, ?, ?)",
    ).run(t.jobId, t.expiresMs, JSON.stringify(t.detail ?? null), now, now);
  }

  getTicket(jobId: string): TicketRecord | undefined {
    const row = this.sql('SELECT * FROM tickets WHERE job_id = ?').get(jobId) as Row | undefined;
    return row ? ticketFromRow(row) : undefined;
  }

  /** The tickets of the given jobs, by job id (one query for a page of jobs). */
  ticketsOf(jobIds: readonly string[]): Map<string, TicketRecord> {
    const out = new Map<string, TicketRecord>();
    for (let i = 0; i < jobIds.length; i += 500) {
      const part = jobIds.slice(i, i + 500);
      const rows = this.sql(`SELECT * FROM tickets WHERE job_id IN (${part.map(() => '?').join(', ')})`).all(
        ...part,
      ) as Row[];
      for (const r of rows) out.set(r.job_id as string, ticketFromRow(r));
    }
    return out;
  }

  /**
   * A waiting ticket's end: bound (to `appId`), expired or cancelled. Only a waiting ticket
   * changes; false when it was not waiting any more.
   */
  endTicket(jobId: string, status: Exclude<TicketStatus, 'waiting'>, appId: string | null = null): boolean {
    const info = this.sql(
      "UPDATE tickets SET status = ?, app_id = ?, updated_ms = ? WHERE job_id = ? AND status = 'waiting'",
    ).run(status, appId, this.clock(), jobId);
    return info.changes === 1;
  }

  /** Waiting tickets whose expiry is at or before `nowMs` (queued writes committed first). */
  expiredTickets(nowMs: number): TicketRecord[] {
    this.commitQueued();
    return (
      this.sql("SELECT * FROM tickets WHERE status = 'waiting' AND expires_ms <= ? ORDER BY expires_ms").all(
        nowMs,
      ) as Row[]
    ).map(ticketFromRow);
  }

  reportClient(jobId: string, state: TicketClient['state'], exitCode: number | null, atMs: number): boolean {
    const info = this.sql(
      "UPDATE tickets SET client_state = ?, client_exit_code = ?, client_seen_ms = ?, updated_ms = ? WHERE job_id = ? AND (client_state IS NULL OR client_state = 'running')",
    ).run(state, state === 'exited' ? exitCode : null, atMs, this.clock(), jobId);
    return info.changes === 1;
  }

  // --- the apps of a job ---------------------------------------------------------------

  trackJobApp(jobId: string, app: TrackedApp): JobAppRecord | undefined {
    const before = this.sql('SELECT * FROM job_apps WHERE app_id = ?').get(app.appId) as Row | undefined;
    const now = this.clock();
    if (before) {
      this.sql(
        'UPDATE job_apps SET state = ?, final_status = ?, queue = ?, started_ms = ?, finished_ms = ?, updated_ms = ? WHERE app_id = ?',
      ).run(app.state, app.finalStatus, app.queue, app.startedMs, app.finishedMs, now, app.appId);
      return jobAppFromRow(before);
    }
    const last = this.sql('SELECT MAX(ordinal) AS n FROM job_apps WHERE job_id = ?').get(jobId) as {
      n: number | null;
    };
    this.sql(
      'INSERT INTO job_apps (app_id, job_id, ordinal, state, final_status, queue, started_ms, finished_ms, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
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
    return (this.sql('SELECT * FROM job_apps WHERE job_id = ? ORDER BY ordinal').all(jobId) as Row[]).map(
      jobAppFromRow,
    );
  }

  appsOfJobs(jobIds: readonly string[]): Map<string, JobAppRecord[]> {
    const out = new Map<string, JobAppRecord[]>();
    for (let i = 0; i < jobIds.length; i += 500) {
      const part = jobIds.slice(i, i + 500);
      const rows = this.sql(
        `SELECT * FROM job_apps WHERE job_id IN (${part.map(() => '?').join(', ')}) ORDER BY job_id, ordinal`,
      ).all(...part) as Row[];
      for (const r of rows) {
        const a = jobAppFromRow(r);
        const list = out.get(a.jobId);
        if (list) list.push(a);
        else out.set(a.jobId, [a]);
      }
    }
    return out;
  }

  jobOfApp(appId: string): JobRecord | undefined {
    const row = this.sql(
      'SELECT jobs.* FROM job_apps JOIN jobs ON jobs.id = job_apps.job_id WHERE job_apps.app_id = ?',
    ).get(appId) as Row | undefined;
    return row ? jobFromRow(row) : undefined;
  }

  jobsBetweenApps(): JobRecord[] {
    this.commitQueued();
    return (
      this.sql(
        `SELECT jobs.* FROM jobs JOIN tickets ON tickets.job_id = jobs.id
         WHERE jobs.decision = 'admitted' AND jobs.state IN ('submitted', 'running')
           AND tickets.status = 'bound' AND tickets.client_state IS NOT NULL
           AND EXISTS (SELECT 1 FROM job_apps a WHERE a.job_id = jobs.id)
           AND NOT EXISTS (SELECT 1 FROM job_apps a WHERE a.job_id = jobs.id
                             AND a.state NOT IN ('FINISHED', 'FAILED', 'KILLED'))
         ORDER BY jobs.deadline_ms, jobs.created_ms`,
      ).all() as Row[]
    ).map(jobFromRow);
  }

  // --- the archive (ledger.retention) ------------------------------------------------------

  /** Each live table's columns, in order: its archive has them too (migration 7). */
  private readonly columnsOf = new Map<string, string>();

  private columnList(table: string): string {
    let list = this.columnsOf.get(table);
    if (list === undefined) {
      const info = this.db.prepare(`PRAGMA main.table_info(${table})`).all() as Array<{ name: string }>;
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
  ): ArchiveBatch & { actionIds: number[]; archivedMs: number } {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a batch of ${limit} jobs`);
    return this.transaction(() => {
      const ids = (
        this.sql(
          `SELECT id FROM jobs WHERE state IN (${CLOSED_STATES_SQL}) AND updated_ms < ?
             AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.job_id = jobs.id AND a.status = 'pending')
             AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.job_id = jobs.id AND t.status = 'waiting')
           LIMIT ?`,
        ).all(closedBeforeMs, limit) as Array<{ id: string }>
      ).map((r) => r.id);
      const rows: Record<string, number> = { jobs: 0 };
      for (const t of JOB_ROW_TABLES) rows[t] = 0;
      const now = this.clock();
      if (ids.length > 0) {
        const batch = JSON.stringify(ids);
        if (o.copy) {
          const jobs = this.columnList('jobs');
          this.sql(
            `INSERT OR REPLACE INTO archived_jobs (${jobs}, archived_ms) SELECT ${jobs}, ? FROM jobs WHERE id ${IN_BATCH} ORDER BY created_ms, rowid`,
          ).run(now, batch);
          for (const t of JOB_ROW_TABLES) {
            const cols = this.columnList(t);
            this.sql(
              `INSERT OR REPLACE INTO archived_${t} (${cols}) SELECT ${cols} FROM ${t} WHERE job_id ${IN_BATCH} ORDER BY rowid`,
            ).run(batch);
          }
        }
        this.sql(
          `INSERT INTO archive_totals (decision, state, outcome, label, n, energy_joules, energy_n)
             SELECT decision, state, IFNULL(outcome, ''), IFNULL(label, ''), COUNT(*), TOTAL(energy_joules), COUNT(energy_joules)
             FROM jobs WHERE id ${IN_BATCH} GROUP BY 1, 2, 3, 4
           ON CONFLICT (decision, state, outcome, label) DO UPDATE SET n = n + excluded.n,
             energy_joules = energy_joules + excluded.energy_joules, energy_n = energy_n + excluded.energy_n`,
        ).run(batch);
        for (const t of JOB_ROW_TABLES)
          rows[t] = this.sql(`DELETE FROM ${t} WHERE job_id ${IN_BATCH}`).run(batch).changes;
        rows.jobs = this.sql(`DELETE FROM jobs WHERE id ${IN_BATCH}`).run(batch).changes;
      }
      // Confirmed writes of no job (the outbox allows them) would otherwise stay for ever.
      const actionIds = (
        this.sql(
          "SELECT id FROM actions WHERE job_id IS NULL AND status <> 'pending' AND updated_ms < ? LIMIT ?",
        ).all(closedBeforeMs, limit) as Array<{ id: number }>
      ).map((r) => r.id);
      if (actionIds.length > 0) {
        const orphans = JSON.stringify(actionIds);
        if (o.copy) {
          const cols = this.columnList('actions');
          this.sql(
            `INSERT OR REPLACE INTO archived_actions (${cols}) SELECT ${cols} FROM actions WHERE id ${IN_BATCH}`,
          ).run(orphans);
        }
        rows.actions! += this.sql(`DELETE FROM actions WHERE id ${IN_BATCH}`).run(orphans).changes;
      }
      return { jobIds: ids, rows, actionIds, archivedMs: now };
    });
  }

  /** One batch of deleting from the archive, in one transaction (see Ledger.deleteArchivedJobs). */
  deleteArchivedJobsNow(closedBeforeMs: number, limit: number): ArchiveBatch {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a batch of ${limit} jobs`);
    return this.transaction(() => {
      const ids = (
        this.sql('SELECT id FROM archived_jobs WHERE updated_ms < ? LIMIT ?').all(
          closedBeforeMs,
          limit,
        ) as Array<{
          id: string;
        }>
      ).map((r) => r.id);
      const rows: Record<string, number> = { jobs: 0 };
      for (const t of JOB_ROW_TABLES) rows[t] = 0;
      if (ids.length > 0) {
        const batch = JSON.stringify(ids);
        for (const t of JOB_ROW_TABLES)
          rows[t] = this.sql(`DELETE FROM archived_${t} WHERE job_id ${IN_BATCH}`).run(batch).changes;
        rows.jobs = this.sql(`DELETE FROM archived_jobs WHERE id ${IN_BATCH}`).run(batch).changes;
      }
      rows.actions! += this.sql(
        'DELETE FROM archived_actions WHERE id IN (SELECT id FROM archived_actions WHERE job_id IS NULL AND updated_ms < ? LIMIT ?)',
      ).run(closedBeforeMs, limit).changes;
      return { jobIds: ids, rows };
    });
  }

  /** The archive's page of jobs (see Ledger.listArchivedJobs), read at once. */
  listArchivedJobsNow(query: JobQuery = {}): { jobs: ArchivedJob[]; total: number } {
    const where: string[] = [];
    const values: unknown[] = [];
    for (const [column, value] of [
      ['decision', query.decision],
      ['state', query.state],
      ['queue', query.queue],
      ['user', query.user],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      values.push(value);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.countOf(`SELECT COUNT(*) AS n FROM archived_jobs ${clause}`, values);
    const rows = this.sql(
      `SELECT * FROM archived_jobs ${clause} ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...values, query.limit ?? 100, query.offset ?? 0) as Row[];
    const ids = rows.map((r) => r.id as string);
    const tickets = new Map<string, TicketRecord>();
    const apps = new Map<string, JobAppRecord[]>();
    if (ids.length > 0) {
      const batch = JSON.stringify(ids);
      for (const r of this.sql(`SELECT * FROM archived_tickets WHERE job_id ${IN_BATCH}`).all(batch) as Row[])
        tickets.set(r.job_id as string, ticketFromRow(r));
      for (const r of this.sql(
        `SELECT * FROM archived_job_apps WHERE job_id ${IN_BATCH} ORDER BY job_id, ordinal`,
      ).all(batch) as Row[]) {
        const a = jobAppFromRow(r);
        apps.set(a.jobId, [...(apps.get(a.jobId) ?? []), a]);
      }
    }
    return {
      jobs: rows.map((r) => ({
        job: jobFromRow(r),
        archivedMs: r.archived_ms as number,
        ticket: tickets.get(r.id as string),
        apps: apps.get(r.id as string) ?? [],
      })),
      total,
    };
  }

  /** One archived job with its rows (see Ledger.getArchivedJob), read at once. */
  getArchivedJobNow(id: string): ArchivedJobDetail | undefined {
    const row = this.sql('SELECT * FROM archived_jobs WHERE id = ?').get(id) as Row | undefined;
    if (!row) return undefined;
    const ticket = this.sql('SELECT * FROM archived_tickets WHERE job_id = ?').get(id) as Row | undefined;
    return {
      job: jobFromRow(row),
      archivedMs: row.archived_ms as number,
      ticket: ticket ? ticketFromRow(ticket) : undefined,
      apps: (
        this.sql('SELECT * FROM archived_job_apps WHERE job_id = ? ORDER BY ordinal').all(id) as Row[]
      ).map(jobAppFromRow),
      decisions: (
        this.sql('SELECT * FROM archived_decisions WHERE job_id = ? ORDER BY id').all(id) as Row[]
      ).map(decisionFromRow),
      actions: (this.sql('SELECT * FROM archived_actions WHERE job_id = ? ORDER BY id').all(id) as Row[]).map(
        actionFromRow,
      ),
    };
  }

  archiveClosedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    return settled(() => {
      const { jobIds, rows } = this.archiveClosedJobsNow(o.closedBeforeMs, o.limit);
      return { jobIds, rows };
    });
  }

  deleteArchivedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    return settled(() => this.deleteArchivedJobsNow(o.closedBeforeMs, o.limit));
  }

  listArchivedJobs(query?: JobQuery): Promise<{ jobs: ArchivedJob[]; total: number }> {
    return settled(() => this.listArchivedJobsNow(query));
  }

  getArchivedJob(id: string): Promise<ArchivedJobDetail | undefined> {
    return settled(() => this.getArchivedJobNow(id));
  }

  // --- small named values (learned estimates, controller state) ---------------------------

  getValue<T>(key: string): T | undefined {
    const row = this.sql('SELECT value FROM kv WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  setValue(key: string, value: unknown): void {
    this.sql(
      'INSERT INTO kv (key, value, updated_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms',
    ).run(key, JSON.stringify(value), this.clock());
  }

  valuesWithPrefix<T>(prefix: string): Array<{ key: string; value: T }> {
    if (prefix === '') throw new Error('valuesWithPrefix needs a prefix');
    // Every key that starts with the prefix sorts at or after it and before the prefix with its
    // last character's successor: one range of the key's index.
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return (
      this.sql('SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key').all(
        prefix,
        end,
      ) as Array<{
        key: string;
        value: string;
      }>
    ).map((r) => ({ key: r.key, value: JSON.parse(r.value) as T }));
  }

  deleteValue(key: string): void {
    this.sql('DELETE FROM kv WHERE key = ?').run(key);
  }

  /** Each open admitted job's row as last read and its record (openAdmittedJobsReused). */
  private openRows = new Map<string, { raw: unknown[]; job: JobRecord }>();
  private openRawStatement: Database.Statement | undefined;
  /** Writes to the jobs table by this connection, counted by a trigger (never rolled back). */
  private jobWrites = 0;
  /** The open jobs as last read, and the write count and data_version they were read at. */
  private openList: { writes: number; dataVersion: number; jobs: JobRecord[] } | undefined;

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
    this.commitQueued();
    // The triggers are made outside a transaction: one made inside it would go with a rollback.
    if (this.openRawStatement === undefined && this.db.inTransaction) return this.openAdmittedJobs();
    if (this.openRawStatement === undefined) {
      this.db.function('yss_job_written', { deterministic: false }, () => {
        this.jobWrites++;
        return null;
      });
      for (const event of ['INSERT', 'UPDATE', 'DELETE'])
        this.db.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS yss_jobs_${event.toLowerCase()} AFTER ${event} ON main.jobs BEGIN SELECT yss_job_written(); END`,
        );
      this.openRawStatement = this.db
        .prepare(
          "SELECT * FROM jobs WHERE decision = 'admitted' AND state IN ('accepted', 'submitted', 'running') ORDER BY deadline_ms, created_ms",
        )
        .raw(true);
    }
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const seen = this.openList;
    if (seen && seen.writes === this.jobWrites && seen.dataVersion === dataVersion)
      return seen.jobs.map((j) => ({ ...j }));
    const writes = this.jobWrites;
    const st = this.openRawStatement;
    const names = st.columns().map((c) => c.name);
    const idAt = names.indexOf('id');
    const rows = st.all() as unknown[][];
    const next = new Map<string, { raw: unknown[]; job: JobRecord }>();
    const out: JobRecord[] = [];
    for (const raw of rows) {
      const id = raw[idAt] as string;
      let hit = this.openRows.get(id);
      if (hit === undefined || hit.raw.length !== raw.length || hit.raw.some((v, i) => v !== raw[i])) {
        const row: Row = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = raw[i];
        hit = { raw, job: jobFromRow(row) };
      }
      next.set(id, hit);
      out.push({ ...hit.job });
    }
    this.openRows = next;
    // Read inside a transaction, the list may yet be rolled back: kept only when read outside one.
    this.openList = this.db.inTransaction
      ? undefined
      : { writes, dataVersion, jobs: out.map((j) => ({ ...j })) };
    return out;
  }
}

/**
 * The SQLite ledger under the name its constructors (Ledger.open in the tests and tools) have
 * always used; code that only uses a ledger takes the Ledger interface from ./types.
 */
export { SqliteLedger as Ledger };
