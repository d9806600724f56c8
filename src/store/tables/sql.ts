import type Database from 'better-sqlite3';

/** Distinct SQL texts kept prepared; the ledger builds fewer than this (filters and patches are bounded). */
const STATEMENT_CACHE = 256;

/**
 * What a table module needs of its store: statements on one SQLite connection, the clock rows
 * are stamped with, and the group commit's queue landed before a read that rebuilds state. The
 * SQLite ledger hands its own; the PostgreSQL ledger reads and writes its working copy's.
 */
export interface SqlRunner {
  /** A prepared statement, prepared once per SQL text. */
  sql(text: string): Database.Statement;
  /**
   * `SELECT COUNT(*) AS n ...` with `values`, kept until this connection next changes a row: a
   * page of a long list asks for its total each time, and counting 100,000 rows on every page
   * would cost more than the page.
   */
  count(text: string, values: readonly unknown[]): number;
  /** The time rows are stamped with (epoch ms). */
  now(): number;
  /** Commits the writes queued for the next group commit (writeSoon), so a read sees them. */
  commitQueued(): void;
  /** The connection, for what a statement cannot do (a temporary trigger, data_version). */
  readonly db: Database.Database;
}

/** A SqlRunner on one connection, with its statements and counts cached. */
export class Sql implements SqlRunner {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly counts = new Map<string, { changes: number; n: number }>();

  constructor(
    readonly db: Database.Database,
    readonly now: () => number,
    readonly commitQueued: () => void,
  ) {}

  sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (!st) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      st = this.db.prepare(text);
      this.statements.set(text, st);
    }
    return st;
  }

  count(text: string, values: readonly unknown[]): number {
    const changes = (this.sql('SELECT total_changes() AS c').get() as { c: number }).c;
    const key = `${text}\u0000${JSON.stringify(values)}`;
    const hit = this.counts.get(key);
    if (hit && hit.changes === changes) return hit.n;
    const n = (this.sql(text).get(...values) as { n: number }).n;
    if (this.counts.size >= STATEMENT_CACHE) this.counts.clear();
    this.counts.set(key, { changes, n });
    return n;
  }
}

/** The ids in a JSON array bound as one parameter: a batch is one statement per table. */
export const IN_BATCH = 'IN (SELECT value FROM json_each(?))';

/** `?, ?, ...` for `n` values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** Rows per `IN (...)` of a read by many ids (well under SQLite's limit of bound values). */
const IDS_PER_READ = 500;

/** `read` for each slice of `ids` small enough for one statement. */
export function inSlices(ids: readonly string[], read: (part: readonly string[]) => void): void {
  for (let i = 0; i < ids.length; i += IDS_PER_READ) read(ids.slice(i, i + IDS_PER_READ));
}
