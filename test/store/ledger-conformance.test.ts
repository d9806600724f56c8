/**
 * The Ledger contract, run against both stores: SqliteLedger (a file's in-memory twin) and
 * PostgresLedger (its working copy shipped to a private PostgreSQL server). For PostgreSQL each
 * case ends by checking that what the ledger shows is what PostgreSQL holds: a second ledger
 * loaded from PostgreSQL has the same rows, table by table.
 */
import { SqliteLedger } from '../../src/store/ledger';
import { DERIVED_TABLES } from '../../src/store/migrations';
import { Client } from 'pg';
import { LedgerFencedError } from '../../src/errors/ledger-fenced';
import { LedgerReadOnlyError } from '../../src/errors/ledger-read-only';
import { LedgerUnavailableError } from '../../src/errors/ledger-unavailable';
import { openPostgresLedger, type PostgresLedger } from '../../src/store/postgres';
import { ARCHIVE_TABLES, LEDGER_TABLES, PG_MIGRATIONS } from '../../src/store/pg/schema';
import type {
  ActionRecord,
  DecisionRecord,
  JobAppRecord,
  JobCount,
  JobRecord,
  Ledger,
  TicketRecord,
} from '../../src/store/types';
import fc from 'fast-check';
import { jobRecord, tableRows } from './builders';
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../support/postgres';

interface Opened {
  ledger: Ledger;
  tick: (ms: number) => void;
}

interface Store {
  name: string;
  open(start?: number): Promise<Opened>;
  /** After each case: what the store must still hold (PostgreSQL: the same rows as the ledger shows). */
  check(ledger: Ledger): Promise<void>;
}

const pg = postgresAvailability();
let server: TestPostgres | undefined;

const sqliteStore: Store = {
  name: 'SQLite',
  open: (start = 1_000) => {
    let now = start;
    const ledger = SqliteLedger.open(':memory:', { clock: () => now });
    return Promise.resolve({ ledger, tick: (ms) => (now += ms) });
  },
  check: () => Promise.resolve(),
};

const postgresStore: Store = {
  name: 'PostgreSQL',
  open: async (start = 1_000) => {
    let now = start;
    const url = await server!.createDatabase();
    const ledger = await openPostgresLedger(url, { clock: () => now, writer: 'now', flushTimeoutMs: 20_000 });
    urls.set(ledger, url);
    return { ledger, tick: (ms) => (now += ms) };
  },
  check: async (ledger) => {
    const first = ledger as PostgresLedger;
    await first.flush();
    const reader = await openPostgresLedger(urls.get(first)!, { writer: 'later' });
    try {
      await reader.catchUp();
      expect(tableRows(reader.workingCopy())).toEqual(tableRows(first.workingCopy()));
      // The derived totals are rebuilt by the reader's own triggers as it loads the jobs.
      expect(totalsOf(reader)).toEqual(totalsOf(first));
    } finally {
      reader.close();
      await reader.closed;
    }
  },
};
const urls = new Map<PostgresLedger, string>();

/** countJobs and admittedEnergyByLabel in a fixed order, the energy rounded to the joule's millionth. */
function totalsOf(ledger: Ledger) {
  const key = (x: object) => JSON.stringify(x);
  return {
    counts: ledger
      .countJobs()
      .map((c) => ({ ...c }))
      .sort((a, b) => key(a).localeCompare(key(b))),
    energy: ledger
      .admittedEnergyByLabel()
      .map((e) => ({ label: e.label, joules: Math.round(e.joules * 1e6) / 1e6 }))
      .sort((a, b) => String(a.label).localeCompare(String(b.label))),
  };
}

/** The same totals counted from every job the ledger lists. */
function totalsCounted(ledger: Ledger) {
  const counts = new Map<string, JobCount>();
  const energy = new Map<string | null, number>();
  for (const j of ledger.listJobs({ limit: 1_000_000 }).jobs) {
    const k = JSON.stringify([j.decision, j.state, j.outcome]);
    const c = counts.get(k) ?? { decision: j.decision, state: j.state, outcome: j.outcome, n: 0 };
    c.n++;
    counts.set(k, c);
    if (j.decision === 'admitted' && j.energyJoules !== null)
      energy.set(j.label || null, (energy.get(j.label || null) ?? 0) + j.energyJoules);
  }
  return totalsOf({
    countJobs: () => [...counts.values()],
    admittedEnergyByLabel: () => [...energy].map(([label, joules]) => ({ label, joules })),
  } as unknown as Ledger);
}

const stores: Store[] = [sqliteStore];
if (pg === 'run') stores.push(postgresStore);

if (pg === 'run') {
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 120_000);
  afterAll(() => server?.destroy());
} else if (pg === 'missing-ci') {
  it("has PostgreSQL to run the ledger's PostgreSQL cases (CI installs Debian's postgresql)", () => {
    throw new Error(
      'PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs Debian package postgresql',
    );
  });
} else {
  it.skip('SKIPPED: the PostgreSQL cases, PostgreSQL is not installed (Debian package postgresql)', () => {});
}

