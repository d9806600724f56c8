import fc from 'fast-check';
import { rtmr } from '../../src/core/admission';
import type { Estimates } from '../../src/core/estimates';
import {
  DEFAULT_PROFILE_OPTIONS,
  EMPTY_PROFILE_BOOK,
  errorFactor,
  estimateFor,
  learnProfile,
  nearestRank,
  normaliseJobName,
  profileFigures,
  profileKeyOf,
  runError,
  theilSen,
  validateProfileBook,
  validateProfileOptions,
  type JobProfile,
  type ProfileRun,
} from '../../src/core/profiles';
import { ValidationError } from '../../src/errors/validation';
import { issuesOf } from '../validation-issues';

/** The worked examples' options: 3 errors needed before their quantile alone judges. */
const O = { ...DEFAULT_PROFILE_OPTIONS, minErrorSamples: 3 };
const CLASS: Estimates = {
  eta: 1,
  mapCostMax: 0.5,
  reduceCostMax: 0.5,
  mapTaskSeconds: 5,
  reduceTaskSeconds: 5,
  setupSeconds: 10,
  commitSeconds: 5,
  amContainers: 1,
};
const run = (over: Partial<ProfileRun> = {}): ProfileRun => ({
  maps: 2,
  reduces: 1,
  mapMb: 64,
  mapSeconds: 10,
  reduceMb: 128,
  reduceSeconds: 20,
  setupSeconds: 12,
  commitSeconds: 3,
  ...over,
});
const profileOf = (runs: ProfileRun[]): JobProfile => ({ runs, totalRuns: runs.length });

