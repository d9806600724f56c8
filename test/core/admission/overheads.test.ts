import fc from 'fast-check';
import { rtmr, vectorsAfter } from '../../../src/core/admission';
import { newWalker, placedEntry, stableAt } from '../../../src/core/admission/rtmr/state';
import { jobOverheads, type Estimates } from '../../../src/core/estimates';
import type { JobWork, SlotModel } from '../../../src/core/slots/model';
import { job } from './helpers';

/**
 * What a YARN job spends outside its tasks (src/core/slots/model.ts, JobWork.am): its AM takes a
 * container before any task and holds it until the job's finish, its maps start once the AM has
 * set the job up, and the job ends after its output is committed.
 */
const UNIFIED4: SlotModel = { name: 'unified', containers: 4 };
/** 6 s per map over 6 MB, 8 s for the reduce over 8 MB: 1 s per MB, eta 1. */
const TASKS: Estimates = { eta: 1, mapCostMax: 1, reduceCostMax: 1 };
const AM: Estimates = { ...TASKS, setupSeconds: 10, commitSeconds: 5, amContainers: 1 };
const v = (xs: Float64Array[]): number[][] => xs.map((l) => Array.from(l));

describe('worked example: set-up, commit and the AM container on 4 containers', () => {
  // Two maps of 6 MB and one reduce of 8 MB... the reduce reads eta * 12 MB / 1 = 12 MB: make the
  // input 12 MB over 2 maps (6 MB each) and the reduce cost 8/12 s per MB so that it takes 8 s.
  const est = (e: Estimates): Estimates => ({ ...e, reduceCostMax: 8 / 12 });
  const j1 = job('j1', { arrival: 0, deadline: 100, maps: 2, reduces: 1, inputSize: 12 });
  const j2 = job('j2', { arrival: 0, deadline: 100, maps: 2, reduces: 1, inputSize: 12 });

  for (const engine of ['fast', 'literal'] as const) {
    it(`${engine}: the first job ends at 29 s, not 14 s; the second's AM waits for a container`, () => {
      const p = rtmr({ slotModel: UNIFIED4, estimates: est(AM), engine });
      const a1 = p.admit(p.initialState(0), j1, 0);
      // AM at 0 (one container out), set-up until 10, maps 10 -> 16 on two containers, the
      // reduce 16 -> 24 on the fourth, commit until 29; the AM's container comes back at 29.
      expect(a1).toMatchObject({ admitted: true, estimatedFinish: 29 });
      expect(v(vectorsAfter(a1.state, 0))).toEqual([[16, 16, 24, 29]]);
      // The second job's AM takes the first container free (16), sets up until 26, its maps
      // run 26 -> 32 (on 16 and 24), its reduce 32 -> 40 (on 29), committed at 45.
      const a2 = p.admit(a1.state, j2, 0);
      expect(a2).toMatchObject({ admitted: true, estimatedFinish: 45 });
      expect(v(vectorsAfter(a2.state, 1))).toEqual([[32, 32, 40, 45]]);
      // Without the overheads (the papers' model) the same job is estimated at 6 + 8 = 14 s.
      const paper = rtmr({ slotModel: UNIFIED4, estimates: est(TASKS), engine });
      expect(paper.admit(paper.initialState(0), j1, 0)).toMatchObject({ estimatedFinish: 14 });
    });
  }

  it('a deadline of 20 s is refused with the overheads (finish 29 s) and admitted without', () => {
    const tight = { ...j1, deadline: 20 };
    const withAm = rtmr({ slotModel: UNIFIED4, estimates: est(AM) });
    const r = withAm.admit(withAm.initialState(0), tight, 0);
    expect(r.admitted).toBe(false);
    if (r.admitted) return;
    expect(r.reason).toMatchObject({ kind: 'new-job-misses', estimatedFinish: 29, lateBySeconds: 9 });
    expect(r.earliestAdmissibleDeadline).toBe(29);
    const paper = rtmr({ slotModel: UNIFIED4, estimates: est(TASKS) });
    expect(paper.admit(paper.initialState(0), tight, 0).admitted).toBe(true);
  });
});

