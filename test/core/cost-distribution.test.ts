import fc from 'fast-check';
import {
  addValues,
  bucketBounds,
  DEFAULT_RELATIVE_ACCURACY,
  emptyObservedCosts,
  emptyObservedCostsBook,
  emptySketch,
  histogramBins,
  maxBuckets,
  mergeSketches,
  mostObservedClass,
  observeClassJob,
  observeJob,
  quantile,
  retainClasses,
  summarize,
  validateObservedCosts,
  validateObservedCostsBook,
  validateSketch,
  type CostSketch,
} from '../../src/core/cost-distribution';
import { learnFromFinishedJob, unitCosts, type FinishedJobObservation } from '../../src/core/estimates';
import { ValidationError } from '../../src/errors/validation';

const ALPHA = DEFAULT_RELATIVE_ACCURACY;

/** The exact nearest-rank quantile the sketch approximates. */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

const sketchOf = (values: number[], alpha = ALPHA): CostSketch => addValues(emptySketch(alpha), values);

/** Unit costs as tasks report them: 1e-4 .. 1e3 s/MB, some exact zeros. */
const cost = fc.oneof(
  { weight: 20, arbitrary: fc.double({ min: 1e-4, max: 1e3, noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constant(0) },
);
const costs = fc.array(cost, { minLength: 1, maxLength: 400 });
const q = fc.double({ min: 0, max: 1, noNaN: true });

describe('the observed cost sketch', () => {
  it('is empty at first: no quantiles, no bins', () => {
    const s = emptySketch();
    expect(summarize(s)).toEqual({
      count: 0,
      min: null,
      max: null,
      mean: null,
      p50: null,
      p90: null,
      p99: null,
    });
    expect(histogramBins(s)).toEqual([]);
  });

  it('answers a worked example: ten tasks of 0.05 .. 0.5 s/MB', () => {
    const values = [0.05, 0.1, 0.1, 0.1, 0.12, 0.12, 0.15, 0.2, 0.3, 0.5];
    const s = summarize(sketchOf(values));
    expect(s).toMatchObject({ count: 10, min: 0.05, max: 0.5 });
    expect(s.mean).toBeCloseTo(1.74 / 10, 12);
    // p50 is the 5th value (0.12): bucket ceil(ln 0.12 / ln 1.0202) = -106 answers 0.118823.
    expect(s.p50).toBeCloseTo(0.118823, 6);
    // p90 is the 9th value (0.3); p99 the 10th, the max, clamped to it exactly.
    expect(Math.abs(s.p90! - 0.3) / 0.3).toBeLessThanOrEqual(ALPHA);
    expect(s.p99).toBe(0.5);
  });

  it('keeps quantiles within the stated relative error of the exact ones on random data', () => {
    fc.assert(
      fc.property(costs, q, (values, qq) => {
        const got = quantile(sketchOf(values), qq)!;
        const want = exactQuantile(values, qq);
        if (want === 0) return got === 0;
        return Math.abs(got - want) <= want * ALPHA * (1 + 1e-9);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the bound at a coarser accuracy too (5 %)', () => {
    fc.assert(
      fc.property(costs, q, (values, qq) => {
        const got = quantile(sketchOf(values, 0.05), qq)!;
        const want = exactQuantile(values, qq);
        return want === 0 ? got === 0 : Math.abs(got - want) <= want * 0.05 * (1 + 1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('counts, min, max and sum exactly, and quantiles never leave [min, max]', () => {
    fc.assert(
      fc.property(costs, q, (values, qq) => {
        const s = sketchOf(values);
        const got = quantile(s, qq)!;
        expect(s.count).toBe(values.length);
        expect(s.min).toBe(Math.min(...values));
        expect(s.max).toBe(Math.max(...values));
        expect(s.zeroCount + s.buckets.reduce((n, [, c]) => n + c, 0)).toBe(values.length);
        return got >= s.min! && got <= s.max!;
      }),
      { numRuns: 200 },
    );
  });

  it('merges: two sketches merged equal one sketch of both halves', () => {
    fc.assert(
      fc.property(costs, costs, (a, b) => {
        const merged = mergeSketches(sketchOf(a), sketchOf(b));
        const whole = sketchOf([...a, ...b]);
        expect(merged.buckets).toEqual(whole.buckets);
        expect([merged.count, merged.zeroCount, merged.min, merged.max]).toEqual([
          whole.count,
          whole.zeroCount,
          whole.min,
          whole.max,
        ]);
        expect(merged.sum).toBeCloseTo(whole.sum, 6);
      }),
      { numRuns: 100 },
    );
    expect(mergeSketches(emptySketch(), sketchOf([0.2]))).toEqual(sketchOf([0.2]));
  });

  it('refuses to merge sketches of different accuracy', () => {
    expect(() => mergeSketches(emptySketch(0.01), emptySketch(0.02))).toThrow(ValidationError);
  });

  it('survives a JSON round trip unchanged, as the ledger stores it', () => {
    fc.assert(
      fc.property(fc.array(cost, { maxLength: 200 }), (values) => {
        const s = sketchOf(values);
        expect(validateSketch(JSON.parse(JSON.stringify(s)))).toEqual(s);
      }),
      { numRuns: 100 },
    );
  });

  it('rejects a stored sketch that does not add up, naming the field', () => {
    const good = JSON.parse(JSON.stringify(sketchOf([0.1, 0.2, 0]))) as Record<string, unknown>;
    const issues = (bad: unknown) => {
      try {
        validateSketch(bad);
      } catch (err) {
        return (err as ValidationError).issues.map((i) => i.path);
      }
      return [];
    };
    expect(issues({ ...good, count: 4 })).toEqual(['sketch.count']);
    expect(issues({ ...good, buckets: [[1.5, 1]] })).toEqual(['sketch.buckets[0]']);
    expect(issues({ ...good, buckets: [[0, -1]] })).toEqual(['sketch.buckets[0]']);
    expect(issues({ ...good, buckets: [[1e6, 1]] })).toEqual(['sketch.buckets[0]']);
    expect(issues({ ...good, relativeAccuracy: 2 })).toContain('sketch.relativeAccuracy');
    expect(issues({ ...good, min: null })).toEqual(['sketch.min']);
    expect(issues('x')).toEqual(['sketch']);
  });

  it('stays bounded: 200 000 values spread over twelve decades hold at most maxBuckets buckets', () => {
    let s = emptySketch();
    for (let b = 0; b < 4; b++) {
      // 1e-6 .. 1e6 s/MB, deterministic and dense: every bucket of that range gets values.
      const batch = Array.from({ length: 50_000 }, (_, k) =>
        Math.pow(10, -6 + (12 * (((b * 50_000 + k) * 7919) % 200_000)) / 200_000),
      );
      s = addValues(s, batch);
    }
    const before = s.buckets.length;
    expect(before).toBeLessThanOrEqual(maxBuckets(ALPHA));
    // ln(1e12) / ln(1.0202): about 1382 buckets cover twelve decades at 1 %.
    expect(before).toBeGreaterThan(1300);
    expect(before).toBeLessThan(1400);
    // Values far outside the covered range are clamped into its end buckets, not new ones.
    s = addValues(s, [1e-30, 1e30]);
    expect(s.buckets.length).toBeLessThanOrEqual(before + 2);
    expect(maxBuckets(ALPHA)).toBe(2074);
    expect(JSON.stringify(s).length).toBeLessThan(40_000);
  });

  it('refuses negative and non-finite values', () => {
    expect(() => addValues(emptySketch(), [0.1, -1, Number.NaN])).toThrow(
      expect.objectContaining({
        issues: [
          { path: 'values[1]', message: 'must be a finite number >= 0' },
          { path: 'values[2]', message: 'must be a finite number >= 0' },
        ],
      }),
    );
    expect(() => quantile(emptySketch(), 1.5)).toThrow(ValidationError);
  });

  it('draws at most maxBins log-spaced bins that add up to the non-zero count', () => {
    fc.assert(
      fc.property(costs, fc.integer({ min: 1, max: 40 }), (values, maxBins) => {
        const s = sketchOf(values);
        const bins = histogramBins(s, maxBins);
        expect(bins.length).toBeLessThanOrEqual(maxBins);
        expect(bins.reduce((n, b) => n + b.count, 0)).toBe(s.count - s.zeroCount);
        for (let i = 1; i < bins.length; i++) expect(bins[i]!.from).toBeCloseTo(bins[i - 1]!.to, 12);
        // Every non-zero value lies in the bin range.
        const nonZero = values.filter((v) => v > 0);
        if (nonZero.length) {
          expect(bins[0]!.from).toBeLessThan(Math.min(...nonZero));
          expect(bins[bins.length - 1]!.to).toBeGreaterThanOrEqual(Math.max(...nonZero) * (1 - 1e-12));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('bins for an axis reaching the worst case: wider bins, the same counts', () => {
    // 0.05 .. 0.06 s/MB under a worst case of 0.5: bins sized for a decade, not for 20 %.
    const s = sketchOf([0.05, 0.052, 0.055, 0.06]);
    const narrow = histogramBins(s, 24);
    const wide = histogramBins(s, 24, 0.5);
    expect(narrow.length).toBeGreaterThan(wide.length);
    expect(wide.reduce((n, b) => n + b.count, 0)).toBe(4);
    // A decade at 1 % is about 116 buckets: 24 bins of 5 buckets each.
    expect(Math.log(wide[0]!.to / wide[0]!.from) / Math.log(1.01 / 0.99)).toBeCloseTo(5, 6);
    expect(histogramBins(s, 24, 0.05)).toEqual(narrow);
  });

  it('puts 0.1 s/MB in the bucket whose bounds hold it', () => {
    const s = sketchOf([0.1]);
    const [[i]] = s.buckets as Array<[number, number]>;
    const { from, to } = bucketBounds(i!, ALPHA);
    expect(i).toBe(-115);
    expect(quantile(s, 0.5)).toBe(0.1); // clamped to the exact min = max
    expect(from).toBeLessThan(0.1);
    expect(to).toBeGreaterThanOrEqual(0.1);
  });
});

describe('observed costs of finished jobs', () => {
  const job: FinishedJobObservation = {
    inputSize: 256,
    intermediateSize: 256,
    mapTasks: [
      { size: 128, seconds: 12.8 },
      { size: 128, seconds: 25.6 },
      { size: 0, seconds: 3 },
    ],
    reduceTasks: [{ size: 256, seconds: 51.2 }],
  };

  it('are the observations learning takes its maximum of', () => {
    const unit = unitCosts(job);
    expect(unit).toEqual({ map: [0.1, 0.2], reduce: [0.2] });
    const learned = learnFromFinishedJob({ eta: 1, mapCostMax: 0.05, reduceCostMax: 0.05 }, job);
    const costs = observeJob(emptyObservedCosts(), unit);
    expect(costs.map.max).toBe(learned.mapCostMax);
    expect(costs.reduce.max).toBe(learned.reduceCostMax);
    expect(costs.jobs).toBe(1);
  });

  it('round-trip through JSON and refuse a bad stored value with every path', () => {
    const costs = observeJob(observeJob(emptyObservedCosts(), unitCosts(job)), { map: [0.3], reduce: [] });
    expect(validateObservedCosts(JSON.parse(JSON.stringify(costs)))).toEqual(costs);
    try {
      validateObservedCosts({ jobs: -1, map: {}, reduce: costs.reduce });
      throw new Error('accepted');
    } catch (err) {
      const paths = (err as ValidationError).issues.map((i) => i.path);
      expect(paths).toContain('observedCosts.jobs');
      expect(paths).toContain('observedCosts.map.count');
    }
  });
});

describe('observed costs per workload class', () => {
  const retention = (recent: number, pinned: string[] = ['*']) => ({ pinned, recent });

  it('a job adds to its own class only, and the book counts every job', () => {
    let book = emptyObservedCostsBook();
    book = observeClassJob(book, 'etl', { map: [1, 2], reduce: [0.5] }, retention(4)).book;
    book = observeClassJob(book, 'cpu', { map: [0.1], reduce: [] }, retention(4)).book;
    book = observeClassJob(book, 'etl', { map: [3], reduce: [] }, retention(4)).book;
    expect(book.jobs).toBe(3);
    expect(book.classes.etl).toMatchObject({ jobs: 2, lastJob: 3, map: { count: 3, min: 1, max: 3 } });
    expect(book.classes.cpu).toMatchObject({ jobs: 1, lastJob: 2, map: { count: 1 }, reduce: { count: 0 } });
    expect(mostObservedClass(book)).toBe('etl');
    expect(mostObservedClass(emptyObservedCostsBook())).toBeNull();
  });

  it('keeps the pinned classes and the `recent` most recently seen others, and names the dropped', () => {
    let book = emptyObservedCostsBook();
    const r = retention(2, ['*', 'gold']);
    const dropped: string[][] = [];
    for (const c of ['gold', 'a', 'b', 'gold', 'c', 'a']) {
      const next = observeClassJob(book, c, { map: [1], reduce: [] }, r);
      book = next.book;
      dropped.push(next.dropped);
    }
    // After c: a (seen at 2) is the oldest unpinned; after a again: b goes.
    expect(dropped).toEqual([[], [], [], [], ['a'], ['b']]);
    expect(Object.keys(book.classes).sort()).toEqual(['a', 'c', 'gold']);
    // gold was seen first and is kept: pinned.
    expect(book.classes.gold).toMatchObject({ jobs: 2, lastJob: 4 });
    // a came back after being dropped: a new distribution.
    expect(book.classes.a).toMatchObject({ jobs: 1, lastJob: 6 });
    expect(() => retainClasses(book, retention(-1))).toThrow(ValidationError);
  });

  it('property: never more than pinned + recent classes, and the newest class is always kept', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('*', 'a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 3 }),
        (seq, recent) => {
          let book = emptyObservedCostsBook();
          const r = retention(recent, ['*', 'a']);
          for (const c of seq) {
            book = observeClassJob(book, c, { map: [0.1], reduce: [] }, r).book;
            const names = Object.keys(book.classes);
            const unpinned = names.filter((n) => n !== '*' && n !== 'a');
            expect(unpinned.length).toBeLessThanOrEqual(recent);
            if (recent > 0 || c === '*' || c === 'a') expect(names).toContain(c);
          }
          expect(book.jobs).toBe(seq.length);
          // Kept classes' jobs never exceed the total.
          const kept = Object.values(book.classes).reduce((n, v) => n + v.jobs, 0);
          expect(kept).toBeLessThanOrEqual(book.jobs);
          // Round trip through JSON (the ledger).
          expect(validateObservedCostsBook(JSON.parse(JSON.stringify(book)))).toEqual(book);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an old single cluster-wide distribution reads back as the class *', () => {
    const old = observeJob(emptyObservedCosts(), { map: [0.1, 0.2], reduce: [0.3] });
    const book = validateObservedCostsBook(JSON.parse(JSON.stringify(old)));
    expect(book).toEqual({ jobs: 1, classes: { '*': { ...old, lastJob: 1 } } });
  });

  it('a bad stored book lists every problem with its path', () => {
    const ok = observeClassJob(emptyObservedCostsBook(), 'etl', { map: [1], reduce: [] }, retention(2)).book;
    const raw = JSON.parse(JSON.stringify(ok)) as {
      jobs: number;
      classes: Record<string, Record<string, unknown>>;
    };
    raw.classes.etl!.lastJob = 9;
    raw.classes.bad = { jobs: 1, map: { count: 'x' }, reduce: ok.classes.etl!.reduce, lastJob: 0 };
    try {
      validateObservedCostsBook(raw);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      const paths = (e as ValidationError).issues.map((i) => i.path);
      expect(paths).toContain('observedCosts.classes.etl.lastJob');
      expect(paths).toContain('observedCosts.classes.bad.map.count');
    }
    expect(() => validateObservedCostsBook({ jobs: 1, classes: [] })).toThrow(ValidationError);
    expect(() => validateObservedCostsBook(null)).toThrow(ValidationError);
  });
});
