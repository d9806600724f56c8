import fc from 'fast-check';
import {
  dc,
  nextContainerTask,
  nextReduceTask,
  replay,
  rtmr,
  rtmrFifo,
  fifoAll,
  vectorsAfter,
  type RtmrState,
} from '../../../src/core/admission';
import { ValidationError } from '../../../src/errors/validation';
import { validateJob, type DeadlineJob } from '../../../src/core/job';
import { learnFromFinishedJob, taskEstimates } from '../../../src/core/estimates';
import type { SlotModel } from '../../../src/core/slots/model';
import { EST, job, modelArb } from './helpers';

const vec = (s: RtmrState, i: number): number[][] => vectorsAfter(s, i).map((l) => Array.from(l));
const exact = (j: DeadlineJob, est = EST) => {
  const t = taskEstimates(est, j);
  return {
    job: j,
    mapSeconds: Array(j.maps).fill(t.mapSeconds),
    reduceSeconds: Array(j.reduces).fill(t.reduceSeconds),
  };
};

describe('worked examples (He et al., RTMR, Alg. I-III, by hand)', () => {
  it('Alg. 5.2/5.3: 3 maps of 10 s on 2 map slots, 2 reduces of 5 s on 1 reduce slot', () => {
    const p = rtmr({ slotModel: { name: 'mr1', mapSlots: 2, reduceSlots: 1 }, estimates: EST });
    // inputSize 30 over 3 maps: eps^m = 1 * 10; eps^r = 1 * 1 * 30 / 2 = 15.
    const r = p.admit(p.initialState(0), job('a', { maps: 3, reduces: 2, inputSize: 30, deadline: 100 }), 0);
    expect(r.admitted).toBe(true);
    if (!r.admitted) return;
    // T^m: [0,0] -> [10,0] -> [10,10] -> [20,10]; e^m = 20. T^r: [0] -> 35 -> 50; e = 50.
    expect(vec(r.state, 0)).toEqual([[10, 20], [50]]);
    expect(r.estimatedFinish).toBe(50);
    expect(r.state.entries[0]!.mapEnd).toBe(20);
  });

  it('the same job on unified with 3 containers: reduces drawn from the same vector after the maps', () => {
    const p = rtmr({ slotModel: { name: 'unified', containers: 3 }, estimates: EST });
    const r = p.admit(p.initialState(0), job('a', { maps: 3, reduces: 2, inputSize: 30, deadline: 100 }), 0);
    // maps: [10,10,10], e^m = 10; reduces at max(10,10)+15 = 25 twice -> [10,25,25].
    expect(r.admitted && vec(r.state, 0)).toEqual([[10, 25, 25]]);
    expect(r.admitted && r.estimatedFinish).toBe(25);
  });

  it('a successor is recomputed at insertion and the new job is refused when it would make it miss', () => {
    const p = rtmr({ slotModel: { name: 'mr1', mapSlots: 1, reduceSlots: 1 }, estimates: EST });
    let s = p.initialState(0);
    const a = p.admit(s, job('late', { maps: 1, reduces: 1, inputSize: 10, deadline: 25 }), 0); // 10 + 10 = 20 <= 25
    expect(a.admitted).toBe(true);
    s = a.state;
    const b = p.admit(s, job('early', { maps: 1, reduces: 1, inputSize: 10, deadline: 22 }), 0); // goes first (EDF)
    expect(b).toMatchObject({
      admitted: false,
      reason: {
        kind: 'admitted-job-would-miss',
        jobId: 'late',
        deadline: 25,
        estimatedFinish: 30,
        lateBySeconds: 5,
      },
    });
    expect(b.state).toBe(s);
    // 'early' first: map to 10, reduce to 20; 'late' then: map to 20, reduce max(20, 20) + 10 = 30 > 25.
    // Behind 'late' instead: map to 20, reduce to 30, so D = 30 is the earliest admitted.
    expect(!b.admitted && b.earliestAdmissibleDeadline).toBe(30);
  });
});

