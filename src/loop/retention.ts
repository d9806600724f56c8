import type { SidecarMetrics } from '../api/metrics';
import type { SidecarConfig } from '../config/schema';
import { LedgerFencedError } from '../errors/ledger-fenced';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import type { Logger } from '../log';
import type { Ledger } from '../store/types';

/**
 * The ledger's retention (ledger.retention): on the leader, closed jobs older than
 * archiveAfterDays are moved to the archive, and archived jobs older than deleteAfterDays (when
 * set) deleted from it, a batch of batchJobs per transaction (Ledger.archiveClosedJobs,
 * deleteArchivedJobs). Batches run one at a time on a timer of their own, never in the poll
 * cycle: while a backlog remains (a batch came back full), the next batch follows after a pause
 * as long as the last one took, so archiving takes at most about half of the event loop however
 * much is due (an upgraded ledger of a million jobs); once none is, every intervalSeconds. Each
 * batch is durable before the next begins (PostgreSQL: committed there). Only a writer archives:
 * the service starts an Archiver on the leader alone, and a follower's or a fenced ledger refuses
 * the batch, which stops the Archiver.
 */

const DAY_MS = 86_400_000;
/** The first batch after a start or a takeover: once the first poll has had its turn. */
const FIRST_RUN_MS = 5_000;
/** The shortest pause between two full batches. */
const MIN_PAUSE_MS = 10;

export interface ArchiverDeps {
  ledger: Ledger;
  retention: SidecarConfig['ledger']['retention'];
  /** The clock the ledger stamps its rows with. */
  now: () => number;
  logger: Logger;
  metrics?: SidecarMetrics;
}

/** What one run did: jobs archived and deleted, and how long it took (ms). */
export interface ArchiveRun {
  archived: number;
  deleted: number;
  ms: number;
}

export class Archiver {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Jobs archived and deleted since the last time none was due, for one line in the log. */
  private round = { archived: 0, deleted: 0, batches: 0 };

  constructor(private readonly deps: ArchiverDeps) {}

  /**
   * One batch of archiving and, with deleteAfterDays, one of deleting; each resolves once
   * durable. Rejects as the ledger does (LedgerReadOnlyError on a follower).
   */
  async runOnce(): Promise<ArchiveRun> {
    const { ledger, retention, metrics } = this.deps;
    const started = performance.now();
    const now = this.deps.now();
    const limit = retention.batchJobs;
    const moved = await ledger.archiveClosedJobs({
      closedBeforeMs: now - retention.archiveAfterDays * DAY_MS,
      limit,
    });
    await ledger.flush();
    let deleted = 0;
    if (retention.deleteAfterDays !== undefined) {
      const gone = await ledger.deleteArchivedJobs({
        closedBeforeMs: now - retention.deleteAfterDays * DAY_MS,
        limit,
      });
      deleted = gone.jobIds.length;
    }
    const ms = performance.now() - started;
    metrics?.archivedJobs.inc(moved.jobIds.length);
    metrics?.deletedJobs.inc(deleted);
    if (moved.jobIds.length > 0 || deleted > 0) metrics?.archiveBatchSeconds.observe(ms / 1000);
    return { archived: moved.jobIds.length, deleted, ms };
  }

  /** Runs batches on the timer until stop(). */
  start(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.schedule(FIRST_RUN_MS);
  }

  /** Stops the timer and waits for a batch in flight to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    const { retention, logger } = this.deps;
    let next = retention.intervalSeconds * 1000;
    const run = this.runOnce();
    this.running = run;
    try {
      const r = await run;
      this.round.archived += r.archived;
      this.round.deleted += r.deleted;
      if (r.archived > 0 || r.deleted > 0) this.round.batches++;
      if (r.archived >= retention.batchJobs || r.deleted >= retention.batchJobs) {
        next = Math.max(MIN_PAUSE_MS, Math.round(r.ms));
      } else if (this.round.batches > 0) {
        logger.info('ledger: archived the closed jobs due', {
          component: 'retention',
          archived: this.round.archived,
          deleted: this.round.deleted,
          batches: this.round.batches,
          archiveAfterDays: retention.archiveAfterDays,
          deleteAfterDays: retention.deleteAfterDays ?? null,
        });
        this.round = { archived: 0, deleted: 0, batches: 0 };
      }
    } catch (err) {
      if (err instanceof LedgerReadOnlyError || err instanceof LedgerFencedError) {
        // Not (or no longer) the writer: archiving is the leader's.
        logger.warn('ledger: not the writer; archiving stops', {
          component: 'retention',
          error: err.message,
        });
        this.stopped = true;
      } else {
        logger.warn('ledger: a batch of archiving failed; trying again later', {
          component: 'retention',
          error: err instanceof Error ? err.message : String(err),
        });
      }
    } finally {
      this.running = undefined;
    }
    this.schedule(next);
  }
}
