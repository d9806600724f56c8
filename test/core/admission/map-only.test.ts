import { dc, rtmr, vectorsAfter } from '../../../src/core/admission';
import { edfAll } from '../../../src/core/admission/edf-all';
import { replay } from '../../../src/core/admission/common/replay';
import { createYarnGreedy } from '../../../src/core/admission/yarn-greedy';
import { taskEstimates } from '../../../src/core/estimates';
import { validateJob } from '../../../src/core/job';
import type { SlotModel } from '../../../src/core/slots/model';
import { EST, job } from './helpers';

/**
 * Map-only jobs (R = 0: distcp, Sqoop imports, SleepJob -r 0) are RTMR jobs with an empty
 * reduce stage: Alg. 5.3 places no reduce, so the job's finish is its last map's end (e^m) and
 * the reduce vector is left as it was.
 */
const model: SlotModel = { name: 'mr1', mapSlots: 2, reduceSlots: 1 };
const engines = ['fast', 'literal'] as const;

describe('map-only jobs (reduces 0)', () => {
  it('are valid jobs, estimated with no reduce task (0 s, never a division by R = 0)', () => {
    expect(validateJob(job('m', { reduces: 0 })).reduces).toBe(0);
    expect(taskEstimates(EST, job('m', { reduces: 0, maps: 4, inputSize: 40 }))).toEqual({
      mapSeconds: 10,
      reduceSeconds: 0,
    });
  });

  for (const engine of engines) {
    it(`admitted with its last map's end as its finish, no reduce slot reserved (${engine} engine)`, () => {
      // Worked by hand. mr1, 2 map slots, 1 reduce slot; EST: 1 s per MB, eta 1.
      // First b (2 maps, 1 reduce, 8 MB, deadline 15): eps_m = 1 * 4 = 4 s, eps_r = 1 * 1 * 8 / 1
      // = 8 s. Its maps take both map slots to [4, 4], its reduce the reduce slot from
      // max(0, 4) to 12: b finishes at 12; vectors T^m = [4, 4], T^r = [12].
      // Then m (4 maps, 0 reduces, 40 MB, deadline 30): eps_m = 40 / 4 = 10 s. Alg. 5.2: 4 -> 14,
      // 4 -> 14, 14 -> 24, 14 -> 24, so e^m = 24. Alg. 5.3 has no reduce to place: m finishes
      // at 24 <= 30, and T^r after m is still [12].
      const p = rtmr({ slotModel: model, estimates: EST, engine });
      let s = p.initialState(0);
      const b = p.admit(s, job('b', { maps: 2, reduces: 1, inputSize: 8, deadline: 15 }), 0);
      expect(b).toMatchObject({ admitted: true, estimatedFinish: 12 });
      s = b.state;
      const m = p.admit(s, job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 30 }), 0);
      expect(m).toMatchObject({ admitted: true, estimatedFinish: 24, position: 1 });
      const after = vectorsAfter(m.state, 1).map((l) => Array.from(l));
      expect(after).toEqual([[24, 24], [12]]);
    });

    it(`refused when its maps end after its deadline, with the earliest deadline that admits it (${engine})`, () => {
      // Same queue (b ahead until 12 on the reduce slot, its maps until 4). m with deadline 20:
      // its maps end at 24 (above), so it is 4 s late. With D = 24 it is still behind b
      // (b's deadline 15 < 24) and ends at 24: admitted; D = 23 is not. Earliest: 24.
      const p = rtmr({ slotModel: model, estimates: EST, engine });
      const s = p.admit(
        p.initialState(0),
        job('b', { maps: 2, reduces: 1, inputSize: 8, deadline: 15 }),
        0,
      ).state;
      const r = p.admit(s, job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 20 }), 0);
      expect(r).toMatchObject({
        admitted: false,
        reason: { kind: 'new-job-misses', jobId: 'm', deadline: 20, estimatedFinish: 24, lateBySeconds: 4 },
        earliestAdmissibleDeadline: 24,
      });
      expect(r.state).toBe(s);
    });
  }

  it('is not held back by a reduce slot busy long after its maps', () => {
    // b (deadline 200) of a heavy class: eps_m = 4 s, eps_r = 20 * 1 * 8 / 1 = 160 s, so the
    // only reduce slot is taken until 164. m (map-only, deadline 300) behind it: its maps go
    // on [4, 4] -> 14, 14 -> 24, 24 and it finishes at 24, long before the reduce slot is free.
    const p = rtmr({ slotModel: model, estimates: EST });
    const heavy = { eta: 1, mapCostMax: 1, reduceCostMax: 20 };
    let s = p.initialState(0);
    const b = p.admit(s, job('b', { maps: 2, inputSize: 8, deadline: 200, estimates: heavy }), 0);
    expect(b).toMatchObject({ admitted: true, estimatedFinish: 164 });
    s = b.state;
    expect(p.admit(s, job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 300 }), 0)).toMatchObject({
      admitted: true,
      estimatedFinish: 24,
      position: 1,
    });
    // The same job with one reduce of 40 s waits for the reduce slot: 164 + 40 = 204.
    expect(p.admit(s, job('m', { maps: 4, reduces: 1, inputSize: 40, deadline: 300 }), 0)).toMatchObject({
      admitted: true,
      estimatedFinish: 204,
    });
  });

  it('on unified: the maps take containers, nothing is reserved after them', () => {
    // 3 containers; m: 5 maps of 2 s (10 MB) -> rounds [0,2] x3, [2,4] x2: finishes at 4, and the
    // vector is [2, 4, 4] (the third container free from 2).
    const p = rtmr({ slotModel: { name: 'unified', containers: 3 }, estimates: EST });
    const r = p.admit(p.initialState(0), job('m', { maps: 5, reduces: 0, inputSize: 10, deadline: 10 }), 0);
    expect(r).toMatchObject({ admitted: true, estimatedFinish: 4 });
    expect(Array.from(vectorsAfter(r.state, 0)[0]!)).toEqual([2, 4, 4]);
  });

  it('run: a replayed map-only job finishes at its last map and meets the estimate', () => {
    const p = rtmr({ slotModel: model, estimates: EST, feedbackThresholdSeconds: 0 });
    const j = job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 30 });
    const r = replay(p, p.initialState(0), model, [
      { job: j, mapSeconds: [10, 10, 7, 9], reduceSeconds: [] },
    ]);
    // Maps 10 and 10 from 0; then 7 and 9 from 10: the last ends at 19.
    expect(r.outcomes).toEqual([
      { jobId: 'm', admitted: true, deadline: 30, estimatedFinish: 20, finishedAt: 19 },
    ]);
    expect(r.misses).toEqual([]);
    expect(p.queue(r.state)).toEqual([]);
  });

  it('edf-all estimates the same finish as rtmr (its last map)', () => {
    const p = edfAll({ slotModel: model, estimates: EST });
    const r = p.admit(p.initialState(0), job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 5 }), 0);
    // Admitted though late: 4 maps of 10 s on 2 slots end at 20.
    expect(r).toMatchObject({ admitted: true, estimatedFinish: 20 });
  });

  it('dc: the maps may use the whole window (S_r^max = A + D), no reduce slot needed', () => {
    // mapCost 0.25: n_m^min = ceil(40 * 0.25 / (10 - 0)) = 1 map slot over [0, 10).
    const p = dc({
      slotModel: { name: 'mr1', mapSlots: 1, reduceSlots: 1 },
      mapCost: 0.25,
      reduceCost: 0.25,
    });
    let s = p.initialState(0);
    // r (2 maps, 1 reduce, 32 MB, D = 40): S_r^max = 40 - 32 * 0.25 / 1 = 32, n_m^min =
    // ceil(32 * 0.25 / 32) = 1: the map slot over [0, 32), the reduce slot over [32, 40).
    const withReduce = p.admit(s, job('r', { maps: 2, reduces: 1, inputSize: 32, deadline: 40 }), 0);
    expect(withReduce).toMatchObject({ admitted: true, estimatedFinish: 40 });
    s = withReduce.state;
    // The only map slot is taken over [0, 32): a map-only job arriving at 0 is refused for its
    // map slot, never for a reduce slot.
    const m = p.admit(s, job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 10 }), 0, {
      searchEarliest: false,
    });
    expect(m).toMatchObject({
      admitted: false,
      reason: { kind: 'dc-map-slots-unavailable', slotsNeeded: 1, slotsFree: 0 },
    });
    // Alone, it is planned to end at its deadline with one map slot.
    const alone = p.admit(
      p.initialState(0),
      job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 10 }),
      0,
    );
    expect(alone).toMatchObject({ admitted: true, estimatedFinish: 10 });
  });

  it('yarn-greedy: plans the maps right up to the deadline and finishes with the last one', () => {
    const p = createYarnGreedy({ slotModel: model, estimates: EST, planStepSeconds: 1 });
    // 4 maps of 10 s on 2 map slots, deadline 30: the agent fills from the deadline backwards,
    // two maps over [20, 30) and two over [10, 20); the job ends at 30.
    const r = p.admit(p.initialState(0), job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 30 }), 0);
    expect(r).toMatchObject({ admitted: true, estimatedFinish: 30 });
    // Deadline 15: only one round of 10 s fits before it; refused (the agent searches no
    // earliest deadline).
    const late = p.admit(
      p.initialState(0),
      job('m', { maps: 4, reduces: 0, inputSize: 40, deadline: 15 }),
      0,
    );
    expect(late).toMatchObject({ admitted: false, earliestAdmissibleDeadline: null });
  });
});
