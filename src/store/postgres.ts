/**
 * The ledger on PostgreSQL, shared by several sidecars of which one writes (the leader) and the
 * others follow. The Ledger interface is synchronous (a decision and its rows land in one
 * transaction with no await in between), so every read and write goes to a working copy: an
 * in-memory SqliteLedger, the same schema and code as the embedded store. Temporary triggers on
 * the working copy's tables note every changed row (table, primary key) in `_changes`; before
 * the next turn of the event loop the changed rows are read as they now stand and shipped to
 * PostgreSQL, in commit order, one PostgreSQL transaction per group. `flush()` resolves once
 * everything written so far is committed there.
 *
 * In PostgreSQL each ledger table has the same columns plus `row_id` (the SQLite rowid: the
 * rows' order) and `seq`, set from one sequence on
 * every upsert, so a follower fetches what changed after the last seq it saw; a deleted row
 * leaves a tombstone in `ledger_deleted`, pruned after TOMBSTONE_KEEP_MS (a follower that last
 * saw less than the highest seq pruned loads again). The archive (ARCHIVE_TABLES: closed jobs
 * moved out of the live tables by ledger.retention) is filled in PostgreSQL itself and never
 * loaded: a working copy holds the live rows only, and the archive is read in PostgreSQL. One `fence` row holds the
 * epoch of the writer: a writer takes over by raising it, and each shipping transaction first
 * reads it FOR SHARE and aborts when it is no longer its own (the row lock makes a new writer's
 * raise wait for an old writer's transaction in flight, whose later writes then fail).
 *
 * The Ledger's table methods are TableLedger's, run on the working copy's tables; its parts are
 * in ./pg: the schema and migrations (schema.ts), the working copy and its change capture
 * (working-copy.ts), shipping (shipping.ts), the history a load leaves (history.ts) and the
 * archive's reads and deletes (archive.ts).
 */
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { Pool, types as pgTypes, type PoolClient } from 'pg';
import { SidecarError } from '../errors/base';
import { LedgerFencedError } from '../errors/ledger-fenced';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { LedgerUnavailableError } from '../errors/ledger-unavailable';
import { ValidationError } from '../errors/validation';
import { redactText, type Logger } from '../log';
import type { SqliteLedger } from './ledger';
import {
  countInto,
  countsWithHistory,
  energyWithHistory,
  historyAt,
  type ArchivedTotals,
  type History,
} from './pg/history';
import {
  HISTORY_JOB,
  LEDGER_TABLES,
  LOADED_JOB_IDS,
  LOADED_ROWS,
  MIGRATION_LOCK,
  PG_MIGRATIONS,
  PRUNE_EVERY_MS,
  TOMBSTONE_KEEP_MS,
} from './pg/schema';
import { checkFence, writeGroups, type ArchiveMoveInPg, type Change, type Group } from './pg/shipping';
import { archivedJobIn, archivedPage, deleteArchivedIn, pruneTombstonesIn } from './pg/archive';
import { buildWorkingCopy, quote, type TableShape, type WorkingCopy } from './pg/working-copy';
import { JOB_ROW_TABLES } from './rows';
import { TableLedger } from './table-ledger';
import type { Tables } from './tables';
import { checkBatch, type ArchiveMove } from './tables/archive';
import type { ArchiveBatch, ArchivedJob, ArchivedJobDetail, JobCount, JobQuery, Ledger } from './types';

/** Groups merged into one PostgreSQL transaction when shipping has fallen behind. */
const MAX_MERGED_GROUPS = 64;
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 5_000;

export interface PostgresLedgerOptions {
  /** The clock the rows are stamped with (as SqliteLedger's). */
  clock?: () => number;
  /** Connections in the pool (default 4). */
  poolSize?: number;
  /** How long flush (and a write awaiting it) waits for PostgreSQL before LedgerUnavailableError (default 5,000 ms). */
  flushTimeoutMs?: number;
  /**
   * `now`: take the ledger over at open with the fence's epoch + 1 (one sidecar on PostgreSQL,
   * no election); `later`: open as a follower, writes refused until takeOver.
   */
  writer: 'now' | 'later';
  /** Who holds the fence, as recorded there (default host:pid). */
  holder?: string;
  logger?: Logger;
  /**
   * ledger.retention.archiveAfterDays in ms, with retention on: a job closed and last written
   * longer ago than this, with no write pending and no ticket waiting, is history (HISTORY_JOB). A
   * load leaves history in PostgreSQL, counted in the totals, found by id and archived from
   * there by the writer (archiveClosedJobs): what an instance loads and holds is its open and
   * recent jobs, however long the ledger has lived. Unset: a load takes every live row.
   */
  archiveAfterMs?: number;
}

/** What a follower fetches of a job moved to the archive: its rows go from the working copy. */
const ARCHIVED_JOB = '(archived job)';

/** A row fetched from PostgreSQL after the last seq seen: its values, or null when it left. */
interface Fetched {
  seq: number;
  table: string;
  row: unknown[] | null;
  pk: unknown[];
  /** An archived job's totals columns and last write. */
  job?: ArchivedTotals;
}

/** What a catch-up read: a fresh copy, or the rows to apply; the highest seq; the highest ids. */
interface Fetch {
  copy?: WorkingCopy;
  fetched: Fetched[];
  top: number;
  /** The highest decision and action ids, archive and history included (highestIds). */
  highestIds: Record<string, number>;
}

