import fc from 'fast-check';
import { dc, dcPlan, dcReduceSlots, rtmr, type DcOptions } from '../../src/core/admission';
import { createYarnGreedy } from '../../src/core/admission/yarn-greedy';
import {
  bookOf,
  classOf,
  estimatesOf,
  learnForClass,
  validateEstimateBook,
  validateLearnedEstimates,
  withClass,
  withLearned,
} from '../../src/core/estimate-book';
import { taskEstimates, type Estimates, type FinishedJobObservation } from '../../src/core/estimates';
import { validateJob, type DeadlineJob } from '../../src/core/job';
import { issuesOf } from '../validation-issues';

const LIGHT: Estimates = { eta: 1, mapCostMax: 0.5, reduceCostMax: 0.5 };
const HEAVY: Estimates = { eta: 1, mapCostMax: 4000, reduceCostMax: 200 };

const base: DeadlineJob = { id: 'j', arrival: 0, deadline: 600, maps: 4, reduces: 2, inputSize: 256 };

const estArb = fc.record({
  eta: fc.double({ min: 0, max: 10, noNaN: true }),
  mapCostMax: fc.double({ min: 0, max: 5000, noNaN: true }),
  reduceCostMax: fc.double({ min: 0, max: 5000, noNaN: true }),
});

const obsArb: fc.Arbitrary<FinishedJobObservation> = fc.record({
  inputSize: fc.double({ min: 0, max: 1000, noNaN: true }),
  intermediateSize: fc.double({ min: 0, max: 1000, noNaN: true }),
  mapTasks: fc.array(
    fc.record({
      size: fc.double({ min: 0, max: 100, noNaN: true }),
      seconds: fc.double({ min: 0, max: 900, noNaN: true }),
    }),
    { maxLength: 6 },
  ),
  reduceTasks: fc.array(
    fc.record({
      size: fc.double({ min: 0, max: 100, noNaN: true }),
      seconds: fc.double({ min: 0, max: 900, noNaN: true }),
    }),
    { maxLength: 6 },
  ),
});

describe('a job carries its class and its class figures', () => {
  it('validateJob keeps workloadClass and estimates, frozen', () => {
    const j = validateJob({ ...base, workloadClass: 'md-run', estimates: HEAVY });
    expect(j.workloadClass).toBe('md-run');
    expect(j.estimates).toEqual(HEAVY);
    expect(Object.isFrozen(j.estimates)).toBe(true);
  });

  it('rejects a bad class name and bad class figures, naming the fields', () => {
    expect(
      issuesOf(() =>
        validateJob({
          ...base,
          workloadClass: 'Has Space',
          estimates: { eta: 1, mapCostMax: -1, reduceCostMax: NaN },
        }),
      ).map((i) => i.path),
    ).toEqual(['job.workloadClass', 'job.estimates.mapCostMax', 'job.estimates.reduceCostMax']);
    expect(issuesOf(() => validateJob({ ...base, workloadClass: '' }))[0]!.path).toBe('job.workloadClass');
    expect(issuesOf(() => validateJob({ ...base, workloadClass: 'x'.repeat(65) }))[0]!.path).toBe(
      'job.workloadClass',
    );
  });

  it('taskEstimates reads the job figures when it has them, the defaults otherwise (Alg. 5.2 l.1, 5.3 l.2)', () => {
    // eps^m = c_m^max * 64 MB; eps^r = c_r^max * eta * 256 / 2
    expect(taskEstimates(LIGHT, base)).toEqual({ mapSeconds: 32, reduceSeconds: 64 });
    expect(taskEstimates(LIGHT, { ...base, estimates: HEAVY })).toEqual({
      mapSeconds: 256_000,
      reduceSeconds: 25_600,
    });
  });
});

