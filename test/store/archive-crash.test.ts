/**
 * A crash of the process that archives loses and duplicates nothing, on SQLite and on
 * PostgreSQL: a batch is one transaction. A child process archives a ledger of closed jobs a
 * batch at a time and is killed with SIGKILL; every job is then in the live tables or in the
 * archive, never both, with each of its rows on the same side, every batch it reported durable
 * archived; a new writer then archives the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { SqliteLedger } from '../../src/store/ledger';
import { openPostgresLedger } from '../../src/store/postgres';
import type { Ledger } from '../../src/store/types';
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../support/postgres';
import { jobRecord } from './builders';

const JOBS = 2_000;
const BATCH = 50;
const ROW_TABLES = ['decisions', 'actions', 'idempotency', 'job_apps'] as const;
const pg = postgresAvailability();

/** Closed jobs, each with a decision, a confirmed action, an idempotent answer and an app. */
function seed(ledger: Ledger): void {
  ledger.transaction(() => {
    for (let i = 0; i < JOBS; i++) {
      const id = `j${i}`;
      ledger.insertJob(
        jobRecord(id, { state: 'finished', outcome: i % 2 ? 'met' : 'missed', finishedMs: 900 }),
      );
      ledger.recordDecision(id, 'rtmr', 'admitted', { i });
      const a = ledger.enqueueAction(id, 'submit', { i });
      ledger.completeAction(a.id, 'done');
      ledger.saveIdempotent('ci', `k${i}`, {
        requestHash: `h${i}`,
        jobId: id,
        status: 201,
        response: { id },
      });
      ledger.trackJobApp(id, {
        appId: `application_1_${i}`,
        state: 'FINISHED',
        finalStatus: 'SUCCEEDED',
        queue: 'root.realtime',
        startedMs: 500,
        finishedMs: 900,
      });
    }
  });
}

/** Runs the child until it has reported `batches` durable batches (plus a random few ms), then kills it. */
function archiveThenKill(args: string[], batches: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const acknowledged: string[] = [];
    let seen = 0;
    const child = spawn(
      process.execPath,
      ['--require', require.resolve('tsx/cjs'), join(__dirname, 'archive-crash-child.ts'), ...args],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buffer = '';
    let killing = false;
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (line === 'done') continue;
        acknowledged.push(...line.split(' '));
        seen++;
      }
      if (seen >= batches && !killing) {
        killing = true;
        // Somewhere in the next batch: before, during or after its transaction.
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 15));
      }
    });
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(acknowledged) : reject(new Error(`the child exited with ${signal}`)),
    );
  });
}

/** Reads a column of every row of a table (SQLite file or PostgreSQL). */
type Column = (sql: string) => Promise<string[]>;

/** Every job live or archived, never both; each of its rows on its side, once. */
async function expectWhole(column: Column, acknowledged: readonly string[]): Promise<{ archived: number }> {
  const live = await column('SELECT id AS v FROM jobs');
  const archived = await column('SELECT id AS v FROM archived_jobs');
  const side = new Map<string, 'live' | 'archived'>();
  for (const id of live) side.set(id, 'live');
  for (const id of archived) {
    expect(side.get(id)).toBeUndefined();
    side.set(id, 'archived');
  }
  expect(side.size).toBe(JOBS);
  for (const id of acknowledged) expect(side.get(id)).toBe('archived');
  for (const t of ROW_TABLES) {
    const rows = [
      ...(await column(`SELECT job_id AS v FROM ${t}`)).map((id) => [id, 'live'] as const),
      ...(await column(`SELECT job_id AS v FROM archived_${t}`)).map((id) => [id, 'archived'] as const),
    ];
    expect(rows).toHaveLength(JOBS);
    for (const [id, where] of rows) expect([t, id, where]).toEqual([t, id, side.get(id)]);
  }
  const counted = await column('SELECT n AS v FROM archive_totals');
  expect(counted.reduce((n, v) => n + Number(v), 0)).toBe(archived.length);
  return { archived: archived.length };
}

describe('a crash while archiving', () => {
  jest.setTimeout(180_000);

  it('on SQLite loses and duplicates nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'archive-crash-'));
    try {
      const file = join(dir, 'ledger.db');
      const seeded = SqliteLedger.open(file, { clock: () => 1_000 });
      seed(seeded);
      seeded.close();
      const acknowledged = await archiveThenKill(['sqlite', file, String(BATCH)], 5);
      expect(acknowledged.length).toBeGreaterThanOrEqual(5 * BATCH);
      const read = new Database(file, { readonly: true });
      const column: Column = (sql) =>
        Promise.resolve((read.prepare(sql).all() as Array<{ v: unknown }>).map((r) => String(r.v)));
      const { archived } = await expectWhole(column, acknowledged);
      expect(archived % BATCH).toBe(0);
      read.close();
      // A new writer archives the rest, and the ledger's totals count every job.
      const again = SqliteLedger.open(file);
      while ((await again.archiveClosedJobs({ closedBeforeMs: Date.now(), limit: 500 })).jobIds.length > 0);
      expect(again.listJobs().total).toBe(0);
      expect((await again.listArchivedJobs()).total).toBe(JOBS);
      expect(again.countJobs().reduce((n, c) => n + c.n, 0)).toBe(JOBS);
      again.close();
      const done = new Database(file, { readonly: true });
      await expectWhole(
        (sql) => Promise.resolve((done.prepare(sql).all() as Array<{ v: unknown }>).map((r) => String(r.v))),
        [],
      );
      done.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  (pg === 'run' ? describe : describe.skip)('on PostgreSQL', () => {
    let server: TestPostgres;
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 120_000);
    afterAll(() => server?.destroy());

    // The jobs loaded and archived from the working copy, or left in PostgreSQL at the load
    // (history: closed before the cutoff) and archived from there.
    it.each([
      ['every job loaded', undefined],
      ['the jobs left in PostgreSQL as history', 60_000],
    ])('loses and duplicates nothing, %s', async (_, archiveAfterMs) => {
      const url = await server.createDatabase();
      const seeded = await openPostgresLedger(url, { writer: 'now', holder: 'seed', clock: () => 1_000 });
      seed(seeded);
      await seeded.flush();
      seeded.close();
      await seeded.closed;
      const history = archiveAfterMs === undefined ? [] : [String(archiveAfterMs)];
      const acknowledged = await archiveThenKill(['postgres', url, String(BATCH), ...history], 5);
      expect(acknowledged.length).toBeGreaterThanOrEqual(5 * BATCH);
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const column: Column = async (sql) =>
          (await client.query<{ v: unknown }>(sql)).rows.map((r) => String(r.v));
        const { archived } = await expectWhole(column, acknowledged);
        expect(archived % BATCH).toBe(0);
        // A new writer loads what is live (no history), archives the rest, and counts every job.
        const next = await openPostgresLedger(url, {
          writer: 'now',
          holder: 'next',
          ...(archiveAfterMs === undefined ? {} : { archiveAfterMs }),
        });
        expect(next.listJobs().total).toBe(archiveAfterMs === undefined ? JOBS - archived : 0);
        expect(next.countJobs().reduce((n, c) => n + c.n, 0)).toBe(JOBS);
        while ((await next.archiveClosedJobs({ closedBeforeMs: Date.now(), limit: 500 })).jobIds.length > 0);
        expect(next.countJobs().reduce((n, c) => n + c.n, 0)).toBe(JOBS);
        next.close();
        await next.closed;
        await expectWhole(column, []);
        expect(await column('SELECT id AS v FROM jobs')).toEqual([]);
      } finally {
        await client.end();
      }
    });
  });
});
