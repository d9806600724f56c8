import type { SidecarService } from '../api/app';
import type { Submission } from '../api/submission';
import type { ClientReport } from '../api/client-report';
import type { EstimatesView, JobDetailView, StatsSample } from '../api/views';
import { Enforcer } from '../enforce/enforcer';
import type { JobQuery } from '../store/types';
import type { LoopParts, SidecarDeps } from './context';
import { runCycle } from './cycle';
import { LaneBook } from './lanes';
import { ProgressWatch } from './lane-progress';
import { EstimateKeeper, type EstimatesResetView } from './learning';
import { ClusterObservation } from './observe';
import { Partitions } from './partitions';
import { PriorityCapTracker } from './priority-cap';
import { Reconciler } from './reconcile';
import { SlowdownWatch } from './slowdown';
import { SparkWatch } from './spark-watch';
import { Submissions, type SubmitAnswer, type SubmitContext } from './submissions';
import { cancelTicket, reportClient, reportedApp, reportingTicket } from './tickets';
import {
  clusterView,
  getArchivedJobOf,
  getJob,
  listArchivedJobsOf,
  listJobs,
  readiness,
  stats,
  type Readiness,
} from './views';

export type { SidecarDeps } from './context';
export type { EstimatesResetView, FiguresView } from './learning';

/**
 * The live sidecar: the API's SidecarService, a facade over the loop's pipeline (see
 * docs/architecture.md): observe (observe.ts, reconcile.ts) -> decide (the core's lanes,
 * lanes.ts) -> plan (plan.ts) -> enforce (the outbox, src/enforce/enforcer.ts). Submissions
 * go down the same path (submissions.ts), as do cycles (cycle.ts).
 *
 * Admission runs per (queue, label partition): each pair has its own admission state sized
 * by the queue's guaranteed containers in that partition. A CPU job is decided in the default
 * partition, a GPU job in the `gpu` one, and an adaptive job in the partition the configured
 * placement policy ranks first (EFH: fitness h = ef * dop at partition level), then the other.
 *
 * Time in the core is epoch seconds; data sizes are MB.
 */
export class Sidecar implements SidecarService {
  readonly enforcer: Enforcer;
  private readonly parts: LoopParts;
  private readonly submissions: Submissions;
  private readonly reconciler: Reconciler;
  private polling: Promise<void> | null = null;

  constructor(deps: SidecarDeps) {
    const { config, ledger, metrics } = deps;
    const log = deps.logger.child({ component: 'sidecar' });
    const now = deps.now;
    const estimates = new EstimateKeeper({
      config,
      ledger,
      metrics,
      log,
      now,
      ...(deps.recentCostClasses === undefined ? {} : { recentCostClasses: deps.recentCostClasses }),
    });
    const cap = new PriorityCapTracker(config.yarn.maxApplicationPriority, ledger, log);
    this.enforcer = new Enforcer({
      rm: deps.rm,
      ledger,
      logger: deps.logger.child({ component: 'enforcer' }),
      metrics,
      shadow: config.enforcement.shadow,
      maxWritesPerCycle: config.enforcement.maxWritesPerCycle,
      drainBudgetMs: config.enforcement.drainBudgetMs,
      concurrency: config.enforcement.writeConcurrency,
      wallClock: now,
      onPriorityCapped: (appId, requested, got) => cap.capped(appId, requested, got),
    });
    const placement = deps.registry.placementCapabilities(config.placement.policy);
    const partitions = new Partitions(config.placement, config.yarn.gpuLabel, placement, deps.energyProfile);
    const lanes = new LaneBook({ config, ledger, registry: deps.registry, estimates, partitions, now });
    const progress = new ProgressWatch({
      ledger,
      lanes,
      log,
      now,
      feedbackThresholdSeconds: config.admission.feedbackThresholdSeconds,
      ...(deps.runningAppTasks ? { runningAppTasks: deps.runningAppTasks } : {}),
    });
    const observation = new ClusterObservation({ config, rm: deps.rm, ledger, metrics, log, now });
    this.parts = {
      deps,
      log,
      observation,
      estimates,
      slowdown: new SlowdownWatch({ ledger, log }),
      spark: new SparkWatch({
        ledger,
        log,
        ...(deps.runningSparkExecutors ? { read: deps.runningSparkExecutors } : {}),
      }),
      partitions,
      lanes,
      progress,
      cap,
      enforcer: this.enforcer,
    };
    this.submissions = new Submissions(this.parts);
    this.reconciler = new Reconciler(this.parts);
    // Decide at once after a restart, even with the RM down: the last capacity seen is kept.
    if (observation.capacity) lanes.applyCapacity(observation.capacity);
    metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
    metrics.jobsPredictedToMiss.set(progress.countPredictedToMiss());
  }

