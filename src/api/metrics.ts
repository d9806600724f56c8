import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type LabelValues } from 'prom-client';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json sits outside rootDir
const PACKAGE_VERSION = (require('../../package.json') as { version: string }).version;

/**
 * The unit label of the per-MB costs. Prometheus names carry base units (seconds, bytes), and
 * "seconds per MB" is none: the series are `..._seconds` and say what amount of data the seconds
 * are for in this label, so a query reads `yss_task_unit_cost_seconds{unit="per_megabyte"}`.
 */
export const PER_MEGABYTE = 'per_megabyte';

/**
 * prom-client's default series whose names end in `_total` although they are gauges (how many
 * handles, requests and resources are active now). Prometheus keeps `_total` for counters
 * (`promtool check metrics` reports them), so they are not served: the same numbers are the sum
 * of `nodejs_active_handles{type}`, `nodejs_active_requests{type}` and
 * `nodejs_active_resources{type}`, which stay.
 */
const GAUGES_NAMED_TOTAL = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/**
 * Makes every series of `metric` carry the `fixed` labels: its recording methods (observe, set,
 * inc, dec, remove) add them to the labels a caller gives, so callers name only the others.
 * prom-client binds some of these methods per instance in its constructors, hence the patch of
 * the instance rather than a subclass.
 */
function withFixedLabels<M extends Histogram<string> | Gauge<string>>(
  metric: M,
  fixed: LabelValues<string>,
): M {
  const target = metric as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>;
  for (const name of ['observe', 'set', 'inc', 'dec', 'remove']) {
    const original = target[name]?.bind(metric);
    if (!original) continue;
    target[name] = (first?: unknown, ...rest: unknown[]) => {
      if (typeof first === 'object' && first !== null) return original({ ...first, ...fixed }, ...rest);
      if (typeof first === 'number' && name !== 'remove') return original({ ...fixed }, first, ...rest);
      if (first === undefined && name !== 'remove') return original({ ...fixed });
      return original(first, ...rest);
    };
  }
  return metric;
}

/**
 * The sidecar's Prometheus metrics. Its own series are prefixed `yss_` so a Grafana board can
 * select them together; the HTTP server's (`http_request*`) and prom-client's process and
 * Node.js series keep their standard names, which existing dashboards expect. Names follow
 * Prometheus's conventions (base units, `_total` only on counters); `promtool check metrics`
 * finds nothing to report (test/api/metrics-promtool.test.ts). One registry per sidecar
 * instance (tests build several in one process).
 */
export class SidecarMetrics {
  readonly registry = new Registry();

  /** Constant 1, labelled with what is running: join on it to see versions across restarts. */
  readonly buildInfo = this.gauge(
    'yss_build_info',
    'Always 1; the labels say which version of the sidecar runs on which Node.js',
    ['version', 'node_version'],
  );

  /** API requests by route template (`/api/v1/jobs/:id`, never the raw path), method and status. */
  readonly httpRequests = this.counter(
    'http_requests_total',
    'HTTP requests the API answered, by method, route template and status code',
    ['method', 'route', 'status_code'],
  );

  readonly httpRequestSeconds = this.histogram(
    'http_request_duration_seconds',
    'Time from receiving an HTTP request to the end of its answer, by method, route template and status code',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    ['method', 'route', 'status_code'],
  );

  readonly decisions = this.counter(
    'yss_decisions_total',
    'Admission decisions, by outcome (admitted, rejected) and source (api, discovered)',
    ['outcome', 'source'],
  );

  readonly deadlines = this.counter(
    'yss_deadline_outcomes_total',
    'Admitted jobs that ended, by whether they met their deadline (met, missed), failed or killed on the RM (failed, killed), lost (the RM forgot their app) or refused (the RM would not take their submission)',
    ['outcome'],
  );

  readonly admissionSeconds = this.histogram(
    'yss_admission_duration_seconds',
    'Time to decide one submission',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  );

  readonly rmCallSeconds = this.histogram(
    'yss_rm_request_duration_seconds',
    'ResourceManager REST calls, by method and endpoint',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    ['method', 'endpoint'],
  );

  readonly rmErrors = this.counter(
    'yss_rm_errors_total',
    'Failed ResourceManager REST calls, by method, endpoint and error code',
    ['method', 'endpoint', 'code'],
  );

  readonly rmWrites = this.counter('yss_rm_writes_total', 'Enforcement actions, by kind and final status', [
    'kind',
    'status',
  ]);

  readonly pollSeconds = this.histogram(
    'yss_poll_duration_seconds',
    'One poll-decide-enforce cycle',
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );

  readonly queueDepth = this.gauge('yss_queue_depth', 'Admitted jobs not yet ended (the EDF queue)');

  /** Set every poll cycle from the ledger's running jobs (src/loop/cycle.ts). */
  readonly jobsPredictedToMiss = this.gauge(
    'yss_jobs_predicted_to_miss',
    "Running admitted jobs whose predicted finish (their lane's placement made again from their tasks' progress; the admission's estimate until their tasks are read) is after their deadline",
  );

  readonly rmUp = this.gauge('yss_rm_up', '1 while the ResourceManager answers, 0 otherwise');

  readonly pendingActions = this.gauge('yss_pending_actions', 'RM writes recorded but not yet confirmed');

  readonly oldestPendingActionSeconds = this.gauge(
    'yss_oldest_pending_action_age_seconds',
    'How long the oldest RM write still pending has waited (0 when none is)',
  );