describe('He et al., RTMR, section III: the Deadline Constraint scheduler deficiencies', () => {
  const model: SlotModel = { name: 'mr1', mapSlots: 4, reduceSlots: 2 };
  const dcPolicy = dc({ slotModel: model, filterRatio: 1, mapCost: 1, reduceCost: 1, transferCost: 0 });

  it('rejects a job RTMR shows feasible (it wants n_m^min map slots free at the arrival instant)', () => {
    // X takes all 4 map slots until S_r^max = 50 - 40 = 10 (n_m^min = ceil(40/10) = 4).
    const x = job('x', { arrival: 0, maps: 4, reduces: 1, inputSize: 40, deadline: 50 });
    const y = job('y', { arrival: 1, maps: 1, reduces: 1, inputSize: 4, deadline: 60 });
    const d1 = dcPolicy.admit(dcPolicy.initialState(0), x, 0);
    expect(d1.admitted).toBe(true);
    const d2 = dcPolicy.admit(d1.state, y, 1);
    expect(d2).toMatchObject({
      admitted: false,
      reason: { kind: 'dc-map-slots-unavailable', jobId: 'y', slotsNeeded: 1, slotsFree: 0 },
    });
    const p = rtmr({ slotModel: model, estimates: EST });
    const r = replay(p, p.initialState(0), model, [exact(x), exact(y)]);
    expect(r.outcomes.map((o) => [o.jobId, o.admitted, o.finishedAt])).toEqual([
      ['x', true, 50],
      ['y', true, 18],
    ]);
    expect(r.misses).toEqual([]);
  });

  it('accepts a pair where one then misses (it checks reduce slots only at the instant S_r^max)', () => {
    // A: reduces over [50, 100) on both reduce slots. B: S_r^max = 75 - 30 = 45, when A holds none.
    const a = job('a', { arrival: 0, maps: 2, reduces: 2, inputSize: 100, deadline: 100 });
    const b = job('b', { arrival: 1, maps: 2, reduces: 2, inputSize: 60, deadline: 74 });
    const r = replay(dcPolicy, dcPolicy.initialState(0), model, [exact(a), exact(b)]);
    expect(r.outcomes.map((o) => o.admitted)).toEqual([true, true]);
    expect(r.misses.map((o) => [o.jobId, o.deadline, o.finishedAt])).toEqual([['a', 100, 111]]);
    // RTMR refuses B (it would finish at 130 behind A, which has started) and keeps A's promise.
    const p = rtmr({ slotModel: model, estimates: EST });
    const rr = replay(p, p.initialState(0), model, [exact(a), exact(b)]);
    expect(rr.outcomes.map((o) => o.admitted)).toEqual([true, false]);
    expect(rr.misses).toEqual([]);
  });

  it('a job with more reduces than reduce slots: RTMR runs it in waves, DC rejects it', () => {
    const m: SlotModel = { name: 'mr1', mapSlots: 2, reduceSlots: 2 };
    const w = job('waves', { maps: 2, reduces: 5, inputSize: 20, deadline: 40 });
    // maps: 10 s each on 2 slots -> e^m = 10; reduces 4 s each, 3 waves on 2 slots: 14, 18, 22.
    const p = rtmr({ slotModel: m, estimates: EST });
    const r = p.admit(p.initialState(0), w, 0);
    expect(r.admitted && r.estimatedFinish).toBe(22);
    expect(r.admitted && vec(r.state, 0)).toEqual([
      [10, 10],
      [18, 22],
    ]);
    expect(replay(p, p.initialState(0), m, [exact(w)]).outcomes[0]).toMatchObject({
      admitted: true,
      finishedAt: 22,
    });
    const d = dc({ slotModel: m, filterRatio: 1, mapCost: 1, reduceCost: 1 }).admit(
      { kind: 'dc', entries: [] },
      w,
      0,
    );
    expect(d).toMatchObject({
      admitted: false,
      reason: { kind: 'dc-too-many-reduces', slotsNeeded: 5, slotsFree: 2 },
      earliestAdmissibleDeadline: null,
    });
  });
});

