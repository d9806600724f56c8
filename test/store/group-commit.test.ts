import { GroupCommit, type CommitStore, type WriteAheadLog } from '../../src/store/group-commit';
import { settled, turns } from './promises';

// The group commit on its own, over a store and a log that are plain objects: what each
// transaction left (rows, commits), which sync setting each commit had, and every sync of the log,
// the pool's held until the test lets it go.

/** A store of rows whose transactions nest as savepoints; its outermost commit may be made to fail. */
class FakeStore implements CommitStore {
  rows: string[] = [];
  /** The rows at each outermost commit, in order. */
  commits: string[][] = [];
  /** The sync setting asked for, in order (false: the commit leaves the sync to the log). */
  settings: boolean[] = [];
  failCommit: Error | undefined;
  private depth = 0;

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  atomically<T>(fn: () => T): T {
    const before = [...this.rows];
    this.depth++;
    try {
      const out = fn();
      if (this.depth === 1 && this.failCommit) throw this.failCommit;
      if (this.depth === 1) this.commits.push([...this.rows]);
      return out;
    } catch (err) {
      this.rows = before;
      throw err;
    } finally {
      this.depth--;
    }
  }

  syncOnCommit(on: boolean): void {
    this.settings.push(on);
  }
}

interface HeldSync {
  /** The rows committed when this sync began: what it makes durable. */
  covers: string[];
  release(err?: NodeJS.ErrnoException): void;
}

/** A log whose syncs in the event loop take `inlineMs` on the test's clock, and whose pool syncs wait. */
function fakeLog(store: FakeStore, clock: { now: number }) {
  const log = {
    inlineMs: 0,
    inlineError: undefined as NodeJS.ErrnoException | undefined,
    inline: [] as string[][],
    held: [] as HeldSync[],
    closed: 0,
    wal: {
      path: '/data/ledger.db-wal',
      syncNow: () => {
        clock.now += log.inlineMs;
        if (log.inlineError) throw log.inlineError;
        log.inline.push([...store.rows]);
      },
      sync: (done) => {
        log.held.push({ covers: [...store.rows], release: (err) => done(err ?? null) });
      },
      close: () => {
        log.closed++;
      },
    } satisfies WriteAheadLog,
  };
  return log;
}

const eio = (): NodeJS.ErrnoException => Object.assign(new Error('i/o error'), { code: 'EIO' });