  /** What the ledger says of itself at a scrape (watchLedger); unset, it writes and ships nothing. */
  private ledgerState: (() => { writer: boolean; unshipped: number }) | undefined;

  readonly ledgerWriter: Gauge = new Gauge({
    name: 'yss_ledger_writer',
    help: '1 while this sidecar writes the ledger (always, on SQLite), 0 while it follows or after a newer writer fenced it',
    registers: [this.registry],
    collect: (): void => this.ledgerWriter.set(this.ledgerState?.().writer === false ? 0 : 1),
  });

  readonly ledgerUnshipped: Gauge = new Gauge({
    name: 'yss_ledger_unshipped_changes',
    help: 'Groups of ledger changes made and not yet committed in PostgreSQL (0 on SQLite)',
    registers: [this.registry],
    collect: (): void => this.ledgerUnshipped.set(this.ledgerState?.().unshipped ?? 0),
  });

  /** The shared ledger's role and backlog, read at every scrape. */
  watchLedger(state: () => { writer: boolean; unshipped: number }): void {
    this.ledgerState = state;
  }

  /** How the SQLite ledger's log syncs, read at every scrape (watchLogSync); unset on PostgreSQL. */
  private logSyncState: (() => { seconds: number; inPool: boolean } | undefined) | undefined;

  readonly ledgerLogSync: Gauge = new Gauge({
    name: 'yss_ledger_log_sync_seconds',
    help: "How long a sync of the SQLite ledger's write-ahead log takes: the median of the last eight made in the event loop (0 before the first, and on PostgreSQL)",
    registers: [this.registry],
    collect: (): void => this.ledgerLogSync.set(this.logSyncState?.()?.seconds ?? 0),
  });

  readonly ledgerLogSyncInPool: Gauge = new Gauge({
    name: 'yss_ledger_log_syncs_in_pool',
    help: "1 while the SQLite ledger's group commits sync their log in libuv's thread pool (its syncs take 1 ms or more), 0 while they sync in the event loop",
    registers: [this.registry],
    collect: (): void => this.ledgerLogSyncInPool.set(this.logSyncState?.()?.inPool ? 1 : 0),
  });

  /** The SQLite ledger's log syncs, read at every scrape. */
  watchLogSync(state: () => { seconds: number; inPool: boolean } | undefined): void {
    this.logSyncState = state;
  }

  readonly archivedJobs = this.counter(
    'yss_ledger_archived_jobs_total',
    "Closed jobs this sidecar moved to the ledger's archive (ledger.retention.archiveAfterDays)",
  );

  readonly deletedJobs = this.counter(
    'yss_ledger_deleted_jobs_total',
    'Archived jobs this sidecar deleted from the ledger (ledger.retention.deleteAfterDays)',
  );

  readonly archiveBatchSeconds = this.histogram(
    'yss_ledger_archive_batch_seconds',
    'One batch of archiving (and of deleting, when configured), from its transaction to its durability',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );

  /** Every unit cost learning sees; the buckets bracket the learned worst case's usual range. */
  readonly taskUnitCost = withFixedLabels(
    this.histogram(
      'yss_task_unit_cost_seconds',
      'Finished tasks: run time in seconds per MB of data (unit="per_megabyte"; map: its split; reduce: its input), by stage (map, reduce) and workload class',
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ['stage', 'class', 'unit'],
    ),
    { unit: PER_MEGABYTE },
  );

  readonly learnedUnitCost = withFixedLabels(
    this.gauge(
      'yss_learned_unit_cost_seconds',
      'The worst-case cost admission plans with (c_m^max, c_r^max) in seconds per MB (unit="per_megabyte"), by stage (map, reduce) and workload class (* the default)',
      ['stage', 'class', 'unit'],
    ),
    { unit: PER_MEGABYTE },
  );

  /** A counter on this instance's registry (and no other). */
  private counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge on this instance's registry. */
  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  /** A histogram with its buckets on this instance's registry. */
  private histogram<L extends string>(
    name: string,
    help: string,
    buckets: number[],
    labelNames: readonly L[] = [],
  ): Histogram<L> {
    return new Histogram({ name, help, buckets, labelNames, registers: [this.registry] });
  }

  constructor(options: { processMetrics?: boolean; version?: string } = {}) {
    this.buildInfo.set({ version: options.version ?? PACKAGE_VERSION, node_version: process.version }, 1);
    if (options.processMetrics) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of GAUGES_NAMED_TOTAL) this.registry.removeSingleMetric(name);
    }
  }
}

/**
 * The endpoint label of an RM path: ids replaced by placeholders, so the label set stays small
 * (`/ws/v1/cluster/apps/application_1_0001/priority` -> `/ws/v1/cluster/apps/{appid}/priority`).
 */
export function endpointLabel(path: string): string {
  return path
    .split('?')[0]!
    .replace(/application_\d+_\d+/g, '{appid}')
    .replace(/appattempt_\d+_\d+_\d+/g, '{attemptid}')
    .replace(/container_[\de_]+/g, '{containerid}')
    .replace(/job_\d+_\d+/g, '{jobid}')
    .replace(/task_\d+_\d+_[mr]_\d+/g, '{taskid}')
    .replace(/reservation_\d+_\d+/g, '{reservationid}')
    .replace(/\/nodes\/[^/]+/g, '/nodes/{nodeid}');
}
