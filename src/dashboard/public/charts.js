// @ts-check
/// <reference lib="dom" />
/*
 * SVG charts for the dashboard, drawn in the browser with no library.
 *
 * Two halves: pure layout (scales, ticks, point and bar geometry: numbers in, numbers out,
 * unit- and property-tested under Node) and DOM rendering (createElementNS, text only through
 * textContent). An ES module: the page's modules import it, and so do the tests.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/** @typedef {{ top: number, right: number, bottom: number, left: number }} Margin */
/** @typedef {{ left: number, right: number, top: number, bottom: number }} Plot */
/** @typedef {{ name: string, points: Array<{ x: number, y: number | null }> }} SeriesInput */
/** @typedef {{ x: number, y: number, px: number, py: number }} LayoutPoint */
/** @typedef {{ name: string, index: number, points: LayoutPoint[], segments: LayoutPoint[][] }} LayoutSeries */
/** @typedef {{ value: number, px: number, label: string }} XTick */
/** @typedef {{ value: number, py: number, label: string }} YTick */

/**
 * What every layout is asked for: its size, margins and how many y ticks to aim at.
 * @typedef {{ width: number, height: number, margin?: Partial<Margin>, yTickCount?: number }} LayoutOptions
 */
/**
 * @typedef {LayoutOptions & {
 *   yMin?: number, yMax?: number, xTickCount?: number, yFormat?: (v: number) => string
 * }} LineLayoutOptions
 */
/**
 * What every layout has: its size, the plot area inside the margins and the y axis.
 * @typedef {{ width: number, height: number, plot: Plot, yTicks: YTick[], xTicks?: XTick[] }} ChartLayout
 */
/** @typedef {ChartLayout & { xTicks: XTick[], series: LayoutSeries[] }} LineLayout */
/** @typedef {{ key: string, value: number, kind: string, title: string }} BarInput */
/** @typedef {BarInput & { x: number, y: number, w: number, h: number }} LayoutBar */
/** @typedef {ChartLayout & { zeroY: number, bars: LayoutBar[] }} BarLayout */
/** @typedef {{ from: number, to: number, count: number }} HistogramBinInput */
/** @typedef {{ key: string, label: string, value: number }} MarkInput */
/**
 * @typedef {ChartLayout & {
 *   xTicks: XTick[],
 *   bars: Array<HistogramBinInput & { x: number, y: number, w: number, h: number }>,
 *   marks: Array<MarkInput & { px: number }>
 * }} HistogramLayout
 */

/**
 * A linear map from [d0, d1] onto [r0, r1]; a zero-width domain maps to the range's middle.
 * @param {number} d0 @param {number} d1 @param {number} r0 @param {number} r1
 * @returns {(v: number) => number}
 */
export function linearScale(d0, d1, r0, r1) {
  if (d1 === d0) return () => (r0 + r1) / 2;
  const k = (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/**
 * Round tick values covering [min, max]: a step of 1, 2 or 5 times a power of ten, about
 * `count` intervals, the first tick at or below min and the last at or above max.
 * @param {number} min @param {number} max @param {number} count
 * @returns {number[]}
 */
export function niceTicks(min, max, count) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (max < min) [min, max] = [max, min];
  if (!(max - min > 1e-12 * Math.max(1, Math.abs(min), Math.abs(max)))) {
    // A flat series (or one flat to within rounding) still gets an axis: widen around it.
    const magnitude = Math.max(Math.abs(min), Math.abs(max));
    const pad = magnitude < 1e-6 ? 1 : magnitude * 0.1;
    min -= pad;
    max += pad;
  }
  const raw = (max - min) / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || 10 * power;
  let first = Math.floor(min / step) * step;
  // min / step can underflow to -0 for a tiny negative min: step down once more.
  if (first > min) first -= step;
  const ticks = [];
  // Multiply rather than accumulate, so no rounding error piles up along the axis.
  for (let i = 0; first + i * step <= max + step * 1e-9; i++) ticks.push(roundTo(first + i * step, step));
  if (ticks[ticks.length - 1] < max) ticks.push(roundTo(first + ticks.length * step, step));
  return ticks;
}

/** @param {number} value @param {number} step */
function roundTo(value, step) {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(Math.min(20, digits)));
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
];

