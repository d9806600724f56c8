import type { TopLevelSpec } from 'vega-lite';

/**
 * The simulator's plots as declarative Vega-Lite specs (https://vega.github.io/vega-lite/):
 * grouped bars, lines against a swept parameter, and a per-job Gantt view. Each function is
 * pure and returns a complete spec with its data inline, so `simulate` can write it beside the
 * SVG and PNG (NAME.vl.json) for anyone to re-render or restyle; render.ts turns it into SVG.
 */

/** Okabe and Ito's colour-blind-safe palette, yellow last (it is faint on white). */
export const SERIES_COLOURS = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#000000',
  '#F0E442',
] as const;

/** Marker shapes, so that series stay apart when there are more series than colours. */
const SERIES_SHAPES = [
  'circle',
  'square',
  'triangle-up',
  'diamond',
  'cross',
  'triangle-down',
  'triangle-right',
  'triangle-left',
] as const;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** Fonts that resvg finds on Debian (fonts-dejavu-core) first, then the usual ones. */
export const FONT = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';

const CONFIG = {
  font: FONT,
  background: 'white',
  padding: 12,
  title: { fontSize: 15, anchor: 'start', subtitleFontSize: 12, subtitleColor: '#444', offset: 12 },
  axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 0, titleLimit: 0, labelOverlap: true },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 0, titleLimit: 0 },
  header: { labelFontSize: 12, labelLimit: 0 },
  view: { stroke: '#bbb' },
} as const;

/** The i-th series colour, cycling after eight. */
export function colour(i: number): string {
  return SERIES_COLOURS[i % SERIES_COLOURS.length] as string;
}

/** The i-th series marker, shifted by one each time the colours cycle: (colour, shape) pairs stay distinct up to 64 series. */
export function shape(i: number): string {
  return SERIES_SHAPES[(i + Math.floor(i / SERIES_COLOURS.length)) % SERIES_SHAPES.length] as string;
}

/** A figure as its label shows it: three significant digits (whole above 1000), or a percentage of a ratio. */
export function formatValue(x: number, percent = false): string {
  if (percent) return `${Number((x * 100).toPrecision(3))}%`;
  if (x === 0) return '0';
  const a = Math.abs(x);
  // Thousands grouped as on the axes: 11,020.
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  return String(Number(x.toPrecision(3)));
}

function title(text: string, subtitle: string | undefined) {
  return subtitle === undefined ? { text } : { text, subtitle };
}

export interface BarChartInput {
  title: string;
  subtitle?: string;
  /** One panel per group (e.g. per metric), each with one bar per series (e.g. per policy). */
  groups: string[];
  series: Array<{ name: string; values: Array<number | null>; errors?: Array<number | null> }>;
  /** The y axis title, with its unit. */
  yLabel: string;
  /** Values are ratios: the axis runs from 0 to 100% and whiskers stop there. */
  percent?: boolean;
  /** Each panel gets its own y scale (figures of different sizes, e.g. makespan and mean turnaround). */
  independentScales?: boolean;
  /** The legend's title (default `policy`: a series per policy). */
  seriesTitle?: string;
}

/**
 * Bars in one panel per group, one bar per series named on the x axis and coloured by series,
 * each labelled with its value; whiskers show +/- the spread when given. A missing value is
 * written "n/a" where its bar would stand.
 */