describe('profiles of recurring jobs', () => {
  describe('identity', () => {
    it('strips ids, dates and numbers from a job name', () => {
      expect(normaliseJobName('WordCount 2026-11-29 part-00017')).toBe('wordcount part');
      expect(normaliseJobName('wordcount 2026-11-30 part-3')).toBe('wordcount part');
      expect(normaliseJobName('etl for application_1700000000000_0042 run 7')).toBe('etl for run');
      expect(normaliseJobName('hadoop-mapreduce-examples-3.4.2.jar')).toBe('hadoop-mapreduce-examples-jar');
      expect(normaliseJobName('load 3f2a9c1d7e8b on 5c9e2f3a-1b2c-4d5e-8f90-123456789abc')).toBe('load on');
      expect(normaliseJobName('12345')).toBe('job');
      // A word of hex letters alone is a word, not an id.
      expect(normaliseJobName('feedface deadbeef')).toBe('feedface deadbeef');
    });

    it('keys a profile by name, user and queue, or by the name given', () => {
      expect(profileKeyOf({ name: 'Daily ETL 2026-11-29', user: 'alice', queue: 'realtime' })).toBe(
        'daily-etl@alice/realtime',
      );
      expect(profileKeyOf({ profile: 'etl', name: 'x', user: 'alice', queue: 'q' })).toBe('etl');
    });

    it('keeps a long name bounded', () => {
      expect(normaliseJobName('a'.repeat(10_000)).length).toBe(96);
    });
  });

  describe('Theil-Sen', () => {
    it("fits the doc comment's runs: 10 s over 64 MB and 18 s over 128 MB is 2 s + 0.125 s/MB", () => {
      expect(
        theilSen(
          [
            { x: 64, y: 10 },
            { x: 128, y: 18 },
          ],
          9,
        ),
      ).toEqual({ slope: 0.125, intercept: 2 });
    });

    it('ignores one wild run in three', () => {
      const fit = theilSen(
        [
          { x: 10, y: 6 },
          { x: 20, y: 7 },
          { x: 30, y: 8 },
          { x: 40, y: 90 },
          { x: 50, y: 10 },
        ],
        0,
      );
      expect(fit.slope).toBeCloseTo(0.1, 10);
      expect(fit.intercept).toBeCloseTo(5, 10);
    });

    it('takes the slope given when no two runs differ in size, and the median of the times', () => {
      expect(
        theilSen(
          [
            { x: 0, y: 4 },
            { x: 0, y: 9 },
            { x: 0, y: 5 },
          ],
          0.5,
        ),
      ).toEqual({ slope: 0.5, intercept: 5 });
    });

    it('keeps the time seen at the one size seen when the slope given would exceed it', () => {
      expect(
        theilSen(
          [
            { x: 64, y: 10 },
            { x: 64, y: 12 },
            { x: 64, y: 10 },
          ],
          0.5,
        ),
      ).toEqual({
        slope: 10 / 64,
        intercept: 0,
      });
      expect(theilSen([{ x: 64, y: 40 }], 0.25)).toEqual({ slope: 0.25, intercept: 24 });
    });

    it('takes sizes a few bytes apart for one size: no slope over them (it would overflow)', () => {
      expect(
        theilSen(
          [
            { x: 6.4e-323, y: 1.7e-15 },
            { x: 5.4e-323, y: 0 },
          ],
          0.5,
        ),
      ).toEqual({
        slope: 0.5,
        intercept: 8.5e-16,
      });
    });

    it('never fits a negative slope or intercept', () => {
      expect(
        theilSen(
          [
            { x: 10, y: 20 },
            { x: 100, y: 2 },
          ],
          0,
        ),
      ).toEqual({ slope: 0, intercept: 11 });
    });
  });

  describe('figures and factor', () => {
    it('fits per stage, medians the set-up and commit, keeps the AM container', () => {
      const p = profileOf([
        run({ mapMb: 64, mapSeconds: 10, reduceMb: 128, reduceSeconds: 20, setupSeconds: 12 }),
        run({ mapMb: 128, mapSeconds: 18, reduceMb: 256, reduceSeconds: 36, setupSeconds: 14 }),
        run({ mapMb: 128, mapSeconds: 18, reduceMb: 256, reduceSeconds: 36, setupSeconds: 40 }),
      ]);
      expect(profileFigures(p, CLASS)).toEqual({
        eta: 1,
        mapCostMax: 0.125,
        mapTaskSeconds: 2,
        reduceCostMax: 0.125,
        reduceTaskSeconds: 4,
        setupSeconds: 14,
        commitSeconds: 3,
        amContainers: 1,
      });
    });

    it('takes from its class what it has not seen (a map-only profile: the reduce figures)', () => {
      const f = profileFigures(profileOf([run({ reduces: 0, reduceMb: 0, reduceSeconds: 0 })]), CLASS);
      expect(f.reduceTaskSeconds).toBe(5);
      expect(f.reduceCostMax).toBe(0.5);
    });

    it("is the errors' p95 once three are known, the margin at least before", () => {
      const errs = (e: number[]) => profileOf(e.map((error) => run({ error })));
      expect(errorFactor(errs([1.1, 0.9, 1.3]), O)).toEqual({
        factor: 1.3,
        errors: 3,
        quantileError: 1.3,
        expected: 1.1,
      });
      expect(errorFactor(errs([1.1, 0.9]), O)).toEqual({
        factor: 1.25,
        errors: 2,
        quantileError: 1.1,
        expected: 1,
      });
      expect(errorFactor(errs([0.7, 0.8, 0.75, 0.7]), O).factor).toBe(0.8);
      expect(errorFactor(errs([0.1, 0.2, 0.1]), O).factor).toBe(0.5);
      expect(errorFactor(errs([9, 9, 9]), O).factor).toBe(4);
      // Twenty errors: p95 by nearest rank is the 19th, so one outlier is left out.
      const twenty = [...Array.from({ length: 19 }, () => 1.05), 3];
      expect(errorFactor(errs(twenty), O).factor).toBe(1.05);
    });

    it("by default needs 10 errors: before, at least the margin over the errors' median", () => {
      const errs = (e: number[]) => profileOf(e.map((error) => run({ error })));
      const D = DEFAULT_PROFILE_OPTIONS;
      expect(D.minErrorSamples).toBe(10);
      // p95 of three is 1.3; 1.25 x their median 1.1 is 1.375.
      expect(errorFactor(errs([1.1, 0.9, 1.3]), D).factor).toBeCloseTo(1.375, 12);
      // A run of 1.06, 1.0, 0.98 and 1.02 (a quiet job): 1.25 x 1.01, not 1.06.
      expect(errorFactor(errs([1.06, 1.0, 0.98, 1.02]), D).factor).toBeCloseTo(1.2625, 12);
      // Nine errors: still the floor; the tenth lets the quantile alone judge.
      const nine = [1, 1, 1, 1, 1, 1, 1, 1, 1.1];
      expect(errorFactor(errs(nine), D).factor).toBe(1.25);
      expect(errorFactor(errs([...nine, 1]), D).factor).toBe(1.1);
      expect(errorFactor(profileOf([run()]), D).factor).toBe(1.25);
    });

    it("predicts at the errors' median: x1 before any, within the factor's bounds", () => {
      const errs = (e: number[]) => profileOf(e.map((error) => run({ error })));
      expect(errorFactor(profileOf([run()]), O).expected).toBe(1);
      expect(errorFactor(errs([1.2, 0.8, 1.6, 1.0]), O).expected).toBeCloseTo(1.1, 12);
      expect(errorFactor(errs([0.1, 0.2, 0.1]), O).expected).toBe(0.5);
      expect(errorFactor(errs([9, 9, 9]), O).expected).toBe(4);
    });

    it('nearest rank: p95 of three is the largest, p50 of four the second', () => {
      expect(nearestRank([3, 1, 2], 0.95)).toBe(3);
      expect(nearestRank([4, 1, 3, 2], 0.5)).toBe(2);
      expect(() => nearestRank([], 0.5)).toThrow(RangeError);
    });

    it("measures a run's error against its prediction without the factor", () => {
      // Estimated 65 s with factor 1.3: predicted 50 s; it took 60 s.
      expect(runError(60, 65, 1.3)).toBeCloseTo(1.2, 12);
      expect(runError(0, 65, 1.3)).toBeUndefined();
      expect(runError(60, 0, 1.3)).toBeUndefined();
    });
  });

  describe('estimateFor', () => {
    const cls = { name: 'cpu', figures: CLASS, learnedJobs: 0 };

    it('without history: the class default times the margin, and says so', () => {
      const r = estimateFor(EMPTY_PROFILE_BOOK, 'wordcount@alice/default', cls, O);
      expect(r.from).toEqual({
        source: 'default',
        profile: 'wordcount@alice/default',
        workloadClass: 'cpu',
        factor: 1.25,
        expected: 1,
        text: 'no history for profile wordcount@alice/default: class cpu default + margin 25 %',
      });
      expect(r.estimates.setupSeconds).toBe(12.5);
      expect(r.estimates.mapTaskSeconds).toBe(6.25);
      expect(r.estimates.amContainers).toBe(1);
      const learned = estimateFor(EMPTY_PROFILE_BOOK, 'x', { ...cls, learnedJobs: 7 }, O);
      expect(learned.from.source).toBe('class');
      expect(learned.from.text).toBe('no history for profile x: class cpu (7 jobs learned) + margin 25 %');
    });

    it('with history: the profile times its factor, and says how many runs and which quantile', () => {
      let book = EMPTY_PROFILE_BOOK;
      for (const error of [undefined, 1.1, 0.9, 1.3])
        book = learnProfile(book, 'wc', run(error === undefined ? {} : { error }), O, 'cpu');
      const r = estimateFor(book, 'wc', cls, O);
      expect(r.from).toEqual({
        source: 'profile',
        profile: 'wc',
        runs: 4,
        errors: 3,
        quantile: 0.95,
        factor: 1.3,
        expected: 1.1,
        text: 'profile wc, 4 runs, p95 of 3 errors: x1.3',
      });
      // Every run alike, maps 10 s over 64 MB: no two sizes to fit on, and the class's 0.5 s/MB
      // would make them 32 s, so 10/64 s per MB and no floor: 10 s at 64 MB, times 1.3.
      expect(r.estimates.mapCostMax).toBeCloseTo((10 / 64) * 1.3, 12);
      expect(r.estimates.mapTaskSeconds).toBe(0);
      expect(r.estimates.setupSeconds).toBeCloseTo(15.6, 12);
      const young = estimateFor(learnProfile(EMPTY_PROFILE_BOOK, 'wc', run(), O), 'wc', cls, O);
      expect(young.from.text).toBe('profile wc, 1 run, 0 errors known: x1.25 (at least the margin 25 %)');
    });

    it('predicts a recurring job alone to within its factor (the engines unchanged)', () => {
      // Runs of 2 maps of 64 MB (12 s set-up, maps 10 s, one reduce 20 s, commit 3 s): 45 s.
      let book = EMPTY_PROFILE_BOOK;
      for (const error of [1, 1, 1]) book = learnProfile(book, 'wc', run({ mapMb: 64, error }), O);
      const { estimates } = estimateFor(book, 'wc', { name: 'cpu', figures: CLASS, learnedJobs: 0 }, O);
      const job = { id: 'j', arrival: 0, deadline: 1000, maps: 2, reduces: 1, inputSize: 128, estimates };
      const p = rtmr({ slotModel: { name: 'unified', containers: 4 }, estimates: CLASS });
      const r = p.admit(p.initialState(0), job, 0);
      expect(r.admitted).toBe(true);
      if (r.admitted) expect(r.estimatedFinish).toBeCloseTo(12 + 10 + 20 + 3, 9);
    });
  });

  describe('learnProfile', () => {
    it('keeps the window and the total, and moves a profile to the newest end', () => {
      const small = { ...O, windowRuns: 2, maxProfiles: 2 };
      let book = learnProfile(EMPTY_PROFILE_BOOK, 'a', run({ mapSeconds: 1 }), small);
      book = learnProfile(book, 'b', run(), small);
      book = learnProfile(book, 'a', run({ mapSeconds: 2 }), small);
      book = learnProfile(book, 'a', run({ mapSeconds: 3 }), small);
      expect(Object.keys(book.profiles)).toEqual(['b', 'a']);
      expect(book.profiles.a!.runs.map((r) => r.mapSeconds)).toEqual([2, 3]);
      expect(book.profiles.a!.totalRuns).toBe(3);
      book = learnProfile(book, 'c', run(), small);
      expect(Object.keys(book.profiles)).toEqual(['a', 'c']);
    });

    it('comes down once faster runs fill the window', () => {
      const opts = { ...O, windowRuns: 5 };
      let book = EMPTY_PROFILE_BOOK;
      for (let i = 0; i < 5; i++) book = learnProfile(book, 'p', run({ mapMb: 0, mapSeconds: 30 }), opts);
      const slow = profileFigures(book.profiles.p!, CLASS).mapTaskSeconds;
      for (let i = 0; i < 5; i++) book = learnProfile(book, 'p', run({ mapMb: 0, mapSeconds: 8 }), opts);
      expect(slow).toBe(30);
      expect(profileFigures(book.profiles.p!, CLASS).mapTaskSeconds).toBe(8);
    });

    it('property: the figures lie within the runs they are fitted on when sizes do not vary', () => {
      fc.assert(
        fc.property(
          fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 20 }),
          (secs) => {
            const p = profileOf(secs.map((mapSeconds) => run({ mapMb: 0, mapSeconds })));
            const f = profileFigures(p, CLASS).mapTaskSeconds!;
            return f >= Math.min(...secs) - 1e-9 && f <= Math.max(...secs) + 1e-9;
          },
        ),
      );
    });

    it('property: figures are never negative and the factor stays within its bounds', () => {
      const arbRun = fc.record({
        maps: fc.integer({ min: 0, max: 50 }),
        reduces: fc.integer({ min: 0, max: 10 }),
        mapMb: fc.double({ min: 0, max: 1e4, noNaN: true }),
        mapSeconds: fc.double({ min: 0, max: 1e4, noNaN: true }),
        reduceMb: fc.double({ min: 0, max: 1e4, noNaN: true }),
        reduceSeconds: fc.double({ min: 0, max: 1e4, noNaN: true }),
        error: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }),
      });
      fc.assert(
        fc.property(fc.array(arbRun, { minLength: 1, maxLength: 20 }), (runs) => {
          const p = profileOf(runs.map((r) => (r.error === undefined ? { ...r, error: undefined } : r)));
          const f = profileFigures(p, CLASS);
          const { factor } = errorFactor(p, O);
          return (
            Object.values(f).every((v) => v >= 0 && Number.isFinite(v)) &&
            factor >= O.minFactor &&
            factor <= O.maxFactor
          );
        }),
      );
    });
  });

  describe('validation', () => {
    it('reads back what it saved, and names what is wrong in a stored book', () => {
      const book = learnProfile(EMPTY_PROFILE_BOOK, 'wc', run({ error: 1.1 }), O, 'cpu');
      expect(validateProfileBook(JSON.parse(JSON.stringify(book)))).toEqual(book);
      expect(
        issuesOf(() => validateProfileBook({ profiles: { wc: { runs: [{ ...run(), mapSeconds: -1 }] } } })),
      ).toEqual([{ path: 'profiles.profiles["wc"].runs[0]', message: 'must hold finite figures >= 0' }]);
      expect(() => validateProfileBook(null)).toThrow(ValidationError);
    });

    it('names each bad option', () => {
      expect(
        issuesOf(() => validateProfileOptions({ ...O, quantile: 0.2, margin: 0.9, maxFactor: 0.5 })),
      ).toEqual([
        { path: 'profiles.quantile', message: 'must be between 0.5 and 1' },
        { path: 'profiles.margin', message: 'must be a finite number >= 1' },
        { path: 'profiles.maxFactor', message: 'must be finite and >= margin' },
      ]);
    });
  });
});