describe('EstimateBook', () => {
  const book = bookOf(LIGHT, { gpu: { eta: 2, mapCostMax: 0.1, reduceCostMax: 0.2 } });

  it('a class is its workloadClass when given, else the job type', () => {
    expect(classOf('cpu')).toBe('cpu');
    expect(classOf('adaptive', null)).toBe('adaptive');
    expect(classOf('gpu', 'md-run')).toBe('md-run');
  });

  it('a class without figures of its own reads the default; a prototype member name is no class', () => {
    expect(estimatesOf(book, 'gpu')).toEqual({ eta: 2, mapCostMax: 0.1, reduceCostMax: 0.2 });
    expect(estimatesOf(book, 'cpu')).toBe(LIGHT);
    expect(estimatesOf(book, 'constructor')).toBe(LIGHT);
    expect(estimatesOf(book, 'tostring')).toBe(LIGHT);
    expect(withClass(base, 'gpu', book)).toEqual({
      ...base,
      workloadClass: 'gpu',
      estimates: book.classes.gpu,
    });
  });

  it('learning from md-run (60 KB, one 240 s map) raises md-run only', () => {
    const md: FinishedJobObservation = {
      inputSize: 60 / 1024,
      intermediateSize: 0.01,
      mapTasks: [{ size: 60 / 1024, seconds: 240 }],
      reduceTasks: [{ size: 0.01, seconds: 20 }],
    };
    const after = learnForClass(book, 'md-run', md);
    expect(after.classes['md-run']!.mapCostMax).toBeCloseTo(4096, 6);
    expect(after.classes['md-run']!.reduceCostMax).toBeCloseTo(2000, 6);
    expect(after.default).toBe(LIGHT);
    expect(after.classes.gpu).toBe(book.classes.gpu);
    expect(estimatesOf(after, 'cpu')).toBe(LIGHT);
  });

  it('property: learning changes the finished job class only, and only upwards', () => {
    fc.assert(
      fc.property(
        estArb,
        fc.dictionary(fc.constantFrom('cpu', 'gpu', 'adaptive', 'md-run'), estArb),
        fc.constantFrom('cpu', 'gpu', 'adaptive', 'md-run', 'etl'),
        obsArb,
        (def, classes, cls, obs) => {
          const b = bookOf(def, classes);
          const a = learnForClass(b, cls, obs);
          expect(a.default).toEqual(b.default);
          for (const other of new Set([...Object.keys(b.classes), 'cpu', 'gpu', 'etl'])) {
            if (other !== cls) expect(estimatesOf(a, other)).toEqual(estimatesOf(b, other));
          }
          const before = estimatesOf(b, cls);
          const now = estimatesOf(a, cls);
          expect(now.eta).toBeGreaterThanOrEqual(before.eta);
          expect(now.mapCostMax).toBeGreaterThanOrEqual(before.mapCostMax);
          expect(now.reduceCostMax).toBeGreaterThanOrEqual(before.reduceCostMax);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('migration: an old single triple loads as the default, with no class of its own', () => {
    const old = { eta: 1.5, mapCostMax: 3, reduceCostMax: 4 };
    const b = validateEstimateBook(old);
    expect(b.default).toEqual(old);
    expect(b.classes).toEqual({});
    expect(estimatesOf(b, 'cpu')).toEqual(old);
  });

  it('learned figures win over configured ones class by class; only a legacy triple sets the default', () => {
    const configured = bookOf(LIGHT, { gpu: HEAVY, cpu: LIGHT });
    const learned = validateLearnedEstimates({
      classes: { cpu: { eta: 1, mapCostMax: 0.7, reduceCostMax: 0.5 } },
    });
    expect(learned.default).toBeUndefined();
    const b = withLearned(configured, learned);
    expect(b.default).toBe(LIGHT);
    expect(estimatesOf(b, 'gpu')).toBe(HEAVY);
    expect(estimatesOf(b, 'cpu').mapCostMax).toBe(0.7);
    const legacy = validateLearnedEstimates({ eta: 1, mapCostMax: 4096, reduceCostMax: 2000 });
    expect(withLearned(configured, legacy).default).toEqual({
      eta: 1,
      mapCostMax: 4096,
      reduceCostMax: 2000,
    });
    expect(estimatesOf(withLearned(configured, legacy), 'gpu')).toBe(HEAVY);
  });

  it('round trip through JSON (the ledger stores it so), and errors name their path', () => {
    const learned = learnForClass(book, 'cpu', {
      inputSize: 10,
      intermediateSize: 5,
      mapTasks: [{ size: 10, seconds: 9 }],
      reduceTasks: [],
    });
    expect(validateEstimateBook(JSON.parse(JSON.stringify(learned)))).toEqual(learned);
    expect(
      issuesOf(() =>
        validateEstimateBook({ default: LIGHT, classes: { 'Bad Name': LIGHT, ok: { eta: 'x' } } }),
      ).map((i) => i.path),
    ).toEqual([
      'estimates.classes.Bad Name',
      'estimates.classes.ok.eta',
      'estimates.classes.ok.mapCostMax',
      'estimates.classes.ok.reduceCostMax',
    ]);
    expect(issuesOf(() => validateEstimateBook({ classes: {} }))[0]!.path).toBe('estimates.default');
    expect(issuesOf(() => validateEstimateBook([]))[0]!.path).toBe('estimates');
  });
});

describe('every policy reads the class figures on one code path', () => {
  const dcOptions: DcOptions = {
    slotModel: { name: 'mr1', mapSlots: 8, reduceSlots: 8 },
    filterRatio: 1,
    mapCost: 0.5,
    reduceCost: 0.5,
    transferCost: 0,
  };

  it('property: DC plans a job with class figures as DC built with those costs (Kc and Anyanwu, DC, III.A)', () => {
    fc.assert(
      fc.property(
        estArb,
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 6 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 100_000, noNaN: true }),
        (e, maps, reduces, input, deadline, doneAt) => {
          const j: DeadlineJob = { id: 'x', arrival: 0, deadline, maps, reduces, inputSize: input };
          const own: DcOptions = {
            ...dcOptions,
            filterRatio: e.eta,
            mapCost: e.mapCostMax,
            reduceCost: e.reduceCostMax,
          };
          expect(dcPlan(dcOptions, { ...j, estimates: e })).toEqual(dcPlan(own, j));
          expect(dcReduceSlots(dcOptions, { ...j, estimates: e }, doneAt)).toBe(
            dcReduceSlots(own, j, doneAt),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('DC admits a light job beside a compute-bound one when each has its class figures', () => {
    const p = dc({ ...dcOptions, mapCost: HEAVY.mapCostMax, reduceCost: HEAVY.reduceCostMax });
    const light: DeadlineJob = { ...base, id: 'light' };
    // With the policy's (heavy) costs: n_m^min = ceil(256 * 4000 / (600 - 256 * 200 / 2)) -> no time.
    const r0 = p.admit(p.initialState(0), light, 0, { searchEarliest: false });
    expect(r0.admitted).toBe(false);
    if (!r0.admitted) expect(r0.reason.kind).toBe('dc-no-time-for-maps');
    // With its class figures: S_r^max = 600 - 256 * 0.5 / 2 = 536, n_m^min = ceil(128 / 536) = 1.
    const r1 = p.admit(p.initialState(0), { ...light, estimates: LIGHT }, 0);
    expect(r1.admitted).toBe(true);
    if (r1.admitted) expect(r1.state.entries[0]).toMatchObject({ mapSlots: 1, reduceStart: 536 });
  });

  it('yarn-greedy and rtmr judge a job with class figures as if they were the policy own', () => {
    const model = { name: 'mr1' as const, mapSlots: 4, reduceSlots: 2 };
    const j: DeadlineJob = { ...base, deadline: 400 };
    for (const make of [
      (e: Estimates) => createYarnGreedy({ slotModel: model, estimates: e, planStepSeconds: 1 }),
      (e: Estimates) => rtmr({ slotModel: model, estimates: e }),
    ]) {
      const withOwn = make(LIGHT);
      const viaJob = make(HEAVY);
      const a = withOwn.admit(withOwn.initialState(0) as never, j, 0);
      const b = viaJob.admit(viaJob.initialState(0) as never, { ...j, estimates: LIGHT }, 0);
      expect(b.admitted).toBe(true);
      expect({ ...b, state: undefined }).toEqual({ ...a, state: undefined });
      const c = viaJob.admit(viaJob.initialState(0) as never, j, 0, { searchEarliest: false });
      expect(c.admitted).toBe(false);
    }
  });
});
