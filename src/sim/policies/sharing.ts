import type { JobProgress } from '../../core/admission/common/progress';
import type { AdmissionPolicy } from '../../core/admission/common/types';
import type { Estimates } from '../../core/estimates';
import { rebuildLaneState, takesSnapshot } from '../../core/lanes';
import {
  describeHolds,
  laneHolds,
  lostContainers,
  NO_HOLDS,
  type LaneHolds,
  type PreemptionModel,
} from '../../core/sharing';
import type { SlotModel } from '../../core/slots/model';
import type { SharingRead } from '../engine/types';
import { sharingModeOf, type TenantShares, type TenantSpec } from '../tenant';

/**
 * What admission sees of another tenant, the way the live sidecar's lanes see it (src/loop/lanes.ts
 * and src/loop/sharing.ts, on core/sharing.ts): before each decision, the lane the tenant shares
 * (the CPU containers) is rebuilt from its open jobs' progress with the containers the tenant holds
 * of its guarantee busy until each returns (laneHolds: by the preemption model, or as the
 * tenant's containers end when their ends are known), and shrunk by the ones that never return as
 * far as is known (lostContainers). A policy without a snapshot rebuild is sized without every
 * held one, as the sidecar sizes it. A lane with nothing left is not tried, and a rejection names
 * the sharing (describeHolds).
 */

/** The lane a tenant shares, as LanedAdmission keeps it. */
export interface SharedLane {
  readonly kind: 'cpu' | 'gpu' | null;
  policy: AdmissionPolicy<unknown>;
  model: SlotModel;
  state: unknown;
}

export interface LaneSharingOptions {
  readonly spec: TenantSpec;
  readonly shares: TenantShares;
  readonly model: PreemptionModel;
  /** The real-time queue's guarantee now (the engine's, what the RM would show). */
  read(now: number): SharingRead | undefined;
  /** An admitted job's progress now (what its AM reports). */
  progressOf(jobId: string): JobProgress | undefined;
  /** A policy instance sized to `model` (the same policy and arguments as the lane's). */
  createPolicy(model: SlotModel): AdmissionPolicy<unknown>;
}

/** What the last rebuild of a shared lane saw. */
export interface LaneShare {
  readonly holds: LaneHolds;
  /** The containers the policy was sized to. */
  readonly size: number;
  /** Nothing of the guarantee is left to count on: the lane is not tried. */
  readonly blocked: boolean;
}

export class LaneSharing {
  private readonly seen = new Map<SharedLane, LaneShare>();
  /** Rebuilds made with part of the guarantee held (for reports and tests). */
  heldRebuilds = 0;

  constructor(private readonly o: LaneSharingOptions) {}

  /** Whether admission counts the holds (the tenant's `admission: 'blind'` does not). */
  get sees(): boolean {
    return this.o.spec.admission === 'seen';
  }

  /**
   * The containers of a lane the tenant shares when nothing is held: the real-time queue's
   * guarantee, plus the GPU containers of a lane that also counts them (no lanes by kind).
   */
  baseContainers(kind: 'cpu' | 'gpu' | null, laneContainers: number): number {
    if (kind === 'gpu') return laneContainers;
    return kind === 'cpu'
      ? this.o.shares.realtime
      : laneContainers - this.o.shares.total + this.o.shares.realtime;
  }

  /** The holds on `lane` and how it was sized, from the last rebuild (none for an unshared lane). */
  shareOf(lane: SharedLane): LaneShare | undefined {
    return this.seen.get(lane);
  }

  /** The sharing a rejection in `lane` names, or undefined when nothing was held. */
  describe(lane: SharedLane): string | undefined {
    const h = this.seen.get(lane)?.holds;
    return h === undefined ? undefined : describeHolds(h);
  }

  /**
   * Rebuilds every lane the tenant shares for a decision at `now` (the sidecar does it at each
   * poll; here before each decision, the only moment admission is asked anything).
   */
  beforeDecision(
    lanes: readonly SharedLane[],
    baseOf: (lane: SharedLane) => number,
    estimates: Estimates,
    now: number,
  ): void {
    if (!this.sees) return;
    const read = this.o.read(now);
    if (read === undefined) return;
    for (const lane of lanes) {
      if (lane.kind === 'gpu') continue;
      const holds = this.holdsNow(read, now);
      const base = baseOf(lane);
      const lost = lostContainers(holds);
      const snapshot = takesSnapshot(lane.policy);
      // core/lanes rebuildLaneState: a snapshot policy counts the held slots as busy until they
      // return (finite returns only); the others are sized without every held one.
      const wanted = base - (snapshot ? lost : holds.held);
      const heldUntil = snapshot ? holds.returns.filter((r) => Number.isFinite(r)).map((r) => now + r) : [];
      const size = Math.max(1, wanted);
      const model: SlotModel = { name: 'unified', containers: size };
      const policy = this.o.createPolicy(model);
      const jobs = lane.policy.queue(lane.state).map((job) => {
        const progress = this.o.progressOf(job.id);
        return progress ? { job, progress } : { job };
      });
      lane.state = rebuildLaneState(policy, model, estimates, now, jobs, heldUntil);
      lane.policy = policy;
      lane.model = model;
      if (holds.held > 0) this.heldRebuilds++;
      this.seen.set(lane, { holds, size, blocked: wanted < 1 });
    }
  }

  /** The holds on the real-time queue's guarantee as one read shows them (the sidecar's holdsOf). */
  private holdsNow(read: SharingRead, now: number): LaneHolds {
    const releases =
      this.o.spec.releases === 'known'
        ? read.otherEnds.map((t) => t - now)
        : read.otherEnds.map(() => Infinity);
    if (read.guaranteed < 1) return { ...NO_HOLDS, guaranteed: read.guaranteed };
    return laneHolds({
      guaranteed: read.guaranteed,
      used: read.used,
      free: read.free,
      mode: sharingModeOf(this.o.spec),
      preemption: this.o.model,
      releases,
    });
  }
}
