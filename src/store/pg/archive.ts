/**
 * The archive in PostgreSQL (ledger.retention): read a page or a job at a time, deleted in
 * batches, and the tombstones pruned; each on a client in a transaction its caller opened.
 */
import type { PoolClient } from 'pg';
import { decodeRow, groupByJob, JOB_ROW_TABLES, jobFilters, type Row } from '../rows';
import { noRows } from '../tables/archive';
import type { ArchiveBatch, ArchivedJob, ArchivedJobDetail, JobQuery } from '../types';
import { CLOSED_SQL } from './schema';
import { quote } from './working-copy';

/**
 * Deletes the tombstones older than `keepMs` (by PostgreSQL's clock), raising the horizon to
 * the highest seq deleted. Returns how many.
 */
export async function pruneTombstonesIn(client: PoolClient, keepMs: number): Promise<number> {
  const r = await client.query<{ n: number }>(
    `WITH gone AS (DELETE FROM ledger_deleted WHERE at < now() - $1 * interval '1 millisecond' RETURNING seq),
          raised AS (UPDATE ledger_horizon SET seq = GREATEST(seq, (SELECT COALESCE(MAX(seq), 0) FROM gone)))
     SELECT COUNT(*)::bigint AS n FROM gone`,
    [keepMs],
  );
  return r.rows[0]?.n ?? 0;
}

/** Deletes up to `limit` archived jobs last written before `closedBeforeMs`, with their rows. */
export async function deleteArchivedIn(
  client: PoolClient,
  closedBeforeMs: number,
  limit: number,
): Promise<ArchiveBatch> {
  const rows = noRows();
  const jobIds = (
    await client.query<{ id: string }>('SELECT id FROM archived_jobs WHERE updated_ms < $1 LIMIT $2', [
      closedBeforeMs,
      limit,
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
    [closedBeforeMs, limit],
  );
  rows.actions! += orphans.rowCount!;
  for (const r of orphans.rows) top = Math.max(top, r.seq);
  // A follower learns of an archived job from its archived row: one that has not seen it
  // yet never will, and loads afresh (the horizon, as for pruned tombstones).
  if (top > 0) await client.query('UPDATE ledger_horizon SET seq = GREATEST(seq, $1)', [top]);
  return { jobIds, rows };
}

/** A page of the archive, newest first (then by id in SQLite's order), with the total matching. */
export async function archivedPage(
  client: PoolClient,
  query: JobQuery,
): Promise<{ jobs: ArchivedJob[]; total: number }> {
  const filters = jobFilters(query);
  const values = filters.map(([, v]) => v);
  const where = filters.map(([column], i) => `${quote(column)} = $${i + 1}`);
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = await client.query<{ n: number }>(
    `SELECT COUNT(*)::bigint AS n FROM archived_jobs ${clause}`,
    values,
  );
  // The page's keys first, from the index alone (an offset deep in a million archived jobs
  // walks index entries, not rows), then its rows.
  const page = await client.query<Row>(
    `WITH keys AS (
       SELECT id, created_ms FROM archived_jobs ${clause}
       ORDER BY created_ms DESC, id COLLATE "C" DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2})
     SELECT a.* FROM keys JOIN archived_jobs a USING (id) ORDER BY keys.created_ms DESC, keys.id COLLATE "C" DESC`,
    [...values, query.limit ?? 100, query.offset ?? 0],
  );
  const ids = page.rows.map((r) => r.id as string);
  const tickets = await client.query<Row>('SELECT * FROM archived_tickets WHERE job_id = ANY($1::text[])', [
    ids,
  ]);
  const apps = await client.query<Row>(
    'SELECT * FROM archived_job_apps WHERE job_id = ANY($1::text[]) ORDER BY job_id, ordinal',
    [ids],
  );
  const ticketOf = new Map(tickets.rows.map((r) => [r.job_id as string, decodeRow.ticket(r)]));
  const appsOf = groupByJob(apps.rows.map(decodeRow.jobApp));
  return {
    jobs: page.rows.map((r) => ({
      job: decodeRow.job(r),
      archivedMs: r.archived_ms as number,
      ticket: ticketOf.get(r.id as string),
      apps: appsOf.get(r.id as string) ?? [],
    })),
    total: total.rows[0]?.n ?? 0,
  };
}

/**
 * One archived job with its rows; or, with `historyBeforeMs`, a job of the history a load left
 * in the live tables (closed and last written before it), not archived yet (archivedMs null).
 */
export async function archivedJobIn(
  client: PoolClient,
  id: string,
  historyBeforeMs: number | undefined,
): Promise<ArchivedJobDetail | undefined> {
  let row = (await client.query<Row>('SELECT * FROM archived_jobs WHERE id = $1', [id])).rows[0];
  let prefix = 'archived_';
  if (row === undefined && historyBeforeMs !== undefined) {
    row = (
      await client.query<Row>(
        `SELECT * FROM jobs WHERE id = $1 AND state IN (${CLOSED_SQL}) AND updated_ms < $2`,
        [id, historyBeforeMs],
      )
    ).rows[0];
    prefix = '';
  }
  if (row === undefined) return undefined;
  const of = (table: string, order: string) =>
    client.query<Row>(`SELECT * FROM ${prefix}${table} WHERE job_id = $1 ORDER BY ${order}`, [id]);
  const ticket = (await of('tickets', 'job_id')).rows[0];
  return {
    job: decodeRow.job(row),
    archivedMs: prefix === '' ? null : (row.archived_ms as number),
    ticket: ticket ? decodeRow.ticket(ticket) : undefined,
    apps: (await of('job_apps', 'ordinal')).rows.map(decodeRow.jobApp),
    decisions: (await of('decisions', 'id')).rows.map(decodeRow.decision),
    actions: (await of('actions', 'id')).rows.map(decodeRow.action),
  };
}
