/**
 * The ledger's retention on its timer (src/loop/retention.ts): batches of at most batchJobs,
 * back to back while a backlog remains and then every intervalSeconds; deletion only when
 * deleteAfterDays is set; only on the writer (a follower's ledger refuses, and the Archiver
 * stops); and the configuration's checks.
 */
import { SidecarMetrics } from '../../src/metrics';
import { buildConfig } from '../../src/config/load';
import { LedgerReadOnlyError } from '../../src/errors/ledger-read-only';
import { Archiver } from '../../src/loop/retention';
import { startSidecar } from '../../src/service/start';
import { SqliteLedger } from '../../src/store/ledger';
import { openPostgresLedger } from '../../src/store/postgres';
import type { Ledger } from '../../src/store/types';
import { capturingLogger } from '../log-capture';
import { jobRecord } from '../store/builders';
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../support/postgres';
import { issueLines } from '../validation-issues';

const DAY = 86_400_000;
const pg = postgresAvailability();

function retention(over: Partial<ReturnType<typeof buildConfig>['ledger']['retention']> = {}) {
  return { ...buildConfig({}).ledger.retention, ...over };
}

/** `n` jobs closed at `atMs` (each with a decision and a confirmed submit), and one open. */
function closedJobs(ledger: Ledger, n: number, prefix = 'c'): void {
  ledger.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = `${prefix}${i}`;
      ledger.insertJob(jobRecord(id, { state: 'finished', outcome: 'met', finishedMs: 1 }));
      ledger.recordDecision(id, 'rtmr', 'admitted', {});
      const a = ledger.enqueueAction(id, 'submit', {});
      ledger.completeAction(a.id, 'done');
    }
  });
}

