import { dc, rtmr, vectorsAfter, type RtmrState } from '../../../src/core/admission';
import { createYarnGreedy } from '../../../src/core/admission/yarn-greedy';
import { snapshotFromProgress } from '../../../src/core/admission/common/progress';
import { validateJob } from '../../../src/core/job';
import { laneSizes, usableMapSlots, validateSlotModel, type SlotModel } from '../../../src/core/slots/model';
import { ValidationError } from '../../../src/errors/validation';
import { EST, job } from './helpers';

/**
 * mr1 with GPU map slots (SlotModel.gpuMapSlots): the GPU map slots are a lane of their own, a
 * job's maps are placed only on the map lane of its kind (DeadlineJob.lane), and every job's
 * reduces share the one reduce lane.
 */
const vec = (s: RtmrState, i: number): number[][] => vectorsAfter(s, i).map((l) => Array.from(l));

/** The node of the first counterexample (test/sim/guarantee-counterexamples.test.ts): 4 map slots of which 3 hold a GPU, 1 reduce slot. */
const oneGpuNode: SlotModel = { name: 'mr1', mapSlots: 1, reduceSlots: 1, gpuMapSlots: 3 };

describe('map lanes by slot kind (mr1 with GPU map slots)', () => {
  it('the lanes: CPU map slots, reduce slots, GPU map slots; without GPU map slots the papers two', () => {
    expect(laneSizes(oneGpuNode)).toEqual([1, 1, 3]);
    expect(laneSizes({ name: 'mr1', mapSlots: 4, reduceSlots: 1 })).toEqual([4, 1]);
    expect(usableMapSlots(oneGpuNode, 'cpu')).toBe(1);
    expect(usableMapSlots(oneGpuNode, 'gpu')).toBe(3);
    expect(usableMapSlots({ name: 'mr1', mapSlots: 4, reduceSlots: 1 }, 'gpu')).toBe(0);
  });

  it('a CPU job of 8 maps of 10 s counts 1 map slot, not 4: estimated 160 s instead of 100 s', () => {
    // eps^m = 1 * 10 = 10 s, eps^r = 1 * 1 * 80 / 1 = 80 s.
    const cpuJob = job('a', { maps: 8, reduces: 1, inputSize: 80, deadline: 1000 });
    const lanes = rtmr({ slotModel: oneGpuNode, estimates: EST });
    const r = lanes.admit(lanes.initialState(0), cpuJob, 0);
    if (!r.admitted) throw new Error('not admitted');
    // 8 maps one after another on the one CPU slot: e^m = 80; the reduce 80..160.
    expect(r.estimatedFinish).toBe(160);
    expect(vec(r.state, 0)).toEqual([[80], [160], [0, 0, 0]]);
    // Counting every map slot (the model before lanes) promised 100 s.
    const flat = rtmr({ slotModel: { name: 'mr1', mapSlots: 4, reduceSlots: 1 }, estimates: EST });
    const f = flat.admit(flat.initialState(0), cpuJob, 0);
    expect(f.admitted && f.estimatedFinish).toBe(100);
    // With a deadline between the two, the job is refused.
    const tight = lanes.admit(lanes.initialState(0), { ...cpuJob, deadline: 120 }, 0);
    expect(tight.admitted).toBe(false);
    if (!tight.admitted) {
      expect(tight.reason).toMatchObject({ kind: 'new-job-misses', estimatedFinish: 160 });
      expect(tight.earliestAdmissibleDeadline).toBe(160);
    }
  });

  it('a GPU job takes the GPU map slots and leaves the CPU slot to CPU jobs; both share the reduce slot', () => {
    const p = rtmr({ slotModel: oneGpuNode, estimates: EST });
    // g: 3 maps of 1 s on the 3 GPU slots (e^m = 1), its reduce 1..4.
    const g = p.admit(p.initialState(0), job('g', { maps: 3, reduces: 1, inputSize: 3, lane: 'gpu' }), 0);
    if (!g.admitted) throw new Error('not admitted');
    expect(g.estimatedFinish).toBe(4);
    // c (deadline later, so behind g): its map on the CPU slot 0..1, its reduce waits for g's: 4..5.
    const c = p.admit(g.state, job('c', { maps: 1, reduces: 1, inputSize: 1, deadline: 200 }), 0);
    if (!c.admitted) throw new Error('not admitted');
    expect(c.estimatedFinish).toBe(5);
    expect(vec(c.state, 1)).toEqual([[1], [5], [1, 1, 1]]);
  });

  it('a CPU job on a model with no CPU map slot is refused as unrunnable, with no deadline search', () => {
    const p = rtmr({
      slotModel: { name: 'mr1', mapSlots: 0, reduceSlots: 1, gpuMapSlots: 3 },
      estimates: EST,
    });
    const r = p.admit(p.initialState(0), job('c', { maps: 8, deadline: 1e6 }), 0);
    expect(r.admitted).toBe(false);
    if (r.admitted) return;
    expect(r.reason).toEqual({
      kind: 'no-usable-slots',
      jobId: 'c',
      deadline: 1e6,
      estimatedFinish: null,
      lateBySeconds: null,
      lane: 'cpu map',
    });
    expect(r.earliestAdmissibleDeadline).toBeNull();
    // A GPU job runs there.
    expect(p.admit(p.initialState(0), job('g', { lane: 'gpu' }), 0).admitted).toBe(true);
    // And a GPU job on a model without GPU map slots is refused the same way.
    const cpuOnly = rtmr({ slotModel: { name: 'mr1', mapSlots: 2, reduceSlots: 1 }, estimates: EST });
    const gr = cpuOnly.admit(cpuOnly.initialState(0), job('g', { lane: 'gpu' }), 0);
    expect(!gr.admitted && gr.reason.kind === 'no-usable-slots' && gr.reason.lane).toBe('gpu map');
  });

  it('a rebuilt lane puts a GPU job running maps in the GPU map slots', () => {
    const g = validateJob(job('g', { maps: 4, reduces: 1, inputSize: 40, lane: 'gpu' }));
    const snap = snapshotFromProgress(oneGpuNode, EST, 5, [
      {
        job: g,
        progress: { mapsDone: 1, mapsRunning: [2, 3], reducesDone: 0, reducesRunning: [], firstStart: 0 },
      },
    ]);
    // eps^m = 10: the running maps hold two GPU slots until 12 and 13; the CPU slot is free.
    expect(snap.slots).toEqual([[5], [5], [5, 12, 13]]);
    const p = rtmr({ slotModel: oneGpuNode, estimates: EST });
    const s = p.fromSnapshot(snap);
    // The last map on the free GPU slot 5..15; the reduce (40 s) 15..55.
    expect(s.entries[0]!.finish).toBe(55);
  });

  it('validation: a lane kind other than cpu or gpu, no map slot at all, GPU map slots for DC and yarn-greedy', () => {
    const issuesOf = (f: () => unknown): string[] => {
      try {
        f();
      } catch (e) {
        if (e instanceof ValidationError) return e.issues.map((i) => `${i.path}: ${i.message}`);
        throw e;
      }
      return [];
    };
    expect(issuesOf(() => validateJob(job('x', { lane: 'fpga' as never })))).toEqual([
      "job.lane: must be 'cpu' or 'gpu'",
    ]);
    expect(issuesOf(() => validateSlotModel({ name: 'mr1', mapSlots: 0, reduceSlots: 1 }))).toEqual([
      'slotModel.mapSlots: must be a whole number >= 1',
    ]);
    expect(
      issuesOf(() => validateSlotModel({ name: 'mr1', mapSlots: 1, reduceSlots: 1, gpuMapSlots: -1 })),
    ).toEqual(['slotModel.gpuMapSlots: must be a whole number >= 0']);
    const noLane = 'slotModel.gpuMapSlots: this policy has no GPU map lane: count every map slot in mapSlots';
    expect(issuesOf(() => dc({ slotModel: oneGpuNode }))).toEqual([noLane]);
    expect(issuesOf(() => createYarnGreedy({ slotModel: oneGpuNode, estimates: EST }))).toEqual([
      `admission.args.${noLane}`,
    ]);
  });
});
