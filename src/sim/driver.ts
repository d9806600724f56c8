import { bookOf, type EstimateBook } from '../core/estimate-book';
import type { Estimates } from '../core/estimates';
import { DEFAULT_LEARNING, type EstimateModel, type LearningOptions } from '../core/learning';
import type { PolicyRegistry } from '../core/registry';
import {
  Engine,
  worstMapSecondsOn,
  worstReduceSecondsOn,
  type EngineTenant,
  type JobOutcome,
  type TenantReport,
} from './engine';
import { summarize, type PolicySummary } from './metrics';
import type { ClusterSpec, TraceJob } from './model';
import {
  admissionPort,
  estimateView,
  measuredEstimates,
  noAdmission,
  placementPort,
  simulatorRegistry,
  worstCaseEstimates,
  type EstimateBasis,
  type MeasuredTask,
  type PolicySpec,
} from './policies';
import { preemptionModelOf, tenantShares, tenantWorkload, validateTenant, type TenantSpec } from './tenant';

/**
 * Runs one workload under each policy combination, each on a fresh engine with the same
 * seed (same heartbeat phases, block placement and jitter stream), and collects the
 * summaries and per-job outcomes.
 */
export interface RunRequest {
  cluster: ClusterSpec;
  jobs: readonly TraceJob[];
  specs: readonly PolicySpec[];
  seed: number;
  /** A different job list for some policy (He et al., RTMR, V: DC runs workload II without the jobs it cannot accept). */
  jobsFor?: (spec: PolicySpec) => readonly TraceJob[];
  registry?: PolicyRegistry;
  /**
   * How admission's worst-case estimates are modelled (docs/estimates.md): `floored` (a
   * per-task floor plus a cost per MB, the default) or `paper` (cost per MB only). The
   * Deadline Constraint baseline always gets the papers' figures: Kc and Anyanwu, DC has unit costs only.
   */
  estimateModel?: EstimateModel;
  /**
   * Admission's estimates are the worst case times this (default 1). Below 1 tasks run past
   * their estimates: 0.5 lets actual task times reach 2x the estimate (the overrun experiment).
   */
  estimateScale?: number;
  /**
   * What admission's figures are taken from (policies/estimates.ts, ESTIMATE_BASES): the
   * model's worst case (default), or a task's longest or mean time on its own data. A spec's
   * own `estimates` overrides this and estimateScale for that policy.
   */
  estimateBasis?: EstimateBasis;
  /**
   * How a policy with feedback (RTMR) learns from finished jobs and handles overruns
   * (overrun-feedback.ts); null: it does not. Default: DEFAULT_LEARNING under the floored
   * model, null under 'paper' (the runs the papers' figures were recorded with). A task within
   * its estimate teaches nothing, so on a run whose tasks all keep their estimates this changes
   * no decision.
   */
  learning?: LearningOptions | null;
  onProgress?: (label: string, done: number, total: number) => void;
  /** Search each rejected job's earliest admissible deadline (JobOutcome.earliestDeadline). */
  searchEarliest?: boolean;
}

export interface RunResult {
  spec: PolicySpec;
  summary: PolicySummary;
  outcomes: JobOutcome[];
  events: number;
  wallMs: number;
  /** What the other tenant did, when the run had one. */
  tenant?: TenantReport;
}

export function runPolicies(req: RunRequest): RunResult[] {
  const registry = req.registry ?? simulatorRegistry();
  // 'measured' figures come from one earlier run of the whole workload, shared by every policy.
  let measured: EstimateBook | null = null;
  const measuredBook = (): EstimateBook =>
    (measured ??= measuredEstimates(req.jobs, calibrationTasks(req, registry), req.cluster));
  return req.specs.map((spec) => runPolicy(req, spec, registry, measuredBook));
}

