import fc from 'fast-check';
import { taskEstimates, type Estimates, type FinishedJobObservation } from '../../src/core/estimates';
import {
  DEFAULT_LEARNING,
  estimatesFromSamples,
  flooredSample,
  learnJob,
  validateClassLearning,
  validateLearningOptions,
  type ClassLearning,
} from '../../src/core/learning';
import { rtmr } from '../../src/core/admission';
import { ValidationError } from '../../src/errors/validation';
import { issuesOf } from '../validation-issues';

/** The doc comment's configured figures: f = 2 s, c = 0.5 s/MB. */
const CONF: Estimates = {
  eta: 1,
  mapCostMax: 0.5,
  reduceCostMax: 0.5,
  mapTaskSeconds: 2,
  reduceTaskSeconds: 2,
};
const NONE: ClassLearning = { samples: [] };
const obs = (
  maps: Array<[number, number]>,
  reduces: Array<[number, number]> = [],
): FinishedJobObservation => ({
  inputSize: maps.reduce((a, [mb]) => a + mb, 0),
  mapTasks: maps.map(([size, seconds]) => ({ size, seconds })),
  reduceTasks: reduces.map(([size, seconds]) => ({ size, seconds })),
});

describe('zero-input jobs (core)', () => {
  it('a job of no input is estimated at its floors, never 0 s, and RTMR refuses it a deadline below them', () => {
    const job = { id: 'z', arrival: 0, deadline: 3, maps: 4, reduces: 1, inputSize: 0 };
    expect(taskEstimates(CONF, job)).toEqual({ mapSeconds: 2, reduceSeconds: 2 });
    const policy = rtmr({ slotModel: { name: 'unified', containers: 8 }, estimates: CONF });
    const r = policy.admit(policy.initialState(0), job, 0);
    expect(r).toMatchObject({ admitted: false, reason: { kind: 'new-job-misses', estimatedFinish: 4 } });
    expect(policy.admit(policy.initialState(0), { ...job, deadline: 4 }, 0)).toMatchObject({
      admitted: true,
      estimatedFinish: 4,
    });
    // The papers' figures (no floor): 0 s, admitted for any deadline.
    const paper = rtmr({
      slotModel: { name: 'unified', containers: 8 },
      estimates: { eta: 1, mapCostMax: 0.5, reduceCostMax: 0.5 },
    });
    expect(paper.admit(paper.initialState(0), { ...job, deadline: 0.001 }, 0)).toMatchObject({
      admitted: true,
      estimatedFinish: 0,
    });
  });
});

describe('floored learning: the worked example of src/core/learning.ts', () => {
  it('a 1 byte map of 10 s teaches the floor 4 s (2x bound), not the cost per MB', () => {
    const r = learnJob(CONF, CONF, NONE, obs([[1 / 1048576, 10]]), DEFAULT_LEARNING);
    expect(r.estimates).toMatchObject({ mapCostMax: 0.5, mapTaskSeconds: 4 });
    expect(r.learning.samples).toHaveLength(1);
  });

  it('64 MB maps of up to 100 s then teach c_m = min((100 - 4) / 64, 1) = 1 s/MB', () => {
    const first = learnJob(CONF, CONF, NONE, obs([[1 / 1048576, 10]]), DEFAULT_LEARNING);
    const second = learnJob(
      CONF,
      first.estimates,
      first.learning,
      obs([
        [64, 100],
        [64, 50],
      ]),
      DEFAULT_LEARNING,
    );
    expect(second.estimates).toMatchObject({ mapCostMax: 1, mapTaskSeconds: 4 });
  });

  it('after windowJobs jobs within the configured figures both are back at 2 s and 0.5 s/MB', () => {
    const opts = { ...DEFAULT_LEARNING, windowJobs: 100 };
    let cur = learnJob(CONF, CONF, NONE, obs([[64, 200]]), opts);
    expect(cur.estimates.mapCostMax).toBe(1);
    const trace: number[] = [];
    for (let i = 0; i < 100; i++) {
      cur = learnJob(CONF, cur.estimates, cur.learning, obs([[64, 20]]), opts);
      trace.push(cur.estimates.mapCostMax);
    }
    expect(trace.slice(0, 99).every((c) => c === 1)).toBe(true);
    expect(trace[99]).toBe(0.5);
    expect(cur.learning.samples).toHaveLength(100);
  });

  it('windowJobs 0 never comes down: the samples fold into one running maximum', () => {
    const opts = { ...DEFAULT_LEARNING, windowJobs: 0 };
    let cur = learnJob(CONF, CONF, NONE, obs([[64, 200]]), opts);
    for (let i = 0; i < 5; i++) cur = learnJob(CONF, cur.estimates, cur.learning, obs([[64, 20]]), opts);
    expect(cur.estimates.mapCostMax).toBe(1);
    expect(cur.learning.samples).toHaveLength(1);
  });

  it('the papers’ rule: the tiny job sets c_m^max to its seconds per MB, for ever', () => {
    const paper = { ...DEFAULT_LEARNING, model: 'paper' as const };
    const r = learnJob(CONF, CONF, NONE, obs([[1 / 1048576, 1.7]]), paper);
    expect(r.estimates.mapCostMax).toBeCloseTo(1.7 * 1048576, 3);
    expect(r.estimates.mapTaskSeconds).toBe(2);
  });
});

