import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { SqliteLedger } from '../../src/store/ledger';
import { MIGRATIONS } from '../../src/store/migrations';
import { jobRecord } from './builders';

function memoryLedger(start = 1_000): { ledger: SqliteLedger; tick: (ms: number) => void } {
  let now = start;
  const ledger = SqliteLedger.open(':memory:', { clock: () => now });
  return { ledger, tick: (ms) => (now += ms) };
}

/** A ledger file as an earlier version left it: the migrations up to `version`, applied and recorded. */
function writeSchemaUpTo(file: string, version: number): void {
  const db = new Database(file);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)',
  );
  for (const m of MIGRATIONS.filter((x) => x.version <= version)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.version, m.name);
  }
  db.close();
}

// The cases every store must pass are in ledger-conformance.test.ts, run against SQLite and
// PostgreSQL; these are SQLite's own: its file, its migrations, a crash.
describe('ledger', () => {
  it('migrates a new file to the latest schema', () => {
    const { ledger } = memoryLedger();
    expect(ledger.schemaVersion).toBe(MIGRATIONS.at(-1)!.version);
  });

  it('counts the open admitted jobs exactly as many as it lists, for any mix of decisions and states', () => {
    const states = ['rejected', 'accepted', 'submitted', 'running', 'finished', 'failed', 'killed'] as const;
    fc.assert(
      fc.property(
        fc.array(fc.record({ admitted: fc.boolean(), state: fc.constantFrom(...states) }), { maxLength: 30 }),
        (jobs) => {
          const { ledger } = memoryLedger();
          jobs.forEach((j, i) =>
            ledger.insertJob(
              jobRecord(`j${i}`, { decision: j.admitted ? 'admitted' : 'rejected', state: j.state }),
            ),
          );
          const open = jobs.filter(
            (j) => j.admitted && (j.state === 'accepted' || j.state === 'submitted' || j.state === 'running'),
          ).length;
          expect(ledger.countOpenAdmittedJobs()).toBe(open);
          expect(ledger.countOpenAdmittedJobs()).toBe(ledger.openAdmittedJobs().length);
          ledger.close();
        },
      ),
      { numRuns: 50 },
    );
  });

  it('commits the queued writes before a transaction, the open queue read, or close', () => {
    const { ledger } = memoryLedger();
    void ledger.writeSoon(() => ledger.insertJob(jobRecord('first', { state: 'accepted' })));
    ledger.transaction(() => ledger.updateJob('first', { state: 'running' }));
    expect(ledger.getJob('first')?.state).toBe('running');
    void ledger.writeSoon(() =>
      ledger.insertJob(jobRecord('second', { state: 'accepted', deadlineMs: 900_000 })),
    );
    expect(ledger.openAdmittedJobs().map((j) => j.id)).toEqual(['first', 'second']);

    const dir = mkdtempSync(join(tmpdir(), 'ledger-close-'));
    try {
      const file = SqliteLedger.open(join(dir, 'l.db'));
      void file.writeSoon(() => file.insertJob(jobRecord('queued')));
      file.close();
      const again = SqliteLedger.open(join(dir, 'l.db'));
      expect(again.getJob('queued')?.id).toBe('queued');
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('commits an unsynced transaction with synchronous=NORMAL for it alone, and a synced one when writes are queued or it is nested', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-unsynced-'));
    try {
      const ledger = SqliteLedger.open(join(dir, 'l.db'));
      // 2 is FULL, 1 is NORMAL.
      const level = () => ledger.connection.pragma('synchronous', { simple: true }) as number;
      expect(level()).toBe(2);
      expect(
        ledger.transactionUnsynced(() => {
          ledger.setValue('sample', 1);
          return level();
        }),
      ).toBe(1);
      expect(level()).toBe(2);
      // A write queued by writeSoon is owed its sync: it commits with the unsynced one, synced.
      const queued = ledger.writeSoon(() => ledger.insertJob(jobRecord('queued')));
      expect(ledger.transactionUnsynced(level)).toBe(2);
      await queued;
      expect(ledger.getJob('queued')?.id).toBe('queued');
      // Inside a transaction SQLite keeps the setting: the outer transaction's, no error.
      expect(ledger.transaction(() => ledger.transactionUnsynced(level))).toBe(2);
      // A failing function rolls its writes back, and the setting is FULL again.
      expect(() =>
        ledger.transactionUnsynced(() => {
          ledger.setValue('sample', 2);
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(ledger.getValue('sample')).toBe(1);
      expect(level()).toBe(2);
      ledger.close();
      const again = SqliteLedger.open(join(dir, 'l.db'));
      expect(again.getValue('sample')).toBe(1);
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates a ledger written by the first schema, keeping its rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-migrate-'));
    try {
      const file = join(dir, 'l.db');
      writeSchemaUpTo(file, 1);
      const old = SqliteLedger.open(file);
      expect(old.schemaVersion).toBe(MIGRATIONS.at(-1)!.version);
      old.close();
      const first = SqliteLedger.open(file);
      first.insertJob(jobRecord('kept'));
      expect(first.listJobs({ decision: 'admitted' }).jobs.map((j) => j.id)).toEqual(['kept']);
      first.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the jobs of a ledger written before predicted finishes none, and keeps one written after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-migrate-'));
    try {
      const file = join(dir, 'l.db');
      const predicted = MIGRATIONS.find((m) => m.sql.includes('predicted_finish_ms'))!.version;
      expect(predicted).toBe(6);
      writeSchemaUpTo(file, predicted - 1);
      const raw = new Database(file);
      const { predictedFinishMs: _none, ...old } = jobRecord('old', { state: 'running' });
      const columns: Record<string, unknown> = {
        id: old.id,
        name: old.name,
        user: old.user,
        submitter: old.submitter,
        source: old.source,
        job_type: old.jobType,
        maps: old.maps,
        reduces: old.reduces,
        input_bytes: old.inputBytes,
        arrival_ms: old.arrivalMs,
        deadline_ms: old.deadlineMs,
        decision: old.decision,
        estimated_finish_ms: old.estimatedFinishMs,
        queue: old.queue,
        state: old.state,
        spec: JSON.stringify(old.spec),
        created_ms: 1,
        updated_ms: 1,
      };
      raw
        .prepare(
          `INSERT INTO jobs (${Object.keys(columns).join(', ')}) VALUES (${Object.keys(columns)
            .map(() => '?')
            .join(', ')})`,
        )
        .run(...Object.values(columns));
      raw.close();
      const migrated = SqliteLedger.open(file);
      expect(migrated.schemaVersion).toBe(MIGRATIONS.at(-1)!.version);
      expect(migrated.getJob('old')).toEqual({ ...old, predictedFinishMs: null, createdMs: 1, updatedMs: 1 });
      migrated.updateJob('old', { predictedFinishMs: 412_345 });
      migrated.close();
      const again = SqliteLedger.open(file);
      expect(again.getJob('old')).toMatchObject({
        estimatedFinishMs: old.estimatedFinishMs,
        predictedFinishMs: 412_345,
      });
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts the jobs of a ledger written before the totals, at the migration that adds them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-migrate-'));
    try {
      const file = join(dir, 'l.db');
      const totals = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE job_totals'))!.version;
      writeSchemaUpTo(file, totals - 1);
      // Jobs written by that schema (a copy of this ledger's rows, without the triggers).
      const source = SqliteLedger.open(':memory:');
      source.insertJob(
        jobRecord('a', { label: 'gpu', energyJoules: 3.6e6, state: 'finished', outcome: 'met' }),
      );
      source.insertJob(
        jobRecord('b', { label: 'gpu', energyJoules: 1.8e6, state: 'finished', outcome: 'met' }),
      );
      source.insertJob(jobRecord('c', { decision: 'rejected', state: 'rejected' }));
      // Without the columns later migrations added (none holds a value here).
      const rows = (
        source.connection.prepare('SELECT * FROM jobs').all() as Array<Record<string, unknown>>
      ).map(({ predicted_finish_ms: _later, ...r }) => r);
      const raw = new Database(file);
      for (const r of rows)
        raw
          .prepare(
            `INSERT INTO jobs (${Object.keys(r).join(', ')}) VALUES (${Object.keys(r)
              .map(() => '?')
              .join(', ')})`,
          )
          .run(...Object.values(r));
      raw.close();
      const migrated = SqliteLedger.open(file);
      expect(migrated.schemaVersion).toBe(MIGRATIONS.at(-1)!.version);
      expect(migrated.countJobs()).toEqual(
        expect.arrayContaining([
          { decision: 'admitted', state: 'finished', outcome: 'met', n: 2 },
          { decision: 'rejected', state: 'rejected', outcome: null, n: 1 },
        ]),
      );
      expect(migrated.countJobs()).toHaveLength(2);
      expect(migrated.admittedEnergyByLabel()).toEqual([{ label: 'gpu', joules: 5.4e6 }]);
      migrated.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['one transaction per write', 'single'],
    ['group commits', 'group'],
    ['transactions not synced to disk', 'unsynced'],
  ])('loses nothing that was committed when its process is killed with SIGKILL (%s)', async (_name, mode) => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-crash-'));
    const file = join(dir, 'ledger.db');
    try {
      const acknowledged: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--require', require.resolve('tsx/cjs'), join(__dirname, 'crash-writer.ts'), file, mode],
          {
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        let buffer = '';
        child.stdout.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          const lines = buffer.split('\n');
          buffer = lines.pop()!;
          acknowledged.push(...lines);
          if (acknowledged.length >= 300) child.kill('SIGKILL');
        });
        child.on('exit', (_code, signal) =>
          signal === 'SIGKILL' ? resolve() : reject(new Error(`exited ${signal}`)),
        );
      });
      const ledger = SqliteLedger.open(file);
      for (const id of acknowledged) {
        expect(ledger.getJob(id)?.id).toBe(id);
        expect(ledger.actionsOf(id).map((a) => a.kind)).toEqual(['submit']);
      }
      // Every job has its action: the transaction never split.
      const { total } = ledger.listJobs();
      expect(total).toBeGreaterThanOrEqual(acknowledged.length);
      expect(ledger.pendingActions().length).toBe(total);
      ledger.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