describe('GroupCommit', () => {
  let store: FakeStore;
  let clock: { now: number };
  let log: ReturnType<typeof fakeLog>;
  let commits: GroupCommit;

  beforeEach(() => {
    store = new FakeStore();
    clock = { now: 1_000 };
    log = fakeLog(store, clock);
    commits = new GroupCommit(store, log.wal, () => clock.now);
  });

  /** Makes the syncs in the event loop slow, so that the groups after the next sync in the pool. */
  const slowDisk = async () => {
    log.inlineMs = 5;
    await commits.writeSoon(() => store.rows.push('slow'));
    expect(commits.logSync).toEqual({ seconds: 0.005, inPool: true });
  };

  it('commits the writes of one turn together, in the order queued, synced once', async () => {
    const written = [
      commits.writeSoon(() => store.rows.push('a')),
      commits.writeSoon(() => store.rows.push('b')),
      commits.writeSoon(() => store.rows.push('c')),
    ];
    expect(store.commits).toEqual([]);
    await Promise.all(written);
    expect(store.commits).toEqual([['a', 'b', 'c']]);
    // Committed without the store's sync, then the log synced in the event loop (a quick disk).
    expect(store.settings).toEqual([false, true]);
    expect(log.inline).toEqual([['a', 'b', 'c']]);
    expect(log.held).toEqual([]);
  });

  it('acknowledges nothing before the sync of its log is done', async () => {
    await slowDisk();
    const w = settled(commits.writeSoon(() => store.rows.push('x')));
    await turns();
    // Committed, its sync begun in the pool, and its writer not told yet.
    expect(store.commits.at(-1)).toEqual(['slow', 'x']);
    expect(log.held.map((h) => h.covers)).toEqual([['slow', 'x']]);
    expect(w.done).toBe(false);
    const f = settled(commits.flush());
    await turns();
    expect(f.done).toBe(false);
    log.held[0]!.release();
    await turns();
    expect(w).toEqual({ done: true, error: undefined });
    expect(f).toEqual({ done: true, error: undefined });
  });

  it('hands the writers of a failed sync an error naming the log', async () => {
    await slowDisk();
    const w = settled(commits.writeSoon(() => store.rows.push('x')));
    await turns();
    log.held[0]!.release(eio());
    await turns();
    expect(w.done).toBe(true);
    expect(String(w.error)).toContain(
      'write-ahead log /data/ledger.db-wal could not be synced to disk (EIO)',
    );
    // The next group's sync is its own: it succeeds.
    const next = settled(commits.writeSoon(() => store.rows.push('y')));
    await turns();
    log.held[1]!.release();
    await turns();
    expect(next).toEqual({ done: true, error: undefined });
  });

  it('fails the writers of a sync made in the event loop that failed', async () => {
    log.inlineError = eio();
    await expect(commits.writeSoon(() => store.rows.push('a'))).rejects.toThrow(
      /could not be synced to disk \(EIO\)/,
    );
    // The commit itself landed: only its durability is in doubt.
    expect(store.commits).toEqual([['a']]);
  });

  it('runs at most two syncs at once, the next group growing until one ends', async () => {
    await slowDisk();
    const first = settled(commits.writeSoon(() => store.rows.push('1')));
    await turns();
    const second = settled(commits.writeSoon(() => store.rows.push('2')));
    await turns();
    const third = settled(commits.writeSoon(() => store.rows.push('3')));
    const fourth = settled(commits.writeSoon(() => store.rows.push('4')));
    await turns();
    expect(log.held).toHaveLength(2);
    // The third group waits, uncommitted, for a sync to end.
    expect(store.rows).toEqual(['slow', '1', '2']);
    log.held[0]!.release();
    await turns();
    expect(first.done).toBe(true);
    expect(second.done).toBe(false);
    // Committed as one group now, and its sync begun.
    expect(store.commits.at(-1)).toEqual(['slow', '1', '2', '3', '4']);
    expect(log.held).toHaveLength(3);
    log.held[1]!.release();
    log.held[2]!.release();
    await turns();
    expect([second.done, third.done, fourth.done]).toEqual([true, true, true]);
  });

  it("rolls back a failing write's rows only, and rejects that writer alone", async () => {
    const a = commits.writeSoon(() => store.rows.push('a'));
    const bad = commits.writeSoon(() => {
      store.rows.push('half');
      throw new Error('no such job');
    });
    const c = commits.writeSoon(() => store.rows.push('c'));
    await expect(bad).rejects.toThrow('no such job');
    await Promise.all([a, c]);
    expect(store.rows).toEqual(['a', 'c']);
    expect(store.commits).toEqual([['a', 'c']]);
  });

  it('rejects every writer of a group whose commit failed, and keeps none of its rows', async () => {
    store.failCommit = new Error('disk full');
    const a = commits.writeSoon(() => store.rows.push('a'));
    const b = commits.writeSoon(() => store.rows.push('b'));
    await expect(a).rejects.toThrow('disk full');
    await expect(b).rejects.toThrow('disk full');
    expect(store.rows).toEqual([]);
    // The sync setting is restored all the same.
    expect(store.settings).toEqual([false, true]);
  });

  it('lands the queued writes first in a transaction, in the same commit', async () => {
    const queued = commits.writeSoon(() => store.rows.push('queued'));
    const out = commits.transaction(() => {
      store.rows.push('now');
      return 42;
    });
    expect(out).toBe(42);
    expect(store.commits).toEqual([['queued', 'now']]);
    // A synchronous commit (the store's own sync): no sync of the log of its own.
    expect(store.settings).toEqual([]);
    await queued;
    expect(log.inline).toEqual([]);
  });

  it("rolls back a transaction's own rows when it throws, the queued writes kept", async () => {
    const queued = commits.writeSoon(() => store.rows.push('queued'));
    expect(() =>
      commits.transaction(() => {
        store.rows.push('mine');
        throw new Error('refused');
      }),
    ).toThrow('refused');
    await queued;
    expect(store.rows).toEqual(['queued']);
  });

  it('syncs at close what is committed and not yet synced, then closes the log', async () => {
    await slowDisk();
    const w = settled(commits.writeSoon(() => store.rows.push('x')));
    await turns();
    const queued = settled(commits.writeSoon(() => store.rows.push('y')));
    commits.close();
    await turns();
    expect(store.rows).toEqual(['slow', 'x', 'y']);
    expect(log.inline.at(-1)).toEqual(['slow', 'x', 'y']);
    expect([w.done, queued.done]).toEqual([true, true]);
    // The syncs still running have the descriptor: the log closes when the last one ends.
    expect(log.held).toHaveLength(2);
    expect(log.closed).toBe(0);
    log.held[0]!.release();
    await turns();
    expect(log.closed).toBe(0);
    log.held[1]!.release();
    await turns();
    expect(log.closed).toBe(1);
  });

  it('settles the writers at commit without a log (a database in memory)', async () => {
    const memory = new GroupCommit(store, undefined, () => clock.now);
    await memory.writeSoon(() => store.rows.push('a'));
    expect(store.commits).toEqual([['a']]);
    expect(store.settings).toEqual([]);
    expect(memory.logSync).toBeUndefined();
  });
});