describe.each(stores)('the ledger contract on $name', (store) => {
  const opened: Ledger[] = [];
  async function open(start?: number): Promise<Opened> {
    const o = await store.open(start);
    opened.push(o.ledger);
    return o;
  }
  afterEach(async () => {
    for (const ledger of opened.splice(0)) {
      try {
        await store.check(ledger);
      } finally {
        ledger.close();
        if ('closed' in ledger) await (ledger as PostgresLedger).closed;
      }
    }
  });
  jest.setTimeout(60_000);

  it('stores a job and reads back every field, JSON fields included', async () => {
    const { ledger } = await open(5_000);
    const reason = { kind: 'new-job-misses', lateBySeconds: 12.5 };
    ledger.insertJob(
      jobRecord('a', { decision: 'rejected', state: 'rejected', reason, earliestDeadlineMs: 9 }),
    );
    expect(ledger.getJob('a')).toEqual({
      ...jobRecord('a', { decision: 'rejected', state: 'rejected', reason, earliestDeadlineMs: 9 }),
      createdMs: 5_000,
      updatedMs: 5_000,
    });
    expect(ledger.getJob('missing')).toBeUndefined();
  });

  it('updates named fields only, stamps the time, and refuses unknown fields', async () => {
    const { ledger, tick } = await open();
    ledger.insertJob(jobRecord('a', { energyJoules: 12.25 }));
    tick(250);
    const after = ledger.updateJob('a', { appId: 'application_1_0001', state: 'submitted', priority: 7 });
    expect(after).toMatchObject({
      appId: 'application_1_0001',
      state: 'submitted',
      priority: 7,
      energyJoules: 12.25,
      updatedMs: 1_250,
      createdMs: 1_000,
    });
    expect(ledger.getJobByAppId('application_1_0001')?.id).toBe('a');
    expect(() => ledger.updateJob('a', { colour: 'red' } as never)).toThrow('unknown job field colour');
    expect(() => ledger.updateJob('zzz', { state: 'running' })).toThrow('no job zzz');
  });

  it("keeps a running job's predicted finish apart from its estimate; a new job has none", async () => {
    const { ledger, tick } = await open();
    const { predictedFinishMs: _none, ...fresh } = jobRecord('a', {
      state: 'running',
      estimatedFinishMs: 300_000,
    });
    expect(ledger.insertJob(fresh).predictedFinishMs).toBeNull();
    expect(ledger.getJob('a')).toMatchObject({ estimatedFinishMs: 300_000, predictedFinishMs: null });
    expect(ledger.openAdmittedJobsReused()[0]!.predictedFinishMs).toBeNull();
    tick(100);
    ledger.updateJob('a', { predictedFinishMs: 412_345 });
    expect(ledger.getJob('a')).toMatchObject({
      estimatedFinishMs: 300_000,
      predictedFinishMs: 412_345,
      updatedMs: 1_100,
    });
    // The poll loop's reused read sees the change.
    expect(ledger.openAdmittedJobsReused().map((j) => [j.id, j.predictedFinishMs])).toEqual([['a', 412_345]]);
    expect(ledger.listJobs().jobs[0]!.predictedFinishMs).toBe(412_345);
    // One given at insert is kept.
    ledger.insertJob(jobRecord('b', { predictedFinishMs: 7 }));
    expect(ledger.getJob('b')!.predictedFinishMs).toBe(7);
  });

  it('lists newest first with filters and pagination, and the open admitted queue in deadline order', async () => {
    const { ledger, tick } = await open();
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
    expect(ledger.countJobs()).toEqual(
      expect.arrayContaining([
        { decision: 'admitted', state: 'accepted', outcome: null, n: 2 },
        { decision: 'rejected', state: 'rejected', outcome: null, n: 1 },
      ]),
    );
  });

  it('keeps its job totals (counts and energy) equal to a count of its jobs through inserts, updates and rolled-back writes', async () => {
    const decisions = ['admitted', 'rejected'] as const;
    const states = ['accepted', 'running', 'finished', 'failed', 'rejected'] as const;
    const fields = {
      decision: fc.constantFrom(...decisions),
      state: fc.constantFrom(...states),
      outcome: fc.constantFrom('met', 'missed', null),
      label: fc.constantFrom('', 'gpu', null),
      energyJoules: fc.option(fc.double({ min: 1, max: 1e7, noNaN: true }), { nil: null }),
    };
    const write = fc.record(fields);
    // An update changes some of them, often one alone.
    const keys = Object.keys(fields) as Array<keyof typeof fields>;
    const patch = fc
      .tuple(
        write,
        fc.oneof(
          fc.constantFrom(...keys).map((k) => [k]),
          fc.subarray(keys, { minLength: 1 }),
        ),
      )
      .map(([w, ks]) => Object.fromEntries(ks.map((k) => [k, w[k]])));
    const op = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), fields: write }),
      fc.record({ kind: fc.constant('update' as const), at: fc.nat(), fields: patch }),
      // A transaction that writes, then throws: none of its writes may count.
      fc.record({ kind: fc.constant('rollback' as const), at: fc.nat(), fields: write }),
      // A group commit in which this write fails after its rows: only its own rows roll back.
      fc.record({ kind: fc.constant('failing-group-write' as const), fields: write }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const { ledger } = await open();
        const ids: string[] = [];
        for (const o of ops) {
          const id = `j${ids.length}`;
          if (o.kind === 'insert') {
            ledger.insertJob(jobRecord(id, o.fields));
            ids.push(id);
          } else if (o.kind === 'update' && ids.length > 0) {
            ledger.updateJob(ids[o.at % ids.length]!, o.fields);
          } else if (o.kind === 'rollback') {
            expect(() =>
              ledger.transaction(() => {
                ledger.insertJob(jobRecord(`${id}-gone`, o.fields));
                if (ids.length > 0) ledger.updateJob(ids[o.at % ids.length]!, o.fields);
                throw new Error('rolled back');
              }),
            ).toThrow('rolled back');
          } else if (o.kind === 'failing-group-write') {
            const kept = ledger.writeSoon(() => ledger.insertJob(jobRecord(id, o.fields)));
            const failed = ledger.writeSoon(() => {
              ledger.insertJob(jobRecord(`${id}-gone`, o.fields));
              ledger.insertJob(jobRecord(id, o.fields)); // the id is taken: this write fails
            });
            const [k, f] = await Promise.allSettled([kept, failed]);
            expect([k.status, f.status]).toEqual(['fulfilled', 'rejected']);
            ids.push(id);
          }
        }
        expect(totalsOf(ledger)).toEqual(totalsCounted(ledger));
      }),
      { numRuns: store.name === 'SQLite' ? 300 : 6 },
    );
  });

  it('lists a partition in the admitted energy only while one of its admitted jobs has an energy', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('a', { label: 'gpu', state: 'running', energyJoules: 3.6e6 }));
    ledger.insertJob(jobRecord('b', { label: 'gpu', state: 'running', energyJoules: null }));
    ledger.insertJob(jobRecord('c', { label: null, energyJoules: 1.8e6 }));
    ledger.insertJob(
      jobRecord('r', { decision: 'rejected', state: 'rejected', label: 'gpu', energyJoules: 9e9 }),
    );
    const energy = () =>
      ledger.admittedEnergyByLabel().sort((x, y) => String(x.label).localeCompare(String(y.label)));
    expect(energy()).toEqual([
      { label: 'gpu', joules: 3.6e6 },
      { label: null, joules: 1.8e6 },
    ]);
    ledger.updateJob('a', { energyJoules: 7.2e6 });
    expect(energy()[0]).toEqual({ label: 'gpu', joules: 7.2e6 });
    // Its only job with an energy leaves the group b stays in: the partition is no longer listed.
    ledger.updateJob('a', { state: 'finished', energyJoules: null });
    expect(energy()).toEqual([{ label: null, joules: 1.8e6 }]);
    expect(ledger.countJobs()).toEqual(
      expect.arrayContaining([
        { decision: 'admitted', state: 'running', outcome: null, n: 1 },
        { decision: 'admitted', state: 'finished', outcome: null, n: 1 },
        { decision: 'admitted', state: 'accepted', outcome: null, n: 1 },
        { decision: 'rejected', state: 'rejected', outcome: null, n: 1 },
      ]),
    );
    expect(ledger.countJobs()).toHaveLength(4);
  });

  it('lists pages filtered by one field newest first, and recounts the total after a change', async () => {
    const { ledger, tick } = await open();
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

  it('reads the open jobs again only when they changed (openAdmittedJobsReused)', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('a', { deadlineMs: 500_000, spec: { n: 1 } }));
    ledger.insertJob(jobRecord('b', { deadlineMs: 400_000, spec: { n: 2 } }));
    const first = ledger.openAdmittedJobsReused();
    expect(first.map((j) => j.id)).toEqual(['b', 'a']);
    const again = ledger.openAdmittedJobsReused();
    expect(again[0]!.spec).toBe(first[0]!.spec);
    ledger.updateJob('b', { state: 'finished' });
    ledger.updateJob('a', { spec: { n: 3 } });
    const after = ledger.openAdmittedJobsReused();
    expect(after.map((j) => [j.id, j.spec])).toEqual([['a', { n: 3 }]]);
  });

  it('records decisions on a job in order', async () => {
    const { ledger, tick } = await open();
    ledger.insertJob(jobRecord('a'));
    const first = ledger.recordDecision('a', 'rtmr', 'admitted', { position: 1 });
    tick(7);
    const second = ledger.recordDecision('a', 'rtmr', 're-admitted', null);
    expect(second).toBeGreaterThan(first);
    expect(ledger.decisionsOf('a')).toEqual([
      { id: first, jobId: 'a', atMs: 1_000, policy: 'rtmr', decision: 'admitted', detail: { position: 1 } },
      { id: second, jobId: 'a', atMs: 1_007, policy: 'rtmr', decision: 're-admitted', detail: null },
    ]);
    expect(ledger.decisionsOf('none')).toEqual([]);
  });

  it('returns an enqueued action as it reads it back', async () => {
    const { ledger, tick } = await open();
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
      if (typeof payload === 'object' && payload !== null) expect(action.payload).not.toBe(payload);
    }
  });

  it('keeps actions pending until confirmed (record before, confirm after), and refuses to confirm twice', async () => {
    const { ledger, tick } = await open();
    ledger.insertJob(jobRecord('a'));
    const submit = ledger.enqueueAction('a', 'submit', { appId: 'application_1_0001' });
    const prio = ledger.enqueueAction('a', 'set-priority', { priority: 3 });
    expect(ledger.pendingActions().map((x) => x.kind)).toEqual(['submit', 'set-priority']);
    ledger.markActionAttempt(submit.id);
    ledger.noteActionError(submit.id, 'RM unavailable');
    ledger.updateActionPayload(submit.id, { appId: 'application_1_0001', reservation: 'r1' });
    expect(ledger.getAction(submit.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'RM unavailable',
      payload: { appId: 'application_1_0001', reservation: 'r1' },
    });
    tick(5);
    ledger.completeAction(submit.id, 'done', { status: 202 });
    expect(() => ledger.completeAction(submit.id, 'done')).toThrow(`action ${submit.id} is not pending`);
    expect(ledger.pendingActions().map((x) => x.id)).toEqual([prio.id]);
    expect(ledger.actionsOf('a').map((x) => [x.kind, x.status, x.result])).toEqual([
      ['submit', 'done', { status: 202 }],
      ['set-priority', 'pending', null],
    ]);
    expect(ledger.countActions()).toEqual([
      { kind: 'set-priority', status: 'pending', n: 1 },
      { kind: 'submit', status: 'done', n: 1 },
    ]);
    expect(ledger.pendingBacklog()).toEqual({ pending: 1, oldestMs: 1_000 });
  });

  it('names the admitted jobs whose submission the RM refused for good', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('refused'));
    ledger.insertJob(jobRecord('retrying'));
    const a = ledger.enqueueAction('refused', 'submit', {});
    ledger.completeAction(a.id, 'failed', undefined, 'queue full');
    const b = ledger.enqueueAction('retrying', 'submit', {});
    ledger.completeAction(b.id, 'failed', undefined, 'first try');
    ledger.enqueueAction('retrying', 'submit', {});
    expect(ledger.refusedSubmissions().map((r) => [r.job.id, r.error])).toEqual([['refused', 'queue full']]);
  });

  it('keeps the first answer for an idempotency key, per submitter: a second save does not overwrite it', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('a'));
    ledger.saveIdempotent('ci', 'k1', { requestHash: 'h', jobId: 'a', status: 201, response: { id: 'a' } });
    const first = { requestHash: 'h', jobId: 'a', status: 201, response: { id: 'a' } };
    expect(ledger.findIdempotent('ci', 'k1')).toEqual(first);
    expect(ledger.findIdempotent('other', 'k1')).toBeUndefined();
    expect(() =>
      ledger.saveIdempotent('ci', 'k1', { requestHash: 'h2', jobId: 'a', status: 200, response: {} }),
    ).toThrow(/UNIQUE/);
    expect(ledger.findIdempotent('ci', 'k1')).toEqual(first);
    ledger.saveIdempotent('other', 'k1', { requestHash: 'h3', jobId: 'a', status: 200, response: [] }, '[1]');
    expect(ledger.findIdempotent('other', 'k1')?.response).toEqual([1]);
  });

  it('keeps tickets: waiting until bound, expired or cancelled, once', async () => {
    const { ledger, tick } = await open();
    for (const id of ['t1', 't2', 't3']) ledger.insertJob(jobRecord(id));
    ledger.insertTicket({ jobId: 't1', expiresMs: 5_000, detail: { tags: ['yss-ticket:t1'] } });
    ledger.insertTicket({ jobId: 't2', expiresMs: 2_000, detail: null });
    ledger.insertTicket({ jobId: 't3', expiresMs: 9_000, detail: { n: 3 } });
    expect(ledger.getTicket('t1')).toEqual({
      jobId: 't1',
      status: 'waiting',
      expiresMs: 5_000,
      appId: null,
      detail: { tags: ['yss-ticket:t1'] },
      client: null,
      createdMs: 1_000,
      updatedMs: 1_000,
    });
    tick(100);
    expect(ledger.endTicket('t1', 'bound', 'application_9_0001')).toBe(true);
    expect(ledger.endTicket('t1', 'cancelled')).toBe(false);
    expect(ledger.getTicket('t1')).toMatchObject({
      status: 'bound',
      appId: 'application_9_0001',
      updatedMs: 1_100,
    });
    expect(ledger.expiredTickets(5_000).map((t) => t.jobId)).toEqual(['t2']);
    expect([...ledger.ticketsOf(['t1', 't3', 'none']).keys()].sort()).toEqual(['t1', 't3']);
    expect(ledger.getTicket('none')).toBeUndefined();
  });

  it("keeps a job's apps in the order they were bound, and what a ticket's client reported", async () => {
    const { ledger, tick } = await open();
    for (const id of ['j1', 'j2']) ledger.insertJob(jobRecord(id));
    const app = (id: string, state: string, finishedMs: number | null = null) => ({
      appId: id,
      state,
      finalStatus: finishedMs === null ? 'UNDEFINED' : 'SUCCEEDED',
      queue: 'root.realtime',
      startedMs: 1_000,
      finishedMs,
    });
    expect(ledger.trackJobApp('j1', app('application_9_0001', 'RUNNING'))).toBeUndefined();
    tick(100);
    expect(ledger.trackJobApp('j1', app('application_9_0001', 'FINISHED', 1_100))).toMatchObject({
      state: 'RUNNING',
      ordinal: 1,
    });
    ledger.trackJobApp('j1', app('application_9_0003', 'ACCEPTED'));
    ledger.trackJobApp('j2', app('application_9_0002', 'RUNNING'));
    expect(ledger.appsOf('j1').map((a) => [a.appId, a.ordinal, a.state, a.finishedMs])).toEqual([
      ['application_9_0001', 1, 'FINISHED', 1_100],
      ['application_9_0003', 2, 'ACCEPTED', null],
    ]);
    expect([...ledger.appsOfJobs(['j1', 'j2', 'none']).entries()].map(([j, a]) => [j, a.length])).toEqual([
      ['j1', 2],
      ['j2', 1],
    ]);
    expect(ledger.jobOfApp('application_9_0003')!.id).toBe('j1');
    expect(ledger.jobOfApp('application_9_0009')).toBeUndefined();
    // A ticket's client: running (again), then exited once; a later report changes nothing.
    ledger.insertTicket({ jobId: 'j1', expiresMs: 9_000, detail: null });
    expect(ledger.reportClient('j1', 'running', null, 1_200)).toBe(true);
    expect(ledger.reportClient('j1', 'running', null, 1_300)).toBe(true);
    expect(ledger.getTicket('j1')!.client).toEqual({ state: 'running', exitCode: null, seenMs: 1_300 });
    expect(ledger.reportClient('j1', 'exited', 3, 1_400)).toBe(true);
    expect(ledger.reportClient('j1', 'exited', 0, 1_500)).toBe(false);
    expect(ledger.getTicket('j1')!.client).toEqual({ state: 'exited', exitCode: 3, seenMs: 1_400 });
    expect(ledger.reportClient('j2', 'running', null, 1_200)).toBe(false);
  });

  it('keeps named values', async () => {
    const { ledger } = await open();
    expect(ledger.getValue('estimates')).toBeUndefined();
    ledger.setValue('estimates', { eta: 1.5 });
    ledger.setValue('estimates', { eta: 2 });
    ledger.setValue('other', [1, 'two']);
    expect(ledger.getValue('estimates')).toEqual({ eta: 2 });
    expect(ledger.getValue('other')).toEqual([1, 'two']);
  });

  it('rolls a transaction back whole', async () => {
    const { ledger } = await open();
    expect(() =>
      ledger.transaction(() => {
        ledger.insertJob(jobRecord('a'));
        ledger.insertJob(jobRecord('a'));
      }),
    ).toThrow(/UNIQUE/);
    expect(ledger.getJob('a')).toBeUndefined();
    expect(ledger.transaction(() => ledger.insertJob(jobRecord('b')).id)).toBe('b');
  });

  it('commits an unsynced transaction whole or not at all, as a transaction', async () => {
    const { ledger } = await open();
    expect(ledger.transactionUnsynced(() => ledger.insertJob(jobRecord('u')).id)).toBe('u');
    expect(() =>
      ledger.transactionUnsynced(() => {
        ledger.insertJob(jobRecord('v'));
        ledger.insertJob(jobRecord('v'));
      }),
    ).toThrow(/UNIQUE/);
    expect(ledger.getJob('u')?.id).toBe('u');
    expect(ledger.getJob('v')).toBeUndefined();
    await ledger.flush();
  });

  it('commits writes queued in one turn of the event loop together, each resolved once durable', async () => {
    const { ledger } = await open();
    const done: string[] = [];
    const writes = ['a', 'b', 'c'].map((id) =>
      ledger
        .writeSoon(() => {
          ledger.insertJob(jobRecord(id));
          ledger.enqueueAction(id, 'submit', { id });
        })
        .then(() => done.push(id)),
    );
    expect(done).toEqual([]);
    expect(ledger.getJob('a')).toBeUndefined();
    await Promise.all(writes);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(ledger.listJobs().total).toBe(3);
    expect(ledger.pendingActions().map((a) => a.jobId)).toEqual(['a', 'b', 'c']);
  });

  it('rolls back only the queued write that failed, and tells only its writer', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('taken'));
    const ok = ledger.writeSoon(() => ledger.insertJob(jobRecord('a')));
    const bad = ledger.writeSoon(() => {
      ledger.insertJob(jobRecord('b'));
      ledger.insertJob(jobRecord('taken'));
    });
    const ok2 = ledger.writeSoon(() => ledger.insertJob(jobRecord('c')));
    await expect(bad).rejects.toMatchObject({ message: expect.stringMatching(/UNIQUE/) });
    await expect(Promise.all([ok, ok2])).resolves.toBeDefined();
    expect(['a', 'b', 'c'].map((id) => ledger.getJob(id)?.id)).toEqual(['a', undefined, 'c']);
  });

  it('runs a group once without savepoints, and again a write at a time only when one of them fails', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('taken'));
    const runs = new Map<string, number>();
    const write = (id: string, fail = false) =>
      ledger.writeSoon(() => {
        runs.set(id, (runs.get(id) ?? 0) + 1);
        ledger.insertJob(jobRecord(id));
        ledger.recordDecision(id, 'rtmr', 'admitted', { n: 1 });
        if (fail) ledger.insertJob(jobRecord('taken'));
      });
    await Promise.all(['a', 'b', 'c'].map((id) => write(id)));
    expect(Object.fromEntries(runs)).toEqual({ a: 1, b: 1, c: 1 });

    runs.clear();
    const settled = await Promise.allSettled([write('d'), write('e', true), write('f')]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // d ran in the first pass and again in the second; the first pass stopped at e.
    expect(Object.fromEntries(runs)).toEqual({ d: 2, e: 2, f: 1 });
    // Each kept write landed once: its job and a single decision.
    expect(['d', 'e', 'f'].map((id) => ledger.getJob(id)?.id)).toEqual(['d', undefined, 'f']);
    expect(['d', 'e', 'f'].map((id) => ledger.decisionsOf(id).length)).toEqual([1, 0, 1]);

    // A transaction's own function runs once, after the queued writes, whichever pass they need.
    let lastRuns = 0;
    const g = write('g', true);
    const h = write('h');
    const value = ledger.transaction(() => {
      lastRuns += 1;
      ledger.insertJob(jobRecord('i'));
      return 'done';
    });
    expect(value).toBe('done');
    await expect(g).rejects.toMatchObject({ message: expect.stringMatching(/UNIQUE/) });
    await expect(h).resolves.toBeUndefined();
    expect(lastRuns).toBe(1);
    expect(['g', 'h', 'i'].map((id) => ledger.getJob(id)?.id)).toEqual([undefined, 'h', 'i']);
  });

  it("keeps a queued write that fails in the group's first run and not in its second", async () => {
    const { ledger } = await open();
    let tries = 0;
    const passing = ledger.writeSoon(() => {
      tries += 1;
      ledger.insertJob(jobRecord('p'));
      if (tries === 1) throw new Error('disk I/O error');
    });
    const other = ledger.writeSoon(() => ledger.insertJob(jobRecord('q')));
    await expect(Promise.all([passing, other])).resolves.toBeDefined();
    expect(tries).toBe(2);
    expect(['p', 'q'].map((id) => ledger.getJob(id)?.id)).toEqual(['p', 'q']);
  });

  it('commits queued writes with the next transaction, keeping them when its own function fails', async () => {
    const { ledger, tick } = await open();
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
    const second = ledger.enqueueAction('j', 'set-priority', { priority: 4 });
    tick(5_000);
    ledger.enqueueAction('j', 'move-queue', { queue: 'besteffort' });
    void ledger.writeSoon(() => ledger.completeAction(second.id, 'done'));
    expect(ledger.pendingActions().map((a) => a.kind)).toEqual(['move-queue']);
    expect(ledger.pendingBacklog()).toEqual({ pending: 1, oldestMs: 6_000 });
  });

  it('flush resolves once every write so far is durable, queued ones included', async () => {
    const { ledger } = await open();
    ledger.insertJob(jobRecord('direct'));
    void ledger.writeSoon(() => ledger.insertJob(jobRecord('queued')));
    await ledger.flush();
    expect(
      ledger
        .listJobs()
        .jobs.map((j) => j.id)
        .sort(),
    ).toEqual(['direct', 'queued']);
    await expect(ledger.flush()).resolves.toBeUndefined();
  });

  describe('the archive', () => {
    it('moves exactly the closed jobs last written before the cutoff, with every row of theirs, and nothing open, recent or pending', async () => {
      const { ledger, tick } = await open();
      const h = seedHistory(ledger, tick);
      const before = snapshotOf(ledger, h.all);
      const totals = totalsOf(ledger);

      const batch = await ledger.archiveClosedJobs({ closedBeforeMs: h.cutoff, limit: 100 });
      expect([...batch.jobIds].sort()).toEqual([...h.archivable].sort());
      expect(batch.rows).toEqual({
        jobs: h.archivable.length,
        // One decision per job, two for the lost one.
        decisions: h.archivable.length + 1,
        // A done submit per job, and the orphan done action.
        actions: h.archivable.length + 1,
        idempotency: 2,
        tickets: 2,
        job_apps: 3,
      });
      // Gone from every live table and read.
      for (const id of h.archivable) {
        expect(ledger.getJob(id)).toBeUndefined();
        expect(ledger.decisionsOf(id)).toEqual([]);
        expect(ledger.actionsOf(id)).toEqual([]);
        expect(ledger.appsOf(id)).toEqual([]);
        expect(ledger.getTicket(id)).toBeUndefined();
      }
      expect(ledger.findIdempotent('ci', 'key-old-finished')).toBeUndefined();
      expect(ledger.getJobByAppId('application_1_0001')).toBeUndefined();
      expect(ledger.getAction(h.orphanDone)).toBeUndefined();
      // What stays live is exactly as it was.
      expect(snapshotOf(ledger, h.kept)).toEqual(pick(before, h.kept));
      expect(ledger.findIdempotent('ci', 'key-recent')?.jobId).toBe('recent-finished');
      expect(ledger.getAction(h.orphanPending)?.status).toBe('pending');
      expect(
        ledger
          .listJobs({ limit: 100 })
          .jobs.map((j) => j.id)
          .sort(),
      ).toEqual([...h.kept].sort());
      expect(
        ledger
          .openAdmittedJobs()
          .map((j) => j.id)
          .sort(),
      ).toEqual(['old-running', 'old-waiting']);
      // Every archived job reads back as it was, with its rows.
      for (const id of h.archivable) {
        const got = await ledger.getArchivedJob(id);
        expect(got).toBeDefined();
        expect({
          job: got!.job,
          decisions: got!.decisions,
          actions: got!.actions,
          apps: got!.apps,
          ticket: got!.ticket,
        }).toEqual(before[id]);
        expect(got!.archivedMs).toBe(h.now());
      }
      expect(await ledger.getArchivedJob('recent-finished')).toBeUndefined();
      expect(await ledger.getArchivedJob('none')).toBeUndefined();
      // The totals count every job decided, archived ones too.
      expect(totalsOf(ledger)).toEqual(totals);

      // Nothing more is due; once its pending write is confirmed, the last old job goes too.
      expect((await ledger.archiveClosedJobs({ closedBeforeMs: h.cutoff, limit: 100 })).jobIds).toEqual([]);
      const pending = ledger.actionsOf('old-pending').find((a) => a.status === 'pending')!;
      ledger.completeAction(pending.id, 'done');
      expect((await ledger.archiveClosedJobs({ closedBeforeMs: h.cutoff, limit: 100 })).jobIds).toEqual([
        'old-pending',
      ]);
      // The recent one, once the cutoff passes it.
      tick(100_000);
      expect((await ledger.archiveClosedJobs({ closedBeforeMs: 250_000, limit: 100 })).jobIds).toEqual([
        'recent-finished',
      ]);
      expect(totalsOf(ledger)).toEqual(totals);
      // New decisions and actions are numbered above every archived one.
      ledger.insertJob(jobRecord('after'));
      const top = Math.max(...Object.values(before).flatMap((b) => b.actions.map((a) => a.id)));
      expect(ledger.enqueueAction('after', 'submit', {}).id).toBeGreaterThan(top);
      const topDecision = Math.max(...Object.values(before).flatMap((b) => b.decisions.map((d) => d.id)));
      expect(ledger.recordDecision('after', 'rtmr', 'admitted', {})).toBeGreaterThan(topDecision);
    });

    it('moves at most `limit` jobs a batch, each batch whole, until none is due', async () => {
      const { ledger, tick } = await open();
      ledger.transaction(() => {
        for (let i = 0; i < 25; i++) {
          const id = `c${String(i).padStart(2, '0')}`;
          ledger.insertJob(jobRecord(id, { state: 'finished', outcome: 'met', finishedMs: 900 }));
          ledger.recordDecision(id, 'rtmr', 'admitted', { i });
          const a = ledger.enqueueAction(id, 'submit', { i });
          ledger.completeAction(a.id, 'done');
        }
      });
      tick(10_000);
      const sizes: number[] = [];
      const seen = new Set<string>();
      for (;;) {
        const b = await ledger.archiveClosedJobs({ closedBeforeMs: 5_000, limit: 10 });
        sizes.push(b.jobIds.length);
        expect(b.rows).toMatchObject({
          jobs: b.jobIds.length,
          decisions: b.jobIds.length,
          actions: b.jobIds.length,
        });
        for (const id of b.jobIds) {
          expect(seen.has(id)).toBe(false);
          seen.add(id);
          // Each job moved with its rows, in the same batch.
          expect((await ledger.getArchivedJob(id))!.actions).toHaveLength(1);
        }
        if (b.jobIds.length === 0) break;
      }
      expect(sizes).toEqual([10, 10, 5, 0]);
      expect(seen.size).toBe(25);
      expect(ledger.listJobs().total).toBe(0);
      await expect(ledger.archiveClosedJobs({ closedBeforeMs: 5_000, limit: 0 })).rejects.toThrow(RangeError);
    });

    it('pages through the archived jobs newest first, filtered, with their tickets and apps', async () => {
      const { ledger, tick } = await open();
      for (let i = 0; i < 12; i++) {
        ledger.insertJob(
          jobRecord(`a${String(i).padStart(2, '0')}`, {
            state: i % 3 === 0 ? 'rejected' : 'finished',
            decision: i % 3 === 0 ? 'rejected' : 'admitted',
            user: i % 2 === 0 ? 'alice' : 'bob',
            queue: i % 4 === 0 ? 'adhoc' : 'realtime',
            outcome: i % 3 === 0 ? null : 'met',
          }),
        );
        tick(10);
      }
      ledger.insertTicket({ jobId: 'a05', expiresMs: 9_000, detail: { tags: ['t'] } });
      ledger.endTicket('a05', 'bound', 'application_7_0005');
      ledger.updateJob('a05', { appId: 'application_7_0005' });
      ledger.trackJobApp('a05', {
        appId: 'application_7_0005',
        state: 'FINISHED',
        finalStatus: 'SUCCEEDED',
        queue: 'root.realtime',
        startedMs: 1_000,
        finishedMs: 1_050,
      });
      ledger.insertJob(jobRecord('live', { state: 'finished', outcome: 'met' }));
      tick(100_000);
      // 'live' was written at the same time as a05's last rows: the cutoff leaves it out.
      ledger.updateJob('live', { priority: 1 });
      await ledger.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 5 });
      await ledger.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 5 });
      await ledger.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 5 });
      const ids = (page: { jobs: Array<{ job: JobRecord }> }) => page.jobs.map((j) => j.job.id);
      const all = await ledger.listArchivedJobs({ limit: 100 });
      expect(all.total).toBe(12);
      expect(ids(all)).toEqual(Array.from({ length: 12 }, (_, i) => `a${String(11 - i).padStart(2, '0')}`));
      expect(ids(await ledger.listArchivedJobs({ limit: 5, offset: 5 }))).toEqual([
        'a06',
        'a05',
        'a04',
        'a03',
        'a02',
      ]);
      const rejected = await ledger.listArchivedJobs({ decision: 'rejected', limit: 2 });
      expect([ids(rejected), rejected.total]).toEqual([['a09', 'a06'], 4]);
      const bob = await ledger.listArchivedJobs({ user: 'bob', state: 'finished' });
      expect([ids(bob), bob.total]).toEqual([['a11', 'a07', 'a05', 'a01'], 4]);
      expect(ids(await ledger.listArchivedJobs({ queue: 'adhoc' }))).toEqual(['a08', 'a04', 'a00']);
      const a05 = all.jobs.find((j) => j.job.id === 'a05')!;
      expect(a05.ticket).toMatchObject({
        status: 'bound',
        appId: 'application_7_0005',
        detail: { tags: ['t'] },
      });
      expect(a05.apps.map((a) => [a.appId, a.ordinal, a.state])).toEqual([
        ['application_7_0005', 1, 'FINISHED'],
      ]);
      expect(all.jobs.find((j) => j.job.id === 'a04')).toMatchObject({ ticket: undefined, apps: [] });
      expect(ledger.listJobs().jobs.map((j) => j.id)).toEqual(['live']);
      expect((await ledger.listArchivedJobs({ user: 'nobody' })).total).toBe(0);
    });

    it('deletes archived jobs only past their own cutoff, with their rows, and keeps their totals', async () => {
      const { ledger, tick } = await open();
      const h = seedHistory(ledger, tick);
      const totals = totalsOf(ledger);
      await ledger.archiveClosedJobs({ closedBeforeMs: h.cutoff, limit: 100 });
      // Nothing archived is older than 1,000 ms: nothing is deleted.
      const none = await ledger.deleteArchivedJobs({ closedBeforeMs: 1_000, limit: 100 });
      expect(none.jobIds).toEqual([]);
      expect((await ledger.listArchivedJobs()).total).toBe(h.archivable.length);
      // Two at a time: the old ones go, with their rows, and the orphan action.
      const first = await ledger.deleteArchivedJobs({ closedBeforeMs: h.cutoff, limit: 2 });
      expect(first.jobIds).toHaveLength(2);
      expect(first.rows.actions).toBe(3);
      for (const id of first.jobIds) expect(await ledger.getArchivedJob(id)).toBeUndefined();
      let left = h.archivable.length - 2;
      for (;;) {
        const b = await ledger.deleteArchivedJobs({ closedBeforeMs: h.cutoff, limit: 2 });
        if (b.jobIds.length === 0) break;
        left -= b.jobIds.length;
      }
      expect(left).toBe(0);
      expect(await ledger.listArchivedJobs()).toEqual({ jobs: [], total: 0 });
      expect(totalsOf(ledger)).toEqual(totals);
      for (const id of h.kept) expect(ledger.getJob(id)?.id).toBe(id);
    });
  });
});

