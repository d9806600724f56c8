import fc from 'fast-check';
import { rtmr } from '../../src/core/admission';
import type { RtmrState } from '../../src/core/admission/rtmr/state';
import { rebuildLaneState } from '../../src/core/lanes';
import {
  describeHolds,
  heldContainers,
  holdsSignature,
  laneHolds,
  lostContainers,
  preemptionReturns,
  releaseReturns,
  type PreemptionModel,
} from '../../src/core/sharing';
import type { SlotModel } from '../../src/core/slots/model';
import { EST, job } from './admission/helpers';

/** Hadoop's defaults: a run every 3 s, a kill 15 s after the ask, 20 % of the excess per run. */
const HADOOP: PreemptionModel = {
  monitoringIntervalSeconds: 3,
  maxWaitBeforeKillSeconds: 15,
  naturalTerminationFactor: 0.2,
  perRoundContainers: 100,
};

describe('a lane guarantee on a shared cluster (src/core/sharing)', () => {
  it('counts as held the idle guarantee the partition has no free container for', () => {
    expect(heldContainers({ guaranteed: 10, used: 2, free: 3 })).toBe(5);
    expect(heldContainers({ guaranteed: 10, used: 2, free: 10 })).toBe(0);
    expect(heldContainers({ guaranteed: 10, used: 12, free: 0 })).toBe(0);
    expect(heldContainers({ guaranteed: 10, used: 0, free: 0 })).toBe(10);
  });

  it("returns held containers by Hadoop's preemption in batches of 20 % of what is left, one wait apart", () => {
    expect(preemptionReturns(10, HADOOP)).toEqual([18, 18, 36, 36, 54, 54, 72, 90, 108, 126]);
    expect(preemptionReturns(0, HADOOP)).toEqual([]);
  });

  it('marks at most a round’s cap at once, and all at once with a factor of 1', () => {
    const fast = { ...HADOOP, naturalTerminationFactor: 1, perRoundContainers: 3 };
    expect(preemptionReturns(7, fast)).toEqual([18, 18, 18, 36, 36, 36, 54]);
    expect(preemptionReturns(4, { ...fast, perRoundContainers: 100 })).toEqual([18, 18, 18, 18]);
  });

  it('pushes every return back when a measured first return was later than the model says', () => {
    expect(preemptionReturns(3, { ...HADOOP, measuredFirstReturnSeconds: 30 })).toEqual([30, 48, 66]);
    // An earlier measurement does not make the model more hopeful.
    expect(preemptionReturns(3, { ...HADOOP, measuredFirstReturnSeconds: 5 })).toEqual([18, 36, 54]);
  });

  it('without preemption, returns held containers as the other tenants release theirs, earliest first', () => {
    expect(releaseReturns(3, [50, Infinity, 10, 70])).toEqual([10, 50, 70]);
    expect(releaseReturns(3, [50, Infinity])).toEqual([50, Infinity, Infinity]);
    expect(releaseReturns(2, [-5, NaN])).toEqual([0, Infinity]);
  });

  it('says which sharing applied, with the numbers', () => {
    const pre = laneHolds({
      guaranteed: 8,
      used: 0,
      free: 2,
      mode: 'preemption',
      preemption: HADOOP,
      releases: [],
    });
    expect(pre).toEqual({ mode: 'preemption', guaranteed: 8, held: 6, returns: [18, 18, 36, 54, 72, 90] });
    expect(describeHolds(pre)).toBe(
      '6 of 8 guaranteed containers are held by other queues; preemption takes them back in 18–90 s',
    );
    const lent = laneHolds({
      guaranteed: 8,
      used: 0,
      free: 5,
      mode: 'lent',
      preemption: HADOOP,
      releases: [40],
    });
    expect(lostContainers(lent)).toBe(2);
    expect(describeHolds(lent)).toBe(
      'guarantee lent to other queues, preemption off: 3 of 8 guaranteed containers are held by other queues; ' +
        '1 return as their apps end in 40 s, 2 with no known release',
    );
    const none = laneHolds({
      guaranteed: 4,
      used: 0,
      free: 0,
      mode: 'unknown',
      preemption: HADOOP,
      releases: [],
    });
    expect(describeHolds(none)).toBe(
      'guarantee lent to other queues, preemption not known to be on: 4 of 4 guaranteed containers are held by other queues; none has a known release',
    );
    const own = laneHolds({
      guaranteed: 4,
      used: 1,
      free: 3,
      mode: 'lent',
      preemption: HADOOP,
      releases: [],
    });
    expect(own.mode).toBe('own');
    expect(describeHolds(own)).toBeUndefined();
  });

  it('changes its signature when a return moves past a quantum, not when time only moves on', () => {
    const h = laneHolds({
      guaranteed: 2,
      used: 0,
      free: 0,
      mode: 'preemption',
      preemption: HADOOP,
      releases: [],
    });
    const later = { ...h, returns: h.returns.map((r) => r - 1) };
    expect(holdsSignature(later, 1001, 5)).toBe(holdsSignature(h, 1000, 5));
    expect(holdsSignature(h, 1010, 5)).not.toBe(holdsSignature(h, 1000, 5));
  });

  describe('in admission (RTMR rebuilt with the held slots)', () => {
    const model: SlotModel = { name: 'unified', containers: 4 };
    const policy = rtmr({ slotModel: model, estimates: EST });

    it('a job cannot start before the held slots return', () => {
      const state = rebuildLaneState(policy, model, EST, 0, [], [100, 100, 100, 100]) as RtmrState;
      const tight = policy.admit(state, job('j', { deadline: 50 }), 0);
      expect(tight.admitted).toBe(false);
      const loose = policy.admit(state, job('j', { deadline: 300 }), 0);
      expect(loose.admitted).toBe(true);
      if (loose.admitted) expect(loose.estimatedFinish).toBeGreaterThanOrEqual(100);
      const free = policy.admit(
        rebuildLaneState(policy, model, EST, 0, []) as RtmrState,
        job('j', { deadline: 50 }),
        0,
      );
      expect(free.admitted).toBe(true);
    });

    it('property: holding slots never makes a job finish sooner or admits one refused without them', () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 4 }),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 5, max: 400 }),
          (held, maps, deadline) => {
            const j = job('j', { maps, inputSize: 10 * maps, deadline });
            const without = policy.admit(rebuildLaneState(policy, model, EST, 0, []) as RtmrState, j, 0);
            const withHolds = policy.admit(
              rebuildLaneState(policy, model, EST, 0, [], held) as RtmrState,
              j,
              0,
            );
            if (withHolds.admitted) {
              expect(without.admitted).toBe(true);
              if (without.admitted)
                expect(withHolds.estimatedFinish).toBeGreaterThanOrEqual(without.estimatedFinish);
              expect(withHolds.estimatedFinish).toBeLessThanOrEqual(deadline + 1e-9);
            }
          },
        ),
      );
    });
  });
});