/**
 * The highest ids of the archive and of the live rows, history included: a copy whose live
 * decisions and actions were all archived, or left in PostgreSQL as history, must not number
 * new ones from below them again (ids are keys there, and in the archive).
 */
async function highestIds(client: PoolClient): Promise<Record<string, number>> {
  const ids = await client.query<{ decisions: number | null; actions: number | null }>(
    `SELECT GREATEST((SELECT MAX(id) FROM archived_decisions), (SELECT MAX(id) FROM decisions)) AS decisions,
       GREATEST((SELECT MAX(id) FROM archived_actions), (SELECT MAX(id) FROM actions)) AS actions`,
  );
  return { decisions: ids.rows[0]?.decisions ?? 0, actions: ids.rows[0]?.actions ?? 0 };
}

/** Rows read from PostgreSQL per FETCH when loading a fresh working copy, each batch applied at once. */
const LOAD_CHUNK = 5_000;

interface Waiter {
  target: number;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** BIGINT as a JS number (the ledger's integers are milliseconds, counts and ids). */
const INT8_OID = 20;
const pgTypeParser = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (v: string) => Number(v)
      : pgTypes.getTypeParser(oid, format ?? 'text')) as typeof pgTypes.getTypeParser,
};

/** The password of a postgres:// URL, to be scrubbed from any text shown. */
function passwordOf(url: string): string | undefined {
  try {
    const p = decodeURIComponent(new URL(url).password);
    return p.length > 0 ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens (and migrates) the PostgreSQL ledger at `url`: a follower until takeOver, or the writer
 * at once with `writer: 'now'` (the fence's epoch + 1).
 */
export async function openPostgresLedger(
  url: string,
  options: PostgresLedgerOptions,
): Promise<PostgresLedger> {
  const ledger = new PostgresLedger(url, options);
  try {
    await ledger.migrate();
    if (options.writer === 'now') {
      const epoch = await ledger.fenceEpoch();
      await ledger.takeOver(epoch + 1, options.holder ?? `${hostname()}:${process.pid}`);
    }
  } catch (err) {
    await ledger.end();
    throw ledger.describe(err, 'opening the ledger');
  }
  return ledger;
}

/** The ledger on PostgreSQL through an in-memory working copy: see the module's comment. */
export class PostgresLedger extends TableLedger implements Ledger {
  private readonly pool: Pool;
  private readonly clock: () => number;
  private readonly flushTimeoutMs: number;
  private readonly logger: Logger | undefined;
  private readonly password: string | undefined;
  private readonly archiveAfterMs: number | undefined;
  private work!: SqliteLedger;
  /** What the working copy's load left in PostgreSQL (PostgresLedgerOptions.archiveAfterMs). */
  private history: History | undefined;
  private shapes = new Map<string, TableShape>();
  /** The working copy's `_changes`: read in order, and cleared up to a seq. */
  private changes!: { read: Database.Statement; clear: Database.Statement };

  /** The epoch this instance writes with; null while it follows. */
  private epoch: number | null = null;
  /** The epoch a takeOver in progress is raising the fence to. */
  private raising: number | null = null;
  private fenced: LedgerFencedError | undefined;
  private readonly fencedListeners: Array<(err: Error) => void> = [];
  /** Highest PostgreSQL seq applied to the working copy (followers, loads); null before any load. */
  private lastSeq: number | null = null;

  /** Off while rows read from PostgreSQL are applied: those are not changes to ship. */
  private capturing = true;
  private captureScheduled = false;
  private groups: Group[] = [];
  private captured = 0;
  private shipped = 0;
  private shipping = false;
  private waiters: Waiter[] = [];
  private lastError: string | undefined;

  private followTimer: NodeJS.Timeout | undefined;
  private catchingUp: Promise<void> | undefined;
  private closing = false;
  private ended: Promise<void> | undefined;

  /** Use openPostgresLedger: it migrates the schema and takes the writer's role when asked. */
  constructor(url: string, options: Omit<PostgresLedgerOptions, 'writer'>) {
    super();
    this.clock = options.clock ?? (() => Date.now());
    this.flushTimeoutMs = options.flushTimeoutMs ?? 5_000;
    this.logger = options.logger;
    this.archiveAfterMs = options.archiveAfterMs;
    this.password = passwordOf(url);
    this.pool = new Pool({
      connectionString: url,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: Math.max(1_000, this.flushTimeoutMs),
      // A query that hangs (a server that stopped answering) fails, and shipping retries it; a
      // takeover's raise may wait that long for an old writer's transaction in flight.
      query_timeout: Math.max(30_000, 4 * this.flushTimeoutMs),
      types: pgTypeParser,
    });
    // An idle client losing its connection (PostgreSQL restarted) must not crash the process.
    this.pool.on('error', (err) => {
      this.lastError = this.scrub(err.message);
    });
    this.work = this.newWorkingCopy();
  }

  // --- roles --------------------------------------------------------------------------

  /** True once takeOver succeeded and no newer writer has fenced this one. */
  isWriter(): boolean {
    return this.epoch !== null && this.fenced === undefined;
  }

  /** The fence's epoch now. */
  async fenceEpoch(): Promise<number> {
    const r = await this.pool.query<{ epoch: number }>('SELECT epoch FROM fence');
    return r.rows[0]?.epoch ?? 0;
  }

  /**
   * Becomes the writer with `epoch`: raises the fence in one transaction (throws
   * LedgerFencedError when it already holds `epoch` or more: a newer leader), then brings the
   * working copy up to date (all of PostgreSQL when it never followed, else what changed since).
   */
  async takeOver(epoch: number, holder: string): Promise<void> {
    try {
      await this.raiseAndLoad(epoch, holder);
    } catch (err) {
      throw this.describe(err, 'taking the ledger over');
    }
  }

  private async raiseAndLoad(epoch: number, holder: string): Promise<void> {
    if (this.fenced) throw this.fenced;
    if (this.closing) throw new Error('the ledger is closed');
    if (!Number.isSafeInteger(epoch) || epoch < 1)
      throw new ValidationError([
        { path: 'epoch', message: `must be a positive whole number, got ${epoch}` },
      ]);
    this.raising = epoch;
    try {
      await this.inTransaction(async (client) => {
        // The same holder raising to the same epoch again (a takeOver retried after its load
        // failed) is no newer writer.
        const r = await client.query(
          'UPDATE fence SET epoch = $1, holder = $2 WHERE epoch < $1 OR (epoch = $1 AND holder = $2)',
          [epoch, holder],
        );
        if (r.rowCount === 0) {
          const now = await client.query<{ epoch: number; holder: string | null }>(
            'SELECT epoch, holder FROM fence',
          );
          throw new LedgerFencedError(
            `the ledger is held with epoch ${now.rows[0]?.epoch} by ${now.rows[0]?.holder ?? 'another sidecar'}: epoch ${epoch} is not newer`,
            { epoch, currentEpoch: now.rows[0]?.epoch ?? null, holder: now.rows[0]?.holder ?? null },
          );
        }
      });
      if (this.epoch === null) {
        this.stopFollowing();
        // A follower's fetch begun before the fence was raised may miss the old writer's last
        // rows: let it end, then fetch again from after it.
        await this.catchingUp?.catch(() => undefined);
        await this.catchUp();
      }
      this.epoch = epoch;
    } finally {
      this.raising = null;
    }
  }

  /**
   * Keeps the working copy current while following: every `intervalMs`, fetches the rows whose
   * seq is above the last seen. Stops by itself at takeOver or close.
   */
  follow(intervalMs: number): void {
    if (this.epoch !== null || this.closing) return;
    this.stopFollowing();
    const tick = (): void => {
      this.catchUp().catch((err: unknown) => {
        this.lastError = this.scrub(err instanceof Error ? err.message : String(err));
        this.logger?.warn('ledger: following PostgreSQL failed; retrying', { error: this.lastError });
      });
    };
    this.followTimer = setInterval(tick, Math.max(10, intervalMs));
    this.followTimer.unref();
    tick();
  }

  /** `cb` is called once, when a newer writer fences this one: stop acting at once. */
  onFenced(cb: (err: Error) => void): void {
    if (this.fenced) cb(this.fenced);
    else this.fencedListeners.push(cb);
  }

  /** What went wrong with PostgreSQL last (password removed), while it is still failing. */
  get lastFailure(): string | undefined {
    return this.lastError;
  }

  /** The working copy, to inspect (its rows against PostgreSQL's); write through this ledger only. */
  workingCopy(): SqliteLedger {
    return this.work;
  }

  /** Groups of changes captured and not yet committed in PostgreSQL. */
  get unshipped(): number {
    return this.groups.length;
  }

  // --- the working copy ----------------------------------------------------------------

  /** A fresh in-memory SqliteLedger with the change capture on every ledger table. */
  private newWorkingCopy(): SqliteLedger {
    const copy = this.buildWorkingCopy();
    this.install(copy);
    return copy.work;
  }

  /** Makes `copy` the working copy, its shapes and change log those read and shipped. */
  private install(copy: WorkingCopy): void {
    this.work = copy.work;
    this.shapes = copy.shapes;
    this.changes = copy.changes;
    this.history = copy.history;
  }

  /**
   * A fresh in-memory SqliteLedger with the change capture on every shipped table, not yet the
   * working copy: its changes are captured only once it is (install).
   */
  private buildWorkingCopy(): WorkingCopy {
    return buildWorkingCopy(this.clock, (work) => {
      if (!this.capturing || this.work !== work) return false;
      this.scheduleCapture();
      return true;
    });
  }

  /** The working copy's tables: the Ledger's table methods (TableLedger) read and write them. */
  protected override get tables(): Tables {
    return this.work.tables;
  }

  private get db(): Database.Database {
    return this.work.connection;
  }

  private scheduleCapture(): void {
    if (this.captureScheduled) return;
    this.captureScheduled = true;
    setImmediate(() => this.capture());
  }

  /**
   * Reads the rows `_changes` names as they stand now into the next group to ship, and clears
   * `_changes`. Outside a transaction only: inside one, the rows may yet roll back.
   */
  private capture(): void {
    this.captureScheduled = false;
    // A capture scheduled just before close() finds the working copy closed: close captured it.
    if (!this.db.open) return;
    if (this.db.inTransaction) {
      this.scheduleCapture();
      return;
    }
    const noted = this.changes.read.all() as Array<[number, string, string]>;
    if (noted.length === 0) return;
    const latest = new Map<string, [string, string]>();
    for (const [, tbl, pk] of noted) {
      const k = `${tbl}\u0000${pk}`;
      latest.delete(k);
      latest.set(k, [tbl, pk]);
    }
    const changes: Change[] = [];
    for (const [tbl, pkText] of latest.values()) {
      const shape = this.shapes.get(tbl)!;
      const pk = JSON.parse(pkText) as unknown[];
      const row = (shape.select.get(...pk) as unknown[] | undefined) ?? null;
      changes.push({ table: tbl, pk, row });
    }
    this.changes.clear.run(noted[noted.length - 1]![0]);
    this.groups.push({ no: ++this.captured, changes });
    void this.ship();
  }

  protected override assertWritable(): void {
    if (this.fenced) throw this.fenced;
    if (this.epoch === null) throw new LedgerReadOnlyError();
  }

  // --- shipping ----------------------------------------------------------------------

  /** Ships the captured groups in order, retrying with backoff; one loop at a time. */
  private async ship(): Promise<void> {
    if (this.shipping) return;
    this.shipping = true;
    let delay = RETRY_FIRST_MS;
    const giveUpAt = () => (this.closing ? this.closeDeadline : Infinity);
    try {
      while (this.groups.length > 0 && !this.fenced) {
        // A batch of archiving moves rows as PostgreSQL holds them: it ships alone, once every
        // group before it has (and no group after it is merged before it).
        const archiving = this.groups.findIndex((g) => g.archive !== undefined);
        const take =
          archiving === 0
            ? this.groups.slice(0, 1)
            : this.groups.slice(0, Math.min(MAX_MERGED_GROUPS, archiving < 0 ? Infinity : archiving));
        try {
          await this.shipGroups(take);
          this.groups.splice(0, take.length);
          this.shipped = take[take.length - 1]!.no;
          if (this.lastError !== undefined)
            this.logger?.info('ledger: PostgreSQL answers again; shipping resumed');
          this.lastError = undefined;
          delay = RETRY_FIRST_MS;
          this.settleWaiters();
        } catch (err) {
          if (err instanceof LedgerFencedError) {
            this.fence(err);
            break;
          }
          const first = this.lastError === undefined;
          this.lastError = this.scrub(err instanceof Error ? err.message : String(err));
          if (first)
            this.logger?.warn('ledger: shipping to PostgreSQL failed; retrying, nothing is dropped', {
              error: this.lastError,
              unshipped: this.groups.length,
            });
          if (Date.now() + delay > giveUpAt()) break;
          await sleep(delay);
          delay = Math.min(delay * 2, RETRY_MAX_MS);
        }
      }
    } finally {
      this.shipping = false;
    }
  }

  /** One PostgreSQL transaction: the fence checked (FOR SHARE), then every row upserted or deleted. */
  private async shipGroups(groups: Group[]): Promise<void> {
    const epoch = this.epoch;
    await this.inTransaction(async (client) => {
      await checkFence(client, epoch, this.raising);
      await writeGroups(client, this.shapes, groups);
    });
  }

  private fence(err: LedgerFencedError): void {
    if (this.fenced) return;
    this.fenced = err;
    this.logger?.error('ledger: a newer writer holds the ledger; this sidecar writes nothing more', {
      epoch: err.epoch,
      currentEpoch: err.currentEpoch,
    });
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    for (const cb of this.fencedListeners.splice(0)) {
      try {
        cb(err);
      } catch {
        // A listener's failure does not keep the others from hearing.
      }
    }
  }

  private settleWaiters(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.target <= this.shipped) {
        clearTimeout(w.timer);
        w.resolve();
      } else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Resolves once every write made so far is committed in PostgreSQL; rejects with
   * LedgerUnavailableError after flushTimeoutMs (the writes stay queued and ship later), or
   * LedgerFencedError. On a follower (nothing to ship) it resolves at once.
   */
  async flush(): Promise<void> {
    if (this.fenced) throw this.fenced;
    // Writes queued for the working copy's group commit are writes made so far: join it.
    await this.work.flush();
    return this.shippedSoFar();
  }

  /** Resolves once what the working copy has committed so far is committed in PostgreSQL. */
  private shippedSoFar(): Promise<void> {
    if (this.fenced) return Promise.reject(this.fenced);
    this.capture();
    const target = this.captured;
    if (this.shipped >= target) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        target,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(
            new LedgerUnavailableError(
              `the ledger's PostgreSQL did not commit within ${this.flushTimeoutMs} ms${this.lastError ? `: ${this.lastError}` : ''}; the writes are kept and shipped when it answers`,
              { waitedMs: this.flushTimeoutMs, reason: this.lastError, retryAfterSeconds: 1 },
            ),
          );
        }, this.flushTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  // --- loading and following -------------------------------------------------------------

  /**
   * Applies to the working copy every row changed in PostgreSQL after the last seq seen (all of
   * them the first time, into a fresh working copy), in seq order, in one SQLite transaction,
   * from one consistent PostgreSQL snapshot.
   */
  catchUp(): Promise<void> {
    this.catchingUp ??= this.fetchAndApply().finally(() => (this.catchingUp = undefined));
    return this.catchingUp;
  }

  private async fetchAndApply(): Promise<void> {
    const read = await this.fetchSince(this.lastSeq);
    if (read.copy !== undefined) {
      // The fresh load replaces the working copy: nothing of an earlier one is kept.
      const old = this.work;
      this.install(read.copy);
      old.close();
    }
    read.fetched.sort((a, b) => a.seq - b.seq);
    this.applyFetched(read.fetched, read.highestIds);
    let top = read.top;
    for (const f of read.fetched) top = Math.max(top, f.seq);
    this.lastSeq = top;
  }

  /**
   * What changed in PostgreSQL after `lastSeq`, from one snapshot: the rows to apply to the
   * working copy; or, the first time or when tombstones it may have missed were pruned, a fresh
   * copy loaded whole (copy, with `top` the highest seq it read). A fresh copy is filled as the
   * rows come, a chunk at a time (each row once, as it stands in this snapshot: their order does
   * not matter), and replaces the working copy once whole: what the process holds of
   * PostgreSQL's rows at once is one chunk.
   */
  private async fetchSince(lastSeq: number | null): Promise<Fetch> {
    const out: Fetch = { fetched: [], top: lastSeq ?? 0, highestIds: {} };
    try {
      await this.inTransaction(async (client) => {
        // Tombstones up to the horizon are pruned: a copy that last saw less may have missed
        // deletions, and loads afresh.
        const horizon = await client.query<{ seq: number }>('SELECT seq FROM ledger_horizon');
        if (lastSeq === null || lastSeq < (horizon.rows[0]?.seq ?? 0)) {
          out.copy = this.buildWorkingCopy();
          out.top = await this.loadInto(client, out.copy);
        } else out.fetched = await this.changedSince(client, lastSeq);
        out.highestIds = await highestIds(client);
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      out.copy?.work.close();
      throw err;
    }
    return out;
  }

  /**
   * The rows of the live tables written after `since`, those deleted since (tombstones), the
   * jobs moved to the archive since (their rows left the live tables without tombstones) and
   * the actions of no job moved with them.
   */
  private async changedSince(client: PoolClient, since: number): Promise<Fetched[]> {
    const fetched: Fetched[] = [];
    for (const name of LEDGER_TABLES) {
      const shape = this.shapes.get(name)!;
      const r = await client.query<unknown[]>({
        text: `SELECT ${shape.pgColumns.map(quote).join(', ')}, seq FROM ${quote(name)} WHERE seq > $1`,
        values: [since],
        rowMode: 'array',
      });
      for (const row of r.rows) {
        const seq = row.pop() as number;
        fetched.push({ seq, table: name, row, pk: [] });
      }
    }
    const d = await client.query<{ tbl: string; pk: string; seq: number }>(
      'SELECT tbl, pk, seq FROM ledger_deleted WHERE seq > $1',
      [since],
    );
    for (const t of d.rows)
      if (LEDGER_TABLES.includes(t.tbl))
        fetched.push({ seq: t.seq, table: t.tbl, row: null, pk: JSON.parse(t.pk) as unknown[] });
    const jobs = await client.query<ArchivedTotals & { id: string; seq: number }>(
      'SELECT id, seq, decision, state, outcome, label, energy_joules, updated_ms FROM archived_jobs WHERE seq > $1',
      [since],
    );
    for (const j of jobs.rows)
      fetched.push({ seq: j.seq, table: ARCHIVED_JOB, row: null, pk: [j.id], job: j });
    const actions = await client.query<{ id: number; seq: number }>(
      'SELECT id, seq FROM archived_actions WHERE job_id IS NULL AND seq > $1',
      [since],
    );
    for (const a of actions.rows) fetched.push({ seq: a.seq, table: 'actions', row: null, pk: [a.id] });
    return fetched;
  }

  /**
   * Applies the rows fetched (in seq order) to the working copy in one SQLite transaction, with
   * its change capture and foreign keys off (rows of several tables arrive in seq order, not in
   * the order of their references), and raises its id sequences to `ids`.
   */
  private applyFetched(fetched: Fetched[], ids: Record<string, number>): void {
    const db = this.db;
    this.capturing = false;
    db.pragma('foreign_keys = OFF');
    try {
      const dropArchived = this.archivedJobDropper(db);
      db.transaction(() => {
        for (const f of fetched) {
          if (f.table === ARCHIVED_JOB) dropArchived(f.pk[0] as string, f.job!);
          else if (f.row) this.shapes.get(f.table)!.apply(f.row);
          else this.shapes.get(f.table)!.remove.run(...f.pk);
        }
        for (const [table, id] of Object.entries(ids)) {
          if (id <= 0) continue;
          const n = db
            .prepare('UPDATE main.sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?')
            .run(id, table);
          if (n.changes === 0)
            db.prepare('INSERT INTO main.sqlite_sequence (name, seq) VALUES (?, ?)').run(table, id);
        }
      })();
    } finally {
      db.pragma('foreign_keys = ON');
      this.capturing = true;
    }
  }

  /**
   * Drops a job moved to the archive, with its rows, from the working copy. A job this copy does
   * not hold was history at its load: counted apart until now.
   */
  private archivedJobDropper(db: Database.Database): (id: string, job: ArchivedTotals) => void {
    const held = db.prepare('SELECT 1 FROM main.jobs WHERE id = ?');
    const drop = [
      ...JOB_ROW_TABLES.map((t) => `DELETE FROM main.${t} WHERE job_id = ?`),
      'DELETE FROM main.jobs WHERE id = ?',
    ].map((sql) => db.prepare(sql));
    return (id, job) => {
      const history = this.history;
      if (held.get(id) === undefined && history !== undefined && job.updated_ms < history.cutoffMs)
        countInto(history.totals, job, -1);
      for (const st of drop) st.run(id);
    };
  }

  /**
   * Fills a fresh copy from PostgreSQL's snapshot (the transaction `client` is in), LOAD_CHUNK
   * rows per FETCH of a cursor, each chunk applied in one SQLite transaction; returns the highest
   * seq read. With archiveAfterMs, the rows of history (HISTORY_JOB at the cutoff) stay in
   * PostgreSQL: the loaded jobs are found by index first, then their rows by job, and the
   * history's totals are counted apart (copy.history).
   */
  private async loadInto(client: PoolClient, copy: WorkingCopy): Promise<number> {
    const db = copy.work.connection;
    const cutoffMs = this.archiveAfterMs === undefined ? undefined : this.clock() - this.archiveAfterMs;
    let values: unknown[] = [];
    if (cutoffMs !== undefined) {
      const ids = await client.query<[string]>({
        text: LOADED_JOB_IDS,
        values: [cutoffMs],
        rowMode: 'array',
      });
      values = [ids.rows.map((r) => r[0]), cutoffMs];
    }
    let top = 0;
    db.pragma('foreign_keys = OFF');
    try {
      for (const name of LEDGER_TABLES) {
        const shape = copy.shapes.get(name)!;
        const where = cutoffMs !== undefined ? LOADED_ROWS[name] : undefined;
        const uses = where === undefined ? [] : values.slice(0, where.includes('$2') ? 2 : 1);
        await client.query(
          `DECLARE yss_load NO SCROLL CURSOR FOR SELECT ${shape.pgColumns.map(quote).join(', ')}, seq FROM ${quote(name)}${
            where === undefined ? '' : ` WHERE ${where}`
          }`,
          uses,
        );
        for (;;) {
          const r = await client.query<unknown[]>({
            text: `FETCH ${LOAD_CHUNK} FROM yss_load`,
            rowMode: 'array',
          });
          if (r.rows.length === 0) break;
          db.transaction(() => {
            for (const row of r.rows) {
              top = Math.max(top, row.pop() as number);
              shape.apply(row);
            }
          })();
        }
        await client.query('CLOSE yss_load');
      }
    } finally {
      db.pragma('foreign_keys = ON');
    }
    if (cutoffMs !== undefined) copy.history = await this.historyOf(client, copy, cutoffMs);
    return top;
  }

  /** The history a load at `cutoffMs` left in PostgreSQL (historyAt), told in the log when there is any. */
  private async historyOf(client: PoolClient, copy: WorkingCopy, cutoffMs: number): Promise<History> {
    const history = await historyAt(client, copy.work.connection, cutoffMs);
    const jobs = [...history.totals.values()].reduce((n, t) => n + t.n, 0);
    if (jobs > 0)
      this.logger?.info(
        'ledger: closed jobs past ledger.retention.archiveAfterDays left in PostgreSQL, to be archived',
        {
          jobs,
          cutoff: new Date(cutoffMs).toISOString(),
        },
      );
    return history;
  }

  private stopFollowing(): void {
    if (this.followTimer) clearInterval(this.followTimer);
    this.followTimer = undefined;
  }

  // --- PostgreSQL plumbing ---------------------------------------------------------------

  async migrate(): Promise<void> {
    await this.inTransaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_version (version INT PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_version')).rows.map(
          (r) => r.version,
        ),
      );
      for (const m of PG_MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query(m.sql);
        await client.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
    });
  }

  /** The PostgreSQL schema's version (the highest migration applied). */
  async pgSchemaVersion(): Promise<number> {
    const r = await this.pool.query<{ v: number }>('SELECT MAX(version) AS v FROM schema_version');
    return r.rows[0]?.v ?? 0;
  }

  private async inTransaction(fn: (client: PoolClient) => Promise<void>, begin = 'BEGIN'): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // The server ending the connection between two queries (a restart) is an event on the client,
    // not a rejected query: without a listener it would crash the process.
    const onError = (err: Error): void => {
      broken = err;
      this.lastError = this.scrub(err.message);
    };
    client.on('error', onError);
    try {
      await client.query(begin);
      await fn(client);
      await client.query('COMMIT');
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollback) {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      }
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** `text` without the URL's password, in any form it may appear in. */
  private scrub(text: string): string {
    let out = redactText(text);
    if (this.password && this.password.length >= 4) out = out.split(this.password).join('[redacted]');
    return out;
  }

  /** An error from PostgreSQL as it may be shown: typed errors as they are, others scrubbed. */
  describe(err: unknown, doing: string): Error {
    // Ours already say what failed, without the password.
    if (err instanceof SidecarError) return err;
    const message = this.scrub(err instanceof Error ? err.message : String(err));
    return new LedgerUnavailableError(`${doing} on PostgreSQL failed: ${message}`, {
      waitedMs: 0,
      reason: message,
    });
  }

  private closeDeadline = Infinity;

  /**
   * Commits what writeSoon queued, stops following and ends the pool once the captured changes
   * are shipped (or after flushTimeoutMs, when PostgreSQL does not answer). `closed` resolves then.
   */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.stopFollowing();
    if (!this.fenced && this.epoch !== null) {
      this.work.commitQueued();
      this.capture();
    }
    this.closeDeadline = Date.now() + this.flushTimeoutMs;
    this.ended = this.drainThenEnd();
  }

  /** Resolves once close() has ended the pool. */
  get closed(): Promise<void> {
    return this.ended ?? Promise.resolve();
  }

  private async drainThenEnd(): Promise<void> {
    const deadline = this.closeDeadline;
    while (this.groups.length > 0 && !this.fenced && Date.now() < deadline) {
      if (!this.shipping) void this.ship();
      await sleep(20);
    }
    if (this.groups.length > 0 && !this.fenced)
      this.logger?.error('ledger: closed with changes PostgreSQL never committed', {
        unshipped: this.groups.length,
      });
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new LedgerUnavailableError('the ledger closed before PostgreSQL committed', { waitedMs: 0 }));
    }
    await this.catchingUp?.catch(() => undefined);
    this.work.close();
    await this.pool.end();
  }

  /** Ends the pool at once (a failed open). */
  async end(): Promise<void> {
    this.closing = true;
    this.stopFollowing();
    await this.pool.end().catch(() => undefined);
  }

  // --- the Ledger interface: writes checked, then the working copy ----------------------------

  transaction<T>(fn: () => T): T {
    return this.work.transaction(fn);
  }

  /** The working copy is in memory: no sync to skip; its rows are shipped as any others. */
  transactionUnsynced<T>(fn: () => T): T {
    return this.work.transaction(fn);
  }

  /**
   * Group commit as SqliteLedger's, resolving only once the group is committed in PostgreSQL
   * (rejects with LedgerUnavailableError when that takes longer than flushTimeoutMs: the
   * writes are kept locally and shipped later).
   */
  async writeSoon(fn: () => void): Promise<void> {
    this.assertWritable();
    await this.work.writeSoon(fn);
    // Its own group is committed in the working copy: wait for that to ship, not for the groups
    // queued since (flush would join the next one).
    await this.shippedSoFar();
  }

  /** The working copy's totals (live and archived jobs) and those of the history its load left in PostgreSQL. */
  override countJobs(): JobCount[] {
    return countsWithHistory(super.countJobs(), this.history);
  }
  override admittedEnergyByLabel(): Array<{ label: string | null; joules: number }> {
    return energyWithHistory(super.admittedEnergyByLabel(), this.history);
  }

  // --- the archive: moved by the working copy and shipped, read in PostgreSQL ----------------

  /**
   * One batch of archiving: the working copy picks the jobs and drops their rows in one SQLite
   * transaction (the same code as the SQLite store, without copying them: its archive tables
   * stay empty), with its change capture off; history its load left in PostgreSQL (archiveAfterMs)
   * fills the rest of the batch, picked there beforehand. The batch becomes one group of its own,
   * shipped in order after every write before it, in one PostgreSQL transaction that copies
   * those jobs' rows from PostgreSQL's live tables into the archive's and deletes them there
   * (moveToArchive), and writes the archive's totals. A crash before that transaction commits
   * leaves the jobs live in PostgreSQL, to be archived again by the next writer; once it commits,
   * they are archived, never both. Resolves once the batch is committed in PostgreSQL, with the
   * rows it moved there. Now and then it prunes the tombstones older than TOMBSTONE_KEEP_MS too.
   */
  async archiveClosedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    this.assertWritable();
    checkBatch(o.limit);
    const history = this.history;
    const old =
      history === undefined
        ? undefined
        : await this.historyDue(Math.min(o.closedBeforeMs, history.cutoffMs), o.limit);
    this.assertWritable();
    if (this.db.inTransaction) throw new Error('archiveClosedJobs runs outside a transaction');
    // Every write before the batch goes into the groups before it.
    this.work.commitQueued();
    this.capture();
    this.capturing = false;
    let batch: ArchiveMove;
    let jobIds: string[];
    let actionIds: number[];
    try {
      batch = this.work.tables.archive.archiveClosedJobsNow(o.closedBeforeMs, o.limit, { copy: false });
      jobIds = batch.jobIds;
      actionIds = batch.actionIds;
      if (old !== undefined && history !== undefined && history === this.history) {
        // History the copy holds after all (a job decided anew under the same id since) is
        // the copy's own to archive, as is what its batch took.
        const taken = new Set(jobIds);
        const jobs = old.jobs
          .filter((j) => !taken.has(j.id) && this.work.getJob(j.id) === undefined)
          .slice(0, o.limit - jobIds.length);
        const takenActions = new Set(actionIds);
        const actions = old.actionIds
          .filter((id) => !takenActions.has(id) && this.work.getAction(id) === undefined)
          .slice(0, o.limit - actionIds.length);
        this.countArchived(jobs, history);
        jobIds = [...jobIds, ...jobs.map((j) => j.id)];
        actionIds = [...actionIds, ...actions];
      }
    } finally {
      this.capturing = true;
    }
    let rows = batch.rows;
    if (jobIds.length > 0 || actionIds.length > 0) {
      // The archive's totals are a few rows: shipped whole with each batch.
      const shape = this.shapes.get('archive_totals')!;
      const totals = (
        this.db
          .prepare(`SELECT rowid, ${shape.columns.map(quote).join(', ')} FROM main.archive_totals`)
          .raw(true)
          .all() as unknown[][]
      ).map((row) => ({
        table: 'archive_totals',
        pk: shape.pk.map((c) => row[shape.columns.indexOf(c) + 1]),
        row,
      }));
      const archive: ArchiveMoveInPg = { jobIds, actionIds, archivedMs: batch.archivedMs };
      this.groups.push({ no: ++this.captured, changes: totals, archive });
      void this.ship();
      await this.shippedSoFar();
      rows = { ...rows, ...archive.rows };
    } else await this.shippedSoFar();
    if (Date.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await this.pruneTombstones(TOMBSTONE_KEEP_MS);
    }
    return { jobIds, rows };
  }

  /** History due for the archive (HISTORY_JOB before `beforeMs`), at most `limit` jobs and actions of no job. */
  private async historyDue(
    beforeMs: number,
    limit: number,
  ): Promise<{ jobs: Array<ArchivedTotals & { id: string }>; actionIds: number[] }> {
    try {
      const jobs = await this.pool.query<ArchivedTotals & { id: string }>(
        `SELECT j.id, j.decision, j.state, j.outcome, j.label, j.energy_joules, j.updated_ms FROM jobs j
         WHERE ${HISTORY_JOB} LIMIT $2`,
        [beforeMs, limit],
      );
      const actions = await this.pool.query<{ id: number }>(
        "SELECT id FROM actions WHERE job_id IS NULL AND status <> 'pending' AND updated_ms < $1 LIMIT $2",
        [beforeMs, limit],
      );
      return { jobs: jobs.rows, actionIds: actions.rows.map((r) => r.id) };
    } catch (err) {
      throw this.describe(err, 'reading the history to archive');
    }
  }

  /**
   * History jobs going to the archive: counted in the working copy's archive_totals (shipped
   * with the batch) and no longer apart, in one SQLite transaction.
   */
  private countArchived(jobs: ReadonlyArray<ArchivedTotals>, history: History): void {
    if (jobs.length === 0) return;
    const add = this.db.prepare(
      `INSERT INTO main.archive_totals (decision, state, outcome, label, n, energy_joules, energy_n)
       VALUES (?, ?, ?, ?, 1, ?, ?)
       ON CONFLICT (decision, state, outcome, label) DO UPDATE SET n = n + excluded.n,
         energy_joules = energy_joules + excluded.energy_joules, energy_n = energy_n + excluded.energy_n`,
    );
    this.db.transaction(() => {
      for (const j of jobs) {
        add.run(
          j.decision,
          j.state,
          j.outcome ?? '',
          j.label ?? '',
          j.energy_joules ?? 0,
          j.energy_joules === null ? 0 : 1,
        );
        if (j.updated_ms < history.cutoffMs) countInto(history.totals, j, -1);
      }
    })();
  }

  private prunedAt = -Infinity;

  /**
   * Deletes the tombstones older than `keepMs` (by PostgreSQL's clock), raising the horizon to
   * the highest seq deleted, in one transaction checked against the fence. Returns how many.
   */
  async pruneTombstones(keepMs: number): Promise<number> {
    this.assertWritable();
    return this.asWriter((client) => pruneTombstonesIn(client, keepMs));
  }

  /**
   * One batch of deleting from the archive, in PostgreSQL (the working copy holds none of it),
   * in one transaction checked against the fence.
   */
  async deleteArchivedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch> {
    this.assertWritable();
    checkBatch(o.limit);
    return this.asWriter((client) => deleteArchivedIn(client, o.closedBeforeMs, o.limit));
  }

  /** A page of the archive, read in PostgreSQL (a follower reads it too). */
  listArchivedJobs(query: JobQuery = {}): Promise<{ jobs: ArchivedJob[]; total: number }> {
    return this.reading((client) => archivedPage(client, query));
  }

  /**
   * One archived job with its rows, read in PostgreSQL from one snapshot; or a job of the
   * history the working copy's load left there, not archived yet (archivedMs null).
   */
  getArchivedJob(id: string): Promise<ArchivedJobDetail | undefined> {
    // History the working copy's load left in PostgreSQL, not moved yet, is read where it is.
    const history = this.history;
    const historyBeforeMs =
      history !== undefined && this.work.getJob(id) === undefined ? history.cutoffMs : undefined;
    return this.reading((client) => archivedJobIn(client, id, historyBeforeMs));
  }

  /** `fn` in one read-only transaction from one snapshot; PostgreSQL's errors as the API shows them. */
  private async reading<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const out: { value?: T } = {};
    try {
      await this.inTransaction(async (client) => {
        out.value = await fn(client);
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      throw this.describe(err, 'reading the archive');
    }
    return out.value as T;
  }

  /**
   * `fn` in one transaction that first reads the fence FOR SHARE (as shipping does), refused
   * with LedgerFencedError (and this ledger fenced) when a newer writer holds it.
   */
  private async asWriter<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const epoch = this.epoch;
    const out: { value?: T } = {};
    try {
      await this.inTransaction(async (client) => {
        await checkFence(client, epoch);
        out.value = await fn(client);
      });
    } catch (err) {
      if (err instanceof LedgerFencedError) this.fence(err);
      throw this.describe(err, 'writing the archive');
    }
    return out.value as T;
  }
}
