import type { RejectionReason } from '../model/job-views';
import type { SidecarConfig } from '../config/schema';
import type { AdmissionResult } from '../core/admission';
import {
  committedSlotSeconds,
  progressOf,
  remainingWork,
  wholeWork,
  type TaskProgress,
} from '../core/admission/common/progress';
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
import type { PartitionLocality } from '../core/placement/common/locality';
import type { PolicyRegistry } from '../core/registry';
import type { AnyAdmissionPolicy } from '../core/policy-entry';
import { describeHolds, holdsSignature, lostContainers, NO_HOLDS, type LaneHolds } from '../core/sharing';
import type { SlotModel } from '../core/slots/model';
import type { JobActuals } from '../core/admission';
import type { AdmitOptions } from '../core/admission/common/types';
import type { JobRecord, Ledger } from '../store/types';
import { sameQueue } from '../yarn/ids';
import type { EstimateKeeper } from './learning';
import type { Partitions } from './partitions';
import { holdsOf, type SharingInputs } from './sharing';
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
  /** The queue's guaranteed containers in the partition. */
  containers: number;
  /**
   * Of them, what other queues hold now and when each comes back (core/sharing.ts). A policy
   * with a snapshot rebuild counts the held ones as busy until they return and leaves out those
   * that never do; the others leave out every held one.
   */
  holds: LaneHolds;
  /** When the holds were counted (epoch seconds): their returns are seconds after it. */
  holdsReadAt: number;
  /** The containers the policy was sized to: the guarantee less what it leaves out. */
  size: number;
  /** Every guaranteed container is held with no return the policy can count: nothing fits. */
  blocked: boolean;
  policy: AnyAdmissionPolicy;
  rebuild: LaneRebuild;
}

/** The sharing named in a rejection: which of the guarantee's ways applied, with its figures. */
export function sharingOf(lane: Pick<Lane, 'holds'>): Record<string, unknown> {
  const h = lane.holds;
  const finite = h.returns.filter((r) => Number.isFinite(r));
  return {
    mode: h.mode,
    guaranteed: h.guaranteed,
    held: h.held,
    firstReturnSeconds: finite.length > 0 ? Math.round(finite[0]!) : null,
    lastReturnSeconds: finite.length > 0 ? Math.round(finite[finite.length - 1]!) : null,
    neverReturn: lostContainers(h),
  };
}

/** A decision in the lanes: admitted or rejected in a lane, or no lane to decide in. */
export type LaneOutcome =
  { lane: Lane; result: AdmissionResult<unknown> } | { lane: undefined; reason: RejectionReason };