/**
 * A ledger's history for the archive's cases: closed jobs of every kind written at 1,000 ms (with
 * decisions, actions, idempotent answers, tickets and apps), an open one, a closed one with a
 * pending write, actions of no job (one confirmed, one pending), and a job closed at 200,000 ms.
 * The cutoff, 50,000 ms, falls between.
 */
function seedHistory(ledger: Ledger, tick: (ms: number) => void) {
  let at = 1_000;
  const step = (ms: number) => {
    tick(ms);
    at += ms;
  };
  const closed: Array<[string, Partial<JobRecord>]> = [
    [
      'old-finished',
      { state: 'finished', outcome: 'met', finishedMs: 900, energyJoules: 12.5, label: 'gpu' },
    ],
    ['old-missed', { state: 'finished', outcome: 'missed', finishedMs: 950, energyJoules: 3 }],
    ['old-rejected', { decision: 'rejected', state: 'rejected', reason: { kind: 'no-capacity' } }],
    ['old-failed', { state: 'failed', finishedMs: 990 }],
    ['old-lost', { state: 'lost', finishedMs: 990 }],
    ['old-expired', { state: 'expired' }],
    ['old-cancelled', { state: 'cancelled' }],
  ];
  let orphanDone = 0;
  let orphanPending = 0;
  ledger.transaction(() => {
    for (const [id, over] of closed) {
      ledger.insertJob(jobRecord(id, over));
      ledger.recordDecision(id, 'rtmr', over.decision ?? 'admitted', { id });
      const a = ledger.enqueueAction(id, 'submit', { id });
      ledger.markActionAttempt(a.id);
      ledger.completeAction(a.id, 'done', { ok: true });
    }
    ledger.recordDecision('old-lost', 'reconcile', 'lost', { app: 'gone' });
    ledger.saveIdempotent('ci', 'key-old-finished', {
      requestHash: 'h1',
      jobId: 'old-finished',
      status: 201,
      response: { id: 'old-finished' },
    });
    ledger.saveIdempotent('ci', 'key-old-rejected', {
      requestHash: 'h2',
      jobId: 'old-rejected',
      status: 200,
      response: { id: 'old-rejected' },
    });
    ledger.updateJob('old-finished', { appId: 'application_1_0001' });
    const app = (appId: string) => ({
      appId,
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
      queue: 'root.realtime',
      startedMs: 500,
      finishedMs: 900,
    });
    ledger.trackJobApp('old-finished', app('application_1_0001'));
    ledger.trackJobApp('old-finished', app('application_1_0002'));
    ledger.insertTicket({ jobId: 'old-expired', expiresMs: 800, detail: { tags: ['x'] } });
    ledger.endTicket('old-expired', 'expired');
    ledger.insertTicket({ jobId: 'old-cancelled', expiresMs: 800, detail: null });
    ledger.endTicket('old-cancelled', 'bound', 'application_1_0003');
    ledger.trackJobApp('old-cancelled', app('application_1_0003'));
    ledger.reportClient('old-cancelled', 'exited', 0, 950);
    // Open, or closed with a write still pending: never archived, however old.
    ledger.insertJob(jobRecord('old-running', { state: 'running', appId: 'application_1_0009' }));
    ledger.insertJob(jobRecord('old-pending', { state: 'finished', outcome: 'met' }));
    ledger.enqueueAction('old-pending', 'set-priority', { priority: 1 });
    ledger.insertJob(jobRecord('old-waiting', { state: 'accepted' }));
    ledger.insertTicket({ jobId: 'old-waiting', expiresMs: 900_000, detail: null });
    const o = ledger.enqueueAction(null, 'refresh', {});
    ledger.completeAction(o.id, 'done');
    orphanDone = o.id;
    orphanPending = ledger.enqueueAction(null, 'refresh', {}).id;
  });
  step(199_000);
  ledger.insertJob(jobRecord('recent-finished', { state: 'finished', outcome: 'met', finishedMs: at }));
  ledger.saveIdempotent('ci', 'key-recent', {
    requestHash: 'h3',
    jobId: 'recent-finished',
    status: 201,
    response: { id: 'recent-finished' },
  });
  const archivable = closed.map(([id]) => id);
  const kept = ['old-running', 'old-pending', 'old-waiting', 'recent-finished'];
  return {
    cutoff: 50_000,
    archivable,
    kept,
    all: [...archivable, ...kept],
    orphanDone,
    orphanPending,
    now: () => at,
  };
}

