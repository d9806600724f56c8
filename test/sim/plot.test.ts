import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { PNG_SIGNATURE, svgSize, svgToPng } from '../../src/sim/png';
import { renderSvg, writePlots } from '../../src/sim/plot/render';
import {
  GANTT_MAX_LABELS,
  GANTT_OUTCOMES,
  SERIES_COLOURS,
  barChart,
  colour,
  formatValue,
  ganttChart,
  ganttRows,
  lineChart,
  shape,
  type GanttJob,
} from '../../src/sim/plot/specs';

/**
 * Every plot kind rendered on the server (vega + vega-lite to SVG, resvg to PNG) and read back:
 * well-formed SVG with its title, axis titles and a legend entry per series, visible (Vega hides
 * an overlapping label with opacity 0), percentages that stop at 100%, a log-scaled delay axis,
 * distinct colour-blind-safe colours, and a Gantt that names its jobs.
 */

interface SvgText {
  text: string;
  visible: boolean;
  /** The x of the text's own translate(), relative to its group. */
  x: number;
  y: number;
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

function texts(svg: string): SvgText[] {
  return [...svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].map((m) => {
    const attrs = m[1]!;
    const t = /transform="translate\(([-\d.e]+),([-\d.e]+)\)/.exec(attrs);
    return {
      text: unescape(m[2]!),
      visible: !/opacity="0"/.test(attrs),
      x: Number(t?.[1] ?? NaN),
      y: Number(t?.[2] ?? NaN),
    };
  });
}

const visible = (svg: string) =>
  texts(svg)
    .filter((t) => t.visible)
    .map((t) => t.text);

/** Fill colours of the marks Vega describes as `role`, e.g. "bar". */
function markFills(svg: string, role: string): string[] {
  return [...svg.matchAll(/<path([^>]*)\/>/g)]
    .map((m) => m[1]!)
    .filter((a) => a.includes(`aria-roledescription="${role}"`))
    .map((a) => /fill="([^"]+)"/.exec(a)?.[1] ?? '');
}

function expectWellFormed(svg: string): void {
  expect(svg.startsWith('<svg')).toBe(true);
  expect(XMLValidator.validate(svg)).toBe(true);
}

/** Percent tick labels on an axis, as numbers. */
const percentTicks = (svg: string) =>
  visible(svg)
    .filter((t) => /^-?\d+%$/.test(t))
    .map((t) => Number(t.slice(0, -1)));

const POLICIES = ['dc', 'rtmr', 'rtmr-no-feedback', 'yarn-greedy', 'fifo-all'];