export function barChart(input: BarChartInput): TopLevelSpec {
  const names = input.series.map((s) => s.name);
  const percent = input.percent ?? false;
  const cap = (v: number) => (percent ? Math.min(1, Math.max(0, v)) : v);
  const values = input.groups.flatMap((group, gi) =>
    input.series.map((s) => {
      const v = s.values[gi] ?? null;
      const e = s.errors?.[gi] ?? null;
      const spread = v !== null && e !== null && e > 0;
      return {
        group,
        series: s.name,
        value: v,
        lo: spread ? cap(v - e) : null,
        hi: spread ? cap(v + e) : null,
        label: v === null ? 'n/a' : formatValue(v, percent),
        labelAt: v === null ? 0 : spread ? cap(v + e) : v,
      };
    }),
  );
  const y = {
    field: 'value',
    type: 'quantitative',
    title: input.yLabel,
    ...(percent ? { scale: { domain: [0, 1] }, axis: { format: '.0%' } } : {}),
  };
  const x = {
    field: 'series',
    type: 'nominal',
    sort: names,
    title: null,
    axis: { labelAngle: names.length > 3 ? -35 : 0, labelOverlap: false },
  };
  return {
    $schema: SCHEMA,
    title: title(input.title, input.subtitle),
    config: CONFIG,
    data: { values },
    facet: { column: { field: 'group', type: 'nominal', sort: input.groups, header: { title: null } } },
    resolve: { scale: { y: input.independentScales ? 'independent' : 'shared' } },
    spec: {
      width: { step: names.length > 6 ? 30 : 42 },
      height: 260,
      encoding: { x, y },
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            color: {
              field: 'series',
              type: 'nominal',
              title: input.seriesTitle ?? 'policy',
              sort: names,
              scale: { domain: names, range: names.map((_, i) => colour(i)) },
            },
          },
        },
        {
          transform: [{ filter: { field: 'hi', valid: true } }],
          mark: { type: 'rule', color: '#222' },
          encoding: { y: { ...y, field: 'lo' }, y2: { field: 'hi' } },
        },
        {
          mark: { type: 'text', dy: -7, fontSize: names.length > 6 ? 9 : 10, color: '#222' },
          encoding: { y: { ...y, field: 'labelAt' }, text: { field: 'label' } },
        },
      ],
    },
  } as TopLevelSpec;
}

export interface LineChartInput {
  title: string;
  subtitle?: string;
  /** The x axis title, with its unit. */
  xLabel: string;
  /** The y axis title, with its unit. */
  yLabel: string;
  /** x values shared by all series; each is a tick on the axis. */
  x: number[];
  /** A logarithmic x axis (a delay swept over orders of magnitude). */
  logX?: boolean;
  /** `flat` marks a series that does not depend on x (drawn dashed across the whole range). */
  series: Array<{ name: string; values: Array<number | null>; flat?: boolean }>;
  /** How the legend names flat and varying series, e.g. "uses D" / "without D". */
  kinds?: { varying: string; flat: string };
  percent?: boolean;
}

/** Lines with markers, one colour and one marker shape per series; flat series dashed. */
export function lineChart(input: LineChartInput): TopLevelSpec {
  const names = input.series.map((s) => s.name);
  const kinds = input.kinds ?? { varying: 'varies with x', flat: 'constant' };
  const values = input.series.flatMap((s) =>
    input.x.map((x, i) => ({
      x,
      series: s.name,
      kind: s.flat ? kinds.flat : kinds.varying,
      value: s.values[i] ?? null,
      label: `${s.name} at ${formatValue(x)}: ${s.values[i] == null ? 'n/a' : formatValue(s.values[i] as number, input.percent)}`,
    })),
  );
  const series = { field: 'series', type: 'nominal', title: 'policy', sort: names };
  const percent = input.percent ?? false;
  return {
    $schema: SCHEMA,
    title: title(input.title, input.subtitle),
    config: CONFIG,
    data: { values },
    width: 520,
    height: 320,
    transform: [{ filter: { field: 'value', valid: true } }],
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative',
        title: input.xLabel,
        scale: input.logX ? { type: 'log', nice: false, padding: 12 } : { zero: false, padding: 12 },
        axis: { values: input.x, format: '~g', grid: true },
      },
      y: {
        field: 'value',
        type: 'quantitative',
        title: input.yLabel,
        // Lines need no zero baseline; a ratio's axis stops at 100%.
        scale: percent ? { zero: false, domainMax: 1 } : { zero: false },
        ...(percent ? { axis: { format: '.0%' } } : {}),
      },
      color: { ...series, scale: { domain: names, range: names.map((_, i) => colour(i)) } },
      description: { field: 'label' },
      tooltip: { field: 'label' },
    },
    layer: [
      {
        mark: { type: 'line', strokeWidth: 2 },
        encoding: {
          strokeDash: {
            field: 'kind',
            type: 'nominal',
            title: 'line',
            scale: {
              domain: [kinds.varying, kinds.flat],
              range: [
                [1, 0],
                [6, 4],
              ],
            },
          },
        },
      },
      {
        // Open markers: series with equal values (drawn on top of each other) all stay visible.
        mark: { type: 'point', filled: false, strokeWidth: 2, size: 70, opacity: 1 },
        encoding: {
          shape: {
            ...series,
            scale: { domain: names, range: names.map((_, i) => shape(i)) },
          },
        },
      },
    ],
  } as TopLevelSpec;
}