/** Every job of `ids` with its rows, as the live tables show them. */
function snapshotOf(ledger: Ledger, ids: readonly string[]) {
  const out: Record<
    string,
    {
      job: JobRecord | undefined;
      decisions: DecisionRecord[];
      actions: ActionRecord[];
      apps: JobAppRecord[];
      ticket: TicketRecord | undefined;
    }
  > = {};
  for (const id of ids)
    out[id] = {
      job: ledger.getJob(id),
      decisions: ledger.decisionsOf(id),
      actions: ledger.actionsOf(id),
      apps: ledger.appsOf(id),
      ticket: ledger.getTicket(id),
    };
  return out;
}

function pick<T>(all: Record<string, T>, ids: readonly string[]): Record<string, T> {
  return Object.fromEntries(ids.map((id) => [id, all[id]!]));
}

/** Waits for `ok` (a condition, polled), failing after `timeoutMs` with `what`. */
async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The ledger tables' rows as a fresh follower loads them from PostgreSQL. */
async function rowsInPostgres(url: string): Promise<Record<string, unknown[]>> {
  const reader = await openPostgresLedger(url, { writer: 'later' });
  try {
    await reader.catchUp();
    return tableRows(reader.workingCopy());
  } finally {
    reader.close();
    await reader.closed;
  }
}

