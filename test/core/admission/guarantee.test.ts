import fc from 'fast-check';
import { rtmr, rtmrFifo, rtmrNoFeedback } from '../../../src/core/admission';
import { replay } from '../../../src/core/admission/common/replay';
import { EST, HEAVY, modelArb, workloadArb } from './helpers';

const RUNS = 400;

describe('(b) the guarantee: admitted jobs meet their deadlines when tasks take at most their estimates', () => {
  const variants = [
    [
      'rtmr (EDF, feedback)',
      (m: never) => rtmr({ slotModel: m, estimates: EST, feedbackThresholdSeconds: 0 }),
    ],
    ['rtmr-no-feedback', (m: never) => rtmrNoFeedback({ slotModel: m, estimates: EST })],
    ['rtmr-fifo', (m: never) => rtmrFifo({ slotModel: m, estimates: EST, feedbackThresholdSeconds: 0 })],
  ] as const;
  for (const [name, make] of variants) {
    for (const modelName of ['mr1', 'unified'] as const) {
      it(`${name} on ${modelName}`, () => {
        let mapOnlyAdmitted = 0;
        fc.assert(
          fc.property(
            modelArb.filter((m) => m.name === modelName),
            workloadArb(8),
            (model, { jobs }) => {
              const policy = make(model as never);
              const r = replay(policy, policy.initialState(0), model, jobs);
              expect(r.misses).toEqual([]);
              const mapOnly = new Set(jobs.filter((j) => j.job.reduces === 0).map((j) => j.job.id));
              if (r.outcomes.some((o) => o.admitted && mapOnly.has(o.jobId))) mapOnlyAdmitted++;
            },
          ),
          { numRuns: RUNS },
        );
        // Not vacuous: map-only jobs (R = 0) were admitted, beside jobs with reduces, in many runs.
        expect(mapOnlyAdmitted).toBeGreaterThan(RUNS / 4);
      });
    }
  }
});

describe('(b) per workload class: each job within its own class estimate, none misses', () => {
  const CLASSES = [EST, HEAVY] as const;
  // Every job carries its class's figures. The policy's own are the light class's: were a
  // job's class figures ignored, the heavy jobs would be under-estimated and miss.
  const OWN = EST;
  const variants = [
    ['rtmr', (m: never) => rtmr({ slotModel: m, estimates: OWN, feedbackThresholdSeconds: 0 })],
    ['rtmr-no-feedback', (m: never) => rtmrNoFeedback({ slotModel: m, estimates: OWN })],
    ['rtmr-fifo', (m: never) => rtmrFifo({ slotModel: m, estimates: OWN, feedbackThresholdSeconds: 0 })],
  ] as const;
  for (const [name, make] of variants) {
    it(`${name}: two classes 25x apart in unit cost`, () => {
      let bothAdmitted = 0;
      fc.assert(
        fc.property(modelArb, workloadArb(8, CLASSES), (model, { jobs }) => {
          const policy = make(model as never);
          const r = replay(policy, policy.initialState(0), model, jobs);
          expect(r.misses).toEqual([]);
          const admittedClasses = new Set(
            r.outcomes
              .filter((o) => o.admitted)
              .map((o) => jobs.find((j) => j.job.id === o.jobId)?.job.workloadClass),
          );
          if (admittedClasses.has('c0') && admittedClasses.has('c1')) bothAdmitted++;
        }),
        { numRuns: RUNS },
      );
      // Not vacuous: in many runs jobs of both classes were admitted side by side.
      expect(bothAdmitted).toBeGreaterThan(RUNS / 10);
    });
  }

  it('named example: a compute-bound job no longer makes a light job late (per-class vs cluster-wide)', () => {
    const model = { name: 'unified' as const, containers: 4 };
    // heavy: 1 map on 0.1 MB at 2,400 s/MB = 240 s (the shape of md-run: tiny input, fixed run time)
    const heavyEst = { eta: 1, mapCostMax: 2400, reduceCostMax: 100 };
    const heavy = {
      id: 'md',
      arrival: 0,
      deadline: 600,
      maps: 1,
      reduces: 1,
      inputSize: 0.1,
      workloadClass: 'md',
      estimates: heavyEst,
    };
    // light: 8 maps of 64 MB at 0.5 s/MB = 32 s each.
    const lightEst = { eta: 1, mapCostMax: 0.5, reduceCostMax: 0.5 };
    const light = { id: 'wc', arrival: 1, deadline: 300, maps: 8, reduces: 2, inputSize: 512 };
    const perClass = rtmr({ slotModel: model, estimates: lightEst });
    let s = perClass.initialState(0);
    const r1 = perClass.admit(s, heavy, 0);
    expect(r1.admitted).toBe(true);
    s = r1.state;
    const r2 = perClass.admit(s, { ...light, workloadClass: 'cpu', estimates: lightEst }, 1);
    expect(r2.admitted).toBe(true);
    // EDF puts the light job (deadline 301) ahead of the heavy one (600): its 8 maps of
    // 0.5 * 64 = 32 s run in 2 rounds on the 4 containers from 1 to 65, then its 2 reduces of
    // 0.5 * 512 / 2 = 128 s end at 193.
    if (r2.admitted) expect(r2.estimatedFinish).toBe(193);

    // The same two jobs with one cluster-wide triple (the max over both): the light job's maps
    // are estimated at 2,400 s/MB * 64 MB each and it is rejected.
    const wide = rtmr({ slotModel: model, estimates: heavyEst });
    let w = wide.initialState(0);
    const { estimates: _e, workloadClass: _c, ...heavyPlain } = heavy;
    w = (wide.admit(w, heavyPlain, 0) as { state: typeof w }).state;
    const r3 = wide.admit(w, light, 1, { searchEarliest: false });
    expect(r3.admitted).toBe(false);
    if (!r3.admitted) expect(r3.reason.kind).toBe('new-job-misses');
  });
});
