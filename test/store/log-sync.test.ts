import fs from 'node:fs';
import { mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteLedger } from '../../src/store/ledger';
import { jobRecord } from './builders';
import { settled, turns } from './promises';

// A group commit (writeSoon) is committed at once and its write-ahead log synced after: in the
// event loop while the disk's syncs are quick, in libuv's thread pool once they are slow (the
// writers hear only once the sync is done, and the event loop runs meanwhile). Here the syncs
// made in the event loop (fs.fsyncSync) can be made slow, and those in the pool (fs.fsync) are
// held until the test lets them go, or made to fail.

type Done = (err: NodeJS.ErrnoException | null) => void;

interface HeldSync {
  fd: number;
  path: string | undefined;
  release(err?: NodeJS.ErrnoException): void;
}

/** Waits until `cond` holds, turning the event loop (the thread pool answers in its own time). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

const fdPath = (fd: number): string | undefined => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
};

describe('group commits synced off the event loop', () => {
  let dir: string;
  let file: string;
  let held: HeldSync[];
  let spy: jest.SpyInstance;
  /** Each sync made in the event loop takes this long (ms): the disk's speed as measured. */
  let inlineDelayMs: number;
  let inlineSyncs: number;
  let inlineSpy: jest.SpyInstance;
  /** The ledger's clock for its timings (performance.now): it moves only when a test says. */
  let now: number;
  let clock: jest.SpyInstance;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-sync-'));
    file = join(dir, 'ledger.db');
    held = [];
    const realFsync = fs.fsync.bind(fs);
    spy = jest.spyOn(fs, 'fsync').mockImplementation(((fd: number, done: Done) => {
      const path = fdPath(fd);
      held.push({
        fd,
        path,
        release: (err) => (err ? done(err) : realFsync(fd, done)),
      });
    }) as typeof fs.fsync);
    inlineDelayMs = 0;
    inlineSyncs = 0;
    now = 50_000;
    clock = jest.spyOn(performance, 'now').mockImplementation(() => now);
    const realFsyncSync = fs.fsyncSync.bind(fs);
    inlineSpy = jest.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
      inlineSyncs++;
      now += inlineDelayMs;
      realFsyncSync(fd);
    });
  });

  afterEach(() => {
    spy.mockRestore();
    inlineSpy.mockRestore();
    clock.mockRestore();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (ledger: SqliteLedger, id: string) => () => {
    ledger.insertJob(jobRecord(id));
    ledger.enqueueAction(id, 'submit', { id });
  };
  /**
   * A ledger whose group commit has measured the disk as slow (a sync of 10 ms in the event
   * loop): its next groups sync in the pool, until the clock moves a quarter of a second.
   */
  const onSlowDisk = async (): Promise<SqliteLedger> => {
    const ledger = SqliteLedger.open(file);
    inlineDelayMs = 10;
    await ledger.writeSoon(write(ledger, 'warm'));
    inlineDelayMs = 0;
    expect(inlineSyncs).toBe(1);
    expect(held).toHaveLength(0);
    return ledger;
  };
  /** Two groups written one after the other, each with its own sync begun in the pool and held. */
  const twoSyncsRunning = async (ledger: SqliteLedger) => {
    const a = settled(ledger.writeSoon(write(ledger, 'j1')));
    await until(() => held.length === 1, 'the first sync');
    const b = settled(ledger.writeSoon(write(ledger, 'j2')));
    await until(() => held.length === 2, 'the second sync');
    return [a, b] as const;
  };
  const committed = (id: string): boolean => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT id FROM jobs WHERE id = ?').get(id) !== undefined;
    } finally {
      db.close();
    }
  };

  it('commits a group at once and tells its writers only when its own sync of the log is done', async () => {
    const ledger = await onSlowDisk();
    const first = settled(ledger.writeSoon(write(ledger, 'j1')));
    const alsoFirst = settled(ledger.writeSoon(write(ledger, 'j2')));
    await until(() => held.length === 1, 'the first sync');
    // Committed (another connection reads it) and not yet answered.
    expect(committed('j1')).toBe(true);
    expect(committed('j2')).toBe(true);
    expect(first.done).toBe(false);
    if (process.platform === 'linux') expect(held[0]!.path).toBe(`${file}-wal`);

    // The event loop is free while the disk works: the next group is committed meanwhile and
    // its own sync begins at once, beside the first.
    const second = settled(ledger.writeSoon(write(ledger, 'j3')));
    await until(() => held.length === 2, 'the second sync');
    expect(committed('j3')).toBe(true);
    // Two syncs run at most: meanwhile the next group grows, uncommitted, in memory.
    const third = settled(ledger.writeSoon(write(ledger, 'j4')));
    await turns();
    const alsoThird = settled(ledger.writeSoon(write(ledger, 'j5')));
    await turns();
    expect([committed('j4'), committed('j5')]).toEqual([false, false]);
    expect(held).toHaveLength(2);

    // Each group hears from its own sync, in whatever order the syncs end; the one that grew
    // is committed when a sync ends, and synced at once.
    held[1]!.release();
    await until(() => second.done, 'the second group');
    expect(second.error).toBeUndefined();
    expect([first.done, alsoFirst.done, third.done]).toEqual([false, false, false]);
    await until(() => held.length === 3, 'the third sync');
    expect([committed('j4'), committed('j5')]).toEqual([true, true]);
    held[0]!.release();
    await until(() => first.done && alsoFirst.done, 'the first group');
    expect([first.error, alsoFirst.error]).toEqual([undefined, undefined]);
    expect(third.done).toBe(false);
    held[2]!.release();
    await until(() => third.done && alsoThird.done, 'the third group');
    expect([third.error, alsoThird.error]).toEqual([undefined, undefined]);
    ledger.close();
  });

  it('on a quick disk syncs each group in the event loop, its writers told with the commit', async () => {
    const ledger = SqliteLedger.open(file);
    for (let i = 0; i < 20; i++) {
      // Now and then a slow one: the median of the last eight stays quick.
      inlineDelayMs = i % 7 === 3 ? 20 : 0.2;
      const w = settled(ledger.writeSoon(write(ledger, `j${i}`)));
      await turns(1);
      // Committed and synced in the same turn: told at once, no sync handed to the pool.
      await Promise.resolve();
      expect(w).toEqual({ done: true, error: undefined });
    }
    expect(held).toHaveLength(0);
    expect(inlineSyncs).toBe(20);
    ledger.close();
  });

  it('moves the syncs to the pool once they are slow, and back as soon as a sync in the event loop, made now and then to measure, finds them quick', async () => {
    const ledger = SqliteLedger.open(file);
    // Quick syncs, then slow ones (3 ms): the median of the last eight (the upper middle one)
    // passes 1 ms at the fourth slow one.
    inlineDelayMs = 0.1;
    for (let i = 0; i < 4; i++) await ledger.writeSoon(write(ledger, `quick-${i}`));
    inlineDelayMs = 3;
    for (let i = 0; i < 4; i++) await ledger.writeSoon(write(ledger, `slow-${i}`));
    expect(inlineSyncs).toBe(8);
    const pooled = settled(ledger.writeSoon(write(ledger, 'pooled')));
    await until(() => held.length === 1, 'a sync in the pool');
    expect(inlineSyncs).toBe(8);
    held[0]!.release();
    await until(() => pooled.done, 'the pooled group');

    // Before a quarter of a second has passed, groups stay in the pool.
    now += 200;
    const stillPooled = settled(ledger.writeSoon(write(ledger, 'still-pooled')));
    await until(() => held.length === 2, 'a second sync in the pool');
    held[1]!.release();
    await until(() => stillPooled.done, 'the second pooled group');

    // Later, one group syncs in the event loop again, still slow: the groups stay in the pool.
    now += 250;
    await ledger.writeSoon(write(ledger, 'probe-slow'));
    expect(inlineSyncs).toBe(9);
    const pooledAgain = settled(ledger.writeSoon(write(ledger, 'pooled-again')));
    await until(() => held.length === 3, 'a third sync in the pool');
    held[2]!.release();
    await until(() => pooledAgain.done, 'the third pooled group');

    // Later again, the one in the event loop finds the disk quick: its time is the new
    // measure, under 1 ms, and the next groups stay in the loop.
    inlineDelayMs = 0.1;
    now += 250;
    await ledger.writeSoon(write(ledger, 'probe-quick'));
    expect(inlineSyncs).toBe(10);
    await ledger.writeSoon(write(ledger, 'quick-again-1'));
    await ledger.writeSoon(write(ledger, 'quick-again-2'));
    expect(inlineSyncs).toBe(12);
    expect(held).toHaveLength(3);
    ledger.close();
  });

  it('a sync in the event loop also tells the groups waiting for a sync in the pool to begin', async () => {
    const ledger = await onSlowDisk();
    const [a, b] = await twoSyncsRunning(ledger);
    // Committed now (as a read that needs the rows does), while two syncs run: it waits.
    const c = settled(ledger.writeSoon(write(ledger, 'j3')));
    ledger.commitQueued();
    expect(committed('j3')).toBe(true);
    // A quarter of a second on, the next group syncs in the event loop: that sync covers j3's
    // commit too.
    now += 250;
    const d = settled(ledger.writeSoon(write(ledger, 'j4')));
    ledger.commitQueued();
    await turns();
    expect([c, d].map((x) => [x.done, x.error])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    expect([a.done, b.done]).toEqual([false, false]);
    held[0]!.release();
    held[1]!.release();
    await until(() => a.done && b.done, 'the pooled groups');
    ledger.close();
  });

  it('flush, with syncs running and none waiting to begin, waits for the last one that began', async () => {
    const ledger = await onSlowDisk();
    const [a, b] = await twoSyncsRunning(ledger);
    const barrier = settled(ledger.flush());
    held[0]!.release();
    await until(() => a.done, 'the first group');
    await turns();
    expect(barrier.done).toBe(false);
    held[1]!.release();
    await until(() => barrier.done && b.done, 'the barrier');
    expect(barrier.error).toBeUndefined();
    expect(held).toHaveLength(2);
    ledger.close();
  });

  it('flush waits for the sync of what was committed, and only that', async () => {
    const ledger = await onSlowDisk();
    await expect(ledger.flush()).resolves.toBeUndefined();
    expect(held).toHaveLength(0);

    const write1 = settled(ledger.writeSoon(write(ledger, 'j1')));
    await until(() => held.length === 1, 'the sync');
    const barrier = settled(ledger.flush());
    await turns();
    expect(barrier.done).toBe(false);
    held[0]!.release();
    await until(() => barrier.done && write1.done, 'the barrier');
    expect(barrier.error).toBeUndefined();

    // A write queued and not committed yet: the barrier joins its group.
    const queued = settled(ledger.writeSoon(write(ledger, 'j2')));
    const barrier2 = settled(ledger.flush());
    await until(() => held.length === 2, 'the second sync');
    expect(barrier2.done).toBe(false);
    held[1]!.release();
    await until(() => barrier2.done && queued.done, 'the second barrier');
    ledger.close();
  });

  it('hands the writers of a failed sync its error, naming the log, and goes on with the next', async () => {
    const ledger = await onSlowDisk();
    const lost = ledger.writeSoon(write(ledger, 'j1'));
    await until(() => held.length === 1, 'the sync');
    held[0]!.release(Object.assign(new Error('input/output error'), { code: 'EIO' }));
    await expect(lost).rejects.toThrow(
      `the ledger's write-ahead log ${file}-wal could not be synced to disk (EIO)`,
    );
    // Committed before the sync failed: the row is there, its durability unknown.
    expect(ledger.getJob('j1')?.id).toBe('j1');

    const next = settled(ledger.writeSoon(write(ledger, 'j2')));
    await until(() => held.length === 2, 'the next sync');
    held[1]!.release();
    await until(() => next.done, 'the next group');
    expect(next.error).toBeUndefined();
    ledger.close();
  });

  it('a write that throws is told at once; its group waits for the sync', async () => {
    const ledger = await onSlowDisk();
    const good = settled(ledger.writeSoon(write(ledger, 'j1')));
    const bad = settled(
      ledger.writeSoon(() => {
        ledger.insertJob(jobRecord('j2'));
        throw new Error('refused');
      }),
    );
    await until(() => bad.done, 'the failed write');
    expect(String(bad.error)).toContain('refused');
    expect(ledger.getJob('j2')).toBeUndefined();
    expect(good.done).toBe(false);
    await until(() => held.length === 1, 'the sync');
    held[0]!.release();
    await until(() => good.done, 'the group');
    expect(good.error).toBeUndefined();
    ledger.close();
  });

  it('close syncs what waits for a sync and tells its writers; a sync still running then changes nothing', async () => {
    const ledger = await onSlowDisk();
    const a = settled(ledger.writeSoon(write(ledger, 'j1')));
    await until(() => held.length === 1, 'the sync');
    const b = settled(ledger.writeSoon(write(ledger, 'j2')));
    const c = settled(ledger.writeSoon(write(ledger, 'j3')));
    const before = inlineSyncs;
    ledger.close();
    expect(inlineSyncs - before).toBe(1);
    await turns();
    expect([a, b, c].map((s) => [s.done, s.error])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ]);
    // The held sync answers after the log is gone: its writers were already told.
    held[0]!.release(Object.assign(new Error('gone'), { code: 'EBADF' }));
    await turns();
    expect(a.error).toBeUndefined();
    const reopened = SqliteLedger.open(file);
    expect(['j1', 'j2', 'j3'].map((id) => reopened.getJob(id)?.id)).toEqual(['j1', 'j2', 'j3']);
    reopened.close();
  });

  it('a synchronous transaction after a group still waiting for its sync does not settle that group', async () => {
    const ledger = await onSlowDisk();
    const grouped = settled(ledger.writeSoon(write(ledger, 'j1')));
    await until(() => held.length === 1, 'the sync');
    // Synced by its own commit (synchronous=FULL), which is no reason to tell the group.
    ledger.transaction(write(ledger, 'j2'));
    await turns();
    expect(grouped.done).toBe(false);
    held[0]!.release();
    await until(() => grouped.done, 'the group');
    ledger.close();
  });

  it('says how its log syncs, for the metrics: the median in seconds, and whether groups sync in the pool', async () => {
    const ledger = SqliteLedger.open(file);
    expect(ledger.logSync).toEqual({ seconds: 0, inPool: false });
    inlineDelayMs = 0.5;
    await ledger.writeSoon(write(ledger, 'quick'));
    expect(ledger.logSync).toEqual({ seconds: 0.0005, inPool: false });
    inlineDelayMs = 4;
    await ledger.writeSoon(write(ledger, 'slow-1'));
    // Two syncs: the median is the upper one.
    expect(ledger.logSync).toEqual({ seconds: 0.004, inPool: true });
    ledger.close();
    const memory = SqliteLedger.open(':memory:');
    expect(memory.logSync).toBeUndefined();
    memory.close();
  });

  it('a ledger in memory has no log to sync: its writers are told once the group is committed', async () => {
    const ledger = SqliteLedger.open(':memory:');
    await ledger.writeSoon(write(ledger, 'j1'));
    await ledger.flush();
    expect(held).toHaveLength(0);
    expect(ledger.getJob('j1')?.id).toBe('j1');
    ledger.close();
  });
});