describe("floored learning: a job's time outside its tasks", () => {
  const WITH: Estimates = { ...CONF, setupSeconds: 10, commitSeconds: 5, amContainers: 1 };
  const seen = (setupSeconds?: number, commitSeconds?: number): FinishedJobObservation => ({
    ...obs([[64, 20]]),
    ...(setupSeconds === undefined ? {} : { setupSeconds }),
    ...(commitSeconds === undefined ? {} : { commitSeconds }),
  });

  it('a job whose set-up took 14 s and commit 3 s raises the set-up to 14 s and leaves the commit at 5 s', () => {
    const r = learnJob(WITH, WITH, NONE, seen(14, 3), DEFAULT_LEARNING);
    expect(r.estimates).toMatchObject({ setupSeconds: 14, commitSeconds: 5, amContainers: 1 });
  });

  it('one job raises them at most maxGrowthPerJob times (a 60 s set-up: 20 s), and later faster jobs bring them down', () => {
    const opts = { ...DEFAULT_LEARNING, windowJobs: 3 };
    let r = learnJob(WITH, WITH, NONE, seen(60, 40), opts);
    expect(r.estimates).toMatchObject({ setupSeconds: 20, commitSeconds: 10 });
    for (let i = 0; i < 3; i++) r = learnJob(WITH, r.estimates, r.learning, seen(8, 2), opts);
    // Never below the configured figures.
    expect(r.estimates).toMatchObject({ setupSeconds: 10, commitSeconds: 5 });
  });

  it('a job whose times outside its tasks are unknown teaches nothing of them', () => {
    const r = learnJob(WITH, WITH, NONE, seen(), DEFAULT_LEARNING);
    expect(r.estimates).toMatchObject({ setupSeconds: 10, commitSeconds: 5 });
  });

  it('a negative or non-finite one is a typed error naming it', () => {
    expect(
      issuesOf(() => learnJob(WITH, WITH, NONE, seen(-1, Number.NaN), DEFAULT_LEARNING)).map((i) => i.path),
    ).toEqual(['observation.setupSeconds', 'observation.commitSeconds']);
  });
});

describe('floored learning: properties', () => {
  const estArb = fc.record({
    eta: fc.double({ min: 0.1, max: 2, noNaN: true }),
    mapCostMax: fc.double({ min: 0.01, max: 5, noNaN: true }),
    reduceCostMax: fc.double({ min: 0.01, max: 5, noNaN: true }),
    mapTaskSeconds: fc.double({ min: 0.1, max: 30, noNaN: true }),
    reduceTaskSeconds: fc.double({ min: 0.1, max: 30, noNaN: true }),
  });
  const tasksArb = fc.array(
    fc.tuple(fc.double({ min: 0, max: 512, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true })),
    { minLength: 1, maxLength: 20 },
  );

  it('one job never raises a figure past maxGrowthPerJob times its value, nor lowers one below the configured', () => {
    fc.assert(
      fc.property(
        estArb,
        tasksArb,
        tasksArb,
        fc.double({ min: 1, max: 4, noNaN: true }),
        (conf, maps, reduces, g) => {
          const opts = { ...DEFAULT_LEARNING, maxGrowthPerJob: g };
          const r = learnJob(conf, conf, NONE, obs(maps, reduces), opts);
          for (const k of ['mapCostMax', 'reduceCostMax', 'mapTaskSeconds', 'reduceTaskSeconds'] as const) {
            expect(r.estimates[k]!).toBeLessThanOrEqual(conf[k] * g * (1 + 1e-12));
            expect(r.estimates[k]!).toBeGreaterThanOrEqual(conf[k]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tasks within their estimates teach nothing: the figures stay the configured ones', () => {
    fc.assert(
      fc.property(estArb, tasksArb, fc.double({ min: 0, max: 1, noNaN: true }), (conf, maps, k) => {
        // Each task at a fraction k of its own estimate f + c * size.
        const within = maps.map(([size]): [number, number] => [
          size,
          k * (conf.mapTaskSeconds + conf.mapCostMax * size),
        ]);
        const r = learnJob(conf, conf, NONE, obs(within), DEFAULT_LEARNING);
        expect(r.estimates.mapCostMax).toBeCloseTo(conf.mapCostMax, 9);
        expect(r.estimates.mapTaskSeconds).toBeCloseTo(conf.mapTaskSeconds, 9);
      }),
      { numRuns: 300 },
    );
  });

  it('the figures are the configured ones raised to the samples, whatever their order', () => {
    const s1 = flooredSample(CONF, obs([[64, 100]]), DEFAULT_LEARNING);
    const s2 = flooredSample(CONF, obs([[1e-6, 3]]), DEFAULT_LEARNING);
    expect(estimatesFromSamples(CONF, [s1, s2])).toEqual(estimatesFromSamples(CONF, [s2, s1]));
    expect(estimatesFromSamples(CONF, [])).toBe(CONF);
  });
});

describe('learning: bad input is a typed error', () => {
  it('options out of range name each key', () => {
    const bad = { model: 'x' as 'paper', tinyTaskMb: -1, maxGrowthPerJob: 0.5, windowJobs: 1.5 };
    expect(issuesOf(() => validateLearningOptions(bad)).map((i) => i.path)).toEqual([
      'learning.model',
      'learning.tinyTaskMb',
      'learning.maxGrowthPerJob',
      'learning.windowJobs',
    ]);
    expect(validateLearningOptions(DEFAULT_LEARNING)).toEqual(DEFAULT_LEARNING);
  });

  it('a negative task time, and samples that are not estimates', () => {
    expect(() => learnJob(CONF, CONF, NONE, obs([[1, -1]]), DEFAULT_LEARNING)).toThrow(ValidationError);
    expect(() => validateClassLearning({ samples: [{ eta: 1 }] })).toThrow(ValidationError);
    expect(() => validateClassLearning([])).toThrow(ValidationError);
    expect(validateClassLearning({ samples: [CONF] }).samples).toEqual([CONF]);
  });
});