/** One policy of the request run on its jobs in a fresh engine. */
function runPolicy(
  req: RunRequest,
  spec: PolicySpec,
  registry: PolicyRegistry,
  measuredBook: () => EstimateBook,
): RunResult {
  const jobs = req.jobsFor ? req.jobsFor(spec) : req.jobs;
  const started = process.hrtime.bigint();
  const model = req.estimateModel ?? 'floored';
  // The ports below read the engine they are given to, once it runs.
  let engineRef: Engine | null = null;
  const engineOf = () => engineRef as Engine;
  const tenant = spec.tenant ? engineTenant(req.cluster, spec.tenant, jobs, req.seed) : undefined;
  const basis = spec.estimates?.basis ?? req.estimateBasis ?? 'worst';
  const view = estimateView(req.cluster, basis);
  const estimates =
    basis === 'measured'
      ? measuredBook()
      : worstCaseEstimates(
          jobs,
          (j) => worstMapSecondsOn(view, j),
          (j) => worstReduceSecondsOn(view, j),
          view,
          (spec.admission ? registry.admissionCapabilities(spec.admission).estimateModel : undefined) ??
            model,
        );
  const scaled = scaleBook(estimates, spec.estimates?.scale ?? req.estimateScale ?? 1);
  const learning = req.learning === undefined ? (model === 'paper' ? null : DEFAULT_LEARNING) : req.learning;
  const admission = policyAdmission(req, spec, registry, scaled, learning, tenant, engineOf);
  const byArrival =
    !spec.admission || registry.admissionCapabilities(spec.admission).queueOrder === 'arrival';
  const placement = placementPort(
    spec.placement,
    spec.placementArgs ?? {},
    req.cluster,
    {
      nodeId: (i) => engineOf().nodeId(i),
      orderKeyMs: (j) => (byArrival ? j.spec.arrival * 1000 : queueRank(engineOf(), j.id)),
      orderKeyFixed: byArrival,
      keepPromise: admission.dispatch !== undefined,
    },
    registry,
  );
  const engine = new Engine(req.cluster, {
    seed: req.seed,
    admission,
    placement,
    onProgress: req.onProgress ? (done, total) => req.onProgress?.(spec.label, done, total) : undefined,
    ...(tenant ? { tenant } : {}),
  });
  engineRef = engine;
  for (const j of jobs) engine.submit(j);
  engine.run();
  const outcomes = engine.outcomes();
  return {
    spec,
    summary: summarize(engine, outcomes, admission.promisesDeadlines),
    outcomes,
    events: engine.events,
    wallMs: Number(process.hrtime.bigint() - started) / 1e6,
    ...(tenant ? { tenant: engine.tenantReport() } : {}),
  };
}

/** The policy's admission port (none: everything admitted), reading the engine as it runs. */
function policyAdmission(
  req: RunRequest,
  spec: PolicySpec,
  registry: PolicyRegistry,
  estimates: EstimateBook,
  learning: LearningOptions | null,
  tenant: ReturnType<typeof engineTenant> | undefined,
  engineOf: () => Engine,
) {
  if (!spec.admission) return noAdmission(req.cluster);
  return admissionPort(
    spec.admission,
    spec.admissionArgs ?? {},
    req.cluster,
    estimates,
    registry,
    learning === null
      ? undefined
      : {
          learning,
          heartbeatSeconds: req.cluster.heartbeatSeconds,
          progressOf: (id) => engineOf().taskProgress(id),
        },
    tenant && {
      spec: tenant.spec,
      shares: tenant.shares,
      model: tenant.model,
      read: () => engineOf().sharingRead(),
      progressOf: (id) => engineOf().taskProgress(id),
    },
    req.searchEarliest ?? false,
  );
}

/**
 * The other tenant of a run: validated against the cluster, its shares, the RM's preemption as
 * the core models it, and its jobs (seeded by the run's seed) until an hour past the last
 * deadline of the workload, after which nothing it does can change an outcome.
 */
function engineTenant(
  cluster: RunRequest['cluster'],
  spec: TenantSpec,
  jobs: readonly TraceJob[],
  seed: number,
): EngineTenant {
  validateTenant(cluster, spec);
  const shares = tenantShares(cluster, spec);
  const horizon = jobs.reduce((m, j) => Math.max(m, j.arrival + (j.deadline ?? 0)), 0) + 3600;
  return {
    spec,
    shares,
    model: preemptionModelOf(spec, shares),
    jobs: tenantWorkload(spec.workload, seed, horizon),
  };
}

/**
 * The finished tasks of the workload run once under FIFO with no admission, on the same cluster
 * and seed: the history the RTMR paper learns c_m^max and c_r^max from (IV.A).
 */
function calibrationTasks(req: RunRequest, registry: PolicyRegistry): MeasuredTask[] {
  let engineRef: Engine | null = null;
  const placement = placementPort(
    'fifo',
    {},
    req.cluster,
    {
      nodeId: (i) => (engineRef as Engine).nodeId(i),
      orderKeyMs: (j) => j.spec.arrival * 1000,
      orderKeyFixed: true,
      keepPromise: false,
    },
    registry,
  );
  const engine = new Engine(req.cluster, { seed: req.seed, admission: noAdmission(req.cluster), placement });
  engineRef = engine;
  for (const j of req.jobs) engine.submit(j);
  engine.run();
  return engine
    .taskRecords()
    .filter((t) => t.completed)
    .map((t) => ({ job: t.job, kind: t.kind, index: t.index, seconds: t.end - t.start }));
}

/** Every figure of the book times `k` (eta is a ratio of sizes, not a cost: kept). */
function scaleBook(book: EstimateBook, k: number): EstimateBook {
  if (k === 1) return book;
  const scale = (e: Estimates): Estimates => ({
    eta: e.eta,
    mapCostMax: e.mapCostMax * k,
    reduceCostMax: e.reduceCostMax * k,
    ...(e.mapTaskSeconds === undefined ? {} : { mapTaskSeconds: e.mapTaskSeconds * k }),
    ...(e.reduceTaskSeconds === undefined ? {} : { reduceTaskSeconds: e.reduceTaskSeconds * k }),
  });
  return bookOf(
    scale(book.default),
    Object.fromEntries(Object.entries(book.classes).map(([c, e]) => [c, scale(e)])),
  );
}

function queueRank(engine: Engine, jobId: string): number {
  return engine.queueRank(jobId);
}