  /** POST /api/v1/jobs. Decisions are serialised: each sees the state the previous one left. */
  submit(submission: Submission, context: SubmitContext): Promise<SubmitAnswer> {
    return this.submissions.submit(submission, context);
  }

  /** One poll-decide-enforce cycle. Concurrent calls share one run. */
  runOnce(): Promise<void> {
    if (!this.polling) {
      this.polling = runCycle(this.parts, this.reconciler).finally(() => {
        this.polling = null;
      });
    }
    return this.polling;
  }

  /** Resolves once the running cycle, submissions and enforcement have settled (for shutdown). */
  async runOnceSettled(): Promise<void> {
    await this.polling?.catch(() => undefined);
    await this.submissions.settled();
    await this.enforcer.idle();
  }

  /**
   * An operator's reset of one class's learning (POST /api/v1/estimates/{class}/reset, the CLI's
   * `estimates reset`); every lane is rebuilt when the class's figures changed.
   */
  async resetEstimates(workloadClass: string, by: string): Promise<EstimatesResetView> {
    const { view, changed } = this.parts.estimates.reset(workloadClass, by);
    if (changed) this.parts.lanes.rebuildAll();
    // Answered once the reset is durable (a shared ledger: committed in PostgreSQL).
    await this.parts.deps.ledger.flush();
    return view;
  }

  /** PUT /api/v1/jobs/{id}/client: what a ticket's client reports (tickets.ts); the job as it is now. */
  async reportClient(id: string, report: ClientReport, by: string): Promise<unknown> {
    reportingTicket(this.parts, id);
    // An app the client names is read and checked before anything is recorded.
    const app =
      report.state === 'running' && report.appId !== undefined
        ? await reportedApp(this.parts, id, report.appId)
        : undefined;
    reportClient(this.parts, id, report, by);
    if (app !== undefined) {
      // Tracked after the running cycle, if any, as the next poll would track it.
      await this.polling?.catch(() => undefined);
      await this.reconciler.trackReported(app);
    }
    await this.parts.deps.ledger.flush();
    return this.getJob(id);
  }

  /** DELETE /api/v1/jobs/{id}: cancels a waiting ticket (tickets.ts) and answers the job as it is now. */
  async cancelTicket(id: string, by: string): Promise<unknown> {
    cancelTicket(this.parts, id, by);
    await this.parts.deps.ledger.flush();
    return this.getJob(id);
  }

  listJobs(query: JobQuery): { jobs: unknown[]; total: number } {
    return listJobs(this.parts, query);
  }

  getJob(id: string): JobDetailView | undefined {
    return getJob(this.parts, id);
  }

  listArchivedJobs(query: JobQuery): Promise<{ jobs: unknown[]; total: number }> {
    return listArchivedJobsOf(this.parts.deps.ledger, query);
  }

  getArchivedJob(id: string): Promise<JobDetailView | undefined> {
    return getArchivedJobOf(this.parts.deps.ledger, id);
  }

  cluster(): unknown {
    return clusterView(this.parts);
  }

  taskCosts(): EstimatesView {
    const { config } = this.parts.deps;
    const partitions = this.parts.observation.capacity?.partitions ?? [];
    return {
      ...this.parts.estimates.view(),
      capacity: this.parts.slowdown.view(
        (label) => partitions.find((p) => p.label === label)?.nodes,
        config.admission,
        config.admission.containerVcores,
      ),
    };
  }

  stats(): { samples: StatsSample[] } {
    return stats(this.parts);
  }

  readiness(): Readiness {
    return readiness(this.parts);
  }
}
