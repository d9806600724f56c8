import type { SidecarService } from '../../src/model/sidecar-service';
import { resolveDeadline, type Submission } from '../../src/model/deadline-submission';
import { emptyObservedCostsBook, type ObservedCostsBook } from '../../src/core/cost-distribution';
import type { Estimates } from '../../src/core/estimates';
import { DEFAULT_PROFILE_OPTIONS, EMPTY_PROFILE_BOOK, type ProfileBook } from '../../src/core/profiles';
import { bookOf } from '../../src/core/estimate-book';
import {
  actionView,
  clockView,
  decisionView,
  estimatesView,
  jobView,
  type JobDetailView,
  type PartitionView,
  type StatsSample,
} from '../../src/model/job-views';
import type { JobQuery, Ledger } from '../../src/store/types';

/**
 * A SidecarService over a real Ledger, for the dashboard's browser tests. Reads are exactly
 * what the live sidecar answers (the ledger's rows through views.ts); a submission is decided
 * by a plain rule, so a test can add a job through the public write API and watch the page:
 * a job needs (maps + reduces) x `secondsPerTask` from now; it is admitted when that ends by
 * its deadline, else rejected with the earliest deadline that would be admitted.
 */
export class LedgerService implements SidecarService {
  samples: StatsSample[] = [];
  partitions: PartitionView[] = [];
  private next = 1;

  constructor(
    readonly ledger: Ledger,
    private readonly now: () => number,
    private readonly secondsPerTask = 30,
  ) {}

  async submit(
    input: Submission,
    context: { submitter: string; idempotencyKey?: string; requestHash: string },
  ): Promise<{ status: number; body: unknown }> {
    const now = this.now();
    // No queue defaults here: a submission without a deadline is refused, as the sidecar does.
    const submission = resolveDeadline(input, input.queue ?? 'realtime', undefined, now);
    const id = `dl-new-${String(this.next++).padStart(3, '0')}`;
    // Maps derived from input paths are the sidecar's to read; this stand-in counts one.
    const maps = submission.maps ?? 1;
    const finish = now + (maps + (submission.reduces ?? 0)) * this.secondsPerTask * 1000;
    const admitted = finish <= submission.deadlineMs;
    const lateBy = (finish - submission.deadlineMs) / 1000;
    const job = this.ledger.insertJob({
      id,
      name: submission.name,
      user: submission.user,
      submitter: context.submitter,
      source: 'api',
      jobType: submission.jobType,
      maps,
      reduces: submission.reduces ?? 0,
      inputBytes: submission.inputBytes ?? 0,
      arrivalMs: now,
      deadlineMs: submission.deadlineMs,
      decision: admitted ? 'admitted' : 'rejected',
      reason: admitted
        ? null
        : {
            kind: 'new-job-misses',
            message: `estimated finish is ${lateBy} s after the deadline`,
            jobId: id,
            lateBySeconds: lateBy,
          },
      estimatedFinishMs: finish,
      earliestDeadlineMs: admitted ? null : finish,
      queue: admitted ? (submission.queue ?? 'realtime') : null,
      label: admitted && submission.jobType === 'gpu' ? 'gpu' : null,
      priority: null,
      appId: null,
      state: admitted ? 'accepted' : 'rejected',
      outcome: null,
      finishedMs: null,
      energyJoules: null,
      spec: submission,
    });
    this.ledger.recordDecision(id, 'test-rule', job.decision, { finishMs: finish });
    if (admitted) this.ledger.enqueueAction(id, 'submit-app', { queue: job.queue, label: job.label });
    return { status: admitted ? 201 : 200, body: jobView(job) };
  }

  listJobs(query: JobQuery): { jobs: unknown[]; total: number } {
    const { jobs, total } = this.ledger.listJobs(query);
    const tickets = this.ledger.ticketsOf(jobs.map((j) => j.id));
    return { jobs: jobs.map((j) => jobView(j, null, tickets.get(j.id))), total };
  }

  getJob(id: string): JobDetailView | undefined {
    const job = this.ledger.getJob(id);
    if (!job) return undefined;
    return {
      ...jobView(job, null, this.ledger.getTicket(id)),
      decisions: this.ledger.decisionsOf(id).map(decisionView),
      actions: this.ledger.actionsOf(id).map(actionView),
    };
  }

  /** Shadow mode as the live sidecar reports it in /api/v1/cluster. */
  shadow = false;

  /** The shape the live sidecar answers (src/loop/sidecar.ts), with this test's values. */
  cluster(): unknown {
    const queued = this.ledger.openAdmittedJobs().length;
    return {
      rm: {
        addresses: ['http://rm1.example:8088', 'http://rm2.example:8088'],
        haState: 'ACTIVE',
        version: '3.3.6',
        reachable: true,
      },
      partitions: this.partitions,
      queues: [{ name: 'realtime' }, { name: 'best-effort' }, { name: 'default' }],
      admission: {
        policy: 'rtmr',
        shadow: this.shadow,
        lanes: [
          { queue: 'realtime', label: '', containers: 12, queued: queued - 1 },
          { queue: 'realtime', label: 'gpu', containers: 8, queued: 1 },
        ],
      },
      outbox: (() => {
        const { pending, oldestMs } = this.ledger.pendingBacklog();
        return {
          pending,
          oldestPendingSeconds: oldestMs === null ? null : (this.now() - oldestMs) / 1000,
          writesRefused: false,
        };
      })(),
      polledAt: new Date(this.now()).toISOString(),
      clock: clockView(this.now()),
    };
  }

  /** The learned estimates and the observed task costs, as the live sidecar keeps them. */
  estimates: Estimates = { eta: 1, mapCostMax: 0.5, reduceCostMax: 0.5 };
  /** Figures of classes of their own, beside the default (`estimates`). */
  classEstimates: Record<string, Estimates> = {};
  observed: ObservedCostsBook = emptyObservedCostsBook();

  /** Profiles of recurring jobs, judged with the default options. */
  profiles: ProfileBook = EMPTY_PROFILE_BOOK;

  taskCosts(): unknown {
    return estimatesView(bookOf(this.estimates, this.classEstimates), this.observed, {
      book: this.profiles,
      options: DEFAULT_PROFILE_OPTIONS,
    });
  }

  stats(): { samples: StatsSample[] } {
    return { samples: this.samples };
  }

  readiness(): { ready: boolean } {
    return { ready: true };
  }
}