describe('bar charts', () => {
  const spec = barChart({
    title: 'rtmr-workload-2: accept, success and utilisation per policy',
    subtitle: 'mean of 3 seeds (1, 2, 3), whiskers +/- 1 sd',
    groups: ['accept ratio', 'success ratio', 'utilisation'],
    series: POLICIES.map((name, i) => ({
      name,
      values: [0.6 + i * 0.08, i === 4 ? 0.93 : 1, i === 0 ? null : 0.8],
      errors: [0.05, 0.04, 0.01],
    })),
    yLabel: 'share (%)',
    percent: true,
  });
  let svg: string;
  beforeAll(async () => {
    svg = await renderSvg(spec);
  });

  it('renders well-formed SVG with its title, subtitle and axis title', () => {
    expectWellFormed(svg);
    const shown = visible(svg);
    expect(shown).toContain('rtmr-workload-2: accept, success and utilisation per policy');
    expect(shown).toContain('mean of 3 seeds (1, 2, 3), whiskers +/- 1 sd');
    expect(shown.filter((t) => t === 'share (%)')).toHaveLength(1);
    for (const g of ['accept ratio', 'success ratio', 'utilisation']) expect(shown).toContain(g);
  });

  it('has a legend entry for every series, and every policy named under its bar in each panel', () => {
    const shown = visible(svg);
    expect(shown).toContain('policy');
    // Legend entry + one x-axis label per panel, none hidden as overlapping.
    for (const p of POLICIES) expect(shown.filter((t) => t === p)).toHaveLength(1 + 3);
  });

  it('gives each series its own colour-blind-safe colour', () => {
    const fills = markFills(svg, 'bar');
    expect(fills).toHaveLength(5 * 3 - 1); // dc has no utilisation
    expect(new Set(fills)).toEqual(new Set(SERIES_COLOURS.slice(0, 5)));
  });

  it('runs the percentage axis from 0% to 100% exactly, whiskers capped there too', () => {
    const ticks = percentTicks(svg);
    expect(Math.min(...ticks)).toBe(0);
    expect(Math.max(...ticks)).toBe(100);
    const rows = (spec.data as { values: Array<{ hi: number | null; series: string; group: string }> })
      .values;
    // success ratio 1 +/- 0.04 stops at 1, 0.6 + 0.05 does not.
    expect(rows.find((r) => r.series === 'rtmr' && r.group === 'success ratio')?.hi).toBe(1);
    expect(rows.find((r) => r.series === 'dc' && r.group === 'accept ratio')?.hi).toBeCloseTo(0.65, 10);
  });

  it('labels every bar with its value, and a missing value as n/a', () => {
    const shown = visible(svg);
    for (const label of ['60%', '68%', '93%', '100%', '80%', 'n/a']) expect(shown).toContain(label);
  });

  it('gives panels of different magnitudes their own y scale when asked', async () => {
    const turnaround = await renderSvg(
      barChart({
        title: 'turnaround',
        groups: ['makespan', 'mean job turnaround'],
        series: POLICIES.map((name, i) => ({ name, values: [1900 - i * 100, 370 - i * 40] })),
        yLabel: 'time (s)',
        independentScales: true,
      }),
    );
    expectWellFormed(turnaround);
    const shown = visible(turnaround);
    expect(shown.filter((t) => t === 'time (s)')).toHaveLength(2);
    expect(shown).toContain('2,000'); // makespan's axis
    expect(shown).toContain('400'); // the mean's own axis, not squeezed under 2,000
    expect(shown).toContain('1,900');
  });
});