export interface GanttJob {
  id: string;
  arrival: number;
  absDeadline: number | null;
  start: number | null;
  finish: number | null;
  status: string;
}

/** Colours of the Gantt's outcomes, from the same colour-blind-safe palette. */
export const GANTT_OUTCOMES = {
  'waiting for a first task': '#888888',
  'met deadline': '#009E73',
  'missed deadline': '#D55E00',
  'finished, no deadline': '#0072B2',
  rejected: '#CC79A7',
  'not finished': '#E69F00',
  deadline: '#000000',
} as const;

export type GanttOutcome = keyof typeof GANTT_OUTCOMES;

/** At most this many job names on the y axis; past it every k-th is named (each bar still names its job). */
export const GANTT_MAX_LABELS = 60;

export function ganttOutcome(j: GanttJob): Exclude<GanttOutcome, 'deadline' | 'waiting for a first task'> {
  if (j.status === 'rejected') return 'rejected';
  if (j.finish === null) return 'not finished';
  if (j.absDeadline === null) return 'finished, no deadline';
  return j.finish <= j.absDeadline + 1e-9 ? 'met deadline' : 'missed deadline';
}

const ORDINALS: Record<number, string> = { 2: 'second', 3: 'third', 4: 'fourth', 5: 'fifth' };

/** Rows and the labelled subset of a Gantt with `n` jobs: row height in px and label stride. */
export function ganttRows(n: number): { step: number; every: number } {
  const step = n <= 30 ? 16 : n <= 60 ? 11 : Math.max(3, Math.min(9, Math.floor(900 / n)));
  return { step, every: Math.max(1, Math.ceil(n / GANTT_MAX_LABELS)) };
}

/** A job's row of a Gantt: its times, outcome, which marks it has, and its description. */
function ganttRow(j: GanttJob) {
  const outcome = ganttOutcome(j);
  const f = (t: number | null) => (t === null ? 'none' : formatValue(t));
  return {
    job: j.id,
    arrival: j.arrival,
    start: j.start,
    finish: j.finish,
    deadline: j.absDeadline,
    outcome,
    ran: j.finish !== null && outcome !== 'rejected',
    waited: j.start !== null && j.start > j.arrival,
    describe: `${j.id}: ${outcome}; arrival ${f(j.arrival)} s, start ${f(j.start)} s, finish ${f(j.finish)} s, deadline ${f(j.absDeadline)} s`,
  };
}

/**
 * One row per job in the given order, named on the y axis: a thin grey line for the wait from
 * arrival to the first task, a bar from the first task to the finish coloured by outcome, a tick
 * at arrival for a rejected or unfinished job, and a black tick at the deadline. With more than
 * GANTT_MAX_LABELS jobs every k-th row is named; every mark carries its job's figures as its
 * description (aria-label in the SVG, a tooltip when re-rendered interactively).
 */
