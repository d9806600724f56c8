import fc from 'fast-check';
import {
  barLayout,
  formatNumber,
  formatTimeTick,
  histogramLayout,
  lineLayout,
  logTicks,
  linearScale,
  niceTicks,
  timeTicks,
} from '../../src/dashboard/public/charts';

const T0 = Date.parse('2026-11-22T06:10:00Z');
const MIN = 60_000;

describe('niceTicks', () => {
  it.each<[number, number, number, number[]]>([
    [0, 1, 4, [0, 0.5, 1]],
    [0, 5.5, 4, [0, 2, 4, 6]],
    [-3, 20, 4, [-10, 0, 10, 20]],
    [0, 100, 5, [0, 20, 40, 60, 80, 100]],
    [0.3, 0.74, 4, [0.2, 0.4, 0.6, 0.8]],
  ])('covers [%d, %d] in about %d round steps', (min, max, count, expected) => {
    expect(niceTicks(min, max, count)).toEqual(expected);
  });

  it('widens a flat range so a constant series still has an axis', () => {
    expect(niceTicks(0, 0, 4)).toEqual([-1, -0.5, 0, 0.5, 1]);
    expect(niceTicks(5, 5, 4)).toEqual([4.5, 5, 5.5]);
  });

  it('property: ticks are evenly spaced, cover the range, and number at most count + 3', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e6, noNaN: true }),
        fc.integer({ min: 2, max: 10 }),
        (min, span, count) => {
          const max = min + span;
          const ticks = niceTicks(min, max, count);
          const step = ticks[1]! - ticks[0]!;
          // Ticks are rounded to the step's digits for display: allow that rounding, no more.
          const slack = Math.abs(step) * 1e-6;
          expect(ticks[0]).toBeLessThanOrEqual(min + slack);
          expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max - slack);
          expect(ticks.length).toBeLessThanOrEqual(count + 3);
          for (let i = 1; i < ticks.length; i++) {
            expect(Math.abs(ticks[i]! - ticks[i - 1]! - step)).toBeLessThanOrEqual(step * 1e-6);
          }
          // The step is 1, 2 or 5 times a power of ten.
          const mantissa = step / Math.pow(10, Math.floor(Math.log10(step) + 1e-9));
          expect([1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-6)).toBe(true);
        },
      ),
    );
  });
});

describe('timeTicks', () => {
  it('puts ticks on the half hour over a two-hour window', () => {
    const { step, ticks } = timeTicks(T0, T0 + 110 * MIN, 4);
    expect(step).toBe(30 * MIN);
    expect(ticks.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual([
      '06:30',
      '07:00',
      '07:30',
      '08:00',
    ]);
    expect(ticks.map((t) => formatTimeTick(t, step))).toEqual(['06:30', '07:00', '07:30', '08:00']);
  });

  it('shows seconds below a one-minute step and dates from one day', () => {
    expect(formatTimeTick(Date.parse('2026-11-22T08:00:15Z'), 15_000)).toBe('08:00:15');
    expect(formatTimeTick(Date.parse('2026-11-22T00:00:00Z'), 86_400_000)).toBe('2026-11-22');
  });

  it('property: ticks lie inside the window, on multiples of the step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
        fc.integer({ min: 1000, max: 30 * 86_400_000 }),
        (start, span) => {
          const { step, ticks } = timeTicks(start, start + span, 4);
          for (const t of ticks) {
            expect(t).toBeGreaterThanOrEqual(start);
            expect(t).toBeLessThanOrEqual(start + span);
            expect(t % step).toBe(0);
          }
          expect(ticks.length).toBeLessThanOrEqual(5);
        },
      ),
    );
  });
});

