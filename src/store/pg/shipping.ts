/**
 * Shipping the working copy's changes to PostgreSQL: the fence checked, a batch of archiving
 * moved, then every changed row upserted (a new seq each) or deleted (a tombstone each), a few
 * statements per table whatever the number of rows.
 */
import type { PoolClient } from 'pg';
import { LedgerFencedError } from '../../errors/ledger-fenced';
import { JOB_ROW_TABLES } from '../rows';
import { SHIPPED_TABLES } from './schema';
import { quote, type TableShape } from './working-copy';

/** Rows per INSERT statement when shipping or loading (27 columns a job: well under 65,535 parameters). */
const ROWS_PER_STATEMENT = 500;
/** Rows deleted per statement when shipping (a batch of archiving deletes thousands). */
const DELETES_PER_STATEMENT = 5_000;

/** A changed row: its current values, or null when it was deleted. */
export interface Change {
  table: string;
  pk: unknown[];
  row: unknown[] | null;
}

/** A batch of archiving as it ships: the jobs and the actions of no job it moves in PostgreSQL. */
export interface ArchiveMoveInPg {
  jobIds: string[];
  actionIds: number[];
  archivedMs: number;
  /** The live rows the move deleted in PostgreSQL, by table: set once it has shipped. */
  rows?: Record<string, number>;
}

/** The changes of one commit (or more) of the working copy, shipped in one PostgreSQL transaction. */
export interface Group {
  no: number;
  changes: Change[];
  /**
   * A batch of archiving: these jobs (with their rows) and actions of no job are moved in
   * PostgreSQL, from the live tables into the archive's, in the group's transaction, before its
   * changes (the archive's totals). Such a group ships alone, after every group before it.
   */
  archive?: ArchiveMoveInPg;
}

/**
 * Reads the fence FOR SHARE (a new writer's raise waits for this transaction) and throws
 * LedgerFencedError unless it holds `epoch`, or `raising` (a takeOver raising it now).
 */
export async function checkFence(
  client: PoolClient,
  epoch: number | null,
  raising?: number | null,
): Promise<void> {
  const f = await client.query<{ epoch: number; holder: string | null }>(
    'SELECT epoch, holder FROM fence FOR SHARE',
  );
  const current = f.rows[0]?.epoch ?? null;
  if (epoch === null || (current !== epoch && (raising === undefined || current !== raising)))
    throw new LedgerFencedError(
      `a newer writer holds the ledger (epoch ${current}, ${f.rows[0]?.holder ?? 'unknown'}); this sidecar wrote with epoch ${epoch}`,
      { epoch: epoch ?? 0, currentEpoch: current, holder: f.rows[0]?.holder ?? null },
    );
}

/** The groups' batches of archiving moved, then their changes written, the last of each row winning. */
export async function writeGroups(
  client: PoolClient,
  shapes: Map<string, TableShape>,
  groups: Group[],
): Promise<void> {
  const merged = new Map<string, Change>();
  for (const g of groups)
    for (const c of g.changes) {
      const k = `${c.table}\u0000${JSON.stringify(c.pk)}`;
      merged.delete(k);
      merged.set(k, c);
    }
  for (const g of groups) if (g.archive) await moveToArchive(client, shapes, g.archive);
  const byTable = new Map<string, Change[]>();
  for (const c of merged.values()) {
    const list = byTable.get(c.table);
    if (list) list.push(c);
    else byTable.set(c.table, [c]);
  }
  for (const name of SHIPPED_TABLES) {
    const shape = shapes.get(name)!;
    const mine = byTable.get(name) ?? [];
    const rows = mine.filter((c) => c.row !== null).map((c) => toPg(shape, c.row!));
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT)
      await upsertPg(client, shape, rows.slice(i, i + ROWS_PER_STATEMENT));
    const gone = mine.filter((c) => c.row === null).map((c) => c.pk);
    for (let i = 0; i < gone.length; i += DELETES_PER_STATEMENT)
      await deletePg(client, shape, gone.slice(i, i + DELETES_PER_STATEMENT));
  }
}

/**
 * Moves a batch of archiving in PostgreSQL: each live table's rows of the jobs (and the actions
 * of no job) are copied into its archive table as they stand there (the groups before this one
 * have shipped: they are the working copy's rows), with a new seq each, then deleted. No
 * tombstone: a follower learns which jobs went from the archive's seq (PostgresLedger.changedSince).
 */
async function moveToArchive(
  client: PoolClient,
  shapes: Map<string, TableShape>,
  a: ArchiveMoveInPg,
): Promise<void> {
  const ids = a.jobIds;
  const rows: Record<string, number> = {};
  for (const t of ['jobs', ...JOB_ROW_TABLES]) {
    const live = shapes.get(t)!;
    const archived = shapes.get(`archived_${t}`)!;
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
async function deletePg(client: PoolClient, shape: TableShape, pks: unknown[][]): Promise<void> {
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
function toPg(shape: TableShape, row: unknown[]): unknown[] {
  return row.map((v, i) =>
    shape.integer[i] && typeof v === 'number' && !Number.isInteger(v) ? Math.round(v) : v,
  );
}

/** Inserts or updates rows (in PostgreSQL's column order), each with a new seq. */
async function upsertPg(client: PoolClient, shape: TableShape, rows: unknown[][]): Promise<void> {
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