export function ganttChart(titleText: string, jobs: readonly GanttJob[], subtitle?: string): TopLevelSpec {
  const ids = jobs.map((j) => j.id);
  if (new Set(ids).size !== ids.length) throw new RangeError('ganttChart: job ids must be unique');
  const { step, every } = ganttRows(jobs.length);
  const values = jobs.map(ganttRow);
  const present = new Set<GanttOutcome>(values.map((v) => v.outcome));
  if (values.some((v) => v.waited)) present.add('waiting for a first task');
  if (jobs.some((j) => j.absDeadline !== null)) present.add('deadline');
  const domain = (Object.keys(GANTT_OUTCOMES) as GanttOutcome[]).filter((o) => present.has(o));
  const labelled = every === 1 ? ids : ids.filter((_, i) => i % every === 0);
  const nth = ORDINALS[every] ?? `${every}th`;
  const note = every === 1 ? undefined : `${jobs.length} jobs; every ${nth} job named on the axis`;
  const colourOf = (datumOrField: { field: string } | { datum: string }) => ({
    ...datumOrField,
    type: 'nominal',
    title: 'job',
    scale: { domain, range: domain.map((o) => GANTT_OUTCOMES[o]) },
    legend: { symbolType: 'square', symbolOpacity: 1 },
  });
  return {
    $schema: SCHEMA,
    title: title(titleText, [subtitle, note].filter(Boolean).join('; ') || undefined),
    config: CONFIG,
    data: { values },
    width: 760,
    height: { step },
    encoding: {
      y: {
        field: 'job',
        type: 'nominal',
        sort: ids,
        title: every === 1 ? 'job' : `job (every ${nth} named)`,
        axis: { values: labelled, labelFontSize: step < 10 ? 9 : 10, labelOverlap: false, ticks: false },
      },
      description: { field: 'describe' },
      tooltip: { field: 'describe' },
    },
    layer: [
      {
        transform: [{ filter: 'datum.waited' }],
        mark: { type: 'rule', strokeWidth: 1 },
        encoding: {
          x: { field: 'arrival', type: 'quantitative', title: 'simulated time (s)' },
          x2: { field: 'start' },
          color: colourOf({ datum: 'waiting for a first task' }),
        },
      },
      {
        transform: [{ filter: 'datum.ran' }],
        mark: { type: 'bar', height: { band: 0.75 } },
        encoding: {
          x: { field: 'start', type: 'quantitative', title: 'simulated time (s)' },
          x2: { field: 'finish' },
          color: colourOf({ field: 'outcome' }),
        },
      },
      {
        transform: [{ filter: '!datum.ran' }],
        mark: { type: 'tick', opacity: 1, thickness: 3, bandSize: Math.max(3, step * 0.8) },
        encoding: {
          x: { field: 'arrival', type: 'quantitative', title: 'simulated time (s)' },
          color: colourOf({ field: 'outcome' }),
        },
      },
      {
        transform: [{ filter: { field: 'deadline', valid: true } }],
        mark: { type: 'tick', opacity: 1, thickness: 2, bandSize: Math.max(3, step) },
        encoding: {
          x: { field: 'deadline', type: 'quantitative', title: 'simulated time (s)' },
          color: colourOf({ datum: 'deadline' }),
        },
      },
    ],
  } as TopLevelSpec;
}

export interface SweepPanel {
  title: string;
  yLabel: string;
  percent?: boolean;
  /** One line per series over the swept values; `seed` is the source paper's published figure, drawn as a dashed reference line. */
  series: Array<{ name: string; values: Array<number | null>; errors?: Array<number | null>; seed?: number }>;
}

export interface SweepChartInput {
  title: string;
  subtitle?: string;
  /** The x axis title (the parameter, with its unit). */
  xLabel: string;
  /** The swept values, in the order given; numbers are drawn on a quantitative axis, words as categories. */
  x: Array<number | string>;
  panels: SweepPanel[];
}

/**
 * A sweep: one panel per headline figure, side by side, each with a line per series against
 * the swept parameter (whiskers +/- one sd over the seeds) and, where the seed publishes the
 * figure, a dashed line of the same colour at the paper's value, labelled "paper". Colours are
 * shared by name across panels.
 */
export function sweepChart(input: SweepChartInput): TopLevelSpec {
  // Positive numbers spanning 10 times or more on a log axis, other positive numbers on a linear
  // one; words, and numbers with a 0 or below (no log axis, and 0 and 60 would share a label
  // next to 3600), as evenly spaced categories in the order given.
  const nums = input.x as number[];
  const numeric = input.x.every((v) => typeof v === 'number' && v > 0);
  const logX = numeric && Math.max(...nums) / Math.min(...nums) >= 10;
  const names = [...new Set(input.panels.flatMap((p) => p.series.map((s) => s.name)))];
  const colourScale = { domain: names, range: names.map((_, i) => colour(i)) };
  const shared: SweepAxes = { input, numeric, logX, names, colourScale };
  return {
    $schema: SCHEMA,
    title: title(input.title, input.subtitle),
    config: CONFIG,
    hconcat: input.panels.map((p) => sweepPanel(p, shared)),
    bounds: 'flush',
    spacing: 60,
    resolve: { scale: { color: 'shared', shape: 'shared', y: 'independent' } },
  } as TopLevelSpec;
}

/** What the panels of a sweep share: its x axis, and the series' names and colours. */
interface SweepAxes {
  input: SweepChartInput;
  numeric: boolean;
  logX: boolean;
  names: string[];
  colourScale: { domain: string[]; range: string[] };
}

/** The dashed line of a paper's published figure: one per series that has it. */
interface PaperRef {
  series: string;
  seed: number;
}

/**
 * One panel of a sweep: a line per series with its whiskers, and the papers' published
 * figures as dashed lines, labelled.
 */
