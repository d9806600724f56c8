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
  readonly buildInfo = new Gauge({
    name: 'yss_build_info',
    help: 'Always 1; the labels say which version of the sidecar runs on which Node.js',
    labelNames: ['version', 'node_version'] as const,
    registers: [this.registry],
  });

  /** API requests by route template (`/api/v1/jobs/:id`, never the raw path), method and status. */
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests the API answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });

  readonly httpRequestSeconds = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to the end of its answer, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly decisions = new Counter({
    name: 'yss_decisions_total',
    help: 'Admission decisions, by outcome (admitted, rejected) and source (api, discovered)',
    labelNames: ['outcome', 'source'] as const,
    registers: [this.registry],
  });

  readonly deadlines = new Counter({
    name: 'yss_deadline_outcomes_total',
    help: 'Admitted jobs that ended, by whether they met their deadline (met, missed), failed or killed on the RM (failed, killed), lost (the RM forgot their app) or refused (the RM would not take their submission)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly admissionSeconds = new Histogram({
    name: 'yss_admission_duration_seconds',
    help: 'Time to decide one submission',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  readonly rmCallSeconds = new Histogram({
    name: 'yss_rm_request_duration_seconds',
    help: 'ResourceManager REST calls, by method and endpoint',
    labelNames: ['method', 'endpoint'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly rmErrors = new Counter({
    name: 'yss_rm_errors_total',
    help: 'Failed ResourceManager REST calls, by method, endpoint and error code',
    labelNames: ['method', 'endpoint', 'code'] as const,
    registers: [this.registry],
  });

  readonly rmWrites = new Counter({
    name: 'yss_rm_writes_total',
    help: 'Enforcement actions, by kind and final status',
    labelNames: ['kind', 'status'] as const,
    registers: [this.registry],
  });

  readonly pollSeconds = new Histogram({
    name: 'yss_poll_duration_seconds',
    help: 'One poll-decide-enforce cycle',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'yss_queue_depth',
    help: 'Admitted jobs not yet ended (the EDF queue)',
    registers: [this.registry],
  });

  readonly rmUp = new Gauge({
    name: 'yss_rm_up',
    help: '1 while the ResourceManager answers, 0 otherwise',
    registers: [this.registry],
  });

  readonly pendingActions = new Gauge({
    name: 'yss_pending_actions',
    help: 'RM writes recorded but not yet confirmed',
    registers: [this.registry],
  });

  readonly oldestPendingActionSeconds = new Gauge({
    name: 'yss_oldest_pending_action_age_seconds',
    help: 'How long the oldest RM write still pending has waited (0 when none is)',
    registers: [this.registry],
  });

  /** Every unit cost learning sees; the buckets bracket the learned worst case's usual range. */
  readonly taskUnitCost = withFixedLabels(
    new Histogram({
      name: 'yss_task_unit_cost_seconds',
      help: 'Finished tasks: run time in seconds per MB of data (unit="per_megabyte"; map: its split; reduce: its input), by stage (map, reduce) and workload class',
      labelNames: ['stage', 'class', 'unit'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    }),
    { unit: PER_MEGABYTE },
  );

  readonly learnedUnitCost = withFixedLabels(
    new Gauge({
      name: 'yss_learned_unit_cost_seconds',
      help: 'The worst-case cost admission plans with (c_m^max, c_r^max) in seconds per MB (unit="per_megabyte"), by stage (map, reduce) and workload class (* the default)',
      labelNames: ['stage', 'class', 'unit'] as const,
      registers: [this.registry],
    }),
    { unit: PER_MEGABYTE },
  );

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
