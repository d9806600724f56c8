/**
 * The sidecar's ledger on SQLite: every job it has decided on, every decision with its reason,
 * and every RM write as an outbox row that is recorded before the call and marked after it.
 * A crash at any point therefore leaves either a pending row (the call may or may not have
 * reached the RM: the enforcer reconciles it against what the RM shows) or a done row
 * (never sent again). SQLite in WAL mode: a row committed by `transaction` is on disk when it
 * returns (synchronous=FULL); one written by `writeSoon` when its promise resolves (the group is
 * committed, then its log synced: ./group-commit.ts). The tables are read and written by their
 * modules (./tables), through the methods TableLedger (./table-ledger.ts) gives every store.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { GroupCommit, walFile } from './group-commit';
import { MIGRATIONS } from './migrations';
import { TableLedger } from './table-ledger';
import { Tables } from './tables';
import { Sql } from './tables/sql';
import type { ArchiveBatch, ArchivedJob, ArchivedJobDetail, JobQuery, Ledger } from './types';

/** `fn`'s value as a promise, or its error as a rejection: a synchronous store's async method. */
function settled<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/** The ledger on SQLite (better-sqlite3), in process: see Ledger (./types) for the contract. */
export class SqliteLedger extends TableLedger implements Ledger {
  private readonly ownTables: Tables;
  private readonly run: Sql;
  private readonly commits: GroupCommit;

  private constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {
    super();
    // better-sqlite3's own transaction wrapper, made once (db.transaction(fn) builds four
    // wrappers on every call): a transaction, or a savepoint inside one.
    const atomically = db.transaction((fn: () => unknown) => fn()) as <T>(fn: () => T) => T;
    const wal = !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    this.run = new Sql(db, clock, () => this.commitQueued());
    this.commits = new GroupCommit(
      {
        atomically,
        get inTransaction() {
          return db.inTransaction;
        },
        syncOnCommit: (on) => this.run.sql(`PRAGMA synchronous = ${on ? 'FULL' : 'NORMAL'}`).run(),
      },
      wal ? walFile(`${db.name}-wal`) : undefined,
    );
    this.ownTables = new Tables(this.run, (fn) => this.transaction(fn));
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

  /** The tables on this connection (the PostgreSQL ledger reads and writes its working copy's). */
  override get tables(): Tables {
    return this.ownTables;
  }

  /** A file's ledger always writes (a PostgreSQL ledger's may not: TableLedger). */
  protected override assertWritable(): void {
    // A file's ledger always writes.
  }

  /**
   * The SQLite connection itself, for the store's own modules only: the PostgreSQL ledger
   * (./postgres.ts) adds its change capture to a working copy and loads rows into it.
   */
  get connection(): Database.Database {
    return this.db;
  }

  get schemaVersion(): number {
    return (this.run.sql('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v;
  }

  /** How its write-ahead log syncs, for the metrics (GroupCommit.logSync); undefined in memory. */
  get logSync(): { seconds: number; inPool: boolean } | undefined {
    return this.commits.logSync;
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
    return this.commits.transaction(fn);
  }

  /**
   * A transaction committed with synchronous=NORMAL, for it alone: in WAL mode its frames are
   * written to the log before COMMIT returns (in the page cache: a crash of the process loses
   * nothing) and synced by the next sync of the log (a synchronous commit, a group commit's, a
   * checkpoint); the database stays consistent whatever happens. SQLite does not change the
   * setting inside a transaction, and writes queued by writeSoon are owed their sync: both get
   * `transaction`.
   */
  transactionUnsynced<T>(fn: () => T): T {
    if (this.commits.pending || this.db.inTransaction) return this.transaction(fn);
    this.run.sql('PRAGMA synchronous = NORMAL').run();
    try {
      return this.transaction(fn);
    } finally {
      this.run.sql('PRAGMA synchronous = FULL').run();
    }
  }

  /** Group commit (GroupCommit.writeSoon): resolves once `fn`'s writes are on disk. */
  writeSoon(fn: () => void): Promise<void> {
    return this.commits.writeSoon(fn);
  }

  /** Resolves once every write made so far is on disk (GroupCommit.flush). */
  flush(): Promise<void> {
    return this.commits.flush();
  }

  /**
   * Commits the queued writes now, and `last` after them in the same transaction
   * (GroupCommit.commitQueued); returns what `last` returned.
   */
  commitQueued(last?: () => unknown): unknown {
    return this.commits.commitQueued(last);
  }

  /** Commits what writeSoon queued, makes it durable, then closes. */
  close(): void {
    this.commits.close();
    this.db.close();
  }

  // --- the archive (ledger.retention): ./tables/archive.ts, read and written at once ---------

  archiveClosedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    return settled(() => {
      const { jobIds, rows } = this.tables.archive.archiveClosedJobsNow(o.closedBeforeMs, o.limit);
      return { jobIds, rows };
    });
  }

  deleteArchivedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    return settled(() => this.tables.archive.deleteArchivedJobsNow(o.closedBeforeMs, o.limit));
  }

  listArchivedJobs(query?: JobQuery): Promise<{ jobs: ArchivedJob[]; total: number }> {
    return settled(() => this.tables.archive.listArchivedJobsNow(query));
  }

  getArchivedJob(id: string): Promise<ArchivedJobDetail | undefined> {
    return settled(() => this.tables.archive.getArchivedJobNow(id));
  }
}