describe('the ledger retention', () => {
  afterEach(() => jest.useRealTimers());

  it('archives full batches back to back, then looks again every intervalSeconds', async () => {
    jest.useFakeTimers({ now: 0 });
    let now = 0;
    const ledger = SqliteLedger.open(':memory:', { clock: () => now });
    closedJobs(ledger, 25);
    ledger.insertJob(jobRecord('open', { state: 'running' }));
    now = 40 * DAY;
    ledger.insertJob(jobRecord('recent', { state: 'finished', outcome: 'met' }));
    const calls: number[] = [];
    const archive = ledger.archiveClosedJobs.bind(ledger);
    jest.spyOn(ledger, 'archiveClosedJobs').mockImplementation((o) => {
      calls.push(Date.now());
      expect(o).toEqual({ closedBeforeMs: now - 30 * DAY, limit: 10 });
      return archive(o);
    });
    const deleting = jest.spyOn(ledger, 'deleteArchivedJobs');
    const metrics = new SidecarMetrics();
    const { logger, records } = capturingLogger('info');
    const archiver = new Archiver({
      ledger,
      retention: retention({ batchJobs: 10, intervalSeconds: 60 }),
      now: () => now,
      logger,
      metrics,
    });
    archiver.start();
    await jest.advanceTimersByTimeAsync(4_999);
    expect(calls).toEqual([]);
    // The first after 5 s; the backlog in batches of 10 with short pauses; then one that finds
    // 5 ends it, and the next look is a minute later.
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toBe(5_000);
    expect(calls[2]! - calls[0]!).toBeLessThan(1_000);
    expect(
      ledger
        .listJobs()
        .jobs.map((j) => j.id)
        .sort(),
    ).toEqual(['open', 'recent']);
    expect((await ledger.listArchivedJobs()).total).toBe(25);
    expect(records.filter((r) => r.component === 'retention')).toEqual([
      expect.objectContaining({ message: 'ledger: archived the closed jobs due', archived: 25, batches: 3 }),
    ]);
    expect(
      (await metrics.registry.getSingleMetric('yss_ledger_archived_jobs_total')!.get()).values[0]!.value,
    ).toBe(25);
    await jest.advanceTimersByTimeAsync(59_000);
    expect(calls).toHaveLength(3);
    // More than thirty days on, the recent job is due too.
    now += 31 * DAY;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(4);
    expect(ledger.listJobs().jobs.map((j) => j.id)).toEqual(['open']);
    // deleteAfterDays unset: nothing is ever deleted.
    expect(deleting).not.toHaveBeenCalled();
    expect((await ledger.listArchivedJobs()).total).toBe(26);
    await archiver.stop();
    await jest.advanceTimersByTimeAsync(600_000);
    expect(calls).toHaveLength(4);
    ledger.close();
  });

  it('deletes archived jobs past deleteAfterDays only when it is set, keeping their totals', async () => {
    let now = 0;
    const ledger = SqliteLedger.open(':memory:', { clock: () => now });
    closedJobs(ledger, 30, 'old');
    now = 100 * DAY;
    closedJobs(ledger, 5, 'mid');
    now = 140 * DAY;
    const { logger } = capturingLogger('info');
    const keep = new Archiver({ ledger, retention: retention(), now: () => now, logger });
    expect(await keep.runOnce()).toMatchObject({ archived: 35, deleted: 0 });
    expect((await ledger.listArchivedJobs()).total).toBe(35);
    const totals = ledger.countJobs();
    const drop = new Archiver({
      ledger,
      retention: retention({ deleteAfterDays: 90, batchJobs: 20 }),
      now: () => now,
      logger,
    });
    expect(await drop.runOnce()).toMatchObject({ archived: 0, deleted: 20 });
    expect(await drop.runOnce()).toMatchObject({ archived: 0, deleted: 10 });
    expect(await drop.runOnce()).toMatchObject({ archived: 0, deleted: 0 });
    const left = await ledger.listArchivedJobs({ limit: 100 });
    expect(left.jobs.map((j) => j.job.id).sort()).toEqual(['mid0', 'mid1', 'mid2', 'mid3', 'mid4']);
    expect(ledger.countJobs()).toEqual(totals);
    ledger.close();
  });

  it('is not started with retention off, nor on a sidecar driven by hand', async () => {
    const base = {
      rm: { addresses: ['http://127.0.0.1:9'], jobHistoryAddress: 'http://127.0.0.1:9' },
      server: { port: 0, host: '127.0.0.1' },
      ledger: { path: ':memory:' },
      log: { level: 'error' },
    };
    const { logger } = capturingLogger('error');
    const off = await startSidecar(
      buildConfig({ ...base, ledger: { ...base.ledger, retention: { enabled: false } } }),
      {
        logger,
      },
    );
    const manual = await startSidecar(buildConfig(base), { logger, manualPolling: true });
    const on = await startSidecar(buildConfig(base), { logger });
    try {
      expect(off.archiver).toBeUndefined();
      expect(manual.archiver).toBeUndefined();
      expect(on.archiver).toBeInstanceOf(Archiver);
    } finally {
      await Promise.all([off.close(), manual.close(), on.close()]);
    }
  });

  describe('its configuration', () => {
    it('defaults to archiving after 30 days, 200 jobs a batch, deleting nothing', () => {
      expect(buildConfig({}).ledger.retention).toEqual({
        enabled: true,
        archiveAfterDays: 30,
        batchJobs: 200,
        intervalSeconds: 60,
      });
    });

    it('refuses a deletion no later than the archiving, and values out of range, naming the key', () => {
      expect(
        issueLines(() =>
          buildConfig({ ledger: { retention: { archiveAfterDays: 30, deleteAfterDays: 30 } } }),
        ),
      ).toEqual([
        'ledger.retention.deleteAfterDays: 30 is not more than archiveAfterDays (30): a job is deleted from the archive, so it must have been archived first',
      ]);
      const issues = issueLines(() =>
        buildConfig({ ledger: { retention: { archiveAfterDays: 0, batchJobs: 20_000, colour: 1 } } }),
      );
      expect(issues.map((i) => i.split(':')[0])).toEqual(
        expect.arrayContaining([
          'ledger.retention',
          'ledger.retention.archiveAfterDays',
          'ledger.retention.batchJobs',
        ]),
      );
      expect(
        buildConfig({ ledger: { retention: { deleteAfterDays: 365 } } }).ledger.retention.deleteAfterDays,
      ).toBe(365);
    });
  });

  (pg === 'run' ? describe : describe.skip)('on PostgreSQL', () => {
    jest.setTimeout(60_000);
    let server: TestPostgres;
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 120_000);
    afterAll(() => server?.destroy());

    it('archives on the writer; a follower archives nothing, and its Archiver stops', async () => {
      const url = await server.createDatabase();
      let now = 0;
      const writer = await openPostgresLedger(url, { writer: 'now', holder: 'w', clock: () => now });
      const follower = await openPostgresLedger(url, { writer: 'later', holder: 'f', clock: () => now });
      try {
        closedJobs(writer, 12);
        await writer.flush();
        await follower.catchUp();
        now = 40 * DAY;
        const { logger, records } = capturingLogger('info');
        const onFollower = new Archiver({ ledger: follower, retention: retention(), now: () => now, logger });
        await expect(onFollower.runOnce()).rejects.toBeInstanceOf(LedgerReadOnlyError);
        jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
        onFollower.start();
        await jest.advanceTimersByTimeAsync(5_000);
        await jest.advanceTimersByTimeAsync(600_000);
        jest.useRealTimers();
        expect(records.map((r) => r.message)).toEqual(['ledger: not the writer; archiving stops']);
        // PostgreSQL holds every job live still: the follower wrote nothing.
        const fresh = await openPostgresLedger(url, { writer: 'later', holder: 'r' });
        await fresh.catchUp();
        expect(fresh.listJobs().total).toBe(12);
        expect((await fresh.listArchivedJobs()).total).toBe(0);
        fresh.close();
        await fresh.closed;
        // The writer's does.
        const onWriter = new Archiver({
          ledger: writer,
          retention: retention({ batchJobs: 5 }),
          now: () => now,
          logger,
        });
        expect((await onWriter.runOnce()).archived).toBe(5);
        expect((await onWriter.runOnce()).archived).toBe(5);
        expect((await onWriter.runOnce()).archived).toBe(2);
        expect((await follower.listArchivedJobs()).total).toBe(12);
        await follower.catchUp();
        expect(follower.listJobs().total).toBe(0);
      } finally {
        writer.close();
        follower.close();
        await Promise.all([writer.closed, follower.closed]);
      }
    });
  });
});
