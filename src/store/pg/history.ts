/**
 * The history a load of a working copy leaves in PostgreSQL (PostgresLedgerOptions.archiveAfterMs):
 * closed jobs past the cutoff, counted apart in the working copy's totals until archived.
 */
import type Database from 'better-sqlite3';
import type { PoolClient } from 'pg';
import type { JobCount } from '../types';
import { CLOSED_SQL } from './schema';

/** Totals as job_totals and archive_totals keep them: '' for no outcome or label. */
export interface TotalsRow {
  decision: string;
  state: string;
  outcome: string;
  label: string;
  n: number;
  joules: number;
  energyN: number;
}

/** What the load of a working copy left in PostgreSQL's live tables (PostgresLedgerOptions.archiveAfterMs). */
export interface History {
  /** The load's cutoff: history is closed jobs last written before it. */
  cutoffMs: number;
  /** Their totals, by decision, state, outcome and label; lowered as they are archived. */
  totals: Map<string, TotalsRow>;
}

/** The columns of an archived job its totals are kept by, and when it was last written. */
export interface ArchivedTotals {
  decision: string;
  state: string;
  outcome: string | null;
  label: string | null;
  energy_joules: number | null;
  updated_ms: number;
}

const totalsKey = (t: Pick<TotalsRow, 'decision' | 'state' | 'outcome' | 'label'>): string =>
  JSON.stringify([t.decision, t.state, t.outcome, t.label]);

/** Adds `sign` times one job (its totals columns as PostgreSQL or SQLite reads them) to `totals`. */
export function countInto(
  totals: Map<string, TotalsRow>,
  job: Omit<ArchivedTotals, 'updated_ms'>,
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

/**
 * The totals of the history a load at `cutoffMs` left in PostgreSQL: those of every closed job
 * last written before the cutoff (an index-only scan of jobs_closed), less those of such jobs
 * it loaded all the same into `copy` (a write pending, a ticket waiting).
 */
export async function historyAt(
  client: PoolClient,
  copy: Database.Database,
  cutoffMs: number,
): Promise<History> {
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
    copy
      .prepare(
        `SELECT decision, state, IFNULL(outcome, '') AS outcome, IFNULL(label, '') AS label, COUNT(*) AS n,
           TOTAL(energy_joules) AS joules, COUNT(energy_joules) AS energyN
         FROM main.jobs WHERE state IN (${CLOSED_SQL}) AND updated_ms < ? GROUP BY 1, 2, 3, 4`,
      )
      .all(cutoffMs) as TotalsRow[],
    -1,
  );
  for (const [k, t] of totals) if (t.n <= 0) totals.delete(k);
  return { cutoffMs, totals };
}

/** The job counts of the working copy with those of the history beside it added. */
export function countsWithHistory(counts: JobCount[], history: History | undefined): JobCount[] {
  if (history === undefined || history.totals.size === 0) return counts;
  const byKey = new Map(counts.map((c) => [JSON.stringify([c.decision, c.state, c.outcome]), { ...c }]));
  for (const t of history.totals.values()) {
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

/** The admitted jobs' energy by label in the working copy, with that of the history beside it. */
export function energyWithHistory(
  energy: Array<{ label: string | null; joules: number }>,
  history: History | undefined,
): Array<{ label: string | null; joules: number }> {
  if (history === undefined || history.totals.size === 0) return energy;
  const byLabel = new Map(energy.map((e) => [e.label, e.joules]));
  for (const t of history.totals.values()) {
    if (t.decision !== 'admitted' || t.energyN <= 0) continue;
    const label = t.label || null;
    byLabel.set(label, (byLabel.get(label) ?? 0) + t.joules);
  }
  return [...byLabel].map(([label, joules]) => ({ label, joules }));
}