describe('jobOverheads', () => {
  it('counts the AM container on unified slots only, and no set-up once the job started', () => {
    const j = job('j', {});
    expect(jobOverheads(AM, j, UNIFIED4)).toEqual({ setupSeconds: 10, commitSeconds: 5, amSlot: true });
    expect(jobOverheads(AM, j, UNIFIED4, true)).toEqual({ setupSeconds: 0, commitSeconds: 5, amSlot: true });
    expect(jobOverheads(AM, j, { name: 'mr1' })).toEqual({
      setupSeconds: 10,
      commitSeconds: 5,
      amSlot: false,
    });
    // Nothing outside the tasks: the papers' model, placed exactly as Alg. 5.2/5.3 print it.
    expect(jobOverheads(TASKS, j, UNIFIED4)).toBeUndefined();
    // A job's own class figures win over the policy's.
    expect(jobOverheads(TASKS, { estimates: AM }, UNIFIED4)?.amSlot).toBe(true);
  });

  it('a lane of one container cannot run a job whose AM would hold it', () => {
    const p = rtmr({ slotModel: { name: 'unified', containers: 1 }, estimates: AM });
    const r = p.admit(p.initialState(0), job('j', { maps: 1, reduces: 0, inputSize: 1 }), 0);
    expect(r.admitted).toBe(false);
    if (!r.admitted) {
      expect(r.reason.kind).toBe('no-usable-slots');
      expect(r.earliestAdmissibleDeadline).toBeNull();
    }
    // Two containers: the AM in one, the map in the other (AM 0, set-up to 10, map to 11, +5).
    const p2 = rtmr({ slotModel: { name: 'unified', containers: 2 }, estimates: AM });
    expect(p2.admit(p2.initialState(0), job('j', { maps: 1, reduces: 0, inputSize: 1 }), 0)).toMatchObject({
      admitted: true,
      estimatedFinish: 16,
    });
  });
});

describe('a running job rebuilt from the cluster', () => {
  it('takes a container again for its AM but sets nothing up: its pending map starts now', () => {
    const p = rtmr({ slotModel: UNIFIED4, estimates: AM });
    const s = p.fromSnapshot({
      now: 50,
      // One container busy until 52 with the job's running map; the other three free.
      slots: [[50, 50, 50, 52]],
      queue: [
        {
          // Two maps of 4 MB: 4 s each.
          job: job('r', { arrival: 0, deadline: 200, maps: 2, reduces: 0, inputSize: 8 }),
          mapsDone: 0,
          mapsRunning: [48],
          reducesDone: 0,
          reducesRunning: [],
        },
      ],
    });
    // The AM takes a free container (50); the pending map runs 50 -> 54 at once (no set-up), the
    // running one ends at 52, then the commit: 59, when the AM's container comes back.
    expect(s.entries[0]!.finish).toBe(59);
    expect(v(vectorsAfter(s, 0))).toEqual([[50, 52, 54, 59]]);
  });
});

describe('stableAt with an AM: a record it calls stable is what placing it again at that instant gives', () => {
  const workArb = fc.record({
    pendingMaps: fc.integer({ min: 0, max: 6 }),
    mapSeconds: fc.integer({ min: 0, max: 9 }),
    mapsBusyUntil: fc.oneof(fc.constant(-Infinity), fc.integer({ min: 0, max: 40 })),
    pendingReduces: fc.integer({ min: 0, max: 3 }),
    reduceSeconds: fc.integer({ min: 0, max: 9 }),
    setupSeconds: fc.integer({ min: 0, max: 12 }),
    commitSeconds: fc.integer({ min: 0, max: 5 }),
    amSlot: fc.boolean(),
  });
  for (const engine of ['fast', 'literal'] as const) {
    it(engine, () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 2, maxLength: 8 }),
          workArb,
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 0, max: 40 }),
          (slots, w, computedAt, now) => {
            const model: SlotModel = { name: 'unified', containers: slots.length };
            const work: JobWork = {
              pendingMaps: w.pendingMaps,
              mapSeconds: w.mapSeconds,
              mapsBusyUntil: w.mapsBusyUntil,
              pendingReduces: w.pendingReduces,
              reduceSeconds: w.reduceSeconds,
              reducesBusyUntil: -Infinity,
              am: { setupSeconds: w.setupSeconds, commitSeconds: w.commitSeconds, amSlot: w.amSlot },
            };
            const base = [Float64Array.from(slots).sort()];
            const state = { model, engine };
            const at = (t: number) => newWalker(state, base).place(work, t);
            const e = placedEntry({ job: job('j', {}), work, started: false }, at(computedAt), computedAt);
            const again = at(now);
            if (stableAt(e, now)) {
              expect([again.finish, again.mapEnd]).toEqual([e.finish, e.mapEnd]);
            }
            // ... and the bound is tight enough to matter: at its own instant it is stable.
            expect(stableAt(e, computedAt)).toBe(true);
          },
        ),
        { numRuns: 2000 },
      );
    });
  }
});
