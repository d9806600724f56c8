/**
 * A ledger table's row as a record, and a record's values as a row: by column name, whichever
 * store read the row (SQLite here, PostgreSQL for its archive). The JSON columns are text.
 */
import type {
  ActionRecord,
  ActionStatus,
  DecisionRecord,
  JobAppRecord,
  JobRecord,
  TicketClient,
  TicketRecord,
  TicketStatus,
} from './types';

/** A row as the drivers return it: values by column name. */
export type Row = Record<string, unknown>;

/** The jobs table's columns, the record's field each holds, and whether it holds JSON. */
export const JOB_COLUMNS: ReadonlyArray<[keyof JobRecord, string, 'json' | 'plain']> = [
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

/** A job's rows in the live tables other than its own, each moved to `archived_<table>` with it. */
export const JOB_ROW_TABLES = ['decisions', 'actions', 'idempotency', 'tickets', 'job_apps'] as const;

export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJson(value: unknown): unknown {
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

/** A row of a ledger table (live or archived) as its record. */
export const decodeRow = {
  job: jobFromRow,
  action: actionFromRow,
  decision: decisionFromRow,
  ticket: ticketFromRow,
  jobApp: jobAppFromRow,
} as const;

/** The rows of several jobs, by job id, in the order read (a page's tickets or apps). */
export function groupByJob<T extends { jobId: string }>(records: Iterable<T>): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of records) {
    const list = out.get(r.jobId);
    if (list) list.push(r);
    else out.set(r.jobId, [r]);
  }
  return out;
}

/** The filters of a page of jobs (JobQuery) as column and value, those given only. */
export function jobFilters(query: {
  decision?: string;
  state?: string;
  queue?: string;
  user?: string;
}): Array<[column: string, value: string]> {
  const out: Array<[string, string]> = [];
  for (const [column, value] of [
    ['decision', query.decision],
    ['state', query.state],
    ['queue', query.queue],
    ['user', query.user],
  ] as const) {
    if (value !== undefined) out.push([column, value]);
  }
  return out;
}
