import type { JobProgress } from '../core/admission/common/progress';
import type { AdmissionPolicy } from '../core/admission/common/types';
import { bookOf, estimatesOf, withClass, type EstimateBook } from '../core/estimate-book';
import { taskEstimates, type Estimates, type FinishedJobObservation } from '../core/estimates';
import type { DeadlineJob } from '../core/job';
import { rebuildLaneState } from '../core/lanes';
import { learnJob, type ClassLearning, type LearningOptions } from '../core/learning';
import type { SlotModel } from '../core/slots/model';
import type { FinishedJobRecord } from './policy-port';
import { MB, type TraceJob } from './model';

/**
 * Overrun handling for an admission policy with a feedback controller and a snapshot rebuild
 * (the registry's `feedback` and `snapshotRebuild`, as RTMR's): what the live sidecar does when a job runs past its estimate, here in the simulator.
 *
 * - Learning (src/core/learning.ts): each finished job's task times teach its class's
 *   estimates, as the sidecar learns from the JobHistory server. A task that ran within its
 *   estimate teaches nothing, so on a run where every task is within its estimate the policy
 *   decides exactly as without this.
 * - Re-admission: when a class's estimates change, or a running task of an admitted job is
 *   found past its estimate when a new job arrives, every lane's admission state is rebuilt
 *   from the cluster as it is (running tasks, finished counts), each queued job with its
 *   class's current estimates, and an overrunning task holding its slot (runningTaskEnd).
 *   The next admission is then judged against the delays the overrun already caused and
 *   against estimates that cover what was seen, so it is not promised slots the overrunning
 *   jobs still hold.
 */

/** Whether `policy` has a feedback controller and a snapshot rebuild (RTMR with feedback). */
export function handlesOverruns(policy: AdmissionPolicy<unknown>): boolean {
  const p = policy as { fromSnapshot?: unknown; options?: { feedback?: unknown } };
  return typeof p.fromSnapshot === 'function' && p.options?.feedback === true;
}

export interface FeedbackLane {
  readonly policy: AdmissionPolicy<unknown>;
  readonly model: SlotModel;
  state: unknown;
}

export interface OverrunFeedbackOptions {
  /** The estimates the run started with (configured). */
  readonly configured: EstimateBook;
  readonly learning: LearningOptions;
  /** A task holds its slot until the next heartbeat after it ends: added to each observed time. */
  readonly heartbeatSeconds: number;
  /** The class of a trace job. */
  classOf(job: TraceJob): string;
  /** An admitted job's progress now (the engine's view, what an AM reports). */
  progressOf(jobId: string): JobProgress | undefined;
}

export class OverrunFeedback {
  private book: EstimateBook;
  private readonly learned = new Map<string, ClassLearning>();
  /** How many times the lanes were rebuilt (for reports and tests). */
  rebuilds = 0;

  constructor(
    private readonly lanes: readonly FeedbackLane[],
    private readonly options: OverrunFeedbackOptions,
  ) {
    this.book = options.configured;
  }

  /** The estimates jobs are judged with now. */
  get estimates(): EstimateBook {
    return this.book;
  }

  /** A finished job: learn its class's estimates; rebuild every lane if they changed. */
  finished(record: FinishedJobRecord, now: number): void {
    const cls = this.options.classOf(record.job);
    const before = estimatesOf(this.book, cls);
    const prior = this.learned.get(cls) ?? { samples: [] };
    const r = learnJob(
      estimatesOf(this.options.configured, cls),
      before,
      prior,
      this.observation(record, before),
      this.options.learning,
    );
    this.learned.set(cls, r.learning);
    if (sameEstimates(before, r.estimates)) return;
    this.book = bookOf(this.book.default, { ...this.book.classes, [cls]: r.estimates });
    this.rebuild(now);
  }

  /** Before an admission decision: rebuild when a running task of an admitted job overran. */
  beforeDecision(now: number): void {
    if (this.lanes.some((l) => l.policy.queue(l.state).some((j) => this.overran(j, now)))) this.rebuild(now);
  }

  private overran(job: DeadlineJob, now: number): boolean {
    const p = this.options.progressOf(job.id);
    if (!p) return false;
    const t = taskEstimates(this.book.default, job);
    return (
      p.mapsRunning.some((s) => now - s > t.mapSeconds) ||
      p.reducesRunning.some((s) => now - s > t.reduceSeconds)
    );
  }

  private rebuild(now: number): void {
    this.rebuilds++;
    for (const lane of this.lanes) {
      const jobs = lane.policy.queue(lane.state).map((j) => {
        const job = withClass(j, j.workloadClass ?? '', this.book);
        const progress = this.options.progressOf(j.id);
        return progress ? { job, progress } : { job };
      });
      lane.state = rebuildLaneState(lane.policy, lane.model, this.book.default, now, jobs);
    }
  }

  /**
   * A finished job's tasks as the learning reads them: sizes in MB (each map its split, each
   * reduce an even share of eta times the input) and the time each held its slot.
   */
  private observation(record: FinishedJobRecord, est: Estimates): FinishedJobObservation {
    const j = record.job;
    const inputMb = j.inputBytes / MB;
    const splits = j.splits ?? Array.from({ length: j.maps }, () => j.inputBytes / j.maps);
    const hb = this.options.heartbeatSeconds;
    const held = (starts: readonly number[], ends: readonly number[], i: number) =>
      Math.max(0, (ends[i] as number) - (starts[i] as number)) + hb;
    return {
      // The intermediate size is not observed (as the JobHistory task list does not report
      // it): eta is not learned.
      inputSize: inputMb,
      mapTasks: record.mapFinishes.map((_, i) => ({
        size: (splits[i] ?? 0) / MB,
        seconds: held(record.mapStarts, record.mapFinishes, i),
      })),
      reduceTasks: record.reduceFinishes.map((_, i) => ({
        size: (est.eta * inputMb) / Math.max(1, j.reduces),
        seconds: held(record.reduceStarts, record.reduceFinishes, i),
      })),
    };
  }
}

function sameEstimates(a: Estimates, b: Estimates): boolean {
  return (
    a.eta === b.eta &&
    a.mapCostMax === b.mapCostMax &&
    a.reduceCostMax === b.reduceCostMax &&
    (a.mapTaskSeconds ?? 0) === (b.mapTaskSeconds ?? 0) &&
    (a.reduceTaskSeconds ?? 0) === (b.reduceTaskSeconds ?? 0)
  );
}
