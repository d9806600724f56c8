import {
  fitStretch,
  meanConcurrency,
  MIN_STRETCH_OBSERVATIONS,
  stretchAt,
  type StretchObservation,
} from '../../src/core/slowdown';

/** Tasks of two groups (10 s and 30 s alone) beside k containers, on a pool running `cores` at full speed. */
function observed(cores: number, ks: readonly number[]): StretchObservation[] {
  return ['a', 'b'].flatMap((group, i) =>
    ks.map((k) => ({ group, concurrent: k, seconds: (i === 0 ? 10 : 30) * Math.max(1, k / cores) })),
  );
}

describe('mean concurrency (src/core/slowdown.ts)', () => {
  it('averages the spans running over each one’s life, itself included', () => {
    const spans = [
      { start: 0, end: 10 },
      { start: 5, end: 15 },
      { start: 10, end: 20 },
    ];
    // [0, 10]: alone for 5 s, beside one other for 5 s: 1.5. [5, 15]: two throughout.
    expect(meanConcurrency(spans, spans)).toEqual([1.5, 2, 1.5]);
    // A span of no length: the count at its start; one before every span: 0.
    expect(
      meanConcurrency(spans, [
        { start: 12, end: 12 },
        { start: -5, end: -5 },
      ]),
    ).toEqual([2, 0]);
    // Spans of no length count for nothing.
    expect(meanConcurrency([...spans, { start: 4, end: 4 }], [{ start: 0, end: 10 }])).toEqual([1.5]);
  });
});

describe('the fit of how tasks stretch with the containers running at once', () => {
  it('finds 2 full-speed containers where tasks take max(1, k / 2) times their time alone', () => {
    const fit = fitStretch(observed(2, [1, 2, 3, 4, 6, 8]));
    expect(fit).toEqual({
      observations: 12,
      groups: 2,
      maxConcurrent: 8,
      fullSpeedContainers: 2,
      meanLogError: 0,
      meanLogErrorFlat: expect.any(Number),
      outcome: 'fit',
    });
    // With no slowdown modelled each group is its median, sqrt(1.5 * 2) = 1.73 times its time
    // alone: the tasks of 1, 1, 1.5, 2, 3, 4 times are off by ln 1.73, ln 1.73, ln 1.15, ...
    expect(fit.meanLogErrorFlat).toBe(0.462098);
    expect(stretchAt(fit, 8)).toBe(4);
    expect(stretchAt(fit, 1.5)).toBe(1);
  });

  it('is not moved by a few outliers (a task 5x slower than its group at k = 1)', () => {
    const clean = observed(2, [1, 1, 2, 3, 4, 6, 8]);
    const outliers = [
      { group: 'a', concurrent: 1, seconds: 50 },
      { group: 'b', concurrent: 2, seconds: 150 },
    ];
    expect(fitStretch([...clean, ...outliers]).fullSpeedContainers).toBe(2);
  });

  it('finds 12 on a pool of 6 nodes of 2 cores, at a quarter’s precision for fractions', () => {
    expect(fitStretch(observed(12, [2, 6, 10, 12, 16, 24, 30])).fullSpeedContainers).toBe(12);
    expect(fitStretch(observed(2.5, [1, 2, 3, 5, 7])).fullSpeedContainers).toBe(2.5);
  });

  it('on a large pool, within 2 % between the candidates', () => {
    const fit = fitStretch(observed(100, [20, 50, 90, 100, 150, 200, 300]));
    expect(fit.fullSpeedContainers! / 100).toBeGreaterThan(0.98);
    expect(fit.fullSpeedContainers! / 100).toBeLessThan(1.02);
  });

  it('says no slowdown was seen when tasks took their time alone at every concurrency', () => {
    const fit = fitStretch(observed(Infinity, [1, 2, 4, 8]));
    expect(fit).toMatchObject({
      fullSpeedContainers: null,
      outcome: 'no-slowdown-seen',
      maxConcurrent: 8,
      meanLogError: 0,
    });
    expect(stretchAt(fit, 8)).toBe(1);
  });

  it('takes the least slowdown that explains the tasks when every one was slowed (C at most the least k)', () => {
    // Every task ran beside 4 or more on 2 cores: its time alone is not seen, so C and it are
    // one unknown; 4 is the largest C that explains the tasks.
    expect(fitStretch(observed(2, [4, 6, 8, 12])).fullSpeedContainers).toBe(4);
  });

  it('needs MIN_STRETCH_OBSERVATIONS in groups of two or more, with positive times', () => {
    const few = observed(2, [1, 2, 4]); // 6
    expect(fitStretch(few)).toMatchObject({ observations: 6, outcome: 'too-few-observations' });
    const lone = [
      ...few,
      { group: 'c', seconds: 5, concurrent: 1 },
      { group: 'd', seconds: 5, concurrent: 1 },
    ];
    expect(fitStretch(lone)).toMatchObject({ observations: 6, groups: 2, fullSpeedContainers: null });
    const zero = [
      ...few,
      { group: 'a', seconds: 0, concurrent: 3 },
      { group: 'a', seconds: 9, concurrent: 0 },
    ];
    expect(fitStretch(zero).observations).toBe(6);
    expect(MIN_STRETCH_OBSERVATIONS).toBe(8);
  });
});
