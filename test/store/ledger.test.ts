import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { Ledger } from '../../src/store/ledger';
import { MIGRATIONS } from '../../src/store/migrations';
import { jobRecord } from './builders';

function memoryLedger(start = 1_000): { ledger: Ledger; tick: (ms: number) => void } {
  let now = start;
  const ledger = Ledger.open(':memory:', { clock: () => now });
  return { ledger, tick: (ms) => (now += ms) };
}

describe('ledger', () => {
  it('migrates a new file to the latest schema', () => {
    const { ledger } = memoryLedger();
    expect(ledger.schemaVersion).toBe(3);
  });

  it('stores a job and reads back every field, JSON fields included', () => {
    const { ledger } = memoryLedger(5_000);
    const reason = { kind: 'new-job-misses', lateBySeconds: 12.5 };
    ledger.insertJob(
      jobRecord('a', { decision: 'rejected', state: 'rejected', reason, earliestDeadlineMs: 9 }),
    );
    const back = ledger.getJob('a')!;
    expect(back).toEqual({
      ...jobRecord('a', { decision: 'rejected', state: 'rejected', reason, earliestDeadlineMs: 9 }),
      createdMs: 5_000,
      updatedMs: 5_000,
    });
    expect(ledger.getJob('missing')).toBeUndefined();
  });

  it('updates named fields only, stamps the time, and refuses unknown fields', () => {
    const { ledger, tick } = memoryLedger();
    ledger.insertJob(jobRecord('a'));
    tick(250);
    const after = ledger.updateJob('a', { appId: 'application_1_0001', state: 'submitted', priority: 7 });
    expect(after).toMatchObject({
      appId: 'application_1_0001',
      state: 'submitted',
      priority: 7,
      updatedMs: 1_250,
      createdMs: 1_000,
    });
    expect(ledger.getJobByAppId('application_1_0001')?.id).toBe('a');
    expect(() => ledger.updateJob('a', { colour: 'red' } as never)).toThrow('unknown job field colour');
    expect(() => ledger.updateJob('zzz', { state: 'running' })).toThrow('no job zzz');
  });

  it('lists newest first with filters and pagination, and the open admitted queue in deadline order', () => {
    const { ledger, tick } = memoryLedger();
    const specs: Array<
      [string, 'admitted' | 'rejected', 'accepted' | 'rejected' | 'finished' | 'running', number]
    > = [
      ['a', 'admitted', 'running', 900_000],
      ['b', 'rejected', 'rejected', 100_000],
      ['c', 'admitted', 'accepted', 300_000],
      ['d', 'admitted', 'finished', 200_000],
      ['e', 'admitted', 'accepted', 500_000],
    ];
    for (const [id, decision, state, deadlineMs] of specs) {
      ledger.insertJob(jobRecord(id, { decision, state, deadlineMs }));
      tick(10);
    }
    expect(ledger.listJobs().jobs.map((j) => j.id)).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(ledger.listJobs({ decision: 'admitted', limit: 2, offset: 1 })).toMatchObject({ total: 4 });
    expect(ledger.listJobs({ decision: 'admitted', limit: 2, offset: 1 }).jobs.map((j) => j.id)).toEqual([
      'd',
      'c',
    ]);
    expect(ledger.listJobs({ state: 'rejected' }).jobs.map((j) => j.id)).toEqual(['b']);
    expect(ledger.openAdmittedJobs().map((j) => j.id)).toEqual(['c', 'e', 'a']);
    expect(ledger.countOpenAdmittedJobs()).toBe(3);
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

  it('returns an enqueued action as it reads it back', () => {
    const { ledger, tick } = memoryLedger();
    ledger.insertJob(jobRecord('a'));
    tick(3);
    const payloads: unknown[] = [
      { appId: 'application_1_0001', tags: ['x'], skip: undefined },
      null,
      undefined,
      7,
    ];
    for (const [i, payload] of payloads.entries()) {
      const action = ledger.enqueueAction(i % 2 === 0 ? 'a' : null, `kind-${i}`, payload);
      expect(action).toStrictEqual(ledger.getAction(action.id));
      // The stored JSON's value, not the caller's object.
      if (typeof payload === 'object' && payload !== null) expect(action.payload).not.toBe(payload);
    }
  });

  it('keeps actions pending until confirmed, and refuses to confirm twice', () => {
    const { ledger, tick } = memoryLedger();
    ledger.insertJob(jobRecord('a'));
    const submit = ledger.enqueueAction('a', 'submit', { appId: 'application_1_0001' });
    const prio = ledger.enqueueAction('a', 'set-priority', { priority: 3 });
    expect(ledger.pendingActions().map((x) => x.kind)).toEqual(['submit', 'set-priority']);
    ledger.markActionAttempt(submit.id);
    ledger.noteActionError(submit.id, 'RM unavailable');
    expect(ledger.getAction(submit.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'RM unavailable',
    });
    tick(5);
    ledger.completeAction(submit.id, 'done', { status: 202 });
    expect(() => ledger.completeAction(submit.id, 'done')).toThrow(`action ${submit.id} is not pending`);
    expect(ledger.pendingActions().map((x) => x.id)).toEqual([prio.id]);
    expect(ledger.actionsOf('a').map((x) => [x.kind, x.status])).toEqual([
      ['submit', 'done'],
      ['set-priority', 'pending'],
    ]);
    expect(ledger.countActions()).toEqual([
      { kind: 'set-priority', status: 'pending', n: 1 },
      { kind: 'submit', status: 'done', n: 1 },
    ]);
  });

  it('remembers the first answer for an idempotency key, per submitter', () => {
    const { ledger } = memoryLedger();
    ledger.insertJob(jobRecord('a'));
    ledger.saveIdempotent('ci', 'k1', { requestHash: 'h', jobId: 'a', status: 201, response: { id: 'a' } });
    expect(ledger.findIdempotent('ci', 'k1')).toEqual({
      requestHash: 'h',
      jobId: 'a',
      status: 201,
      response: { id: 'a' },
    });
    expect(ledger.findIdempotent('other', 'k1')).toBeUndefined();
    expect(() =>
      ledger.saveIdempotent('ci', 'k1', { requestHash: 'h2', jobId: 'a', status: 201, response: {} }),
    ).toThrow(/UNIQUE/);
  });

  it('rolls a transaction back whole', () => {
    const { ledger } = memoryLedger();
    expect(() =>
      ledger.transaction(() => {
        ledger.insertJob(jobRecord('a'));
        ledger.insertJob(jobRecord('a'));
      }),
    ).toThrow(/UNIQUE/);
    expect(ledger.getJob('a')).toBeUndefined();
  });

  it('lists pages filtered by one field newest first, and recounts the total after a change', () => {
    const { ledger, tick } = memoryLedger();
    for (let i = 0; i < 30; i++) {
      ledger.insertJob(
        jobRecord(`j${i}`, {
          decision: i % 3 === 0 ? 'admitted' : 'rejected',
          state: i % 3 === 0 ? 'accepted' : 'rejected',
          user: i % 2 === 0 ? 'alice' : 'bob',
        }),
      );
      tick(i % 4 === 0 ? 0 : 10); // some share a creation time: the later row comes first
    }
    const page = ledger.listJobs({ decision: 'rejected', limit: 5, offset: 3 });
    expect(page.total).toBe(20);
    expect(page.jobs.map((j) => j.id)).toEqual(['j25', 'j23', 'j22', 'j20', 'j19']);
    expect(ledger.listJobs({ user: 'bob', limit: 2 }).jobs.map((j) => j.id)).toEqual(['j29', 'j27']);
    ledger.updateJob('j25', { decision: 'admitted', state: 'accepted' });
    expect(ledger.listJobs({ decision: 'rejected', limit: 1 }).total).toBe(19);
    ledger.insertJob(jobRecord('late', { decision: 'rejected', state: 'rejected' }));
    expect(ledger.listJobs({ decision: 'rejected', limit: 1 })).toMatchObject({
      total: 20,
      jobs: [{ id: 'late' }],
    });
  });

  it('commits writes queued in one turn of the event loop together, each resolved once on disk', async () => {
    const { ledger } = memoryLedger();
    const done: string[] = [];
    const writes = ['a', 'b', 'c'].map((id) =>
      ledger
        .writeSoon(() => {
          ledger.insertJob(jobRecord(id));
          ledger.enqueueAction(id, 'submit', { id });
        })
        .then(() => done.push(id)),
    );
    // Not yet committed: nothing was resolved and nothing reads back.
    expect(done).toEqual([]);
    expect(ledger.getJob('a')).toBeUndefined();
    await Promise.all(writes);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(ledger.listJobs().total).toBe(3);
    expect(ledger.pendingActions().map((a) => a.jobId)).toEqual(['a', 'b', 'c']);
  });

  it('rolls back only the queued write that failed, and tells only its writer', async () => {
    const { ledger } = memoryLedger();
    ledger.insertJob(jobRecord('taken'));
    const ok = ledger.writeSoon(() => ledger.insertJob(jobRecord('a')));
    const bad = ledger.writeSoon(() => {
      ledger.insertJob(jobRecord('b'));
      ledger.insertJob(jobRecord('taken'));
    });
    const ok2 = ledger.writeSoon(() => ledger.insertJob(jobRecord('c')));
    // By message: better-sqlite3's error class belongs to the first test file's realm in a worker.
    await expect(bad).rejects.toMatchObject({ message: expect.stringMatching(/UNIQUE/) });
    await expect(Promise.all([ok, ok2])).resolves.toBeDefined();
    expect(['a', 'b', 'c'].map((id) => ledger.getJob(id)?.id)).toEqual(['a', undefined, 'c']);
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
      const file = Ledger.open(join(dir, 'l.db'));
      void file.writeSoon(() => file.insertJob(jobRecord('queued')));
      file.close();
      const again = Ledger.open(join(dir, 'l.db'));
      expect(again.getJob('queued')?.id).toBe('queued');
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('commits queued writes with the next transaction, keeping them when its own function fails', async () => {
    const { ledger, tick } = memoryLedger();
    ledger.insertJob(jobRecord('j'));
    const first = ledger.enqueueAction('j', 'submit', {});
    const queued = ledger.writeSoon(() => ledger.completeAction(first.id, 'done'));
    expect(() =>
      ledger.transaction(() => {
        ledger.enqueueAction('j', 'set-priority', { priority: 3 });
        throw new Error('refused');
      }),
    ).toThrow('refused');
    await expect(queued).resolves.toBeUndefined();
    expect(ledger.actionsOf('j').map((a) => [a.kind, a.status])).toEqual([['submit', 'done']]);
    // The outbox read commits what is queued: a confirmed action is never handed out again.
    const second = ledger.enqueueAction('j', 'set-priority', { priority: 4 });
    tick(5_000);
    ledger.enqueueAction('j', 'move-queue', { queue: 'besteffort' });
    void ledger.writeSoon(() => ledger.completeAction(second.id, 'done'));
    expect(ledger.pendingActions().map((a) => a.kind)).toEqual(['move-queue']);
    expect(ledger.pendingBacklog()).toEqual({ pending: 1, oldestMs: 6_000 });
    expect(ledger.transaction(() => 42)).toBe(42);
  });

  it('migrates a ledger written by the first schema, keeping its rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-migrate-'));
    try {
      const file = join(dir, 'l.db');
      const db = new Database(file);
      db.exec(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)',
      );
      db.exec(MIGRATIONS[0]!.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (1, ?, 0)').run(MIGRATIONS[0]!.name);
      db.close();
      const old = Ledger.open(file);
      expect(old.schemaVersion).toBe(3);
      old.close();
      const first = Ledger.open(file);
      first.insertJob(jobRecord('kept'));
      expect(first.listJobs({ decision: 'admitted' }).jobs.map((j) => j.id)).toEqual(['kept']);
      first.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps named values', () => {
    const { ledger } = memoryLedger();
    expect(ledger.getValue('estimates')).toBeUndefined();
    ledger.setValue('estimates', { eta: 1.5 });
    ledger.setValue('estimates', { eta: 2 });
    expect(ledger.getValue('estimates')).toEqual({ eta: 2 });
  });

  it.each([
    ['one transaction per write', 'single'],
    ['group commits', 'group'],
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
      const ledger = Ledger.open(file);
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
