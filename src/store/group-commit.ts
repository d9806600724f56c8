/**
 * Group commit and the sync of SQLite's write-ahead log: writes queued by `writeSoon` share one
 * transaction and one sync of the log, and their writers hear only once that sync is done. The
 * log syncs in the event loop while the disk's syncs are quick, in libuv's thread pool once they
 * are slow (syncGroup). Nothing here knows the ledger's tables: it runs functions in a store's
 * transactions (CommitStore) and syncs a log (WriteAheadLog), so it is tested on its own.
 */
import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';

/** What the group commit needs of the database: its transactions and its sync setting. */
export interface CommitStore {
  /** Runs `fn` in a transaction, or in a savepoint inside one; rolls it back if `fn` throws. */
  atomically<T>(fn: () => T): T;
  /** Whether a transaction is open now. */
  readonly inTransaction: boolean;
  /**
   * Whether a commit syncs the database itself (SQLite's synchronous=FULL), or only writes the
   * log and leaves its sync to the group commit (NORMAL). Changed only outside a transaction.
   */
  syncOnCommit(on: boolean): void;
}

/** The write-ahead log, synced in the event loop or in the thread pool. */
export interface WriteAheadLog {
  readonly path: string;
  /** Syncs the log now, in the event loop; throws what the sync threw. */
  syncNow(): void;
  /** Syncs the log in the thread pool; `done` hears of it (an error, or null or undefined). */
  sync(done: (err: unknown) => void): void;
  /** Closes the log's descriptor, if it was opened. */
  close(): void;
}

