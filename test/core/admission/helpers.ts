import fc from 'fast-check';
import type { Estimates } from '../../../src/core/estimates';
import type { DeadlineJob } from '../../../src/core/job';
import type { SlotModel } from '../../../src/core/slots/model';
import type { ReplayJob } from '../../../src/core/admission/common/replay';

export const EST: Estimates = { eta: 1, mapCostMax: 1, reduceCostMax: 1 };
/** A compute-bound class: 25 times the seconds per unit of EST, and more intermediate data. */
export const HEAVY: Estimates = { eta: 2, mapCostMax: 25, reduceCostMax: 10 };
/**
 * The same classes with what a YARN job spends outside its tasks: set-up before its first task,
 * commit after its last, and its AM holding a container (on `unified` slots) for its whole life.
 */
export const EST_AM: Estimates = { ...EST, setupSeconds: 3, commitSeconds: 2, amContainers: 1 };
export const HEAVY_AM: Estimates = { ...HEAVY, setupSeconds: 7.5, commitSeconds: 0.25, amContainers: 1 };

/** A job of jobOfOp's with its class's overheads (EST_AM for the policy, HEAVY_AM for heavy jobs). */
export function withOverheads(j: DeadlineJob): DeadlineJob {
  return j.estimates === undefined ? j : { ...j, estimates: HEAVY_AM };
}

export function job(id: string, o: Partial<DeadlineJob> & { arrival?: number }): DeadlineJob {
  return { id, arrival: 0, deadline: 100, maps: 1, reduces: 1, inputSize: 10, ...o };
}

/**
 * A job's reduce count: one in four map-only (R = 0: distcp, Sqoop imports, an empty reduce
 * stage), the rest 1..max.
 */
/** What a random 'admit' operation of the property tests describes. */
export interface AdmitOp {
  maps: number;
  reduces: number;
  split: number;
  deadline: number;
  heavy?: boolean;
  gpu?: boolean;
}

/** The job an 'admit' operation submits at `now`: a HEAVY-class job and GPU maps when it says so. */
export function jobOfOp(op: AdmitOp, id: string, now: number): DeadlineJob {
  return {
    id,
    arrival: now,
    deadline: op.deadline,
    maps: op.maps,
    reduces: op.reduces,
    inputSize: op.split * op.maps,
    ...(op.heavy ? { workloadClass: 'heavy', estimates: HEAVY } : {}),
    ...(op.gpu ? { lane: 'gpu' as const } : {}),
  };
}

export const reducesArb = (max: number): fc.Arbitrary<number> =>
  fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: 1, max }) });

export const modelArb: fc.Arbitrary<SlotModel> = fc.oneof(
  fc.record({
    name: fc.constant('mr1' as const),
    mapSlots: fc.integer({ min: 1, max: 6 }),
    reduceSlots: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ name: fc.constant('unified' as const), containers: fc.integer({ min: 1, max: 8 }) }),
);

/**
 * mr1 with GPU map slots (a third lane), CPU map slots down to none: jobs of either kind of map
 * slot share the reduce slots.
 */
export const gpuLaneModelArb: fc.Arbitrary<SlotModel> = fc.record({
  name: fc.constant('mr1' as const),
  mapSlots: fc.integer({ min: 0, max: 5 }),
  reduceSlots: fc.integer({ min: 1, max: 4 }),
  gpuMapSlots: fc.integer({ min: 1, max: 4 }),
});

/**
 * Jobs with integer arrivals and sizes; actual task times are a fraction (0..1] of the estimate.
 * With `classes`, each job belongs to one of them (workloadClass `c<k>`), carries that class's
 * estimates, and its tasks take at most that class's per-task estimates; without, every job is
 * judged with the policy's own estimates, which tests pass as EST.
 */
export const workloadArb = (
  maxJobs = 8,
  classes?: readonly Estimates[],
): fc.Arbitrary<{ jobs: ReplayJob[] }> =>
  fc
    .array(
      fc.record({
        gap: fc.integer({ min: 0, max: 8 }),
        maps: fc.integer({ min: 1, max: 8 }),
        reduces: reducesArb(6),
        split: fc.integer({ min: 1, max: 8 }),
        cls: fc.nat({ max: Math.max(0, (classes?.length ?? 1) - 1) }),
        deadline: fc.integer({ min: 3, max: 90 }),
        fractions: fc.array(fc.oneof(fc.constant(4), fc.constant(4), fc.integer({ min: 1, max: 4 })), {
          minLength: 14,
          maxLength: 14,
        }),
      }),
      { minLength: 1, maxLength: maxJobs },
    )
    .map((specs) => {
      let t = 0;
      const jobs = specs.map((s, i) => {
        t += s.gap;
        const est = classes?.[s.cls];
        const j: DeadlineJob = {
          id: `j${i}`,
          arrival: t,
          // A heavier class needs proportionally longer deadlines to be admitted at all.
          deadline: s.deadline * (est ? Math.max(est.mapCostMax, est.eta * est.reduceCostMax) : 1),
          maps: s.maps,
          reduces: s.reduces,
          inputSize: s.split * s.maps,
          ...(est ? { workloadClass: `c${s.cls}`, estimates: est } : {}),
        };
        // eps_m = c_m^max * split, eps_r = c_r^max * eta * inputSize / R (EST: split, inputSize / R);
        // a map-only job has no reduce to time.
        const e = est ?? EST;
        const epsM = e.mapCostMax * s.split;
        const epsR = s.reduces === 0 ? 0 : (e.reduceCostMax * e.eta * s.split * s.maps) / s.reduces;
        const frac = (k: number): number => s.fractions[k % s.fractions.length]! / 4;
        return {
          job: j,
          mapSeconds: Array.from({ length: s.maps }, (_, k) => epsM * frac(k)),
          reduceSeconds: Array.from({ length: s.reduces }, (_, k) => epsR * frac(k + 7)),
        };
      });
      return { jobs };
    });
