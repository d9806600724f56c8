import fc from 'fast-check';
import {
  allocateStage,
  createYarnGreedy,
  Workspace,
  type YarnGreedyState,
} from '../../../src/core/admission/yarn-greedy';
import type { DeadlineJob } from '../../../src/core/job';
import { ValidationError } from '../../../src/errors/validation';

const est = { eta: 0.125, mapCostMax: 1, reduceCostMax: 1 };

/** A job whose maps take `mapS` s each (split = mapS MB at 1 s/MB) and reduces 5 s each with eta 0.125. */
function job(id: string, over: Partial<DeadlineJob> & { mapS?: number } = {}): DeadlineJob {
  const maps = over.maps ?? 4;
  const mapS = over.mapS ?? 10;
  const reduces = over.reduces ?? 1;
  // reduce seconds = 1 * 0.125 * input / R = 5  =>  input = 40 R
  const inputSize = over.inputSize ?? maps * mapS;
  const { mapS: _m, ...rest } = over;
  return {
    id,
    arrival: 0,
    deadline: 20,
    maps,
    reduces,
    inputSize,
    mapSplits: new Array(maps).fill(mapS),
    ...rest,
  };
}

describe('yarn-greedy (GreedyReservationAgent as an admission test)', () => {
  const policy = createYarnGreedy({
    slotModel: { name: 'mr1', mapSlots: 4, reduceSlots: 1 },
    estimates: est,
    planStepSeconds: 1,
  });

  it('the worked example: J1 admitted, J2 (later deadline) admitted, J3 rejected', () => {
    let s: YarnGreedyState = policy.initialState(0);
    const r1 = policy.admit(s, job('J1'), 0);
    expect(r1.admitted).toBe(true);
    if (!r1.admitted) return;
    // reduce at [15, 20): finish = 20
    expect(r1.estimatedFinish).toBe(20);
    s = r1.state;
    // Maps hold all 4 map slots over [5, 15), the reduce the only reduce slot over [15, 20).
    expect(Array.from(s.plan[0]!)).toEqual([0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    expect(Array.from(s.plan[1]!.slice(14, 20))).toEqual([0, 1, 1, 1, 1, 1]);
    const r2 = policy.admit(s, job('J2', { deadline: 30 }), 0);
    expect(r2.admitted).toBe(true);
    if (!r2.admitted) return;
    expect(r2.estimatedFinish).toBe(30);
    s = r2.state;
    const r3 = policy.admit(s, job('J3'), 0);
    expect(r3.admitted).toBe(false);
    if (r3.admitted) return;
    expect(r3.reason.kind).toBe('new-job-misses');
    expect(r3.state).toBe(s);
    // EDF queue: J1 (20) before J2 (30).
    expect(policy.queue(s).map((j) => j.id)).toEqual(['J1', 'J2']);
  });

  it('left-packed vs right-packed: a job that fits only if an earlier reservation moved is rejected', () => {
    // J1 (D = 20) is planned right-aligned: maps [5, 15), reduce [15, 20). J3 (D = 25) puts its
    // reduce at [20, 25) and needs 4 map slots for 10 s before 20: only [0, 5) and [15, 20)
    // are free, each too short. Rejected. RTMR's left-packed vectors run J1's maps at [0, 10)
    // and its reduce at [10, 15), leaving [10, 20) for J3's maps and [20, 25) for its reduce:
    // finish 25 = A + D, admitted.
    let s = policy.initialState(0);
    const r1 = policy.admit(s, job('J1'), 0);
    expect(r1.admitted).toBe(true);
    s = r1.state;
    const r3 = policy.admit(s, job('J3', { deadline: 25 }), 0);
    expect(r3.admitted).toBe(false);
    // With D = 30 it fits: maps [15, 25), reduce [25, 30).
    const r4 = policy.admit(s, job('J4', { deadline: 30 }), 0);
    expect(r4.admitted).toBe(true);
  });

  it('StageAllocatorGreedy: splits a stage into gangs around a busy instant', () => {
    const plan = [Int32Array.from([0, 0, 0, 0, 2, 0, 0, 0, 0, 0])];
    const ws = new Workspace(plan, [3]);
    // 4 containers of 2 steps within [0, 10): the window [8, 10) fits 3; then [6, 8) fits the last one.
    const a = allocateStage(ws, 0, 4, 2, 0, 10)!;
    expect(a).toEqual([
      { lane: 0, from: 8, to: 10, count: 3 },
      { lane: 0, from: 6, to: 8, count: 1 },
    ]);
    // Not enough room before an instant with no capacity: null.
    expect(allocateStage(new Workspace([Int32Array.from([3, 3, 3])], [3]), 0, 1, 1, 0, 3)).toBeNull();
  });

  it('never plans more containers than the capacity at any step, and a rejection changes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            arrival: fc.integer({ min: 0, max: 50 }),
            deadline: fc.integer({ min: 5, max: 200 }),
            maps: fc.integer({ min: 1, max: 12 }),
            reduces: fc.integer({ min: 1, max: 4 }),
            mapS: fc.integer({ min: 1, max: 15 }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        fc.constantFrom('mr1', 'unified'),
        (jobs, model) => {
          const p = createYarnGreedy({
            slotModel:
              model === 'mr1'
                ? { name: 'mr1', mapSlots: 6, reduceSlots: 2 }
                : { name: 'unified', containers: 8 },
            estimates: est,
          });
          let s = p.initialState(0);
          const caps = model === 'mr1' ? [6, 2] : [8];
          jobs.sort((a, b) => a.arrival - b.arrival);
          jobs.forEach((j, i) => {
            const r = p.admit(s, job(`j${i}`, j), j.arrival);
            if (!r.admitted) expect(r.state).toBe(s);
            else {
              // Its reservation ends by the deadline and starts no earlier than arrival.
              expect(r.estimatedFinish).toBeLessThanOrEqual(j.arrival + j.deadline);
            }
            s = r.state;
            s.plan.forEach((lane, l) => {
              expect(Math.max(0, ...lane)).toBeLessThanOrEqual(caps[l]!);
              expect(Math.min(0, ...lane)).toBe(0);
            });
          });
          // Deleting every reservation empties the plan.
          for (const j of p.queue(s)) s = p.leave(s, j.id, 0);
          s.plan.forEach((lane) => expect(lane.every((used) => used === 0)).toBe(true));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('rejects bad arguments and bad jobs with a ValidationError naming the field', () => {
    expect(() =>
      createYarnGreedy({ slotModel: { name: 'mr1', mapSlots: 0, reduceSlots: 1 }, estimates: est }),
    ).toThrow(ValidationError);
    expect(() =>
      createYarnGreedy({ slotModel: { name: 'unified', containers: 4 }, estimates: est, planStepSeconds: 0 }),
    ).toThrow(/planStepSeconds/);
    const s = policy.initialState(0);
    try {
      policy.admit(s, { ...job('bad'), deadline: -5 }, 0);
      throw new Error('expected a ValidationError');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).paths).toContain('job.deadline');
    }
  });

  it('complete keeps the reservation in the plan; leave (kill) removes it', () => {
    let s = policy.initialState(0);
    const r = policy.admit(s, job('J1'), 0);
    s = r.state;
    const done = policy.complete(s, 'J1', { mapFinishTimes: [], reduceFinishTimes: [], finishedAt: 12 }, 12);
    expect(done.plan).toBe(s.plan);
    expect(policy.queue(done)).toHaveLength(0);
    const killed = policy.leave(s, 'J1', 3);
    expect(Array.from(killed.plan[0]!).every((v) => v === 0)).toBe(true);
  });
});