/** Holds counted `elapsed` seconds ago, as seen now: each return that much sooner. */
function movedOn(h: LaneHolds, elapsed: number): LaneHolds {
  if (elapsed <= 0 || h.held === 0) return h;
  return { ...h, returns: h.returns.map((r) => Math.max(0, r - elapsed)) };
}

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
  /**
   * Whether YARN can be given the lanes' order (the RM's application priority cap is above 0).
   * Absent: it can.
   */
  ordered?: () => boolean;
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
  /** The configured policy's twin on arrival order (AdmissionCapabilities.arrivalOrderTwin). */
  private readonly twin: string | null;
  /** Its feedback off when the configured policy has none. */
  private readonly twinArgs: { feedback?: false };
  /** The policy the lanes are planned with now: the configured one or its twin. */
  private plannedWith: string;

  constructor(private readonly deps: LaneBookDeps) {
    const caps = deps.registry.admissionCapabilities(deps.config.admission.policy);
    this.fromProgress = caps.snapshotRebuild;
    this.admitOptions = caps.earliestDeadline ? undefined : { searchEarliest: false };
    this.twin = caps.arrivalOrderTwin;
    this.twinArgs = caps.feedback ? {} : { feedback: false };
    this.plannedWith = this.wanted();
  }

  /** The configured policy, or its arrival-order twin while YARN cannot be given the order. */
  private wanted(): string {
    const ordered = this.deps.ordered?.() ?? true;
    return !ordered && this.twin !== null ? this.twin : this.deps.config.admission.policy;
  }

  /** The policy the lanes are planned with (the configured one or its arrival-order twin). */
  get policyName(): string {
    return this.plannedWith;
  }

  /**
   * Plans the lanes on arrival order once YARN is known to start a queue's apps in the order
   * they came (a priority cap of 0), and on the policy's order again once it can be given; every
   * lane is rebuilt from the ledger at the switch. Returns the policy switched to, if any.
   */
  followOrder(): string | undefined {
    const wanted = this.wanted();
    if (wanted === this.plannedWith) return undefined;
    this.plannedWith = wanted;
    this.rebuildAll();
    return wanted;
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
    const twin = this.plannedWith !== config.admission.policy;
    return registry.createAdmission(this.plannedWith, {
      ...(twin ? this.twinArgs : {}),
      slotModel: this.slotModel(containers),
      // The default class's; every job carries its own class's (deadlineJob), read first.
      estimates: this.deps.estimates.book.default,
      feedbackThresholdSeconds: config.admission.feedbackThresholdSeconds,
    });
  }

  /**
   * Size every lane to the capacity seen, and count what other queues hold of it
   * (admission.sharing); rebuild a lane's state when its size or its holds changed (a held
   * container's return by more than admission.sharing.returnQuantumSeconds).
   */
  applyCapacity(view: CapacityView, sharing?: SharingInputs): void {
    const nowS = this.deps.now() / 1000;
    const cfg = this.deps.config.admission.sharing;
    for (const q of view.queues) {
      for (const [label, containers] of Object.entries(q.containers)) {
        const key = laneKey(q.name, label);
        const lane = this.lanes.get(key);
        if (containers < 1) {
          this.lanes.delete(key);
          continue;
        }
        const holds = cfg.otherQueues
          ? holdsOf(view, q.name, label, containers, sharing, nowS)
          : { ...NO_HOLDS, guaranteed: containers };
        const changed =
          !lane ||
          lane.containers !== containers ||
          holdsSignature(lane.holds, lane.holdsReadAt, cfg.returnQuantumSeconds) !==
            holdsSignature(holds, nowS, cfg.returnQuantumSeconds);
        if (changed) this.rebuild(q.name, label, containers, undefined, holds);
      }
    }
  }

  /** Every lane again from the ledger's open admitted jobs. */
  rebuildAll(): void {
    for (const lane of this.all()) this.rebuild(lane.queue, lane.label, lane.containers);
  }

  /** The containers a lane's policy is sized to, and the held slots it counts as busy. */
  private sized(containers: number, holds: LaneHolds, nowS: number): { size: number; heldUntil: number[] } {
    if (holds.held === 0) return { size: containers, heldUntil: [] };
    if (!this.fromProgress) return { size: containers - holds.held, heldUntil: [] };
    const heldUntil = holds.returns.filter((r) => Number.isFinite(r)).map((r) => nowS + r);
    return { size: containers - lostContainers(holds), heldUntil };
  }

  /**
   * A lane's state from the ledger's open admitted jobs. With `tasks` (a job's task list read
   * from its AM), a job counts only the work still to come: finished tasks not again, a running
   * one its estimate minus what it has run, pending ones their whole estimate (see
   * core/admission/common/progress.ts). A job without one counts its whole work from now, which can
   * only over-estimate the load (safe: it makes later admissions stricter). A lane rebuilt
   * without reading the AMs is marked, and the next cycle reads them and rebuilds it again.
   */
  rebuild(
    queue: string,
    label: string,
    containers: number,
    tasks?: ReadonlyMap<string, readonly TaskProgress[]>,
    holds?: LaneHolds,
  ): Lane {
    const nowS = this.deps.now() / 1000;
    const key = laneKey(queue, label);
    // A rebuild for progress keeps the holds last counted, moved on to now.
    const before = this.lanes.get(key);
    const h =
      holds ??
      (before ? movedOn(before.holds, nowS - before.holdsReadAt) : { ...NO_HOLDS, guaranteed: containers });
    const { size: wanted, heldUntil } = this.sized(containers, h, nowS);
    const blocked = wanted < 1;
    const size = Math.max(1, wanted);
    const policy = this.createPolicy(size);
    const jobs = this.deps.ledger
      .openAdmittedJobsReused()
      .filter((j) => (j.queue ?? '') === queue && (j.label ?? '') === label)
      .map((j) => {
        const job = this.deps.estimates.deadlineJob(j);
        const read = tasks?.get(j.id);
        return { job, progress: read ? progressOf(job, read, nowS) : undefined };
      });
    const book = this.deps.estimates.book;
    const state = rebuildLaneState(policy, this.slotModel(size), book.default, nowS, jobs, heldUntil);
    if (this.fromProgress && tasks === undefined) this.toRead.add(key);
    const sum = (f: (x: (typeof jobs)[number]) => number) => jobs.reduce((a, x) => a + f(x), 0);
    const lane: Lane = {
      key,
      queue,
      label,
      containers,
      holds: h,
      holdsReadAt: nowS,
      size,
      blocked,
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
    const lanes = this.deps.partitions
      .ranked(jobType, locality)
      .map(({ label }) => this.lanes.get(laneKey(queue, label)))
      .filter((lane): lane is Lane => lane !== undefined);
    const tries = lanes.filter((lane) => !lane.blocked).map((lane) => ({ lane, job }));
    const { admitted, rejected } = admitInLanes(tries, nowS, this.admitOptions);
    if (admitted) return admitted;
    const soonest = soonestRejection(rejected);
    if (soonest) return soonest;
    const blocked = lanes.find((lane) => lane.blocked);
    if (blocked)
      return {
        lane: undefined,
        reason: {
          kind: 'guarantee-held',
          message: `queue '${queue}'${blocked.label === '' ? '' : ` (partition '${blocked.label}')`}: ${describeHolds(blocked.holds) ?? 'every guaranteed container is held by other queues'}`,
          partition: blocked.label === '' ? null : blocked.label,
          sharing: sharingOf(blocked),
        },
      };
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

  /**
   * Whether the lane an app runs in (its queue and partition) had part of its guarantee held
   * by other queues, with preemption to take it back, at the last count.
   */
  heldWithPreemption(app: { queue?: string; appNodeLabelExpression?: string }): boolean {
    const label = app.appNodeLabelExpression ?? '';
    const lane = this.all().find(
      (l) => l.label === label && app.queue !== undefined && sameQueue(l.queue, app.queue),
    );
    return lane !== undefined && lane.holds.mode === 'preemption' && lane.holds.held > 0;
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
      sharing: { ...sharingOf(l), size: l.size },
      queued: l.policy.queue(l.state).length,
      // A policy with a snapshot rebuild keeps its lane as RTMR's slot vectors (its capability,
      // not its name), whose committed work can be read; the others have no such figure.
      committedSlotSeconds: this.fromProgress ? committedSlotSeconds(l.state as RtmrState, nowS) : null,
      lastRebuild: l.rebuild,
    }));
  }
}