describe('lineLayout', () => {
  const opts = { width: 360, height: 170, margin: { top: 10, right: 12, bottom: 24, left: 40 } };

  it('maps a ratio series onto the plot, 0 at the bottom and 1 at the top, with a gap at null', () => {
    const layout = lineLayout(
      [
        {
          name: 'success ratio',
          points: [
            { x: T0, y: null },
            { x: T0 + 10 * MIN, y: 1 },
            { x: T0 + 20 * MIN, y: 0.5 },
            { x: T0 + 30 * MIN, y: null },
            { x: T0 + 40 * MIN, y: 0 },
          ],
        },
      ],
      { ...opts, yMin: 0, yMax: 1 },
    );
    expect(layout.plot).toEqual({ left: 40, right: 348, top: 10, bottom: 146 });
    const s = layout.series[0]!;
    expect(s.points.map((p) => [p.px, p.py])).toEqual([
      [40 + 308 * 0.25, 10],
      [40 + 308 * 0.5, 78],
      [348, 146],
    ]);
    // The nulls split the line: [1, 0.5] then [0]; the leading null draws nothing.
    expect(s.segments.map((seg) => seg.map((p) => p.y))).toEqual([[1, 0.5], [0]]);
    expect(layout.yTicks.map((t) => t.value)).toEqual([0, 0.5, 1]);
  });

  it('property: every drawn point lies inside the plot area and keeps its x order', () => {
    const point = fc.record({
      x: fc.integer({ min: T0, max: T0 + 86_400_000 }),
      y: fc.option(fc.double({ min: -1e4, max: 1e4, noNaN: true }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(point, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }),
        (raw) => {
          const series = raw.map((points, i) => ({
            name: `s${i}`,
            points: [...points].sort((a, b) => a.x - b.x),
          }));
          const layout = lineLayout(series, opts);
          const eps = 1e-6;
          for (const s of layout.series) {
            for (const p of s.points) {
              expect(p.px).toBeGreaterThanOrEqual(layout.plot.left - eps);
              expect(p.px).toBeLessThanOrEqual(layout.plot.right + eps);
              expect(p.py).toBeGreaterThanOrEqual(layout.plot.top - eps);
              expect(p.py).toBeLessThanOrEqual(layout.plot.bottom + eps);
            }
            for (let i = 1; i < s.points.length; i++)
              expect(s.points[i]!.px).toBeGreaterThanOrEqual(s.points[i - 1]!.px);
            // Exactly the non-null values are drawn.
            const input = series[s.index]!.points.filter((p) => p.y !== null);
            expect(s.points.map((p) => p.y)).toEqual(input.map((p) => p.y));
          }
        },
      ),
    );
  });
});

describe('barLayout', () => {
  it('draws slack above and lateness below the zero line, in proportion', () => {
    const layout = barLayout(
      [
        { key: 'dl-001', value: 5, kind: 'met', title: 'a' },
        { key: 'dl-002', value: -5, kind: 'missed', title: 'b' },
        { key: 'dl-003', value: 10, kind: 'open', title: 'c' },
      ],
      { width: 340, height: 180, margin: { top: 10, right: 0, bottom: 20, left: 40 } },
    );
    // Ticks -5..10 over the 150 px plot: 10 px a unit, zero at 110.
    expect(layout.yTicks.map((t) => t.value)).toEqual([-5, 0, 5, 10]);
    expect(layout.zeroY).toBe(110);
    expect(layout.bars.map((b) => [b.key, b.y, b.h])).toEqual([
      ['dl-001', 60, 50],
      ['dl-002', 110, 50],
      ['dl-003', 10, 100],
    ]);
    // Three slots of 100 px, bars 70 px wide centred in them.
    expect(layout.bars.map((b) => [b.x, b.w])).toEqual([
      [55, 70],
      [155, 70],
      [255, 70],
    ]);
  });

  it('property: each bar spans from the zero line to its value, inside the plot', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e5, max: 1e5, noNaN: true }), { minLength: 1, maxLength: 60 }),
        (values) => {
          const layout = barLayout(
            values.map((v, i) => ({ key: `j${i}`, value: v, kind: 'open', title: '' })),
            { width: 800, height: 200 },
          );
          const scale = linearScale(
            layout.yTicks[0]!.value,
            layout.yTicks[layout.yTicks.length - 1]!.value,
            layout.plot.bottom,
            layout.plot.top,
          );
          layout.bars.forEach((b, i) => {
            const v = values[i]!;
            const eps = 1e-6;
            expect(b.y).toBeGreaterThanOrEqual(layout.plot.top - eps);
            expect(b.y + b.h).toBeLessThanOrEqual(layout.plot.bottom + 1 + eps);
            if (Math.abs(scale(v) - layout.zeroY) >= 1) {
              expect(Math.min(b.y, b.y + b.h)).toBeCloseTo(Math.min(scale(v), layout.zeroY), 6);
              expect(Math.max(b.y, b.y + b.h)).toBeCloseTo(Math.max(scale(v), layout.zeroY), 6);
            }
            if (i > 0) expect(b.x).toBeGreaterThan(layout.bars[i - 1]!.x);
          });
        },
      ),
    );
  });
});