/**
 * Clock-aligned time ticks (epoch ms) strictly inside or on [minMs, maxMs], about `count`.
 * @param {number} minMs @param {number} maxMs @param {number} count
 * @returns {{ step: number, ticks: number[] }}
 */
export function timeTicks(minMs, maxMs, count) {
  if (!(maxMs > minMs)) return { step: MINUTE, ticks: Number.isFinite(minMs) ? [minMs] : [] };
  const raw = (maxMs - minMs) / Math.max(1, count);
  const step = TIME_STEPS.find((s) => s >= raw) || Math.ceil(raw / DAY) * DAY;
  const ticks = [];
  for (let t = Math.ceil(minMs / step) * step; t <= maxMs; t += step) ticks.push(t);
  return { step, ticks };
}

/** @param {number} n */
function pad2(n) {
  return String(n).padStart(2, '0');
}

/**
 * An axis label in UTC, as precise as the tick step needs.
 * @param {number} ms @param {number} step
 */
export function formatTimeTick(ms, step) {
  const d = new Date(ms);
  const hm = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  if (step < MINUTE) return `${hm}:${pad2(d.getUTCSeconds())}`;
  if (step >= DAY) return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  return hm;
}

/** @param {number} v */
export function formatNumber(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k`;
  if (a >= 1) return String(Number(v.toFixed(2)));
  return String(Number(v.toPrecision(2)));
}

/** @type {Margin} */
const DEFAULT_MARGIN = { top: 10, right: 12, bottom: 24, left: 40 };

/**
 * The plot area of a chart: its size less the margins (the default ones where none is given).
 * @param {LayoutOptions} options
 * @returns {Plot}
 */
function plotArea(options) {
  const m = { ...DEFAULT_MARGIN, ...(options.margin || {}) };
  return { left: m.left, right: options.width - m.right, top: m.top, bottom: options.height - m.bottom };
}

/**
 * The y ticks as a layout carries them: value, pixel and label.
 * @param {number[]} values @param {(v: number) => number} sy @param {((v: number) => string) | undefined} format
 * @returns {YTick[]}
 */
function yTicksOf(values, sy, format) {
  return values.map((v) => ({ value: v, py: sy(v), label: format ? format(v) : formatNumber(v) }));
}

/**
 * The value axis of a line chart: fixed by yMin and yMax (ratios use 0..1), else spanning the
 * data and zero.
 * @param {number[]} ys @param {LineLayoutOptions} options
 */
function lineValueTicks(ys, options) {
  if (options.yMin !== undefined && options.yMax !== undefined)
    return niceTicks(options.yMin, options.yMax, options.yTickCount || 4);
  const lo = Math.min(0, ...ys);
  const hi = ys.length ? Math.max(0, ...ys) : 1;
  return niceTicks(lo, hi, options.yTickCount || 4);
}

/**
 * One series' points in pixels, split into segments at each null (a ratio is undefined before
 * the first decision).
 * @param {SeriesInput} s @param {number} index
 * @param {(v: number) => number} sx @param {(v: number) => number} sy
 * @returns {LayoutSeries}
 */
function layoutSeries(s, index, sx, sy) {
  /** @type {LayoutPoint[]} */
  const points = [];
  /** @type {LayoutPoint[][]} */
  const segments = [];
  /** @type {LayoutPoint[]} */
  let current = [];
  for (const p of s.points) {
    if (!Number.isFinite(p.x) || p.y === null || !Number.isFinite(p.y)) {
      if (current.length) segments.push(current);
      current = [];
      continue;
    }
    const point = { x: p.x, y: p.y, px: sx(p.x), py: sy(p.y) };
    points.push(point);
    current.push(point);
  }
  if (current.length) segments.push(current);
  return { name: s.name, index, points, segments };
}

/**
 * Geometry of a time-series line chart. A null y breaks the line; each point carries its pixel
 * position {px, py} and the data it came from.
 * @param {SeriesInput[]} series @param {LineLayoutOptions} options
 * @returns {LineLayout}
 */
export function lineLayout(series, options) {
  const plot = plotArea(options);
  /** @type {number[]} */
  const xs = [];
  /** @type {number[]} */
  const ys = [];
  for (const s of series) {
    for (const p of s.points) {
      if (!Number.isFinite(p.x)) continue;
      xs.push(p.x);
      if (p.y !== null && Number.isFinite(p.y)) ys.push(p.y);
    }
  }
  const xMin = xs.length ? Math.min(...xs) : 0;
  const xMax = xs.length ? Math.max(...xs) : 1;
  const yTicks = lineValueTicks(ys, options);
  const sx = linearScale(xMin, xMax, plot.left, plot.right);
  const sy = linearScale(yTicks[0], yTicks[yTicks.length - 1], plot.bottom, plot.top);
  const time = timeTicks(xMin, xMax, options.xTickCount || 4);
  return {
    width: options.width,
    height: options.height,
    plot,
    xTicks: time.ticks.map((t) => ({ value: t, px: sx(t), label: formatTimeTick(t, time.step) })),
    yTicks: yTicksOf(yTicks, sy, options.yFormat),
    series: series.map((s, index) => layoutSeries(s, index, sx, sy)),
  };
}

/**
 * Geometry of a bar chart of signed values around a zero line (slack per job), bars in display
 * order.
 * @param {BarInput[]} bars @param {LayoutOptions & { yFormat?: (v: number) => string }} options
 * @returns {BarLayout}
 */
export function barLayout(bars, options) {
  const plot = plotArea(options);
  const values = bars.map((b) => b.value).filter((v) => Number.isFinite(v));
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), options.yTickCount || 4);
  const sy = linearScale(ticks[0], ticks[ticks.length - 1], plot.bottom, plot.top);
  const slot = bars.length ? (plot.right - plot.left) / bars.length : 0;
  const w = Math.max(1, slot * 0.7);
  return {
    width: options.width,
    height: options.height,
    plot,
    zeroY: sy(0),
    yTicks: yTicksOf(ticks, sy, options.yFormat),
    bars: bars
      .filter((b) => Number.isFinite(b.value))
      .map((b, i) => {
        const top = sy(Math.max(0, b.value));
        const bottom = sy(Math.min(0, b.value));
        return {
          key: b.key,
          kind: b.kind,
          title: b.title,
          value: b.value,
          x: plot.left + i * slot + (slot - w) / 2,
          y: top,
          w,
          // A zero value still shows as a hairline, so the job is visibly there.
          h: Math.max(1, bottom - top),
        };
      }),
  };
}

/**
 * Ticks for a log axis over [lo, hi] (both > 0): the powers of ten inside it, with 2x and 5x
 * added when fewer than three powers fall inside (a narrow range still gets labels).
 * @param {number} lo @param {number} hi
 * @returns {number[]}
 */
export function logTicks(lo, hi) {
  if (!(lo > 0 && hi > lo)) return Number.isFinite(lo) && lo > 0 ? [lo] : [];
  const out = [];
  const first = Math.floor(Math.log10(lo));
  const last = Math.ceil(Math.log10(hi));
  const powers = [];
  for (let e = first; e <= last; e++) powers.push(e);
  const inside = powers.filter((e) => Math.pow(10, e) >= lo && Math.pow(10, e) <= hi).length;
  const steps = inside >= 3 ? [1] : [1, 2, 5];
  for (const e of powers) {
    for (const m of steps) {
      const v = Number((m * Math.pow(10, e)).toPrecision(12));
      if (v >= lo && v <= hi) out.push(v);
    }
  }
  return out;
}

/**
 * The value axis of a histogram: log-scaled over the bins and the marks, with a little room
 * either side (5 % of the log span, at least a tenth of a decade).
 * @param {number[]} xs
 * @returns {[number, number]}
 */
function logDomain(xs) {
  const lo = xs.length ? Math.min(...xs) : 0.1;
  const hi = xs.length ? Math.max(...xs) : 1;
  const pad = Math.max(0.1, 0.05 * (Math.log10(hi) - Math.log10(lo)));
  return [Math.pow(10, Math.log10(lo) - pad), Math.pow(10, Math.log10(hi) + pad)];
}

/**
 * Geometry of a histogram over a log-scaled value axis, with vertical marks (the learned worst
 * case). Bins have 0 < from < to, in order. The x axis spans the bins and the marks, so a mark
 * far above every bin still shows.
 * @param {HistogramBinInput[]} bins @param {LayoutOptions & { marks?: MarkInput[] }} options
 * @returns {HistogramLayout}
 */
export function histogramLayout(bins, options) {
  const plot = plotArea(options);
  const good = bins.filter((b) => b.from > 0 && b.to > b.from && Number.isFinite(b.to));
  const marks = (options.marks || []).filter((k) => Number.isFinite(k.value) && k.value > 0);
  const [lo, hi] = logDomain(good.flatMap((b) => [b.from, b.to]).concat(marks.map((k) => k.value)));
  const sxLog = linearScale(Math.log10(lo), Math.log10(hi), plot.left, plot.right);
  /** @param {number} v */
  const sx = (v) => sxLog(Math.log10(v));
  // Counts are whole numbers: no tick at half a task.
  const yTicks = niceTicks(0, Math.max(1, ...good.map((b) => b.count)), options.yTickCount || 4).filter((v) =>
    Number.isInteger(v),
  );
  const sy = linearScale(0, yTicks[yTicks.length - 1], plot.bottom, plot.top);
  return {
    width: options.width,
    height: options.height,
    plot,
    xTicks: logTicks(lo, hi).map((v) => ({ value: v, px: sx(v), label: formatNumber(v) })),
    yTicks: yTicksOf(yTicks, sy, undefined),
    bars: good.map((b) => {
      const x0 = sx(b.from);
      const y = sy(b.count);
      return {
        from: b.from,
        to: b.to,
        count: b.count,
        x: x0,
        y,
        w: Math.max(1, sx(b.to) - x0),
        h: plot.bottom - y,
      };
    }),
    marks: marks.map((k) => ({ key: k.key, label: k.label, value: k.value, px: sx(k.value) })),
  };
}

// --- DOM ------------------------------------------------------------------------------

/**
 * @param {Document} doc @param {string} name @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
function el(doc, name, attrs) {
  const node = doc.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  return node;
}

/**
 * @param {Document} doc @param {string} name @param {Record<string, string | number>} attrs
 * @param {string} content
 */
function text(doc, name, attrs, content) {
  const node = el(doc, name, attrs);
  node.textContent = content;
  return node;
}

/** @param {Document} doc @param {SVGElement} svg @param {ChartLayout} layout */
function axes(doc, svg, layout) {
  const g = el(doc, 'g', { class: 'axis' });
  const { plot } = layout;
  for (const t of layout.yTicks) {
    g.appendChild(el(doc, 'line', { class: 'grid', x1: plot.left, x2: plot.right, y1: t.py, y2: t.py }));
    g.appendChild(text(doc, 'text', { x: plot.left - 4, y: t.py + 3, 'text-anchor': 'end' }, t.label));
  }
  for (const t of layout.xTicks || []) {
    g.appendChild(
      el(doc, 'line', { class: 'tick', x1: t.px, x2: t.px, y1: plot.bottom, y2: plot.bottom + 4 }),
    );
    // Labels at the plot's edges are anchored inwards so they are not clipped.
    const anchor = t.px - plot.left < 14 ? 'start' : plot.right - t.px < 14 ? 'end' : 'middle';
    g.appendChild(text(doc, 'text', { x: t.px, y: plot.bottom + 15, 'text-anchor': anchor }, t.label));
  }
  svg.appendChild(g);
}

/** @param {Document} doc @param {{ width: number, height: number }} layout @param {string} label */
function svgRoot(doc, layout, label) {
  const svg = el(doc, 'svg', {
    viewBox: `0 0 ${layout.width} ${layout.height}`,
    width: layout.width,
    height: layout.height,
    role: 'img',
  });
  svg.appendChild(text(doc, 'title', {}, label));
  return svg;
}

/**
 * Replace the chart in `container` (keeping its figcaption) with a fresh SVG.
 * @param {Element} container @param {Element} svg @param {Element | null} legend
 */
function mount(container, svg, legend) {
  for (const child of Array.from(container.childNodes)) {
    if (child.nodeName.toLowerCase() !== 'figcaption') container.removeChild(child);
  }
  container.appendChild(svg);
  if (legend) container.appendChild(legend);
}

/** @param {Document} doc @param {Element} container @param {string} message */
function emptyNote(doc, container, message) {
  const p = doc.createElement('p');
  p.className = 'empty';
  p.textContent = message;
  mount(container, p, null);
}

/**
 * @typedef {LineLayoutOptions & {
 *   label: string, series: SeriesInput[], valueFormat?: (v: number) => string, legend?: boolean
 * }} LineChartSpec
 */

/**
 * One series' group: a polyline per segment and a <circle class="point"> with a <title> per point.
 * @param {Document} doc @param {LayoutSeries} s @param {(v: number) => string} fmt
 */
function seriesGroup(doc, s, fmt) {
  const g = el(doc, 'g', { class: `series s${s.index % 8}`, 'data-series': s.name });
  for (const seg of s.segments) {
    const points = seg.map((p) => `${p.px.toFixed(1)},${p.py.toFixed(1)}`).join(' ');
    g.appendChild(el(doc, 'polyline', { class: 'line', points }));
  }
  for (const p of s.points) {
    const c = el(doc, 'circle', { class: 'point', cx: p.px.toFixed(1), cy: p.py.toFixed(1), r: 2.5 });
    c.appendChild(text(doc, 'title', {}, `${s.name}: ${fmt(p.y)} at ${new Date(p.x).toISOString()}`));
    g.appendChild(c);
  }
  return g;
}

/** @param {Document} doc @param {LayoutSeries[]} series */
function legendOf(doc, series) {
  const legend = doc.createElement('ul');
  legend.className = 'legend';
  for (const s of series) {
    const li = doc.createElement('li');
    li.className = `s${s.index % 8}`;
    li.textContent = s.name;
    legend.appendChild(li);
  }
  return legend;
}

/**
 * Draw a line chart into `container`. Each point is a <circle class="point"> with a <title>.
 * @param {Document} doc @param {Element} container @param {LineChartSpec} spec
 * @returns {LineLayout | null}
 */
export function renderLineChart(doc, container, spec) {
  const hasData = spec.series.some((s) => s.points.some((p) => p.y !== null && Number.isFinite(p.y)));
  if (!hasData) {
    emptyNote(doc, container, 'no samples yet');
    return null;
  }
  const layout = lineLayout(spec.series, spec);
  const svg = svgRoot(doc, layout, spec.label);
  axes(doc, svg, layout);
  const fmt = spec.valueFormat || formatNumber;
  for (const s of layout.series) svg.appendChild(seriesGroup(doc, s, fmt));
  const legend = spec.series.length > 1 || spec.legend ? legendOf(doc, layout.series) : null;
  mount(container, svg, legend);
  return layout;
}

/**
 * @typedef {LayoutOptions & {
 *   label: string, bars: BarInput[], yFormat?: (v: number) => string, emptyMessage?: string
 * }} BarChartSpec
 */

/**
 * Draw a signed bar chart into `container`.
 * @param {Document} doc @param {Element} container @param {BarChartSpec} spec
 * @returns {BarLayout | null}
 */
export function renderBarChart(doc, container, spec) {
  if (!spec.bars.length) {
    emptyNote(doc, container, spec.emptyMessage || 'nothing to show yet');
    return null;
  }
  const layout = barLayout(spec.bars, spec);
  const svg = svgRoot(doc, layout, spec.label);
  axes(doc, svg, layout);
  const g = el(doc, 'g', { class: 'bars' });
  for (const b of layout.bars) {
    const r = el(doc, 'rect', {
      class: `bar ${b.kind}`,
      x: b.x.toFixed(1),
      y: b.y.toFixed(1),
      width: b.w.toFixed(1),
      height: b.h.toFixed(1),
      'data-key': b.key,
    });
    r.appendChild(text(doc, 'title', {}, b.title));
    g.appendChild(r);
  }
  svg.appendChild(g);
  const { plot, zeroY } = layout;
  svg.appendChild(el(doc, 'line', { class: 'zero', x1: plot.left, x2: plot.right, y1: zeroY, y2: zeroY }));
  mount(container, svg, null);
  return layout;
}

/**
 * @typedef {LayoutOptions & {
 *   label: string, bins: HistogramBinInput[], marks?: MarkInput[],
 *   valueFormat?: (v: number) => string, emptyMessage?: string
 * }} HistogramSpec
 */

/**
 * A mark of a histogram: a <g class="mark" data-key data-value> with a line, a label and a title.
 * @param {Document} doc @param {HistogramLayout} layout @param {MarkInput & { px: number }} k
 * @param {(v: number) => string} fmt
 */
function histogramMark(doc, layout, k, fmt) {
  const { plot } = layout;
  const mg = el(doc, 'g', { class: 'mark', 'data-key': k.key, 'data-value': k.value });
  mg.appendChild(el(doc, 'line', { x1: k.px, x2: k.px, y1: plot.top, y2: plot.bottom }));
  // Labelled on the side with more room, so a long label is not clipped.
  const anchor = k.px > (plot.left + plot.right) / 2 ? 'end' : 'start';
  const dx = anchor === 'end' ? -3 : 3;
  const label = `${k.label} ${fmt(k.value)}`;
  mg.appendChild(text(doc, 'text', { x: k.px + dx, y: plot.top + 9, 'text-anchor': anchor }, label));
  mg.appendChild(text(doc, 'title', {}, `${k.label}: ${fmt(k.value)}`));
  return mg;
}

/**
 * Draw a histogram into `container`. Each bin is a <rect class="bar hist" data-from data-to
 * data-count> with a <title>; each mark a <g class="mark" data-key data-value>.
 * @param {Document} doc @param {Element} container @param {HistogramSpec} spec
 * @returns {HistogramLayout | null}
 */
export function renderHistogram(doc, container, spec) {
  if (!spec.bins.some((b) => b.count > 0)) {
    emptyNote(doc, container, spec.emptyMessage || 'nothing observed yet');
    return null;
  }
  const layout = histogramLayout(spec.bins, spec);
  const svg = svgRoot(doc, layout, spec.label);
  axes(doc, svg, layout);
  const fmt = spec.valueFormat || formatNumber;
  const g = el(doc, 'g', { class: 'bars' });
  for (const b of layout.bars) {
    const r = el(doc, 'rect', {
      class: 'bar hist',
      x: b.x.toFixed(1),
      y: b.y.toFixed(1),
      width: b.w.toFixed(1),
      height: b.h.toFixed(1),
      'data-from': b.from,
      'data-to': b.to,
      'data-count': b.count,
    });
    r.appendChild(text(doc, 'title', {}, `${fmt(b.from)} – ${fmt(b.to)}: ${b.count}`));
    g.appendChild(r);
  }
  svg.appendChild(g);
  for (const k of layout.marks) svg.appendChild(histogramMark(doc, layout, k, fmt));
  mount(container, svg, null);
  return layout;
}

/** @typedef {{ key: string, label: string, ms: number | null }} TimelineMark */
/** @typedef {{ from: number, to: number, kind: string }} TimelineBand */
/**
 * @typedef {{
 *   label: string, marks: TimelineMark[], width: number, height: number, band?: TimelineBand | null
 * }} TimelineSpec
 */

/**
 * One labelled marker of a timeline; the i-th is raised by i mod 3 rows so neighbours' labels
 * do not overlap.
 * @param {Document} doc @param {{ key: string, label: string, ms: number }} m @param {number} i
 * @param {number} x @param {{ left: number, right: number, axisY: number }} frame
 */
function timelineMark(doc, m, i, x, frame) {
  const g = el(doc, 'g', { class: `mark ${m.key}`, 'data-key': m.key });
  g.appendChild(el(doc, 'line', { x1: x, x2: x, y1: 8 + (i % 3) * 14, y2: frame.axisY + 4 }));
  g.appendChild(el(doc, 'circle', { cx: x, cy: frame.axisY, r: 4 }));
  const anchor = x < frame.left + 60 ? 'start' : x > frame.right - 60 ? 'end' : 'middle';
  const d = new Date(m.ms);
  const attrs = { x, y: 6 + (i % 3) * 14, 'text-anchor': anchor, 'dominant-baseline': 'hanging' };
  g.appendChild(text(doc, 'text', attrs, `${m.label} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`));
  g.appendChild(text(doc, 'title', {}, `${m.label}: ${d.toISOString()}`));
  return g;
}

/**
 * A job's times on one axis: arrival, estimated finish, actual finish, deadline and the
 * earliest admissible deadline, as labelled markers (a mark with a null ms is skipped).
 * @param {Document} doc @param {Element} container @param {TimelineSpec} spec
 * @returns {{ lo: number, hi: number } | null}
 */
export function renderTimeline(doc, container, spec) {
  /** @type {Array<{ key: string, label: string, ms: number }>} */
  const marks = [];
  for (const m of spec.marks) if (m.ms !== null && Number.isFinite(m.ms)) marks.push({ ...m, ms: m.ms });
  if (!marks.length) {
    emptyNote(doc, container, 'no times recorded');
    return null;
  }
  const { width, height } = spec;
  const frame = { left: 16, right: width - 16, axisY: height - 22 };
  const lo = Math.min(...marks.map((m) => m.ms));
  const hi = Math.max(...marks.map((m) => m.ms));
  const sx = linearScale(lo, hi, frame.left, frame.right);
  const svg = svgRoot(doc, { width, height }, spec.label);
  const { left, right, axisY } = frame;
  svg.appendChild(el(doc, 'line', { class: 'zero', x1: left, x2: right, y1: axisY, y2: axisY }));
  if (spec.band) {
    // The stretch between the end (actual or estimated) and the deadline: the slack.
    const a = sx(Math.min(spec.band.from, spec.band.to));
    const b = sx(Math.max(spec.band.from, spec.band.to));
    const band = {
      class: `band ${spec.band.kind}`,
      x: a,
      y: axisY - 10,
      width: Math.max(1, b - a),
      height: 10,
    };
    svg.appendChild(el(doc, 'rect', band));
  }
  marks.forEach((m, i) => svg.appendChild(timelineMark(doc, m, i, sx(m.ms), frame)));
  mount(container, svg, null);
  return { lo, hi };
}
