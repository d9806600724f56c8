import type { SqliteLedger } from '../../src/store/ledger';
import { LEDGER_TABLES } from '../../src/store/pg/schema';
import type { JobRecord } from '../../src/store/types';

/** A ledger job with sensible values; override what a test is about. */
export function jobRecord(
  id: string,
  over: Partial<Omit<JobRecord, 'createdMs' | 'updatedMs'>> = {},
): Omit<JobRecord, 'createdMs' | 'updatedMs'> {
  return {
    id,
    name: `job ${id}`,
    user: 'alice',
    submitter: 'ci',
    source: 'api',
    jobType: 'cpu',
    maps: 4,
    reduces: 1,
    inputBytes: 4 * 128 * 1024 * 1024,
    arrivalMs: 1_000,
    deadlineMs: 601_000,
    decision: 'admitted',
    reason: null,
    estimatedFinishMs: 300_000,
    predictedFinishMs: null,
    earliestDeadlineMs: null,
    queue: 'realtime',
    label: null,
    priority: null,
    appId: null,
    state: 'accepted',
    outcome: null,
    finishedMs: null,
    energyJoules: null,
    spec: { name: `job ${id}` },
    ...over,
  };
}

/** Every row of every ledger table of a SQLite ledger, in rowid order (the order rows were made). */
export function tableRows(ledger: SqliteLedger): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of LEDGER_TABLES)
    out[t] = ledger.connection.prepare(`SELECT rowid, * FROM ${t} ORDER BY rowid`).all();
  return out;
}