describe('formatNumber', () => {
  it.each<[number, string]>([
    [0, '0'],
    [5.5, '5.5'],
    [0.0421, '0.042'],
    [1234, '1.2k'],
    [40960, '41k'],
    [2_500_000, '2.5M'],
    [-3, '-3'],
  ])('%d -> %s', (v, s) => {
    expect(formatNumber(v)).toBe(s);
  });
});

describe('logTicks', () => {
  it('puts ticks on powers of ten over several decades, and on 1-2-5 over a narrow range', () => {
    expect(logTicks(0.004, 3)).toEqual([0.01, 0.1, 1]);
    expect(logTicks(0.03, 0.4)).toEqual([0.05, 0.1, 0.2]);
    expect(logTicks(0.5, 0.5)).toEqual([0.5]);
  });
});

describe('histogramLayout', () => {
  const bins = [
    { from: 0.04, to: 0.08, count: 4 },
    { from: 0.08, to: 0.16, count: 2 },
    { from: 0.16, to: 0.32, count: 2 },
  ];

  it('spans bins and the learned-worst-case mark on a log axis, heights in proportion to counts', () => {
    const l = histogramLayout(bins, {
      width: 500,
      height: 200,
      marks: [{ key: 'learned', label: 'learned worst case', value: 2 }],
    });
    // Equal ratios, equal widths on a log axis.
    expect(l.bars[0]!.w).toBeCloseTo(l.bars[1]!.w, 9);
    expect(l.bars[1]!.w).toBeCloseTo(l.bars[2]!.w, 9);
    expect(l.bars[0]!.h).toBeCloseTo(2 * l.bars[1]!.h, 9);
    // The mark sits right of every bar, inside the plot.
    const mark = l.marks[0]!;
    expect(mark.px).toBeGreaterThan(l.bars[2]!.x + l.bars[2]!.w);
    expect(mark.px).toBeLessThan(l.plot.right);
    // Only two powers of ten inside the axis (0.04/1.26 .. 2*1.26): 1-2-5 ticks.
    expect(l.xTicks.map((t) => t.label)).toEqual(['0.05', '0.1', '0.2', '0.5', '1', '2']);
  });

  it('counts one task at most: whole-number ticks only (0 and 1, not 0.5)', () => {
    const l = histogramLayout([{ from: 0.1, to: 0.2, count: 1 }], { width: 400, height: 180 });
    expect(l.yTicks.map((t) => t.value)).toEqual([0, 1]);
  });

  it('property: bars and marks stay in the plot, bars in value order, the top tick at or above the largest count', () => {
    const bin = fc
      .tuple(
        fc.double({ min: -6, max: 4, noNaN: true }),
        fc.double({ min: 0.01, max: 2, noNaN: true }),
        fc.nat(1000),
      )
      .map(([e, span, count]) => ({ from: Math.pow(10, e), to: Math.pow(10, e + span), count }));
    fc.assert(
      fc.property(
        fc.array(bin, { minLength: 1, maxLength: 30 }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        (raw, markValue) => {
          const sorted = [...raw].sort((a, b) => a.from - b.from);
          const l = histogramLayout(sorted, {
            width: 400,
            height: 180,
            marks: [{ key: 'learned', label: 'w', value: markValue }],
          });
          for (const b of l.bars) {
            expect(b.x).toBeGreaterThanOrEqual(l.plot.left - 1e-6);
            expect(b.x + b.w).toBeLessThanOrEqual(l.plot.right + 1 + 1e-6);
            expect(b.y).toBeGreaterThanOrEqual(l.plot.top - 1e-6);
            expect(b.y + b.h).toBeCloseTo(l.plot.bottom, 6);
          }
          for (let i = 1; i < l.bars.length; i++)
            expect(l.bars[i]!.x).toBeGreaterThanOrEqual(l.bars[i - 1]!.x);
          const px = l.marks[0]!.px;
          expect(px).toBeGreaterThanOrEqual(l.plot.left);
          expect(px).toBeLessThanOrEqual(l.plot.right);
          expect(l.yTicks.at(-1)!.value).toBeGreaterThanOrEqual(Math.max(...sorted.map((b) => b.count)));
          for (const t of l.yTicks) expect(Number.isInteger(t.value)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});
