import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The sidecar's Prometheus metrics, all prefixed `yss_` so a Grafana board can select them
 * together. One registry per sidecar instance (tests build several in one process).
 */
export class SidecarMetrics {
  readonly registry = new Registry();

  readonly decisions = new Counter({
    name: 'yss_decisions_total',
    help: 'Admission decisions, by outcome (admitted, rejected) and source (api, discovered)',
    labelNames: ['outcome', 'source'] as const,
    registers: [this.registry],
  });

  readonly deadlines = new Counter({
    name: 'yss_deadline_outcomes_total',
    help: 'Admitted jobs that ended, by whether they met their deadline (met, missed), lost (the RM forgot their app) or refused (the RM would not take their submission)',
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
  readonly taskUnitCost = new Histogram({
    name: 'yss_task_unit_cost_seconds_per_mb',
    help: 'Finished tasks: run time per MB of data (map: its split; reduce: its input), by stage (map, reduce) and workload class',
    labelNames: ['stage', 'class'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly learnedUnitCost = new Gauge({
    name: 'yss_learned_unit_cost_seconds_per_mb',
    help: 'The worst-case cost admission plans with (c_m^max, c_r^max), by stage (map, reduce) and workload class (* the default)',
    labelNames: ['stage', 'class'] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'yss_' });
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
