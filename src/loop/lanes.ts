import type { RejectionReason } from '../api/views';
import type { SidecarConfig } from '../config/schema';
import type { AdmissionResult } from '../core/admission';
import {
  committedSlotSeconds,
  progressOf,
  remainingWork,
  wholeWork,
  type TaskProgress,
} from '../core/admission/progress';
import type { RtmrState } from '../core/admission/rtmr/state';
import type { DeadlineJob } from '../core/job';
import {
  admitInLanes,
  laneFinished,
  laneLeft,
  laneStarted,
  rebuildLaneState,
  soonestRejection,
  type Lane as CoreLane,
} from '../core/lanes';
import type { PartitionLocality } from '../core/placement/locality';
import type { AnyAdmissionPolicy, PolicyRegistry } from '../core/registry';
import type { SlotModel } from '../core/slots/model';
import type { JobActuals } from '../core/admission';
import type { AdmitOptions } from '../core/admission/types';
import type { JobRecord, Ledger } from '../store/types';
import type { EstimateKeeper } from './learning';
import type { Partitions } from './partitions';
import type { CapacityView } from './snapshot';

/**
 * The sidecar's admission lanes: one per (queue, label partition), each an instance of the
 * configured admission policy sized by the queue's guaranteed containers in that partition
 * (src/core/lanes). A CPU job is decided in the default partition, a GPU job in the `gpu` one,
 * and an adaptive job in the partition the placement policy ranks first, then the other.
 */

/** What the last rebuild of a lane counted (shown under /api/v1/cluster). */
export interface LaneRebuild {
  at: string;
  jobs: number;
  /** Jobs whose running tasks were read from their AM; the others count whole. */
  fromProgress: number;
  remainingSlotSeconds: number;
  wholeSlotSeconds: number;
}

export interface Lane extends CoreLane {
  key: string;
  queue: string;
  label: string;
  containers: number;
  policy: AnyAdmissionPolicy;
  rebuild: LaneRebuild;
}

/** A decision in the lanes: admitted or rejected in a lane, or no lane to decide in. */
export type LaneOutcome =
  { lane: Lane; result: AdmissionResult<unknown> } | { lane: undefined; reason: RejectionReason };

export const laneKey = (queue: string, label: string): string => `${queue}|${label}`;
/** The lane a ledger row was admitted in. */
export const laneKeyOf = (j: Pick<JobRecord, 'queue' | 'label'>): string =>
  laneKey(j.queue ?? '', j.label ?? '');

export interface LaneBookDeps {
  config: SidecarConfig;
  ledger: Ledger;
  registry: PolicyRegistry<AnyAdmissionPolicy>;
  estimates: EstimateKeeper;
  partitions: Partitions;
  now: () => number;
}

export class LaneBook {
  private readonly lanes = new Map<string, Lane>();
  /** Lanes rebuilt without their running jobs' progress, to refine once the AMs are read. */
  readonly toRead = new Set<string>();

  /** The admission policy rebuilds its state from running jobs' progress (its capability). */
  readonly fromProgress: boolean;
  /**
   * How a job is tried: a rejection searches the earliest deadline admitted now only where the
   * policy offers one (its capability); the others are told not to look.
   */
  private readonly admitOptions: AdmitOptions | undefined;

  constructor(private readonly deps: LaneBookDeps) {
    const caps = deps.registry.admissionCapabilities(deps.config.admission.policy);
    this.fromProgress = caps.snapshotRebuild;
    this.admitOptions = caps.earliestDeadline ? undefined : { searchEarliest: false };
  }

  all(): Lane[] {
    return [...this.lanes.values()];
  }

  get(key: string): Lane | undefined {
    return this.lanes.get(key);
  }

  /** The lane an admitted job is in. */
  ofJob(j: Pick<JobRecord, 'queue' | 'label'>): Lane | undefined {
    return this.lanes.get(laneKeyOf(j));
  }

  private slotModel(containers: number): SlotModel {
    if (this.deps.config.admission.slotModel === 'unified') return { name: 'unified', containers };
    // mr1 on a YARN cluster: the guaranteed containers split between map and reduce slots.
    return {
      name: 'mr1',
      mapSlots: Math.max(1, Math.ceil(containers / 2)),
      reduceSlots: Math.max(1, Math.floor(containers / 2)),
    };
  }

  private createPolicy(containers: number): AnyAdmissionPolicy {
    const { config, registry } = this.deps;
    return registry.createAdmission(config.admission.policy, {
      slotModel: this.slotModel(containers),
      // The default class's; every job carries its own class's (deadlineJob), read first.
      estimates: this.deps.estimates.book.default,
      feedbackThresholdSeconds: config.admission.feedbackThresholdSeconds,
    });
  }

  /** Size every lane to the capacity seen; rebuild a lane's state when its size changed. */
  applyCapacity(view: CapacityView): void {
    for (const q of view.queues) {
      for (const [label, containers] of Object.entries(q.containers)) {
        const key = laneKey(q.name, label);
        const lane = this.lanes.get(key);
        if (containers < 1) {
          this.lanes.delete(key);
          continue;
        }
        if (!lane || lane.containers !== containers) this.rebuild(q.name, label, containers);
      }
    }
  }

