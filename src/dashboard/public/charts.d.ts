/** Types of charts.js (plain browser JavaScript), for the tests that load it under Node. */

export interface Margin {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export interface Plot {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface SeriesInput {
  name: string;
  points: Array<{ x: number; y: number | null }>;
}

export interface LayoutPoint {
  x: number;
  y: number;
  px: number;
  py: number;
}

/** What every layout is asked for: its size, margins and how many y ticks to aim at. */
export interface LayoutOptions {
  width: number;
  height: number;
  margin?: Partial<Margin>;
  yTickCount?: number;
}

export interface LineLayoutOptions extends LayoutOptions {
  yMin?: number;
  yMax?: number;
  xTickCount?: number;
  yFormat?: (v: number) => string;
}

export interface XTick {
  value: number;
  px: number;
  label: string;
}

export interface YTick {
  value: number;
  py: number;
  label: string;
}

/** What every layout has: its size, the plot area inside the margins and the y axis. */
export interface ChartLayout {
  width: number;
  height: number;
  plot: Plot;
  yTicks: YTick[];
}

export interface LineLayout extends ChartLayout {
  xTicks: XTick[];
  series: Array<{ name: string; index: number; points: LayoutPoint[]; segments: LayoutPoint[][] }>;
}

export interface BarInput {
  key: string;
  value: number;
  kind: string;
  title: string;
}

export interface BarLayout extends ChartLayout {
  zeroY: number;
  bars: Array<{
    key: string;
    kind: string;
    title: string;
    value: number;
    x: number;
    y: number;
    w: number;
    h: number;
  }>;
}

export function linearScale(d0: number, d1: number, r0: number, r1: number): (v: number) => number;
export function niceTicks(min: number, max: number, count: number): number[];
export function timeTicks(minMs: number, maxMs: number, count: number): { step: number; ticks: number[] };
export function formatTimeTick(ms: number, step: number): string;
export function formatNumber(v: number): string;
export function lineLayout(series: SeriesInput[], options: LineLayoutOptions): LineLayout;
export function barLayout(bars: BarInput[], options: LayoutOptions): BarLayout;

export interface HistogramBinInput {
  from: number;
  to: number;
  count: number;
}

export interface HistogramLayout extends ChartLayout {
  xTicks: XTick[];
  bars: Array<{ from: number; to: number; count: number; x: number; y: number; w: number; h: number }>;
  marks: Array<{ key: string; label: string; value: number; px: number }>;
}

export function logTicks(lo: number, hi: number): number[];
export function histogramLayout(
  bins: HistogramBinInput[],
  options: LayoutOptions & { marks?: Array<{ key: string; label: string; value: number }> },
): HistogramLayout;
