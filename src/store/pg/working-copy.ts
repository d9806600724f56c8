/**
 * The PostgreSQL ledger's working copy: an in-memory SqliteLedger, the same schema and code as
 * the embedded store, with temporary triggers that note every changed row (table, primary key)
 * in `_changes`, and for each table its shape: the statements that read a changed row, apply a
 * row read from PostgreSQL, and remove one.
 */
import type Database from 'better-sqlite3';
import { SqliteLedger } from '../ledger';
import type { History } from './history';
import { SHIPPED_TABLES } from './schema';

/** One table's shape in the working copy, read from SQLite. */
export interface TableShape {
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
export interface WorkingCopy {
  work: SqliteLedger;
  shapes: Map<string, TableShape>;
  changes: { read: Database.Statement; clear: Database.Statement };
  /** What its load left in PostgreSQL; undefined when it loaded every live row. */
  history?: History;
}

/** A column or table name quoted for SQL (SQLite and PostgreSQL alike). */
export function quote(id: string): string {
  return `"${id.replace(/"/g, '""')}"`;
}

/** A column of a table as `PRAGMA table_info` describes it. */
interface ColumnInfo {
  name: string;
  type: string;
  pk: number;
}

/**
 * A fresh in-memory SqliteLedger with the change capture on every shipped table. A change is
 * noted when `capture(work)` says so (it is asked at each changed row; the PostgreSQL ledger
 * answers true once this copy is its working copy and while it is not applying rows it read).
 */
export function buildWorkingCopy(clock: () => number, capture: (work: SqliteLedger) => boolean): WorkingCopy {
  const work = SqliteLedger.open(':memory:', { clock });
  const db = work.connection;
  db.function('yss_capture', { deterministic: false }, () => (capture(work) ? 1 : 0));
  db.exec(
    'CREATE TEMP TABLE _changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, pk TEXT NOT NULL)',
  );
  const shapes = new Map<string, TableShape>();
  for (const name of SHIPPED_TABLES) {
    const info = db.prepare(`PRAGMA main.table_info(${quote(name)})`).all() as ColumnInfo[];
    if (info.length === 0) throw new Error(`the ledger has no table ${name}`);
    const pk = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    addCaptureTriggers(db, name, pk);
    shapes.set(name, tableShape(db, name, info, pk));
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

/** The triggers that note each row of `name` inserted, updated (under its old key too, if changed) or deleted. */
function addCaptureTriggers(db: Database.Database, name: string, pk: string[]): void {
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
}

/** `name`'s shape: its columns, and its statements to read, apply and remove a row. */
function tableShape(db: Database.Database, name: string, info: ColumnInfo[], pk: string[]): TableShape {
  const columns = info.map((c) => c.name);
  const t = quote(name);
  const cols = columns.map(quote).join(', ');
  const wherePk = pk.map((c) => `${quote(c)} = ?`).join(' AND ');
  // An INTEGER PRIMARY KEY is the rowid itself: written through its column only.
  const rowidIsPk = pk.length === 1 && info.find((c) => c.name === pk[0])!.type.toUpperCase() === 'INTEGER';
  const upsert = db.prepare(upsertSql(name, rowidIsPk ? columns : ['rowid', ...columns], columns, pk));
  // The same, the rowid left to SQLite.
  const upsertNumbered = db.prepare(upsertSql(name, columns, columns, pk));
  return {
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
  };
}

/** An insert of `target` (rowid and/or the columns) into `name`, updating `columns` but the key on a conflict. */
function upsertSql(name: string, target: string[], columns: string[], pk: string[]): string {
  const notPk = columns.filter((c) => !pk.includes(c));
  const into = target.map((c) => (c === 'rowid' ? c : quote(c))).join(', ');
  return `INSERT INTO main.${quote(name)} (${into}) VALUES (${target.map(() => '?').join(', ')})
    ON CONFLICT (${pk.map(quote).join(', ')}) ${
      notPk.length
        ? `DO UPDATE SET ${notPk.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`
        : 'DO NOTHING'
    }`;
}
