/**
 * The ledger's archive through the HTTP API, on the sidecar (startSidecar) with each store:
 * GET /api/v1/jobs lists the live jobs, `?archived=true` pages through the archived ones (newest
 * first, filtered), and GET /api/v1/jobs/{id} finds an archived job with its decisions and
 * actions as they were.
 */
import { buildConfig } from '../../src/config/load';
import { startSidecar, type RunningSidecar } from '../../src/loop/service';
import type { Ledger } from '../../src/store/types';
import { capturingLogger } from '../log-capture';
import { jobRecord } from '../store/builders';
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../support/postgres';

const DAY = 86_400_000;
const T0 = Date.parse('2026-10-01T08:00:00Z');
const pg = postgresAvailability();
let server: TestPostgres | undefined;

interface Page {
  jobs: Array<Record<string, unknown> & { id: string; archived: boolean }>;
  total: number;
}

const stores: Array<{ name: string; ledger: () => Promise<Record<string, unknown>> }> = [
  { name: 'SQLite', ledger: () => Promise.resolve({ path: ':memory:' }) },
];
if (pg === 'run')
  stores.push({ name: 'PostgreSQL', ledger: async () => ({ url: await server!.createDatabase() }) });

if (pg === 'run') {
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 120_000);
  afterAll(() => server?.destroy());
}

describe.each(stores)('the archive through the API on $name', (store) => {
  jest.setTimeout(60_000);
  let running: RunningSidecar;
  let now = T0;
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const r = await fetch(`${running.url}${path}`);
    return { status: r.status, body: (await r.json()) as T };
  };

  beforeEach(async () => {
    now = T0;
    const config = buildConfig({
      rm: { addresses: ['http://127.0.0.1:9'], jobHistoryAddress: 'http://127.0.0.1:9' },
      server: { port: 0, host: '127.0.0.1' },
      ledger: { ...(await store.ledger()), flushTimeoutMs: 20_000 },
      log: { level: 'error' },
    });
    running = await startSidecar(config, {
      logger: capturingLogger('error').logger,
      now: () => now,
      manualPolling: true,
    });
  });
  afterEach(() => running.close());

  it('lists the live jobs, pages through the archived ones, and finds an archived job by id', async () => {
    const { ledger } = running;
    // Closed jobs one minute apart, and two open ones.
    for (let i = 0; i < 9; i++) {
      now = T0 + i * 60_000;
      seed1(ledger, i);
    }
    now = T0 + 10 * 60_000;
    ledger.insertJob(jobRecord('open-1', { state: 'running', arrivalMs: T0, deadlineMs: T0 + 3_600_000 }));
    ledger.insertJob(jobRecord('open-2', { state: 'accepted', arrivalMs: T0, deadlineMs: T0 + 3_600_000 }));
    await ledger.flush();
    const before = await get<Record<string, unknown>>('/api/v1/jobs/c4');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ id: 'c4', archived: false, state: 'finished' });

    now = T0 + 40 * DAY;
    const batch = await ledger.archiveClosedJobs({ closedBeforeMs: now - 30 * DAY, limit: 500 });
    expect(batch.jobIds).toHaveLength(9);

    const live = await get<Page>('/api/v1/jobs');
    expect(live.body.total).toBe(2);
    expect(live.body.jobs.map((j) => [j.id, j.archived])).toEqual([
      ['open-2', false],
      ['open-1', false],
    ]);

    const pages: string[][] = [];
    for (let offset = 0; offset < 12; offset += 4) {
      const page = await get<Page>(`/api/v1/jobs?archived=true&limit=4&offset=${offset}`);
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(9);
      expect(page.body.jobs.every((j) => j.archived === true && j.position === null)).toBe(true);
      pages.push(page.body.jobs.map((j) => j.id));
    }
    expect(pages).toEqual([['c8', 'c7', 'c6', 'c5'], ['c4', 'c3', 'c2', 'c1'], ['c0']]);
    const rejected = await get<Page>('/api/v1/jobs?archived=true&decision=rejected');
    expect([rejected.body.jobs.map((j) => j.id), rejected.body.total]).toEqual([['c6', 'c3', 'c0'], 3]);
    const bob = await get<Page>('/api/v1/jobs?archived=true&user=bob&state=finished');
    expect([bob.body.jobs.map((j) => j.id), bob.body.total]).toEqual([['c7', 'c5', 'c1'], 3]);
    expect((await get<Page>('/api/v1/jobs?archived=false')).body.total).toBe(2);

    // By id: the same view as before it was archived, marked archived, decisions and actions kept.
    const after = await get<Record<string, unknown>>('/api/v1/jobs/c4');
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ ...before.body, archived: true });
    expect(after.body).toMatchObject({
      decisions: [{ policy: 'rtmr', decision: 'admitted', detail: { i: 4 } }],
      actions: [{ kind: 'submit', status: 'done', attempts: 1, result: { status: 202 } }],
    });
    expect((await get<Record<string, unknown>>('/api/v1/jobs/open-1')).body).toMatchObject({
      archived: false,
    });
    const missing = await get<{ error: { code: string } }>('/api/v1/jobs/c99');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const bad = await get<{ error: { issues: Array<{ path: string; message: string }> } }>(
      '/api/v1/jobs?archived=yes',
    );
    expect([bad.status, bad.body.error.issues]).toEqual([
      400,
      [{ path: 'archived', message: "must be 'true' or 'false'" }],
    ]);
  });
});

/** The i-th closed job of seed(), written now. */
function seed1(ledger: Ledger, i: number): void {
  const id = `c${i}`;
  const rejected = i % 3 === 0;
  ledger.transaction(() => {
    ledger.insertJob(
      jobRecord(id, {
        decision: rejected ? 'rejected' : 'admitted',
        state: rejected ? 'rejected' : 'finished',
        outcome: rejected ? null : 'met',
        user: i % 2 ? 'bob' : 'alice',
        arrivalMs: T0,
        deadlineMs: T0 + 3_600_000,
        finishedMs: rejected ? null : T0 + 600_000,
        appId: rejected ? null : `application_1_${i}`,
        reason: rejected ? { kind: 'no-capacity', message: 'full' } : null,
      }),
    );
    ledger.recordDecision(id, 'rtmr', rejected ? 'rejected' : 'admitted', { i });
    if (!rejected) {
      const a = ledger.enqueueAction(id, 'submit', { appId: `application_1_${i}` });
      ledger.markActionAttempt(a.id);
      ledger.completeAction(a.id, 'done', { status: 202 });
    }
  });
}