function sweepPanel(p: SweepPanel, { input, numeric, logX, names, colourScale }: SweepAxes) {
  const percent = p.percent ?? false;
  const rows = sweepRows(p, input.x, percent);
  const refs: PaperRef[] = p.series
    .filter((s) => s.seed !== undefined)
    .map((s) => ({ series: s.name, seed: s.seed as number }));
  const y = {
    field: 'value',
    type: 'quantitative',
    // Named in the panel's subtitle: a long rotated axis title shifts the panel's title.
    title: null,
    scale: { zero: false },
    ...(percent ? { axis: { format: '.0%' } } : {}),
  };
  const x = numeric
    ? {
        field: 'x',
        type: 'quantitative',
        title: input.xLabel,
        scale: logX ? { type: 'log', nice: false, padding: 12 } : { zero: false, padding: 12 },
        axis: { values: input.x, format: '~r', grid: true, labelAngle: 0 },
      }
    : { field: 'x', type: 'ordinal', title: input.xLabel, sort: input.x, axis: { labelAngle: 0 } };
  const color = { field: 'series', type: 'nominal', title: 'series', scale: colourScale };
  return {
    title: { text: p.title, subtitle: p.yLabel, frame: 'group' },
    width: 300,
    height: 260,
    layer: [
      {
        data: { values: rows },
        transform: [{ filter: { field: 'value', valid: true } }],
        encoding: { x, y, color, description: { field: 'label' }, tooltip: { field: 'label' } },
        layer: [
          { mark: { type: 'line', strokeWidth: 2 } },
          {
            mark: { type: 'point', filled: false, strokeWidth: 2, size: 60, opacity: 1 },
            encoding: {
              shape: {
                field: 'series',
                type: 'nominal',
                title: 'series',
                scale: { domain: names, range: names.map((_, i) => shape(i)) },
              },
            },
          },
        ],
      },
      {
        data: { values: rows },
        transform: [{ filter: { field: 'hi', valid: true } }],
        mark: { type: 'rule', strokeWidth: 1 },
        encoding: { x, y: { ...y, field: 'lo' }, y2: { field: 'hi' }, color },
      },
      ...(refs.length ? [paperLayer(refs, percent, y, color)] : []),
    ],
  };
}

/** A panel's points: each series' value at each swept value, with its spread and label. */
function sweepRows(p: SweepPanel, xs: SweepChartInput['x'], percent: boolean) {
  return p.series.flatMap((s) =>
    xs.map((x, i) => {
      const v = s.values[i] ?? null;
      const e = s.errors?.[i] ?? null;
      const spread = v !== null && e !== null && e > 0;
      return {
        x,
        series: s.name,
        value: v,
        lo: spread ? v - e : null,
        hi: spread ? v + e : null,
        label: `${s.name} at ${typeof x === 'number' ? formatValue(x) : x}: ${v === null ? 'n/a' : formatValue(v, percent)}`,
      };
    }),
  );
}

/** The papers' published figures of a panel: dashed lines, each distinct value labelled once. */
function paperLayer(refs: PaperRef[], percent: boolean, y: object, color: object) {
  // One label per distinct published value, naming every series at it (their dashed lines coincide).
  const labels = [...new Set(refs.map((r) => r.seed))].map((v, i) => ({
    seed: v,
    // Alternate sides, so that labels of close values do not overprint.
    side: i % 2 === 0 ? 'right' : 'left',
    series: (refs.find((r) => r.seed === v) as { series: string }).series,
    label: `paper ${refs
      .filter((r) => r.seed === v)
      .map((r) => r.series)
      .join(', ')}: ${formatValue(v, percent)}`,
  }));
  return {
    data: { values: refs },
    layer: [
      {
        mark: { type: 'rule', strokeDash: [6, 4], strokeWidth: 1.5 },
        encoding: { y: { ...y, field: 'seed' }, color, description: { field: 'label' } },
      },
      ...(['right', 'left'] as const).map((side) => ({
        data: { values: labels },
        transform: [{ filter: { field: 'side', equal: side } }],
        mark: {
          type: 'text',
          align: side,
          baseline: 'bottom',
          dx: side === 'left' ? 2 : -2,
          dy: -2,
          fontSize: 10,
        },
        encoding: {
          y: { ...y, field: 'seed' },
          x: { value: side === 'right' ? 300 : 0 },
          text: { field: 'label' },
          color,
        },
      })),
    ],
  };
}
