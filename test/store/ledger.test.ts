import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Ledger } from '../../src/store/ledger';
import { jobRecord } from './builders';

function memoryLedger(start = 1_000): { ledger: Ledger; tick: (ms: number) => void } {
  let now = start;
  const ledger = Ledger.open(':memory:', { clock: () => now });
  return { ledger, tick: (ms) => (now += ms) };
}

describe('ledger', () => {
  it('migrates a new file to the latest schema', () => {
    const { ledger } = memoryLedger();
    expect(ledger.schemaVersion).toBe(1);
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

  it('keeps named values', () => {
    const { ledger } = memoryLedger();
    expect(ledger.getValue('estimates')).toBeUndefined();
    ledger.setValue('estimates', { eta: 1.5 });
    ledger.setValue('estimates', { eta: 2 });
    expect(ledger.getValue('estimates')).toEqual({ eta: 2 });
  });

  it('loses nothing that was committed when its process is killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-crash-'));
    const file = join(dir, 'ledger.db');
    try {
      const acknowledged: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--require', require.resolve('tsx/cjs'), join(__dirname, 'crash-writer.ts'), file],
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