/** A file's write-ahead log, opened for syncs from the first one on (SQLite keeps the file while it is open). */
export function walFile(path: string): WriteAheadLog {
  let fd: number | undefined;
  const open = (): number => (fd ??= openSync(path, 'r+'));
  return {
    path,
    syncNow: () => fsyncSync(open()),
    sync: (done) => {
      let at: number;
      try {
        at = open();
      } catch (err) {
        done(err);
        return;
      }
      fsync(at, done);
    },
    close: () => {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}

/** A queued write threw in a group's first run (commitQueued): the group runs again, a savepoint per write. */
class WriteFailed extends Error {}

type Settle = (err?: unknown) => void;

/** A write queued for the next group commit, and whom to tell when it is on disk. */
interface QueuedWrite {
  fn: () => void;
  settle: Settle;
}

/** Syncs of the write-ahead log running at once, at most: half of libuv's default thread pool. */
export const SYNCS_AT_ONCE = 2;
/**
 * A group commit syncs its log in the event loop while the log's syncs there take less than this
 * (ms, the median of the last SYNCS_MEASURED); off the loop, in the thread pool, from then on.
 */
export const INLINE_SYNC_MS = 1;
/** Syncs in the event loop whose median is the disk's speed: one slow sync now and then moves nothing. */
const SYNCS_MEASURED = 8;
/**
 * While group commits sync in the pool, one of them syncs in the event loop this often (ms), to
 * measure the disk again: its time replaces the average, so a disk that is quick again is used
 * in the loop again at once (the average of the syncs in the loop would hear of it only slowly,
 * a sample at a time).
 */
export const PROBE_EVERY_MS = 250;

/** A sync of the write-ahead log failed: what was committed before it may not be on disk. */
function syncFailed(path: string, cause: unknown): Error {
  const code = (cause as { code?: unknown }).code;
  return new Error(
    `the ledger's write-ahead log ${path} could not be synced to disk${typeof code === 'string' ? ` (${code})` : ''}: ` +
      'the writes committed since the last sync may not be durable',
    { cause },
  );
}

export class GroupCommit {
  /** Writes waiting for the next group commit (writeSoon), in the order they were queued. */
  private queued: QueuedWrite[] = [];
  private commitScheduled = false;
  /** Writers whose group is committed and waits for a sync of the log to begin (syncLog). */
  private unsynced: Settle[] = [];
  /** The writers of each sync running, in the order the syncs began. */
  private readonly syncing: Settle[][] = [];
  private closed = false;
  /** What the last syncs of the log made in the event loop took (ms), newest last. */
  private syncTimes: number[] = [];
  /** Their median: the disk's speed, as the choice of syncGroup reads it. */
  private syncMs = 0;
  /** When the last sync of the log was made in the event loop (the clock's ms). */
  private lastInlineMs = 0;

  /**
   * `log` undefined: a database without a log of its own (in memory), whose writers are settled
   * once their group is committed. `clock`: ms for the syncs' timings (performance.now).
   */
  constructor(
    private readonly store: CommitStore,
    private readonly log: WriteAheadLog | undefined,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Whether writes wait for the next group commit. */
  get pending(): boolean {
    return this.queued.length > 0;
  }

  /**
   * How the write-ahead log syncs, for the metrics: the median of the last syncs made in the
   * event loop (seconds; 0 before the first), and whether group commits now sync in the pool.
   * Undefined without a log.
   */
  get logSync(): { seconds: number; inPool: boolean } | undefined {
    if (this.log === undefined) return undefined;
    return { seconds: this.syncMs / 1000, inPool: this.syncMs >= INLINE_SYNC_MS };
  }

  /**
   * Group commit: `fn`'s writes go into one transaction with every other write queued before
   * the event loop next checks for I/O (setImmediate), so many decisions share one commit and
   * one sync. The promise resolves once they are on disk (the group committed, then its
   * write-ahead log synced: syncGroup) and rejects with `fn`'s own error if it threw: its writes
   * are rolled back (a savepoint), the others' are kept. `fn` only reads and writes the store:
   * it runs again when another write of its group fails (commitQueued).
   */
  writeSoon(fn: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ fn, settle: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.commitScheduled) {
        this.commitScheduled = true;
        setImmediate(() => {
          this.commitScheduled = false;
          this.commitWhenFree();
        });
      }
    });
  }

  /**
   * Runs `fn` in one transaction, with the queued writes landing first in the same commit, so
   * rows land in the order they were decided; should `fn` throw, only its own writes roll back.
   */
  transaction<T>(fn: () => T): T {
    if (this.queued.length === 0) return this.store.atomically(fn);
    return this.commitQueued(fn) as T;
  }

  /**
   * Resolves once every write made so far is durable: at once when none waits, else with the
   * group commit writeSoon has pending (joining it, so a barrier costs no commit of its own) or
   * the sync of the log that covers the last group committed; rejects if that failed.
   */
  flush(): Promise<void> {
    if (this.queued.length > 0) return this.writeSoon(() => undefined);
    if (this.unsynced.length === 0 && this.syncing.length === 0) return Promise.resolve();
    // Committed, not yet synced: every commit so far is covered by the next sync to begin, or,
    // when none waits to begin, by the last one that began (a sync covers the commits before it).
    return new Promise<void>((resolve, reject) => {
      const settle: Settle = (err) => (err === undefined ? resolve() : reject(err));
      if (this.unsynced.length > 0) this.unsynced.push(settle);
      else this.syncing.at(-1)!.push(settle);
      this.syncLog();
    });
  }

  /**
   * Commits what writeSoon queued and makes every committed write durable, before the store
   * closes: synced here, before the connection closes (and its last checkpoint removes the
   * log); the writers of the syncs still running are settled now, and those syncs' own answers
   * come too late to change that (a promise settles once).
   */
  close(): void {
    this.commitQueued();
    this.closed = true;
    const waiting = [...this.syncing.flat(), ...this.unsynced];
    this.unsynced = [];
    if (waiting.length > 0 && this.log !== undefined) {
      let error: unknown;
      try {
        this.log.syncNow();
      } catch (err) {
        error = syncFailed(this.log.path, err);
      }
      for (const settle of waiting) settle(error);
    }
    // A sync still running has the descriptor: the last one to end closes it.
    if (this.syncing.length === 0) this.log?.close();
  }

  /**
   * Commits the queued writes now (see writeSoon), and `last` after them in the same
   * transaction; returns what `last` returned, or throws what it threw (its writes rolled back).
   *
   * The queued writes first run one after another with no savepoint of their own: a savepoint
   * and its release cost about a quarter of a job's write, and a write seldom fails. Should one
   * throw, that whole transaction is rolled back and the group runs again with a savepoint per
   * write, so that only the failing write's rows are lost. A queued write may therefore run twice;
   * it only reads and writes the store (writeSoon), so the second run starts from the same rows.
   * A write that fails in the first run and not in the second (a passing error) lands, and its
   * writer is told so once it is on disk, as any other write of the group.
   */
  commitQueued(last?: () => unknown): unknown {
    this.commitScheduled = false;
    if (this.queued.length === 0 && last === undefined) return undefined;
    const batch = this.queued;
    this.queued = [];
    // Alone (not inside a transaction, nor with a synchronous one after it), with a log, the
    // group is committed without the store's sync (the setting changes only outside a
    // transaction), and its log is synced here, in the event loop, or in the pool (syncLog).
    const alone = last === undefined && this.log !== undefined && !this.store.inTransaction;
    if (alone) this.store.syncOnCommit(false);
    let outcome: { failed: Map<QueuedWrite, unknown>; out: Outcome };
    try {
      outcome = this.runGroup(batch, last);
    } catch (err) {
      // The commit itself failed (disk full, I/O error): nothing of the batch landed.
      for (const w of batch) w.settle(err);
      throw err;
    } finally {
      if (alone) this.store.syncOnCommit(true);
    }
    this.settleLanded(batch, outcome.failed, alone);
    const { out } = outcome;
    if ('error' in out) throw out.error;
    return out.value;
  }

  /**
   * One transaction of the queued writes, then `last`: first without a savepoint per write; if a
   * write threw, again with one each. The writes that failed in the run that landed, and what
   * `last` returned or threw.
   */
  private runGroup(
    batch: QueuedWrite[],
    last?: () => unknown,
  ): { failed: Map<QueuedWrite, unknown>; out: Outcome } {
    const failed = new Map<QueuedWrite, unknown>();
    let out: Outcome = { value: undefined };
    const runLast = () => {
      if (!last) return;
      try {
        out = { value: this.store.atomically(last) };
      } catch (error) {
        out = { error };
      }
    };
    if (batch.length > 0 && this.runWhole(batch, runLast)) return { failed, out };
    this.store.atomically(() => {
      for (const w of batch) {
        try {
          // Nested: a savepoint, so one write's failure rolls back only its own rows.
          this.store.atomically(w.fn);
        } catch (err) {
          failed.set(w, err);
        }
      }
      runLast();
    });
    return { failed, out };
  }

  /** The group in one transaction without savepoints; false when one of its writes threw (rolled back). */
  private runWhole(batch: QueuedWrite[], runLast: () => void): boolean {
    try {
      this.store.atomically(() => {
        for (const w of batch) {
          try {
            w.fn();
          } catch (err) {
            throw new WriteFailed('a queued write failed', { cause: err });
          }
        }
        runLast();
      });
      return true;
    } catch (err) {
      if (!(err instanceof WriteFailed)) throw err;
      return false;
    }
  }

  /**
   * The writers of a committed group: a write that failed left nothing to sync, and its writer
   * is told at once; the others once the log is synced (syncGroup when the group was committed
   * alone; with a synchronous commit, at once, unless groups before it still wait for theirs).
   */
  private settleLanded(batch: QueuedWrite[], failed: Map<QueuedWrite, unknown>, alone: boolean): void {
    const landed: Settle[] = [];
    for (const w of batch) {
      const err = failed.get(w);
      if (err === undefined) landed.push(w.settle);
      else w.settle(err);
    }
    if (alone) this.syncGroup(landed);
    else if (this.log !== undefined && (this.unsynced.length > 0 || this.syncing.length > 0)) {
      // Synced with the commit (synchronous=FULL) unless it wrote nothing: with groups before it
      // still waiting for their sync, its writers wait for the next one too.
      this.unsynced.push(...landed);
      this.syncLog();
    } else for (const settle of landed) settle();
  }

  /**
   * Commits the queued group, unless as many syncs of the log run as may: the group then grows
   * until one of them ends (syncLog), and is committed then, so that a slow disk makes fewer,
   * larger groups instead of a queue of syncs.
   */
  private commitWhenFree(): void {
    if (this.queued.length === 0) return;
    if (this.log !== undefined && this.syncing.length >= SYNCS_AT_ONCE) return;
    try {
      this.commitQueued();
    } catch {
      // Each queued writer was handed the error.
    }
  }

  /**
   * The log sync of a group committed without one (commitQueued): in the event loop while syncs
   * are quick (under INLINE_SYNC_MS on average: waiting costs less than handing the sync to the
   * pool and hearing back), else in the pool (syncLog), except once every PROBE_EVERY_MS, when
   * it is made here again to measure the disk anew (a sync in the pool is only seen ending when
   * the event loop gets to it, later under load, so its time is not the disk's). A sync here
   * covers every commit before it: the groups waiting for a sync in the pool to begin are told
   * with this one.
   */
  private syncGroup(landed: Settle[]): void {
    const log = this.log!;
    const now = this.clock();
    const quick = this.syncMs < INLINE_SYNC_MS;
    const inline = quick || now - this.lastInlineMs >= PROBE_EVERY_MS;
    if (!inline) {
      this.unsynced.push(...landed);
      this.syncLog();
      return;
    }
    if (landed.length === 0) return;
    let error: unknown;
    try {
      log.syncNow();
    } catch (err) {
      error = syncFailed(log.path, err);
    }
    this.lastInlineMs = this.clock();
    this.measured(this.lastInlineMs - now, !quick);
    const covered = [...this.unsynced, ...landed];
    this.unsynced = [];
    for (const settle of covered) settle(error);
  }

  /** A sync's time; `anew`, it replaces those before (a probe made while the syncs were slow). */
  private measured(ms: number, anew: boolean): void {
    if (anew) this.syncTimes = [];
    this.syncTimes.push(ms);
    if (this.syncTimes.length > SYNCS_MEASURED) this.syncTimes.shift();
    const sorted = [...this.syncTimes].sort((a, b) => a - b);
    this.syncMs = sorted[Math.floor(sorted.length / 2)]!;
  }

  /**
   * Syncs the write-ahead log in libuv's thread pool, then settles the writers whose groups were
   * committed before that sync began: the event loop goes on (answering, deciding, committing
   * the next groups) while the disk works, where a commit with synchronous=FULL held it for the
   * whole sync. A group's sync begins as soon as it is committed, up to SYNCS_AT_ONCE at once
   * (a group then waits for one sync, not for the end of another first); the groups committed
   * while that many run wait for the next to begin, which covers them all. The commits
   * themselves are as safe as before: each one is in the log before COMMIT returns (a crash of
   * the process loses nothing), and its writers hear nothing until the log is on disk. A sync
   * that fails hands its own writers the error.
   */
  private syncLog(): void {
    while (this.unsynced.length > 0 && this.syncing.length < SYNCS_AT_ONCE && !this.closed) {
      const batch = this.unsynced;
      this.unsynced = [];
      // Only a store with a log has writers waiting for its sync.
      const log = this.log!;
      this.syncing.push(batch);
      log.sync((err: unknown) => {
        this.syncing.splice(this.syncing.indexOf(batch), 1);
        const error = err === null || err === undefined ? undefined : syncFailed(log.path, err);
        for (const settle of batch) settle(error);
        if (this.closed) {
          if (this.syncing.length === 0) log.close();
          return;
        }
        // The group that grew while this sync ran is committed now, and synced with any
        // committed meanwhile (syncLog, called by the commit).
        this.syncLog();
        this.commitWhenFree();
      });
    }
  }
}

/** What `last` of a commitQueued returned, or threw. */
type Outcome = { value: unknown } | { error: unknown };
