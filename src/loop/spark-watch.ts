import type { Logger } from '../log';
import type { JobRecord, Ledger } from '../store/types';
import type { AppReport } from '../yarn/model';
import type { SparkExecutors } from '../yarn/spark';

/** Apps remembered at most (a restart, or apps never ending, cannot grow it without bound). */
const MAX_APPS = 10_000;

/** What was seen of a Spark app while it ran: its AM's launch and its first executor. */
export interface SparkSeen {
  launchMs?: number;
  firstExecutorMs?: number;
  executors?: number;
}

/** A job the sidecar counts as a Spark app (its spec holds the executors planned). */
export function isSparkJob(j: Pick<JobRecord, 'spec'>): boolean {
  return typeof (j.spec as { sparkPlan?: unknown } | null)?.sparkPlan === 'object';
}

/**
 * The running Spark apps of admitted Spark jobs, watched for what the RM's app report does not
 * say: when the first executor came (the driver's REST API through the RM's proxy, read until it
 * answers with one). Learning (src/loop/learning.ts, learnSpark) takes a run's set-up from it;
 * kept in memory only: after a restart, or when it could not be read, set-up ends at the AM's
 * launch.
 */
export class SparkWatch {
  private readonly seen = new Map<string, SparkSeen>();
  private readonly reading = new Set<string>();

  constructor(
    private readonly deps: {
      ledger: Ledger;
      log: Logger;
      read?: (appId: string) => Promise<SparkExecutors>;
    },
  ) {}

  /** The apps of one poll: each running Spark app of an open admitted Spark job is read once it may have executors. */
  observe(apps: readonly AppReport[]): void {
    for (const app of apps) {
      if (app.applicationType.toUpperCase() !== 'SPARK' || app.state !== 'RUNNING') continue;
      const known = this.seen.get(app.id);
      if (known?.firstExecutorMs !== undefined || this.reading.has(app.id)) continue;
      const { ledger } = this.deps;
      const job = ledger.getJobByAppId(app.id) ?? ledger.jobOfApp(app.id);
      if (!job || !isSparkJob(job)) continue;
      if (this.seen.size >= MAX_APPS) this.seen.clear();
      const entry: SparkSeen = { ...known };
      if (app.launchTime !== undefined && app.launchTime > 0) entry.launchMs = app.launchTime;
      this.seen.set(app.id, entry);
      const read = this.deps.read;
      if (!read) continue;
      this.reading.add(app.id);
      void read(app.id)
        .then((r) => {
          if (r.firstExecutorMs !== null) {
            entry.firstExecutorMs = r.firstExecutorMs;
            entry.executors = r.executors;
          }
        })
        .catch((err: unknown) =>
          this.deps.log.debug("a Spark app's executors could not be read", {
            app: app.id,
            error: String(err),
          }),
        )
        .finally(() => this.reading.delete(app.id));
    }
  }

  /** What was seen of an app (empty when nothing was). */
  of(appId: string): SparkSeen {
    return { ...this.seen.get(appId) };
  }

  forget(appId: string): void {
    this.seen.delete(appId);
  }
}