describe('reduce reservation (Alg. 5.4)', () => {
  const h = { id: 'h', pendingMaps: 0, runningMaps: 1, pendingReduces: 2 };
  const l = { id: 'l', pendingMaps: 0, runningMaps: 0, pendingReduces: 3 };
  it('the printed boundary lets a lower job take a reserved slot; ours keeps Ra >= reserved', () => {
    // H still maps and needs 2 reduce slots; exactly 2 are free: L must not take one.
    expect(nextReduceTask([h, l], 2)).toBeNull();
    expect(nextReduceTask([h, l], 3)).toEqual({ jobId: 'l', kind: 'reduce' });
    expect(nextReduceTask([l, h], 1)).toEqual({ jobId: 'l', kind: 'reduce' });
  });
  it('unified: a lower job may not take a container owed to a higher job’s reduces, map or reduce', () => {
    const lowMap = { id: 'm', pendingMaps: 4, runningMaps: 0, pendingReduces: 1 };
    expect(nextContainerTask([h, lowMap], 2)).toBeNull();
    expect(nextContainerTask([h, lowMap], 3)).toEqual({ jobId: 'm', kind: 'map' });
    expect(nextContainerTask([lowMap, h], 1)).toEqual({ jobId: 'm', kind: 'map' });
  });
});

const stateArb = (model: SlotModel) =>
  fc
    .array(
      fc.record({
        maps: fc.integer({ min: 1, max: 6 }),
        reduces: fc.integer({ min: 1, max: 5 }),
        split: fc.integer({ min: 1, max: 6 }),
        deadline: fc.integer({ min: 5, max: 80 }),
      }),
      { maxLength: 8 },
    )
    .map((specs) => {
      const p = rtmr({ slotModel: model, estimates: EST });
      let s = p.initialState(0);
      specs.forEach((x, i) => {
        const r = p.admit(
          s,
          job(`q${i}`, {
            maps: x.maps,
            reduces: x.reduces,
            inputSize: x.split * x.maps,
            deadline: x.deadline,
          }),
          0,
          { searchEarliest: false },
        );
        s = r.state;
      });
      return { p, s };
    });
const newJobArb = fc.record({
  maps: fc.integer({ min: 1, max: 8 }),
  reduces: fc.integer({ min: 1, max: 6 }),
  split: fc.integer({ min: 1, max: 8 }),
  deadline: fc.integer({ min: 1, max: 60 }),
});

