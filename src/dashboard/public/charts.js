/* global self */
/*
 * SVG charts for the dashboard, drawn in the browser with no library.
 *
 * Two halves: pure layout (scales, ticks, point and bar geometry: numbers in, numbers out,
 * unit- and property-tested under Node) and DOM rendering (createElementNS, text only through
 * textContent). Loaded as a plain script in the page (window.YssCharts) and as a CommonJS
 * module by the tests.
 */
(function (root, factory) {
  'use strict';
  const api = factory();
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.YssCharts = api;
})(typeof self !== 'undefined' ? self : this, function () {
  'use strict';

  const SVG_NS = 'http://www.w3.org/2000/svg';

  /** A linear map from [d0, d1] onto [r0, r1]; a zero-width domain maps to the range's middle. */
  function linearScale(d0, d1, r0, r1) {
    if (d1 === d0) return () => (r0 + r1) / 2;
    const k = (r1 - r0) / (d1 - d0);
    return (v) => r0 + (v - d0) * k;
  }

  /**
   * Round tick values covering [min, max]: a step of 1, 2 or 5 times a power of ten, about
   * `count` intervals, the first tick at or below min and the last at or above max.
   */
  function niceTicks(min, max, count) {
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

  /** Clock-aligned time ticks (epoch ms) strictly inside or on [minMs, maxMs], about `count`. */
  function timeTicks(minMs, maxMs, count) {
    if (!(maxMs > minMs)) return { step: MINUTE, ticks: Number.isFinite(minMs) ? [minMs] : [] };
    const raw = (maxMs - minMs) / Math.max(1, count);
    const step = TIME_STEPS.find((s) => s >= raw) || Math.ceil(raw / DAY) * DAY;
    const ticks = [];
    for (let t = Math.ceil(minMs / step) * step; t <= maxMs; t += step) ticks.push(t);
    return { step, ticks };
  }

  function pad2(n) {
    return String(n).padStart(2, '0');
  }

  /** An axis label in UTC, as precise as the tick step needs. */
  function formatTimeTick(ms, step) {
    const d = new Date(ms);
    const hm = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
    if (step < MINUTE) return `${hm}:${pad2(d.getUTCSeconds())}`;
    if (step >= DAY) return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
    return hm;
  }

  function formatNumber(v) {
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e6) return `${(v / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
    if (a >= 1e3) return `${(v / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k`;
    if (a >= 1) return String(Number(v.toFixed(2)));
    return String(Number(v.toPrecision(2)));
  }

  const DEFAULT_MARGIN = { top: 10, right: 12, bottom: 24, left: 40 };

  /**
   * Geometry of a time-series line chart.
   * series: [{name, points: [{x: epochMs, y: number|null}]}]; a null y breaks the line (a
   * ratio is undefined before the first decision). yMin/yMax fix the value axis (ratios use
   * 0..1); otherwise it spans the data and zero.
   * Returns {width, height, plot, xTicks, yTicks, series: [{name, index, points, segments}]}
   * where each point carries its pixel position {px, py} and the data it came from.
   */
  function lineLayout(series, options) {
    const width = options.width;
    const height = options.height;
    const m = Object.assign({}, DEFAULT_MARGIN, options.margin || {});
    const plot = { left: m.left, right: width - m.right, top: m.top, bottom: height - m.bottom };
    const xs = [];
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
    let yTicks;
    if (options.yMin !== undefined && options.yMax !== undefined) {
      yTicks = niceTicks(options.yMin, options.yMax, options.yTickCount || 4);
    } else {
      const lo = Math.min(0, ...ys);
      const hi = ys.length ? Math.max(0, ...ys) : 1;
      yTicks = niceTicks(lo, hi, options.yTickCount || 4);
    }
    const yLo = yTicks[0];
    const yHi = yTicks[yTicks.length - 1];
    const sx = linearScale(xMin, xMax, plot.left, plot.right);
    const sy = linearScale(yLo, yHi, plot.bottom, plot.top);
    const time = timeTicks(xMin, xMax, options.xTickCount || 4);
    const out = series.map((s, index) => {
      const points = [];
      const segments = [];
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
    });
    return {
      width,
      height,
      plot,
      xTicks: time.ticks.map((t) => ({ value: t, px: sx(t), label: formatTimeTick(t, time.step) })),
      yTicks: yTicks.map((v) => ({
        value: v,
        py: sy(v),
        label: options.yFormat ? options.yFormat(v) : formatNumber(v),
      })),
      series: out,
    };
  }

  /**
   * Geometry of a bar chart of signed values around a zero line (slack per job).
   * bars: [{key, value, kind, title}] in display order.
   * Returns {width, height, plot, zeroY, yTicks, bars: [{key, kind, title, value, x, y, w, h}]}.
   */
  function barLayout(bars, options) {
    const width = options.width;
    const height = options.height;
    const m = Object.assign({}, DEFAULT_MARGIN, options.margin || {});
    const plot = { left: m.left, right: width - m.right, top: m.top, bottom: height - m.bottom };
    const values = bars.map((b) => b.value).filter((v) => Number.isFinite(v));
    const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), options.yTickCount || 4);
    const lo = ticks[0];
    const hi = ticks[ticks.length - 1];
    const sy = linearScale(lo, hi, plot.bottom, plot.top);
    const zeroY = sy(0);
    const slot = bars.length ? (plot.right - plot.left) / bars.length : 0;
    const w = Math.max(1, slot * 0.7);
    return {
      width,
      height,
      plot,
      zeroY,
      yTicks: ticks.map((v) => ({
        value: v,
        py: sy(v),
        label: options.yFormat ? options.yFormat(v) : formatNumber(v),
      })),
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
   */
  function logTicks(lo, hi) {
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
   * Geometry of a histogram over a log-scaled value axis, with vertical marks (the learned
   * worst case). bins: [{from, to, count}] with 0 < from < to, in order; marks: [{key, label,
   * value}]. The x axis spans the bins and the marks, so a mark far above every bin still shows.
   * Returns {width, height, plot, xTicks, yTicks, bars: [{from, to, count, x, y, w, h}],
   * marks: [{key, label, value, px}]}.
   */
  function histogramLayout(bins, options) {
    const width = options.width;
    const height = options.height;
    const m = Object.assign({}, DEFAULT_MARGIN, options.margin || {});
    const plot = { left: m.left, right: width - m.right, top: m.top, bottom: height - m.bottom };
    const good = bins.filter((b) => b.from > 0 && b.to > b.from && Number.isFinite(b.to));
    const marks = (options.marks || []).filter((k) => Number.isFinite(k.value) && k.value > 0);
    const xs = good.flatMap((b) => [b.from, b.to]).concat(marks.map((k) => k.value));
    let lo = xs.length ? Math.min(...xs) : 0.1;
    let hi = xs.length ? Math.max(...xs) : 1;
    // A little room either side (5 % of the log span, at least a tenth of a decade).
    const pad = Math.max(0.1, 0.05 * (Math.log10(hi) - Math.log10(lo)));
    lo = Math.pow(10, Math.log10(lo) - pad);
    hi = Math.pow(10, Math.log10(hi) + pad);
    const sxLog = linearScale(Math.log10(lo), Math.log10(hi), plot.left, plot.right);
    const sx = (v) => sxLog(Math.log10(v));
    // Counts are whole numbers: no tick at half a task.
    const yTicks = niceTicks(0, Math.max(1, ...good.map((b) => b.count)), options.yTickCount || 4).filter(
      (v) => Number.isInteger(v),
    );
    const sy = linearScale(0, yTicks[yTicks.length - 1], plot.bottom, plot.top);
    return {
      width,
      height,
      plot,
      xTicks: logTicks(lo, hi).map((v) => ({ value: v, px: sx(v), label: formatNumber(v) })),
      yTicks: yTicks.map((v) => ({ value: v, py: sy(v), label: formatNumber(v) })),
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

  function el(doc, name, attrs) {
    const node = doc.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }

  function text(doc, name, attrs, content) {
    const node = el(doc, name, attrs);
    node.textContent = content;
    return node;
  }

  function axes(doc, svg, layout) {
    const g = el(doc, 'g', { class: 'axis' });
    for (const t of layout.yTicks) {
      g.appendChild(
        el(doc, 'line', { class: 'grid', x1: layout.plot.left, x2: layout.plot.right, y1: t.py, y2: t.py }),
      );
      g.appendChild(
        text(doc, 'text', { x: layout.plot.left - 4, y: t.py + 3, 'text-anchor': 'end' }, t.label),
      );
    }
    for (const t of layout.xTicks || []) {
      g.appendChild(
        el(doc, 'line', {
          class: 'tick',
          x1: t.px,
          x2: t.px,
          y1: layout.plot.bottom,
          y2: layout.plot.bottom + 4,
        }),
      );
      // Labels at the plot's edges are anchored inwards so they are not clipped.
      const anchor =
        t.px - layout.plot.left < 14 ? 'start' : layout.plot.right - t.px < 14 ? 'end' : 'middle';
      g.appendChild(
        text(doc, 'text', { x: t.px, y: layout.plot.bottom + 15, 'text-anchor': anchor }, t.label),
      );
    }
    svg.appendChild(g);
  }

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

  /** Replace the chart in `container` (keeping its figcaption) with a fresh SVG. */
  function mount(container, svg, legend) {
    for (const child of Array.from(container.childNodes)) {
      if (child.nodeName.toLowerCase() !== 'figcaption') container.removeChild(child);
    }
    container.appendChild(svg);
    if (legend) container.appendChild(legend);
  }

  function emptyNote(doc, container, message) {
    const p = doc.createElement('p');
    p.className = 'empty';
    p.textContent = message;
    mount(container, p, null);
  }

  /**
   * Draw a line chart into `container`. spec: {label, series, width, height, yMin?, yMax?,
   * yFormat?, valueFormat?}. Each point is a <circle class="point"> with a <title>.
   */
  function renderLineChart(doc, container, spec) {
    const hasData = spec.series.some((s) => s.points.some((p) => p.y !== null && Number.isFinite(p.y)));
    if (!hasData) {
      emptyNote(doc, container, 'no samples yet');
      return null;
    }
    const layout = lineLayout(spec.series, spec);
    const svg = svgRoot(doc, layout, spec.label);
    axes(doc, svg, layout);
    const fmt = spec.valueFormat || formatNumber;
    for (const s of layout.series) {
      const g = el(doc, 'g', { class: `series s${s.index % 8}`, 'data-series': s.name });
      for (const seg of s.segments) {
        g.appendChild(
          el(doc, 'polyline', {
            class: 'line',
            points: seg.map((p) => `${p.px.toFixed(1)},${p.py.toFixed(1)}`).join(' '),
          }),
        );
      }
      for (const p of s.points) {
        const c = el(doc, 'circle', { class: 'point', cx: p.px.toFixed(1), cy: p.py.toFixed(1), r: 2.5 });
        c.appendChild(text(doc, 'title', {}, `${s.name}: ${fmt(p.y)} at ${new Date(p.x).toISOString()}`));
        g.appendChild(c);
      }
      svg.appendChild(g);
    }
    let legend = null;
    if (spec.series.length > 1 || spec.legend) {
      legend = doc.createElement('ul');
      legend.className = 'legend';
      for (const s of layout.series) {
        const li = doc.createElement('li');
        li.className = `s${s.index % 8}`;
        li.textContent = s.name;
        legend.appendChild(li);
      }
    }
    mount(container, svg, legend);
    return layout;
  }

  /** Draw a signed bar chart into `container`. spec: {label, bars, width, height, yFormat?}. */
  function renderBarChart(doc, container, spec) {
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
    svg.appendChild(
      el(doc, 'line', {
        class: 'zero',
        x1: layout.plot.left,
        x2: layout.plot.right,
        y1: layout.zeroY,
        y2: layout.zeroY,
      }),
    );
    mount(container, svg, null);
    return layout;
  }

  /**
   * Draw a histogram into `container`. spec: {label, bins, marks, width, height, valueFormat?,
   * emptyMessage?}. Each bin is a <rect class="bar hist" data-from data-to data-count> with a
   * <title>; each mark a <g class="mark" data-key data-value> with a line, a label and a title.
   */
  function renderHistogram(doc, container, spec) {
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
    for (const k of layout.marks) {
      const mg = el(doc, 'g', { class: 'mark', 'data-key': k.key, 'data-value': k.value });
      mg.appendChild(el(doc, 'line', { x1: k.px, x2: k.px, y1: layout.plot.top, y2: layout.plot.bottom }));
      // Labelled on the side with more room, so a long label is not clipped.
      const anchor = k.px > (layout.plot.left + layout.plot.right) / 2 ? 'end' : 'start';
      const dx = anchor === 'end' ? -3 : 3;
      mg.appendChild(
        text(
          doc,
          'text',
          { x: k.px + dx, y: layout.plot.top + 9, 'text-anchor': anchor },
          `${k.label} ${fmt(k.value)}`,
        ),
      );
      mg.appendChild(text(doc, 'title', {}, `${k.label}: ${fmt(k.value)}`));
      svg.appendChild(mg);
    }
    mount(container, svg, null);
    return layout;
  }

  /**
   * A job's times on one axis: arrival, estimated finish, actual finish, deadline and the
   * earliest admissible deadline, as labelled markers. marks: [{key, label, ms}] (null ms
   * skipped).
   */
  function renderTimeline(doc, container, spec) {
    const marks = spec.marks.filter((m) => m.ms !== null && Number.isFinite(m.ms));
    if (!marks.length) {
      emptyNote(doc, container, 'no times recorded');
      return null;
    }
    const width = spec.width;
    const height = spec.height;
    const left = 16;
    const right = width - 16;
    const axisY = height - 22;
    const lo = Math.min(...marks.map((m) => m.ms));
    const hi = Math.max(...marks.map((m) => m.ms));
    const sx = linearScale(lo, hi, left, right);
    const svg = el(doc, 'svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img' });
    svg.appendChild(text(doc, 'title', {}, spec.label));
    svg.appendChild(el(doc, 'line', { class: 'zero', x1: left, x2: right, y1: axisY, y2: axisY }));
    if (spec.band) {
      // The stretch between the end (actual or estimated) and the deadline: the slack.
      const a = sx(Math.min(spec.band.from, spec.band.to));
      const b = sx(Math.max(spec.band.from, spec.band.to));
      svg.appendChild(
        el(doc, 'rect', {
          class: `band ${spec.band.kind}`,
          x: a,
          y: axisY - 10,
          width: Math.max(1, b - a),
          height: 10,
        }),
      );
    }
    marks.forEach((m, i) => {
      const x = sx(m.ms);
      const g = el(doc, 'g', { class: `mark ${m.key}`, 'data-key': m.key });
      g.appendChild(el(doc, 'line', { x1: x, x2: x, y1: 8 + (i % 3) * 14, y2: axisY + 4 }));
      g.appendChild(el(doc, 'circle', { cx: x, cy: axisY, r: 4 }));
      const anchor = x < left + 60 ? 'start' : x > right - 60 ? 'end' : 'middle';
      const d = new Date(m.ms);
      g.appendChild(
        text(
          doc,
          'text',
          { x, y: 6 + (i % 3) * 14, 'text-anchor': anchor, 'dominant-baseline': 'hanging' },
          `${m.label} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`,
        ),
      );
      g.appendChild(text(doc, 'title', {}, `${m.label}: ${new Date(m.ms).toISOString()}`));
      svg.appendChild(g);
    });
    mount(container, svg, null);
    return { lo, hi };
  }

  return {
    linearScale,
    niceTicks,
    timeTicks,
    formatTimeTick,
    formatNumber,
    lineLayout,
    barLayout,
    logTicks,
    histogramLayout,
    renderLineChart,
    renderBarChart,
    renderHistogram,
    renderTimeline,
  };
});