  /** Every lane again from the ledger's open admitted jobs. */
  rebuildAll(): void {
    for (const lane of this.all()) this.rebuild(lane.queue, lane.label, lane.containers);
  }

  /**
   * A lane's state from the ledger's open admitted jobs. With `tasks` (a job's task list read
   * from its AM), a job counts only the work still to come: finished tasks not again, a running
   * one its estimate minus what it has run, pending ones their whole estimate (see
   * core/admission/progress.ts). A job without one counts its whole work from now, which can
   * only over-estimate the load (safe: it makes later admissions stricter). A lane rebuilt
   * without reading the AMs is marked, and the next cycle reads them and rebuilds it again.
   */
  rebuild(
    queue: string,
    label: string,
    containers: number,
    tasks?: ReadonlyMap<string, readonly TaskProgress[]>,
  ): Lane {
    const nowS = this.deps.now() / 1000;
    const key = laneKey(queue, label);
    const policy = this.createPolicy(containers);
    const jobs = this.deps.ledger
      .openAdmittedJobsReused()
      .filter((j) => (j.queue ?? '') === queue && (j.label ?? '') === label)
      .map((j) => {
        const job = this.deps.estimates.deadlineJob(j);
        const read = tasks?.get(j.id);
        return { job, progress: read ? progressOf(job, read, nowS) : undefined };
      });
    const book = this.deps.estimates.book;
    const state = rebuildLaneState(policy, this.slotModel(containers), book.default, nowS, jobs);
    if (this.fromProgress && tasks === undefined) this.toRead.add(key);
    const sum = (f: (x: (typeof jobs)[number]) => number) => jobs.reduce((a, x) => a + f(x), 0);
    const lane: Lane = {
      key,
      queue,
      label,
      containers,
      policy,
      state,
      rebuild: {
        at: new Date(this.deps.now()).toISOString(),
        jobs: jobs.length,
        fromProgress: jobs.filter((x) => x.progress !== undefined).length,
        wholeSlotSeconds: sum((x) => wholeWork(book.default, x.job).total),
        remainingSlotSeconds: sum((x) =>
          x.progress
            ? remainingWork(book.default, x.job, x.progress, nowS).total
            : wholeWork(book.default, x.job).total,
        ),
      },
    };
    this.lanes.set(key, lane);
    return lane;
  }

  /**
   * Decides a job in the queue's lanes of the partitions its type may use, best ranked first;
   * nothing changes (the caller adopts an admission's state). A rejection reports the lane
   * whose earliest admissible deadline is soonest.
   */
  decide(job: DeadlineJob, queue: string, jobType: string, locality?: PartitionLocality): LaneOutcome {
    const nowS = this.deps.now() / 1000;
    const tries = this.deps.partitions
      .ranked(jobType, locality)
      .map(({ label }) => this.lanes.get(laneKey(queue, label)))
      .filter((lane): lane is Lane => lane !== undefined)
      .map((lane) => ({ lane, job }));
    const { admitted, rejected } = admitInLanes(tries, nowS, this.admitOptions);
    if (admitted) return admitted;
    const soonest = soonestRejection(rejected);
    if (soonest) return soonest;
    const labels = this.deps.partitions
      .candidates(jobType)
      .map((l) => (l === '' ? 'the default partition' : `label '${l}'`));
    return {
      lane: undefined,
      reason: {
        kind: 'no-capacity',
        message: `queue '${queue}' has no guaranteed containers in ${labels.join(' or ')}`,
      },
    };
  }

  started(j: Pick<JobRecord, 'id' | 'queue' | 'label'>): void {
    const lane = this.ofJob(j);
    if (lane) laneStarted(lane, j.id);
  }

  finished(j: Pick<JobRecord, 'id' | 'queue' | 'label'>, actuals: JobActuals | undefined): void {
    const lane = this.ofJob(j);
    if (lane) laneFinished(lane, j.id, actuals, this.deps.now() / 1000);
  }

  left(j: Pick<JobRecord, 'id' | 'queue' | 'label'>, nowS: number): void {
    const lane = this.ofJob(j);
    if (lane) laneLeft(lane, j.id, nowS);
  }

  /** Each queued job's position in its lane's queue, 1 first. */
  positions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const lane of this.lanes.values())
      lane.policy.queue(lane.state).forEach((j, i) => out.set(j.id, i + 1));
    return out;
  }

  /** The lanes as /api/v1/cluster shows them. */
  views(nowS: number): unknown[] {
    return this.all().map((l) => ({
      queue: l.queue,
      label: l.label,
      containers: l.containers,
      queued: l.policy.queue(l.state).length,
      // A policy with a snapshot rebuild keeps its lane as RTMR's slot vectors (its capability,
      // not its name), whose committed work can be read; the others have no such figure.
      committedSlotSeconds: this.fromProgress ? committedSlotSeconds(l.state as RtmrState, nowS) : null,
      lastRebuild: l.rebuild,
    }));
  }
}