describe('properties (c) and (d)', () => {
  it('(c) a rejected job leaves the admitted set and its vectors untouched', () => {
    let rejected = 0;
    fc.assert(
      fc.property(
        modelArb.chain((m) => stateArb(m)),
        newJobArb,
        ({ p, s }, x) => {
          const before = s.entries.map((e, i) => [e.job.id, e.finish, e.mapEnd, vec(s, i)]);
          const r = p.admit(
            s,
            job('new', {
              maps: x.maps,
              reduces: x.reduces,
              inputSize: x.split * x.maps,
              deadline: x.deadline,
            }),
            0,
          );
          if (r.admitted) return;
          rejected++;
          expect(r.state).toBe(s);
          expect(s.entries.map((e, i) => [e.job.id, e.finish, e.mapEnd, vec(s, i)])).toEqual(before);
        },
      ),
      { numRuns: 300 },
    );
    expect(rejected).toBeGreaterThan(50);
  });

  it('(d) the earliest admissible deadline is admitted and one second earlier is not', () => {
    let checked = 0;
    fc.assert(
      fc.property(
        modelArb.chain((m) => stateArb(m)),
        newJobArb,
        ({ p, s }, x) => {
          const j = job('new', {
            maps: x.maps,
            reduces: x.reduces,
            inputSize: x.split * x.maps,
            deadline: x.deadline,
          });
          const r = p.admit(s, j, 0);
          if (r.admitted) return;
          const d = r.earliestAdmissibleDeadline;
          expect(d).not.toBeNull();
          checked++;
          expect(p.admit(s, { ...j, deadline: d! }, 0).admitted).toBe(true);
          if (d! > 1) expect(p.admit(s, { ...j, deadline: d! - 1 }, 0).admitted).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
    expect(checked).toBeGreaterThan(50);
  });
});

describe('bad input is a ValidationError naming the field, never NaN in a vector', () => {
  const p = rtmr({ slotModel: { name: 'unified', containers: 4 }, estimates: EST });
  const good = { id: 'j', arrival: 0, deadline: 10, maps: 2, reduces: 1, inputSize: 8 };
  const cases: [string, Record<string, unknown>, string][] = [
    ['zero deadline', { deadline: 0 }, 'job.deadline'],
    ['negative deadline', { deadline: -5 }, 'job.deadline'],
    ['zero maps', { maps: 0 }, 'job.maps'],
    ['fractional maps', { maps: 1.5 }, 'job.maps'],
    ['negative reduces', { reduces: -1 }, 'job.reduces'],
    ['fractional reduces', { reduces: 2.5 }, 'job.reduces'],
    ['NaN input size', { inputSize: NaN }, 'job.inputSize'],
    ['infinite input size', { inputSize: Infinity }, 'job.inputSize'],
    ['negative input size', { inputSize: -1 }, 'job.inputSize'],
    ['splits not adding up', { mapSplits: [3, 4] }, 'job.mapSplits'],
    ['negative split', { mapSplits: [10, -2] }, 'job.mapSplits[1]'],
    ['non-finite split', { mapSplits: [Infinity, 1] }, 'job.mapSplits[0]'],
    ['wrong number of splits', { mapSplits: [8] }, 'job.mapSplits'],
    ['non-finite arrival', { arrival: NaN }, 'job.arrival'],
  ];
  it.each(cases)('%s', (_name, patch, path) => {
    const s = p.initialState(0);
    let err: unknown;
    try {
      p.admit(s, { ...good, ...patch } as unknown as DeadlineJob, 0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).paths).toContain(path);
    expect(s.entries).toEqual([]);
  });
  it('collects every bad field at once', () => {
    expect(() =>
      validateJob({ id: '', arrival: 0, deadline: 0, maps: 0.5, reduces: -1, inputSize: NaN }),
    ).toThrow(
      expect.objectContaining({
        paths: ['job.id', 'job.deadline', 'job.maps', 'job.reduces', 'job.inputSize'],
      }),
    );
  });
  it('a valid job with splits uses the largest split for eps^m', () => {
    const r = p.admit(p.initialState(0), { ...good, deadline: 100, mapSplits: [2, 6] }, 0);
    expect(r.admitted && r.state.entries[0]!.work.mapSeconds).toBe(6);
  });
});

describe('state operations', () => {
  const model: SlotModel = { name: 'mr1', mapSlots: 2, reduceSlots: 1 };
  it('rebuilds from a snapshot of a running cluster: running maps hold their slots, pending work is placed at now', () => {
    const p = rtmr({ slotModel: model, estimates: EST });
    // At now = 5: job a (4 maps of 10 s) has 1 map done, 2 running (started at 0 and 2), 1 pending.
    const s = p.fromSnapshot({
      now: 5,
      slots: [[10, 12], [5]],
      queue: [
        {
          job: job('b', { arrival: 3, maps: 1, reduces: 1, inputSize: 4, deadline: 100 }),
          mapsDone: 0,
          mapsRunning: [],
          reducesDone: 0,
          reducesRunning: [],
        },
        {
          job: job('a', { maps: 4, reduces: 1, inputSize: 40, deadline: 100 }),
          mapsDone: 1,
          mapsRunning: [0, 2],
          reducesDone: 0,
          reducesRunning: [],
        },
      ],
    });
    expect(s.entries.map((e) => [e.job.id, e.started])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    // a: pending map on the slot free at 10 -> 20; e^m = max(20, 12) = 20; reduce 40 s -> 60.
    expect(vec(s, 0)).toEqual([[12, 20], [60]]);
    expect(s.entries[0]!.finish).toBe(60);
    // b: map 4 s on the slot free at 12 -> 16; reduce 4 s after a's -> 64.
    expect(s.entries[1]!.finish).toBe(64);
  });

  it('a snapshot of a fresh queue gives the same records as growing it by admissions', () => {
    const p = rtmr({ slotModel: model, estimates: EST });
    let s = p.initialState(0);
    const jobs = [
      job('x', { maps: 3, inputSize: 9, deadline: 90 }),
      job('y', { maps: 2, reduces: 2, inputSize: 4, deadline: 60 }),
    ];
    for (const j of jobs) s = p.admit(s, j, 0).state;
    const snap = p.fromSnapshot({
      now: 0,
      slots: [[0, 0], [0]],
      queue: jobs.map((j) => ({ job: j, mapsDone: 0, mapsRunning: [], reducesDone: 0, reducesRunning: [] })),
    });
    expect(snap.entries.map((e, i) => [e.job.id, e.finish, vec(snap, i)])).toEqual(
      s.entries.map((e, i) => [e.job.id, e.finish, vec(s, i)]),
    );
  });

  it('rejects a snapshot with bad shapes, naming each field', () => {
    const p = rtmr({ slotModel: model, estimates: EST });
    expect(() =>
      p.fromSnapshot({
        now: 0,
        slots: [[0], [NaN]],
        queue: [
          { job: job('a', { maps: 2 }), mapsDone: 3, mapsRunning: [], reducesDone: 0, reducesRunning: [] },
        ],
      }),
    ).toThrow(
      expect.objectContaining({
        paths: expect.arrayContaining([
          'snapshot.slots[0]',
          'snapshot.slots[1][0]',
          'snapshot.queue[0].mapsDone',
        ]),
      }),
    );
  });

  it('EDF never queues a new job ahead of a started one; FIFO appends', () => {
    const p = rtmr({ slotModel: model, estimates: EST });
    let s = p.admit(p.initialState(0), job('a', { deadline: 100 }), 0).state;
    s = p.markStarted(s, 'a');
    const r = p.admit(s, job('b', { deadline: 50 }), 0);
    expect(r.admitted && r.position).toBe(1);
    const f = rtmrFifo({ slotModel: model, estimates: EST });
    const s2 = f.admit(f.initialState(0), job('a', { deadline: 100 }), 0).state;
    expect(f.queue(f.admit(s2, job('b', { deadline: 50 }), 0).state).map((j) => j.id)).toEqual(['a', 'b']);
  });

  it('feedback (Alg. 5.5-5.6) rebuilds the finished job from actual times and lets a later job in; without it the stale estimate refuses it', () => {
    const withFb = rtmr({ slotModel: model, estimates: EST, feedbackThresholdSeconds: 5 });
    const noFb = rtmr({ slotModel: model, estimates: EST, feedback: false });
    const a = job('a', { maps: 2, reduces: 1, inputSize: 40, deadline: 200 }); // est: maps to 20, reduce 40 -> 60
    const b = job('b', { maps: 2, reduces: 1, inputSize: 40, deadline: 200 }); // behind a: 40, reduce -> 100
    // c goes behind b (started). After SATU: a = [4, 5] / [10]; b recomputed at 10: maps to 30, reduce
    // to 70; c: maps to 40, reduce to 90 <= 10 + 80. Without feedback b's stale record ends at 100: c at 120.
    const c = job('c', { arrival: 10, maps: 2, reduces: 1, inputSize: 20, deadline: 80 });
    for (const [pol, admitted] of [
      [withFb, true],
      [noFb, false],
    ] as const) {
      let s = pol.admit(pol.initialState(0), a, 0).state;
      s = pol.admit(s, b, 0).state;
      s = pol.markStarted(pol.markStarted(s, 'a'), 'b');
      // a actually finished at 10 (maps at 4, 5; reduce at 10): |60 - 10| > 5 triggers SATU.
      s = pol.complete(s, 'a', { mapFinishTimes: [4, 5], reduceFinishTimes: [10], finishedAt: 10 }, 10);
      expect(pol.queue(s).map((j) => j.id)).toEqual(['b']);
      expect(pol.admit(s, c, 10).admitted).toBe(admitted);
    }
  });

  it('fifo-all accepts a job that will miss and still reports its estimated finish', () => {
    const p = fifoAll({ slotModel: model, estimates: EST });
    const r = p.admit(p.initialState(0), job('x', { maps: 4, inputSize: 40, deadline: 5 }), 0);
    expect(r).toMatchObject({ admitted: true, estimatedFinish: 60 });
  });
});

describe('estimates learning (He et al., RTMR, IV.A)', () => {
  it('eta and the worst unit costs only grow, zero-size tasks are skipped', () => {
    const e = learnFromFinishedJob(EST, {
      inputSize: 100,
      intermediateSize: 150,
      mapTasks: [
        { size: 50, seconds: 100 },
        { size: 0, seconds: 3 },
      ],
      reduceTasks: [{ size: 150, seconds: 30 }],
    });
    expect(e).toEqual({ eta: 1.5, mapCostMax: 2, reduceCostMax: 1 });
    expect(() =>
      learnFromFinishedJob(EST, { inputSize: -1, intermediateSize: 0, mapTasks: [], reduceTasks: [] }),
    ).toThrow(ValidationError);
  });
});