describe('line charts against the delay D', () => {
  const D = [0.3, 0.9, 1.5, 3, 4.5, 9, 15, 30];
  const series = [
    { name: 'delay', values: D.map((d) => Math.min(1, 0.85 + d / 200)) },
    { name: 'fair-delay', values: D.map((d) => Math.min(1, 0.84 + d / 150)) },
    { name: 'fifo', values: D.map(() => 0.785), flat: true },
    { name: 'matchmaking', values: D.map(() => 0.91), flat: true },
    { name: 'fair-matchmaking', values: D.map(() => 0.91), flat: true },
  ];
  const spec = lineChart({
    title: 'locality: data locality rate against the delay D',
    subtitle: 'seed 1',
    xLabel: 'maximum delay D (s, log scale)',
    yLabel: 'local map tasks / all map tasks (%)',
    x: D,
    logX: true,
    kinds: { varying: 'delay scheduling, varies with D', flat: 'without D (constant)' },
    series,
    percent: true,
  });
  let svg: string;
  beforeAll(async () => {
    svg = await renderSvg(spec);
  });

  it('renders well-formed SVG with title and both axis titles with units', () => {
    expectWellFormed(svg);
    const shown = visible(svg);
    expect(shown).toContain('locality: data locality rate against the delay D');
    expect(shown).toContain('maximum delay D (s, log scale)');
    expect(shown).toContain('local map tasks / all map tasks (%)');
  });

  it('has a legend entry for every series and for both line kinds', () => {
    const shown = visible(svg);
    for (const s of series) expect(shown.filter((t) => t === s.name)).toHaveLength(1);
    expect(shown).toContain('delay scheduling, varies with D');
    expect(shown).toContain('without D (constant)');
  });

  it('puts a tick at every D, log-spaced: 0.3 -> 3 spans as far as 3 -> 30', () => {
    const at = (label: string) => {
      const found = texts(svg).filter((t) => t.text === label && t.visible);
      expect(found).toHaveLength(1);
      return found[0]!.x;
    };
    for (const d of D) at(String(d));
    expect(at('3') - at('0.3')).toBeGreaterThan(100);
    expect(at('30') - at('3')).toBeCloseTo(at('3') - at('0.3'), 0);
    expect(at('9') - at('0.9')).toBeCloseTo(at('3') - at('0.3'), 0);
  });

  it('stops the percentage axis at 100% even with values at 100%', () => {
    const ticks = percentTicks(svg);
    expect(Math.max(...ticks)).toBe(100);
    expect(ticks.every((t) => t <= 100)).toBe(true);
  });

  it('draws each series in its own colour and marker shape, the flat ones dashed', () => {
    const strokes = [...svg.matchAll(/aria-roledescription="line mark"[^>]*stroke="([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(new Set(strokes).size).toBe(5);
    const layer = (
      spec as unknown as { layer: Array<{ encoding: Record<string, { scale: { range: unknown[] } }> }> }
    ).layer;
    expect(new Set(layer[1]!.encoding.shape!.scale.range).size).toBe(5);
    const dashed = [...svg.matchAll(/aria-roledescription="line mark"[^>]*>/g)].filter((m) =>
      m[0].includes('stroke-dasharray="6,4"'),
    );
    expect(dashed).toHaveLength(3);
  });
});

const job = (id: string, over: Partial<GanttJob>): GanttJob => ({
  id,
  arrival: 0,
  absDeadline: null,
  start: null,
  finish: null,
  status: 'finished',
  ...over,
});

describe('Gantt charts', () => {
  const jobs: GanttJob[] = [
    job('j1', { arrival: 0, start: 5, finish: 40, absDeadline: 60 }),
    job('j2', { arrival: 10, start: 30, finish: 90, absDeadline: 70 }),
    job('j3', { arrival: 20, status: 'rejected', absDeadline: 50 }),
    job('j4', { arrival: 25, start: 25, finish: 55 }),
  ];
  let svg: string;
  beforeAll(async () => {
    svg = await renderSvg(ganttChart("w / rtmr: each job's wait, run and deadline", jobs, 'seed 1'));
  });

  it('renders well-formed SVG naming every job on its axis, with time in seconds', () => {
    expectWellFormed(svg);
    const shown = visible(svg);
    expect(shown).toContain("w / rtmr: each job's wait, run and deadline");
    expect(shown).toContain('seed 1');
    expect(shown).toContain('simulated time (s)');
    expect(shown).toContain('job');
    for (const j of jobs) expect(shown).toContain(j.id);
  });

  it('has a legend entry for every outcome present, and the deadline', () => {
    const shown = visible(svg);
    for (const o of [
      'waiting for a first task',
      'met deadline',
      'missed deadline',
      'rejected',
      'finished, no deadline',
      'deadline',
    ])
      expect(shown).toContain(o);
    expect(shown).not.toContain('not finished');
  });

  it('colours the runs by outcome and describes each job in its marks', () => {
    expect(markFills(svg, 'bar').sort()).toEqual(
      [
        GANTT_OUTCOMES['met deadline'],
        GANTT_OUTCOMES['missed deadline'],
        GANTT_OUTCOMES['finished, no deadline'],
      ].sort(),
    );
    expect(svg).toContain(
      'aria-label="j1: met deadline; arrival 0 s, start 5 s, finish 40 s, deadline 60 s"',
    );
    expect(svg).toContain(
      'aria-label="j2: missed deadline; arrival 10 s, start 30 s, finish 90 s, deadline 70 s"',
    );
    expect(svg).toContain(
      'aria-label="j3: rejected; arrival 20 s, start none s, finish none s, deadline 50 s"',
    );
  });

  it('with many jobs names every k-th on the axis (at most GANTT_MAX_LABELS) and every job in its marks', async () => {
    const many = Array.from({ length: 150 }, (_, i) =>
      job(`job-${String(i).padStart(3, '0')}`, {
        arrival: i,
        start: i + 1,
        finish: i + 20,
        absDeadline: i + 30,
      }),
    );
    expect(ganttRows(150)).toEqual({ step: 6, every: 3 });
    const big = await renderSvg(ganttChart('many', many));
    expectWellFormed(big);
    const named = visible(big).filter((t) => t.startsWith('job-'));
    expect(named).toHaveLength(50);
    expect(named.length).toBeLessThanOrEqual(GANTT_MAX_LABELS);
    expect(named[0]).toBe('job-000');
    expect(named[1]).toBe('job-003');
    expect(visible(big)).toContain('150 jobs; every third job named on the axis');
    expect(visible(big)).toContain('job (every third named)');
    for (const j of many) expect(big).toContain(`aria-label="${j.id}: met deadline;`);
  });

  it('refuses two jobs with one id', () => {
    expect(() => ganttChart('dup', [job('a', {}), job('a', {})])).toThrow(RangeError);
  });
});

describe('PNG through resvg', () => {
  let svg: string;
  beforeAll(async () => {
    svg = await renderSvg(
      barChart({ title: 'png', groups: ['g'], series: [{ name: 's', values: [1] }], yLabel: 'y (s)' }),
    );
  });

  /** Width and height from the PNG's IHDR chunk. */
  const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

  it('starts with the PNG signature and has the SVG size times the scale', () => {
    const { width, height } = svgSize(svg);
    const png = svgToPng(svg);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.toString('latin1', 12, 16)).toBe('IHDR');
    // Fitted to the width; resvg rounds the height up.
    expect(pngSize(png).width).toBe(Math.round(width * 1.5));
    expect(Math.abs(pngSize(png).height - height * 1.5)).toBeLessThanOrEqual(1);
    expect(pngSize(svgToPng(svg, 1))).toEqual({ width, height });
  });

  it('refuses an SVG without a size and a scale that is not positive', () => {
    expect(() => svgToPng('<svg xmlns="http://www.w3.org/2000/svg"></svg>')).toThrow(RangeError);
    expect(() => svgToPng(svg, 0)).toThrow(RangeError);
  });
});

describe('writePlots', () => {
  it('writes each spec as NAME.vl.json beside its SVG and PNG; --no-png leaves the PNG out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yss-plots-'));
    try {
      const spec = barChart({
        title: 't',
        groups: ['g'],
        series: [{ name: 's', values: [2] }],
        yLabel: 'y (s)',
      });
      expect(await writePlots(dir, [{ name: 'one', spec }])).toEqual(['one.vl.json', 'one.svg', 'one.png']);
      expect(JSON.parse(readFileSync(join(dir, 'one.vl.json'), 'utf8'))).toEqual(spec);
      expect(readFileSync(join(dir, 'one.svg'), 'utf8')).toBe(await renderSvg(spec));
      expect(readFileSync(join(dir, 'one.png')).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(await writePlots(dir, [{ name: 'two', spec }], { png: false })).toEqual([
        'two.vl.json',
        'two.svg',
      ]);
      expect(readdirSync(dir).sort()).toEqual([
        'one.png',
        'one.svg',
        'one.vl.json',
        'two.svg',
        'two.vl.json',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('series styles', () => {
  it('keeps every (colour, marker) pair distinct past the eight colours', () => {
    const pairs = Array.from({ length: 64 }, (_, i) => `${colour(i)} ${shape(i)}`);
    expect(new Set(pairs).size).toBe(64);
    expect(colour(8)).toBe(colour(0));
    expect(shape(8)).not.toBe(shape(0));
  });
});

describe('formatValue', () => {
  it.each([
    [0, false, '0'],
    [1918.7, false, '1,919'],
    [-83259.4, false, '-83,259'],
    [374.25, false, '374'],
    [43.75, false, '43.8'],
    [0.12345, false, '0.123'],
    [0.933333, true, '93.3%'],
    [1, true, '100%'],
    [0.745, true, '74.5%'],
  ])('%p (percent %p) -> %p', (x, percent, text) => {
    expect(formatValue(x, percent)).toBe(text);
  });
});