(pg === 'run' ? describe : describe.skip)(
  'the ledger on PostgreSQL: schema, reopening, fencing, following, outages',
  () => {
    jest.setTimeout(120_000);
    const open: PostgresLedger[] = [];
    async function track(p: Promise<PostgresLedger>): Promise<PostgresLedger> {
      const l = await p;
      open.push(l);
      return l;
    }
    afterEach(async () => {
      for (const l of open.splice(0)) {
        l.close();
        await l.closed;
      }
    });

    it('mirrors every SQLite ledger table column for column (types mapped), with row_id and seq, and migrates once', async () => {
      const url = await server!.createDatabase();
      const [a, b] = await Promise.all([
        track(openPostgresLedger(url, { writer: 'later' })),
        track(openPostgresLedger(url, { writer: 'later' })),
      ]);
      expect(await a.pgSchemaVersion()).toBe(PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version);
      expect(await b.pgSchemaVersion()).toBe(await a.pgSchemaVersion());
      const sqlite = SqliteLedger.open(':memory:');
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const tables = (
          sqlite.connection
            .prepare(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'",
            )
            .all() as Array<{ name: string }>
        ).map((t) => t.name);
        // Every table but those derived by triggers (rebuilt in each working copy) is shipped:
        // the live ones loaded, the archive's not.
        expect([...tables].filter((t) => !DERIVED_TABLES.includes(t)).sort()).toEqual(
          [...LEDGER_TABLES, ...ARCHIVE_TABLES].sort(),
        );
        const mapped: Record<string, string> = { INTEGER: 'bigint', REAL: 'double precision', TEXT: 'text' };
        for (const t of [...LEDGER_TABLES, ...ARCHIVE_TABLES]) {
          const want = (
            sqlite.connection.prepare(`PRAGMA table_info(${t})`).all() as Array<{
              name: string;
              type: string;
            }>
          ).map((c) => [c.name, mapped[c.type.toUpperCase()]]);
          const got = await client.query<{ column_name: string; data_type: string }>(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 AND table_schema = 'public' ORDER BY ordinal_position",
            [t],
          );
          expect(got.rows.map((c) => [c.column_name, c.data_type])).toEqual([
            ['row_id', 'bigint'],
            ...want,
            ['seq', 'bigint'],
          ]);
        }
        const fence = await client.query('SELECT epoch, holder FROM fence');
        expect(fence.rows).toEqual([{ epoch: '0', holder: null }]);
      } finally {
        await client.end();
        sqlite.close();
      }
    });

    it('migrates a database as the schema before predicted finishes left it: its jobs keep their rows and seq, and seq stays last', async () => {
      const url = await server!.createDatabase();
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(
          'CREATE TABLE schema_version (version INT PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
        );
        const predicted = PG_MIGRATIONS.find((m) => m.sql.includes('predicted_finish_ms'))!.version;
        const before = PG_MIGRATIONS.filter((m) => m.version < predicted);
        expect(before.length).toBe(2);
        for (const m of before) {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [
            m.version,
            m.name,
          ]);
        }
        // A job as that schema's writer shipped it (every column but the new one), seq 41.
        const row = jobRecord('old', { state: 'running', estimatedFinishMs: 300_000 });
        await client.query(
          `INSERT INTO jobs (row_id, id, name, "user", submitter, source, job_type, maps, reduces, input_bytes,
             arrival_ms, deadline_ms, decision, reason, estimated_finish_ms, earliest_deadline_ms, queue, label,
             priority, app_id, state, outcome, finished_ms, energy_joules, spec, created_ms, updated_ms, seq)
           VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL, $13, NULL, $14, NULL, NULL, NULL,
             $15, NULL, NULL, NULL, $16, 1000, 1000, 41)`,
          [
            row.id,
            row.name,
            row.user,
            row.submitter,
            row.source,
            row.jobType,
            row.maps,
            row.reduces,
            row.inputBytes,
            row.arrivalMs,
            row.deadlineMs,
            row.decision,
            row.estimatedFinishMs,
            row.queue,
            row.state,
            JSON.stringify(row.spec),
          ],
        );
        await client.query("SELECT setval('ledger_seq', 41)");
        const ledger = await track(openPostgresLedger(url, { writer: 'now' }));
        expect(await ledger.pgSchemaVersion()).toBe(PG_MIGRATIONS.at(-1)!.version);
        expect(ledger.getJob('old')).toEqual({ ...row, createdMs: 1000, updatedMs: 1000 });
        const cols = await client.query<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_name = 'jobs' AND table_schema = 'public' ORDER BY ordinal_position",
        );
        expect(cols.rows.map((c) => c.column_name).slice(-2)).toEqual(['predicted_finish_ms', 'seq']);
        expect((await client.query('SELECT seq FROM jobs')).rows).toEqual([{ seq: '41' }]);
        // Written and shipped as any column.
        ledger.updateJob('old', { predictedFinishMs: 412_345 });
        await ledger.flush();
        const shipped = await client.query('SELECT predicted_finish_ms, seq FROM jobs');
        expect(shipped.rows[0].predicted_finish_ms).toBe('412345');
        expect(Number(shipped.rows[0].seq)).toBeGreaterThan(41);
      } finally {
        await client.end();
      }
    });

    it('reopened after close, shows the same state and goes on from it', async () => {
      const url = await server!.createDatabase();
      let now = 10_000;
      const first = await openPostgresLedger(url, { clock: () => now, writer: 'now' });
      for (let i = 0; i < 20; i++) {
        first.insertJob(
          jobRecord(`j${i}`, {
            decision: i % 2 ? 'admitted' : 'rejected',
            state: i % 2 ? 'accepted' : 'rejected',
          }),
        );
        first.recordDecision(`j${i}`, 'rtmr', 'admitted', { i });
        if (i % 3 === 0) first.enqueueAction(`j${i}`, 'submit', { i });
        now += i % 4 === 0 ? 0 : 5;
      }
      first.insertTicket({ jobId: 'j1', expiresMs: 99_000, detail: { t: 1 } });
      first.saveIdempotent('ci', 'k', { requestHash: 'h', jobId: 'j1', status: 201, response: { ok: true } });
      await first.writeSoon(() => first.setValue('estimates', { eta: 0.5 }));
      const before = tableRows(first.workingCopy());
      const page = first.listJobs({ limit: 7, offset: 2 });
      const lastAction = Math.max(...first.pendingActions().map((a) => a.id));
      first.close();
      await first.closed;

      const again = await track(openPostgresLedger(url, { clock: () => now, writer: 'now' }));
      expect(tableRows(again.workingCopy())).toEqual(before);
      expect(again.listJobs({ limit: 7, offset: 2 })).toEqual(page);
      expect(again.getValue('estimates')).toEqual({ eta: 0.5 });
      expect(again.enqueueAction('j1', 'set-priority', {}).id).toBe(lastAction + 1);
      await again.flush();
      expect(await rowsInPostgres(url)).toEqual(tableRows(again.workingCopy()));
    });

    it('ships what was written before close, then ends', async () => {
      const url = await server!.createDatabase();
      const ledger = await openPostgresLedger(url, { writer: 'now' });
      ledger.insertJob(jobRecord('last-words'));
      void ledger.writeSoon(() => ledger.setValue('bye', true));
      ledger.close();
      await ledger.closed;
      const rows = await rowsInPostgres(url);
      expect((rows.jobs as Array<{ id: string }>).map((j) => j.id)).toEqual(['last-words']);
      expect(rows.kv).toHaveLength(1);
    });

    it('a second ledger taking over with a higher epoch fences the first: nothing it writes after that reaches PostgreSQL', async () => {
      const url = await server!.createDatabase();
      const a = await track(openPostgresLedger(url, { writer: 'now', holder: 'a' }));
      a.insertJob(jobRecord('before'));
      await a.flush();
      const fencedWith: Error[] = [];
      a.onFenced((err) => fencedWith.push(err));
      const epochA = await a.fenceEpoch();

      const b = await track(openPostgresLedger(url, { writer: 'later', holder: 'b' }));
      expect(b.isWriter()).toBe(false);
      await expect(b.takeOver(epochA, 'b')).rejects.toBeInstanceOf(LedgerFencedError);
      await b.takeOver(epochA + 1, 'b');
      expect(b.isWriter()).toBe(true);
      expect(b.getJob('before')?.id).toBe('before');

      // A does not know yet: its write lands in its working copy, and its shipping is refused.
      a.insertJob(jobRecord('after'));
      const flushed = a.flush();
      await expect(flushed).rejects.toBeInstanceOf(LedgerFencedError);
      await expect(flushed).rejects.toMatchObject({ code: 'LEDGER_FENCED', currentEpoch: epochA + 1 });
      expect(fencedWith).toHaveLength(1);
      expect(a.isWriter()).toBe(false);
      expect(() => a.insertJob(jobRecord('later'))).toThrow(LedgerFencedError);
      await expect(a.writeSoon(() => a.setValue('x', 1))).rejects.toBeInstanceOf(LedgerFencedError);
      await expect(a.flush()).rejects.toBeInstanceOf(LedgerFencedError);
      let late: Error | undefined;
      a.onFenced((err) => (late = err));
      expect(late).toBeInstanceOf(LedgerFencedError);

      b.insertJob(jobRecord('by-b'));
      await b.flush();
      const inPg = await rowsInPostgres(url);
      expect((inPg.jobs as Array<{ id: string }>).map((j) => j.id).sort()).toEqual(['before', 'by-b']);
    });

    it("a takeover waits for the old writer's shipping transaction in flight, whose next one is refused", async () => {
      const url = await server!.createDatabase();
      const a = await track(openPostgresLedger(url, { writer: 'now', holder: 'a' }));
      const epochA = await a.fenceEpoch();
      // A shipping transaction of A's in flight: the fence read FOR SHARE, rows written, no commit yet.
      const inFlight = new Client({ connectionString: url });
      await inFlight.connect();
      try {
        await inFlight.query('BEGIN');
        expect((await inFlight.query('SELECT epoch FROM fence FOR SHARE')).rows).toEqual([
          { epoch: String(epochA) },
        ]);
        const b = await track(openPostgresLedger(url, { writer: 'later', holder: 'b' }));
        let tookOver = false;
        const taking = b.takeOver(epochA + 1, 'b').then(() => (tookOver = true));
        // B's raise waits on the row lock as long as the transaction is open.
        await new Promise((r) => setTimeout(r, 300));
        expect(tookOver).toBe(false);
        await inFlight.query('COMMIT');
        await taking;
        expect(b.isWriter()).toBe(true);
      } finally {
        await inFlight.end();
      }
      a.insertJob(jobRecord('too-late'));
      await expect(a.flush()).rejects.toBeInstanceOf(LedgerFencedError);
      expect(await rowsInPostgres(url)).toMatchObject({ jobs: [] });
    });

    it("a follower serves the leader's writes within its interval, refuses writes, and takes over from where it is", async () => {
      const url = await server!.createDatabase();
      const leader = await track(openPostgresLedger(url, { writer: 'now', holder: 'leader' }));
      const follower = await track(openPostgresLedger(url, { writer: 'later', holder: 'follower' }));
      follower.follow(50);
      leader.insertJob(jobRecord('a', { state: 'accepted' }));
      const act = leader.enqueueAction('a', 'submit', { n: 1 });
      leader.setValue('estimates', { eta: 1 });
      await leader.flush();
      await until('the follower to see job a', () => follower.getJob('a') !== undefined);
      expect(follower.getAction(act.id)?.status).toBe('pending');
      expect(follower.getValue('estimates')).toEqual({ eta: 1 });

      leader.updateJob('a', { state: 'running', appId: 'application_1_0001' });
      leader.completeAction(act.id, 'done', { ok: 1 });
      await leader.flush();
      await until('the follower to see job a running', () => follower.getJob('a')?.state === 'running');
      expect(follower.getJobByAppId('application_1_0001')?.id).toBe('a');
      expect(follower.openAdmittedJobsReused().map((j) => [j.id, j.state])).toEqual([['a', 'running']]);
      expect(follower.pendingActions()).toEqual([]);

      expect(() => follower.insertJob(jobRecord('no'))).toThrow(LedgerReadOnlyError);
      try {
        follower.setValue('x', 1);
      } catch (err) {
        expect(err).toMatchObject({ code: 'NOT_LEADER', httpStatus: 503 });
      }
      await expect(follower.writeSoon(() => undefined)).rejects.toBeInstanceOf(LedgerReadOnlyError);

      // Written after the follower's last fetch: the takeover catches up with it.
      leader.insertJob(jobRecord('last'));
      await leader.flush();
      await follower.takeOver((await leader.fenceEpoch()) + 1, 'follower');
      expect(follower.getJob('last')?.id).toBe('last');
      expect(tableRows(follower.workingCopy())).toEqual(tableRows(leader.workingCopy()));
      follower.insertJob(jobRecord('new-leader'));
      await follower.flush();
      leader.insertJob(jobRecord('old-leader'));
      await expect(leader.flush()).rejects.toBeInstanceOf(LedgerFencedError);
    });

    it('keeps the archive in PostgreSQL only: a takeover loads the live rows, new ids go above the archived ones', async () => {
      const url = await server!.createDatabase();
      let now = 1_000;
      const writer = await track(openPostgresLedger(url, { writer: 'now', holder: 'w', clock: () => now }));
      writer.transaction(() => {
        for (let i = 0; i < 300; i++) {
          const id = `c${i}`;
          writer.insertJob(
            jobRecord(id, { state: i < 200 ? 'finished' : 'running', outcome: i < 200 ? 'met' : null }),
          );
          writer.recordDecision(id, 'rtmr', 'admitted', { i });
          const a = writer.enqueueAction(id, 'submit', { i });
          writer.completeAction(a.id, 'done');
        }
      });
      await writer.flush();
      now = 100_000;
      const totals = totalsOf(writer);
      for (;;)
        if ((await writer.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 64 })).jobIds.length === 0)
          break;
      expect(totalsOf(writer)).toEqual(totals);
      // The writer's working copy holds no archived row, and only the live jobs.
      const copy = writer.workingCopy().connection;
      for (const t of ARCHIVE_TABLES)
        expect((copy.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n).toBe(0);
      expect(writer.listJobs().total).toBe(100);
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const count = async (t: string) =>
          Number((await client.query(`SELECT COUNT(*) AS n FROM ${t}`)).rows[0].n);
        expect([await count('jobs'), await count('archived_jobs')]).toEqual([100, 200]);
        expect([await count('decisions'), await count('archived_decisions')]).toEqual([100, 200]);
        expect([await count('actions'), await count('archived_actions')]).toEqual([100, 200]);
      } finally {
        await client.end();
      }
      // Actions and decisions of the live jobs, then of no job at all: a new writer loads none
      // of the archived ones and still numbers above them.
      writer.transaction(() => {
        for (let i = 200; i < 300; i++) {
          writer.updateJob(`c${i}`, { state: 'finished', outcome: 'missed' });
        }
      });
      now = 300_000;
      while ((await writer.archiveClosedJobs({ closedBeforeMs: 250_000, limit: 64 })).jobIds.length > 0);
      expect(totalsOf(writer).counts.reduce((n, c) => n + c.n, 0)).toBe(300);
      const next = await track(openPostgresLedger(url, { writer: 'later', holder: 'n', clock: () => now }));
      await next.takeOver((await writer.fenceEpoch()) + 1, 'n');
      expect(next.listJobs().total).toBe(0);
      expect(next.workingCopy().connection.prepare('SELECT COUNT(*) AS n FROM actions').get()).toEqual({
        n: 0,
      });
      // The totals came with the live rows: every job counted, 200 met and 100 missed.
      expect(totalsOf(next)).toEqual(totalsOf(writer));
      expect(totalsOf(next).counts.map((c) => [c.state, c.outcome, c.n])).toEqual([
        ['finished', 'met', 200],
        ['finished', 'missed', 100],
      ]);
      const archived = (await next.getArchivedJob('c299'))!;
      expect(archived.job).toMatchObject({ id: 'c299', state: 'finished', outcome: 'missed' });
      next.insertJob(jobRecord('after'));
      expect(next.enqueueAction('after', 'submit', {}).id).toBeGreaterThan(archived.actions[0]!.id);
      expect(next.recordDecision('after', 'rtmr', 'admitted', {})).toBeGreaterThan(archived.decisions[0]!.id);
      await next.flush();
    });

    it('a follower drops archived rows at its next fetch, reads the archive, and archives nothing itself', async () => {
      const url = await server!.createDatabase();
      let now = 1_000;
      const leader = await track(
        openPostgresLedger(url, { writer: 'now', holder: 'leader', clock: () => now }),
      );
      const follower = await track(openPostgresLedger(url, { writer: 'later', holder: 'follower' }));
      follower.follow(50);
      leader.transaction(() => {
        for (const id of ['old', 'open']) {
          leader.insertJob(jobRecord(id, { state: id === 'old' ? 'finished' : 'running' }));
          leader.recordDecision(id, 'rtmr', 'admitted', {});
        }
      });
      await leader.flush();
      await until('the follower to see both jobs', () => follower.listJobs().total === 2);
      now = 100_000;
      // A follower's batch is refused before it touches anything, as any write of it.
      await expect(follower.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 10 })).rejects.toBeInstanceOf(
        LedgerReadOnlyError,
      );
      await expect(follower.deleteArchivedJobs({ closedBeforeMs: 50_000, limit: 10 })).rejects.toBeInstanceOf(
        LedgerReadOnlyError,
      );
      expect(follower.getJob('old')?.id).toBe('old');
      expect(await follower.getArchivedJob('old')).toBeUndefined();
      expect((await leader.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 10 })).jobIds).toEqual(['old']);
      await until('the follower to drop the archived job', () => follower.getJob('old') === undefined);
      expect(follower.decisionsOf('old')).toEqual([]);
      expect(follower.getJob('open')?.id).toBe('open');
      expect((await follower.getArchivedJob('old'))?.decisions).toHaveLength(1);
      expect((await follower.listArchivedJobs()).jobs.map((j) => j.job.id)).toEqual(['old']);
      expect(totalsOf(follower)).toEqual(totalsOf(leader));
      expect(tableRows(follower.workingCopy())).toEqual(tableRows(leader.workingCopy()));
    });

    it('prunes tombstones past an hour, raising the horizon; a follower that last saw less loads afresh', async () => {
      const url = await server!.createDatabase();
      const leader = await track(openPostgresLedger(url, { writer: 'now', holder: 'leader' }));
      const follower = await track(openPostgresLedger(url, { writer: 'later', holder: 'follower' }));
      for (let i = 0; i < 20; i++) leader.setValue(`v${i}`, i);
      await leader.flush();
      await follower.catchUp();
      expect(follower.valuesWithPrefix('v')).toHaveLength(20);
      for (let i = 0; i < 15; i++) leader.deleteValue(`v${i}`);
      await leader.flush();
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const tombstones = async () =>
          Number((await client.query("SELECT COUNT(*) AS n FROM ledger_deleted WHERE tbl = 'kv'")).rows[0].n);
        expect(await tombstones()).toBe(15);
        // An hour's tombstones are kept; with none kept, all go, and the horizon rises to them.
        expect(await leader.pruneTombstones(3_600_000)).toBe(0);
        expect(await leader.pruneTombstones(0)).toBe(15);
        expect(await tombstones()).toBe(0);
        const horizon = Number((await client.query('SELECT seq FROM ledger_horizon')).rows[0].seq);
        expect(horizon).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
      // The follower last saw the values before they were deleted: it cannot know from the
      // tombstones (pruned) which went, so it loads the live rows again.
      await follower.catchUp();
      expect(follower.valuesWithPrefix('v').map((v) => v.key)).toEqual(['v15', 'v16', 'v17', 'v18', 'v19']);
      expect(tableRows(follower.workingCopy())).toEqual(tableRows(leader.workingCopy()));
      await expect(follower.pruneTombstones(0)).rejects.toBeInstanceOf(LedgerReadOnlyError);
    });

    it('moves a batch of archiving in PostgreSQL without tombstones; deleting archived jobs a follower never saw go makes it load afresh', async () => {
      const url = await server!.createDatabase();
      let now = 1_000;
      const leader = await track(
        openPostgresLedger(url, { writer: 'now', holder: 'leader', clock: () => now }),
      );
      const follower = await track(openPostgresLedger(url, { writer: 'later', holder: 'follower' }));
      leader.transaction(() => {
        for (let i = 0; i < 20; i++) {
          leader.insertJob(jobRecord(`j${i}`, { state: i < 15 ? 'finished' : 'running' }));
          leader.recordDecision(`j${i}`, 'rtmr', 'admitted', { i });
        }
        const a = leader.enqueueAction(null, 'refresh', {});
        leader.completeAction(a.id, 'done');
      });
      await leader.flush();
      await follower.catchUp();
      expect(follower.listJobs().total).toBe(20);
      now = 100_000;
      const batch = await leader.archiveClosedJobs({ closedBeforeMs: 50_000, limit: 100 });
      expect(batch.rows).toMatchObject({ jobs: 15, decisions: 15, actions: 1 });
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const count = async (sql: string) => Number((await client.query(sql)).rows[0].n);
        expect(await count('SELECT COUNT(*) AS n FROM ledger_deleted')).toBe(0);
        expect(await count('SELECT COUNT(*) AS n FROM archived_jobs')).toBe(15);
        expect(await count('SELECT COUNT(*) AS n FROM archived_decisions')).toBe(15);
        expect(await count('SELECT COUNT(*) AS n FROM archived_actions WHERE job_id IS NULL')).toBe(1);
        expect(await count('SELECT COUNT(*) AS n FROM jobs')).toBe(5);
        // The follower learns from the archive's seq which rows went.
        await follower.catchUp();
        expect(follower.listJobs().total).toBe(5);
        expect(tableRows(follower.workingCopy())).toEqual(tableRows(leader.workingCopy()));
        // A second follower that last read before the archiving, and the archived jobs deleted
        // before it reads again: the horizon makes it load afresh.
        const late = await track(openPostgresLedger(url, { writer: 'later', holder: 'late' }));
        await late.catchUp();
        leader.transaction(() => {
          for (let i = 15; i < 20; i++) leader.updateJob(`j${i}`, { state: 'finished' });
        });
        now = 200_000;
        await leader.archiveClosedJobs({ closedBeforeMs: 150_000, limit: 100 });
        now = 300_000;
        expect(
          (await leader.deleteArchivedJobs({ closedBeforeMs: 250_000, limit: 100 })).jobIds,
        ).toHaveLength(20);
        expect(await count('SELECT seq AS n FROM ledger_horizon')).toBeGreaterThan(0);
        await late.catchUp();
        expect(late.listJobs().total).toBe(0);
        expect(tableRows(late.workingCopy())).toEqual(tableRows(leader.workingCopy()));
      } finally {
        await client.end();
      }
    });

    it('with archiveAfterMs, a load leaves history in PostgreSQL: counted, found by id, archived from there by the writer', async () => {
      const url = await server!.createDatabase();
      let now = 1_000;
      const clock = () => now;
      // A ledger written before retention: old closed jobs of every kind beside open ones, an
      // old closed job with a write pending, one with a ticket waiting, actions of no job.
      const first = await track(openPostgresLedger(url, { writer: 'now', holder: 'first', clock }));
      const h = seedHistory(first, (ms) => (now += ms));
      first.transaction(() => {
        first.insertJob(jobRecord('old-ticket', { decision: 'rejected', state: 'rejected' }));
        first.insertTicket({ jobId: 'old-ticket', expiresMs: 900_000, detail: null });
      });
      await first.flush();
      const everything = totalsOf(first);
      const rowsOf = (id: string, l: Ledger) => ({
        job: l.getJob(id),
        decisions: l.decisionsOf(id),
        actions: l.actionsOf(id),
        apps: l.appsOf(id),
        ticket: l.getTicket(id),
      });
      const before = Object.fromEntries(h.archivable.map((id) => [id, rowsOf(id, first)]));
      // The cutoff (now - archiveAfterMs) falls between the old jobs and the recent one.
      now = 250_000;
      const archiveAfterMs = 100_000;
      const follower = await track(
        openPostgresLedger(url, { writer: 'later', holder: 'follower', clock, archiveAfterMs }),
      );
      await follower.catchUp();
      const leader = await track(
        openPostgresLedger(url, { writer: 'later', holder: 'leader', clock, archiveAfterMs }),
      );
      await leader.takeOver((await first.fenceEpoch()) + 1, 'leader');
      const held = [...h.kept, 'old-ticket'].sort();
      for (const l of [leader, follower]) {
        // Only the open and recent jobs (and old ones a write or a ticket still holds) are loaded.
        expect(
          l
            .listJobs({ limit: 100 })
            .jobs.map((j) => j.id)
            .sort(),
        ).toEqual(held);
        for (const id of h.archivable) expect(l.decisionsOf(id)).toEqual([]);
        expect(l.getAction(h.orphanDone)).toBeUndefined();
        expect(l.getAction(h.orphanPending)?.status).toBe('pending');
        // Counted all the same, and found by id where it is, not archived yet.
        expect(totalsOf(l)).toEqual(everything);
        const got = (await l.getArchivedJob('old-finished'))!;
        expect({ ...got, archivedMs: undefined }).toEqual({
          ...before['old-finished'],
          archivedMs: undefined,
        });
        expect(got.archivedMs).toBeNull();
        expect(await l.getArchivedJob('recent-finished')).toBeUndefined();
      }
      follower.follow(50);
      // The leader archives the history from PostgreSQL, three jobs a batch, and its own
      // copy's jobs as they come due: the old one whose write is confirmed now.
      const pending = leader.actionsOf('old-pending').find((a) => a.status === 'pending')!;
      leader.completeAction(pending.id, 'done');
      const moved: string[] = [];
      for (;;) {
        const b = await leader.archiveClosedJobs({ closedBeforeMs: 150_000, limit: 3 });
        expect(b.jobIds.length).toBeLessThanOrEqual(3);
        expect(b.rows.jobs).toBe(b.jobIds.length);
        moved.push(...b.jobIds);
        if (b.jobIds.length === 0) break;
        expect(totalsOf(leader)).toEqual(everything);
      }
      expect(moved.sort()).toEqual([...h.archivable, 'old-pending'].sort());
      expect(
        leader
          .listJobs()
          .jobs.map((j) => j.id)
          .sort(),
      ).toEqual(['old-running', 'old-waiting', 'old-ticket', 'recent-finished'].sort());
      for (const id of h.archivable) {
        const a = (await leader.getArchivedJob(id))!;
        expect(a.archivedMs).toBe(250_000);
        expect({
          job: a.job,
          decisions: a.decisions,
          actions: a.actions,
          apps: a.apps,
          ticket: a.ticket,
        }).toEqual(before[id]);
      }
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const n = async (sql: string) => Number((await client.query(sql)).rows[0].n);
        expect(await n('SELECT COUNT(*) AS n FROM jobs')).toBe(4);
        expect(await n('SELECT COUNT(*) AS n FROM archived_jobs')).toBe(h.archivable.length + 1);
        expect(await n('SELECT COUNT(*) AS n FROM archived_actions WHERE job_id IS NULL')).toBe(1);
        expect(await n('SELECT COUNT(*) AS n FROM ledger_deleted')).toBe(0);
      } finally {
        await client.end();
      }
      // The follower, which held none of the history, counts it as archived now; a new load
      // finds no history left.
      await until('the follower to see the archiving', async () => {
        await follower.catchUp();
        return follower.listJobs().total === 4;
      });
      expect(totalsOf(follower)).toEqual(everything);
      expect(tableRows(follower.workingCopy())).toEqual(tableRows(leader.workingCopy()));
      const late = await track(
        openPostgresLedger(url, { writer: 'later', holder: 'late', clock, archiveAfterMs }),
      );
      await late.catchUp();
      expect(totalsOf(late)).toEqual(everything);
      expect(tableRows(late.workingCopy())).toEqual(tableRows(leader.workingCopy()));
    });

    it('a writer that loaded only history numbers its new rows above it, and a full load takes both', async () => {
      const url = await server!.createDatabase();
      let now = 1_000;
      const clock = () => now;
      const first = await track(openPostgresLedger(url, { writer: 'now', holder: 'first', clock }));
      first.transaction(() => {
        for (const id of ['old-1', 'old-2']) {
          first.insertJob(jobRecord(id, { state: 'finished', outcome: 'met' }));
          first.recordDecision(id, 'rtmr', 'admitted', { id });
          first.completeAction(first.enqueueAction(id, 'submit', { id }).id, 'done');
        }
      });
      await first.flush();
      const old = ['old-1', 'old-2'].map((id) => ({
        job: first.getJob(id),
        decisions: first.decisionsOf(id),
      }));
      now = 500_000;
      // Everything is history to this writer: its copy holds no row at all.
      const writer = await track(
        openPostgresLedger(url, { writer: 'later', holder: 'w', clock, archiveAfterMs: 100_000 }),
      );
      await writer.takeOver((await first.fenceEpoch()) + 1, 'w');
      expect(writer.listJobs().total).toBe(0);
      writer.insertJob(jobRecord('new', { state: 'running' }));
      const decision = writer.recordDecision('new', 'rtmr', 'admitted', {});
      const action = writer.enqueueAction('new', 'submit', {});
      expect(decision).toBeGreaterThan(Math.max(...old.flatMap((o) => o.decisions.map((d) => d.id))));
      expect(action.id).toBeGreaterThan(2);
      await writer.flush();
      // Retention off: every live row, history and new alike, though their row_ids meet.
      const full = await track(openPostgresLedger(url, { writer: 'later', holder: 'full', clock }));
      await full.catchUp();
      expect(
        full
          .listJobs()
          .jobs.map((j) => j.id)
          .sort(),
      ).toEqual(['new', 'old-1', 'old-2']);
      for (const o of old) expect(full.decisionsOf(o.job!.id)).toEqual(o.decisions);
      expect(full.getJob('new')).toEqual(writer.getJob('new'));
      expect(full.actionsOf('new')).toEqual([action]);
    });

    it('a takeover beside 50,000 jobs of history loads the 200 recent ones, and counts them all', async () => {
      const url = await server!.createDatabase();
      const made = await openPostgresLedger(url, { writer: 'later' });
      made.close();
      await made.closed;
      // Bulk rows, as a ledger of a year would hold them: jobs i <= 50,000 last written at i ms,
      // the rest at 1,000,000 + i, each with a decision and a confirmed action.
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const at = '(CASE WHEN i <= 50000 THEN i ELSE 1000000 + i END)';
        await client.query(
          `INSERT INTO jobs (row_id, id, name, "user", submitter, source, job_type, maps, reduces, input_bytes,
             arrival_ms, deadline_ms, decision, reason, estimated_finish_ms, earliest_deadline_ms, queue, label,
             priority, app_id, state, outcome, finished_ms, energy_joules, spec, created_ms, updated_ms,
             predicted_finish_ms, seq)
           SELECT i, 'j' || i, 'job', 'alice', 'ci', 'api', 'cpu', 4, 1, 1000, 0, 1000, 'admitted', NULL, 500, NULL,
             'realtime', CASE WHEN i % 2 = 0 THEN 'gpu' END, NULL, 'application_1_' || i, 'finished',
             CASE WHEN i % 3 = 0 THEN 'missed' ELSE 'met' END, 900, i % 7, '{}', ${at}, ${at}, NULL, nextval('ledger_seq')
           FROM generate_series(1, 50200) AS i`,
        );
        await client.query(
          `INSERT INTO decisions (row_id, id, job_id, at_ms, policy, decision, detail, seq)
           SELECT i, i, 'j' || i, ${at}, 'rtmr', 'admitted', '{}', nextval('ledger_seq') FROM generate_series(1, 50200) AS i`,
        );
        await client.query(
          `INSERT INTO actions (row_id, id, job_id, kind, payload, status, attempts, result, error, created_ms, updated_ms, seq)
           SELECT i, i, 'j' || i, 'submit', '{}', 'done', 1, NULL, NULL, ${at}, ${at}, nextval('ledger_seq')
           FROM generate_series(1, 50200) AS i`,
        );
        await client.query('VACUUM ANALYZE');
      } finally {
        await client.end();
      }
      let now = 1_000_000;
      const ledger = await track(
        openPostgresLedger(url, { writer: 'now', holder: 'w', clock: () => now, archiveAfterMs: 500_000 }),
      );
      expect(ledger.listJobs({ limit: 1 }).total).toBe(200);
      expect(tableRows(ledger.workingCopy()).decisions).toHaveLength(200);
      const counts = totalsOf(ledger).counts;
      expect(counts.reduce((n, c) => n + c.n, 0)).toBe(50_200);
      expect(counts.find((c) => c.outcome === 'missed')?.n).toBe(Math.floor(50_200 / 3));
      // Energies 0 to 6 J, by label: every job's counted.
      const energy = (from: number, to: number, even: boolean) => {
        let j = 0;
        for (let i = from; i <= to; i++) if ((i % 2 === 0) === even) j += i % 7;
        return j;
      };
      expect(totalsOf(ledger).energy).toEqual([
        { label: 'gpu', joules: energy(1, 50_200, true) },
        { label: null, joules: energy(1, 50_200, false) },
      ]);
      now = 2_000_000;
      const b = await ledger.archiveClosedJobs({ closedBeforeMs: 600_000, limit: 1_000 });
      expect(b.jobIds).toHaveLength(1_000);
      expect(b.rows).toMatchObject({ jobs: 1_000, decisions: 1_000, actions: 1_000 });
      expect(totalsOf(ledger).counts.reduce((n, c) => n + c.n, 0)).toBe(50_200);
    });

    it('loads 10,000 jobs with their actions at takeover', async () => {
      const url = await server!.createDatabase();
      const writer = await track(openPostgresLedger(url, { writer: 'now', holder: 'w' }));
      writer.transaction(() => {
        for (let i = 0; i < 10_000; i++) {
          writer.insertJob(jobRecord(`j${i}`, { spec: { name: `job ${i}`, maps: i % 40 } }));
          writer.enqueueAction(`j${i}`, 'submit', { i });
        }
      });
      await writer.flush();
      const next = await track(openPostgresLedger(url, { writer: 'later', holder: 'n' }));
      const start = process.hrtime.bigint();
      await next.takeOver((await writer.fenceEpoch()) + 1, 'n');
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      expect(next.listJobs({ limit: 1 }).total).toBe(10_000);
      expect(next.pendingBacklog().pending).toBe(10_000);
      expect(tableRows(next.workingCopy())).toEqual(tableRows(writer.workingCopy()));
      // Well under a second on an idle machine (see docs/architecture.md); generous for a loaded one.
      expect(ms).toBeLessThan(10_000);
    });

    it('with PostgreSQL stopped, flush rejects within its timeout as retryable; once it is back everything written is shipped', async () => {
      const own = await startTestPostgres();
      try {
        const url = await own.createDatabase();
        const ledger = await track(openPostgresLedger(url, { writer: 'now', flushTimeoutMs: 1_500 }));
        ledger.insertJob(jobRecord('before'));
        await ledger.flush();
        own.stop();
        ledger.insertJob(jobRecord('during'));
        ledger.enqueueAction('during', 'submit', {});
        const started = Date.now();
        const err = await ledger.flush().then(
          () => undefined,
          (e: unknown) => e,
        );
        const waited = Date.now() - started;
        expect(err).toBeInstanceOf(LedgerUnavailableError);
        expect(err).toMatchObject({ code: 'LEDGER_UNAVAILABLE', httpStatus: 503, retryable: true });
        expect(waited).toBeGreaterThanOrEqual(1_400);
        expect(waited).toBeLessThan(10_000);
        expect(String((err as Error).message)).not.toContain('s3cret-pw');
        expect(ledger.lastFailure).toBeDefined();
        // Writes go on locally meanwhile, and none is dropped.
        await expect(ledger.writeSoon(() => ledger.insertJob(jobRecord('queued')))).rejects.toBeInstanceOf(
          LedgerUnavailableError,
        );
        expect(ledger.getJob('queued')?.id).toBe('queued');
        own.start();
        await until(
          'the backlog to ship',
          async () => {
            try {
              await ledger.flush();
              return true;
            } catch {
              return false;
            }
          },
          60_000,
        );
        expect(ledger.unshipped).toBe(0);
        expect(await rowsInPostgres(url)).toEqual(tableRows(ledger.workingCopy()));
      } finally {
        for (const l of open.splice(0)) {
          l.close();
          await l.closed;
        }
        own.destroy();
      }
    });

    it('never shows the URL password in an error', async () => {
      const wrong = server!.url.replace('s3cret-pw', 'not-the-pw-9');
      const err = await openPostgresLedger(wrong, { writer: 'now', flushTimeoutMs: 2_000 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(LedgerUnavailableError);
      expect(err!.message).toMatch(/password authentication failed/);
      expect(err!.message).not.toContain('not-the-pw-9');
      const closedPort = `postgres://yss:s3cret-pw@127.0.0.1:1/yss`;
      const down = await openPostgresLedger(closedPort, { writer: 'later', flushTimeoutMs: 1_000 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(down).toBeInstanceOf(LedgerUnavailableError);
      expect(JSON.stringify(down)).not.toContain('s3cret-pw');
      expect(down!.message).not.toContain('s3cret-pw');
    });
  },
);
