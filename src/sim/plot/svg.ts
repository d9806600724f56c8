/**
 * Hand-written SVG charts for the simulator's reports: grouped bars, lines, and a
 * Gantt-like per-job view of deadline against finish. No dependency; each function returns
 * a complete, standalone SVG document as a string.
 */

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];
const FONT = 'font-family="Helvetica, Arial, sans-serif"';

export function color(i: number): string {
  return PALETTE[i % PALETTE.length] as string;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fmt(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1000) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1).replace(/\.0$/, '');
  if (a >= 1) return x.toFixed(2).replace(/\.?0+$/, '');
  return x.toFixed(3).replace(/\.?0+$/, '');
}

/** "Nice" axis ticks covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const start = Math.floor(lo / step) * step;
  const out: number[] = [];
  for (let v = start; v <= hi + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  if ((out[out.length - 1] as number) < hi) out.push((out[out.length - 1] as number) + step);
  return out;
}

interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

function header(f: Frame, title: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n` +
    `<text x="${f.width / 2}" y="22" text-anchor="middle" font-size="16" font-weight="bold" ${FONT}>${escapeXml(title)}</text>\n`
  );
}

function yAxis(
  f: Frame,
  ticks: number[],
  scale: (v: number) => number,
  label: string,
  percent: boolean,
): string {
  let s = '';
  for (const t of ticks) {
    const y = scale(t);
    s += `<line x1="${f.left}" x2="${f.width - f.right}" y1="${y}" y2="${y}" stroke="#e0e0e0"/>`;
    s += `<text x="${f.left - 6}" y="${y + 4}" text-anchor="end" font-size="11" ${FONT}>${percent ? `${fmt(t * 100)}%` : fmt(t)}</text>\n`;
  }
  const cy = (f.top + f.height - f.bottom) / 2;
  s += `<text x="14" y="${cy}" transform="rotate(-90 14 ${cy})" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(label)}</text>\n`;
  s += `<line x1="${f.left}" x2="${f.left}" y1="${f.top}" y2="${f.height - f.bottom}" stroke="#333"/>`;
  s += `<line x1="${f.left}" x2="${f.width - f.right}" y1="${f.height - f.bottom}" y2="${f.height - f.bottom}" stroke="#333"/>\n`;
  return s;
}

function legend(f: Frame, names: readonly string[]): string {
  let s = '';
  let x = f.left;
  const y = f.height - 14;
  names.forEach((n, i) => {
    s += `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${color(i)}"/>`;
    s += `<text x="${x + 16}" y="${y}" font-size="12" ${FONT}>${escapeXml(n)}</text>`;
    x += 28 + n.length * 7;
  });
  return s + '\n';
}

export interface BarChartInput {
  title: string;
  /** Groups along the x axis (e.g. metrics), each with one bar per series (e.g. policy). */
  groups: string[];
  series: Array<{ name: string; values: Array<number | null>; errors?: Array<number | null> }>;
  yLabel: string;
  percent?: boolean;
  width?: number;
  height?: number;
}

/** Grouped bars with values written above each bar and optional error whiskers (+/- sd). */
export function barChart(input: BarChartInput): string {
  const f: Frame = {
    width: input.width ?? 760,
    height: input.height ?? 420,
    left: 70,
    right: 20,
    top: 40,
    bottom: 80,
  };
  let max = 0;
  for (const s of input.series) {
    s.values.forEach((v, i) => {
      if (v !== null) max = Math.max(max, v + (s.errors?.[i] ?? 0));
    });
  }
  if (input.percent) max = Math.max(max, 1);
  const ticks = niceTicks(0, max || 1);
  const top = ticks[ticks.length - 1] as number;
  const plotH = f.height - f.top - f.bottom;
  const scale = (v: number) => f.top + plotH - (v / top) * plotH;
  const plotW = f.width - f.left - f.right;
  const groupW = plotW / Math.max(1, input.groups.length);
  const barW = (groupW * 0.8) / Math.max(1, input.series.length);
  let body = header(f, input.title) + yAxis(f, ticks, scale, input.yLabel, input.percent ?? false);
  input.groups.forEach((g, gi) => {
    const gx = f.left + gi * groupW + groupW * 0.1;
    input.series.forEach((s, si) => {
      const v = s.values[gi];
      const x = gx + si * barW;
      if (v === null || v === undefined) {
        body += `<text x="${x + barW / 2}" y="${scale(0) - 4}" text-anchor="middle" font-size="10" fill="#888" ${FONT}>n/a</text>`;
        return;
      }
      const y = scale(v);
      body += `<rect x="${x}" y="${y}" width="${Math.max(1, barW - 2)}" height="${scale(0) - y}" fill="${color(si)}"><title>${escapeXml(`${s.name} ${g}: ${input.percent ? fmt(v * 100) + '%' : fmt(v)}`)}</title></rect>`;
      const err = s.errors?.[gi];
      if (err) {
        const cx = x + barW / 2 - 1;
        body += `<line x1="${cx}" x2="${cx}" y1="${scale(v + err)}" y2="${scale(Math.max(0, v - err))}" stroke="#222"/>`;
      }
      body += `<text x="${x + barW / 2 - 1}" y="${y - 4 - (err ? scale(v) - scale(v + err) : 0)}" text-anchor="middle" font-size="10" ${FONT}>${input.percent ? fmt(v * 100) + '%' : fmt(v)}</text>`;
    });
    body += `<text x="${gx + groupW * 0.4}" y="${f.height - f.bottom + 16}" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(g)}</text>\n`;
  });
  body += legend(
    f,
    input.series.map((s) => s.name),
  );
  return body + '</svg>\n';
}

export interface LineChartInput {
  title: string;
  xLabel: string;
  yLabel: string;
  /** x values shared by all series; categorical when `categorical` (evenly spaced, as seed 004 Fig. 4.1). */
  x: number[];
  categorical?: boolean;
  series: Array<{ name: string; values: Array<number | null> }>;
  percent?: boolean;
  width?: number;
  height?: number;
}

/** Lines with markers; a series with a single distinct value (a policy without the parameter) draws flat. */
export function lineChart(input: LineChartInput): string {
  const f: Frame = {
    width: input.width ?? 760,
    height: input.height ?? 420,
    left: 70,
    right: 20,
    top: 40,
    bottom: 80,
  };
  const all = input.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (!Number.isFinite(lo)) {
    lo = 0;
    hi = 1;
  }
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.1 || 1;
  const ticks = niceTicks(Math.max(input.percent ? 0 : -Infinity, lo - pad), hi + pad);
  const y0 = ticks[0] as number;
  const y1 = ticks[ticks.length - 1] as number;
  const plotH = f.height - f.top - f.bottom;
  const plotW = f.width - f.left - f.right;
  const scaleY = (v: number) => f.top + plotH - ((v - y0) / (y1 - y0)) * plotH;
  const xs = input.x;
  const xmin = Math.min(...xs);
  const xmax = Math.max(...xs);
  const scaleX = (i: number) =>
    input.categorical || xmax === xmin
      ? f.left + ((i + 0.5) / xs.length) * plotW
      : f.left + 20 + (((xs[i] as number) - xmin) / (xmax - xmin)) * (plotW - 40);
  let body = header(f, input.title) + yAxis(f, ticks, scaleY, input.yLabel, input.percent ?? false);
  xs.forEach((x, i) => {
    body += `<text x="${scaleX(i)}" y="${f.height - f.bottom + 16}" text-anchor="middle" font-size="11" ${FONT}>${fmt(x)}</text>`;
  });
  body += `<text x="${f.left + plotW / 2}" y="${f.height - f.bottom + 36}" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(input.xLabel)}</text>\n`;
  input.series.forEach((s, si) => {
    const pts = s.values.map((v, i) => (v === null ? null : [scaleX(i), scaleY(v)]));
    const d = pts
      .filter((p): p is number[] => p !== null)
      .map((p, i) => `${i === 0 ? 'M' : 'L'}${(p[0] as number).toFixed(1)},${(p[1] as number).toFixed(1)}`)
      .join(' ');
    body += `<path d="${d}" fill="none" stroke="${color(si)}" stroke-width="2"/>`;
    pts.forEach((p, i) => {
      if (!p) return;
      const v = s.values[i] as number;
      body += `<circle cx="${p[0]}" cy="${p[1]}" r="3.5" fill="${color(si)}"><title>${escapeXml(`${s.name} @ ${fmt(xs[i] as number)}: ${input.percent ? fmt(v * 100) + '%' : fmt(v)}`)}</title></circle>`;
    });
    body += '\n';
  });
  body += legend(
    f,
    input.series.map((s) => s.name),
  );
  return body + '</svg>\n';
}

export interface GanttJob {
  id: string;
  arrival: number;
  absDeadline: number | null;
  start: number | null;
  finish: number | null;
  status: string;
}

/**
 * One row per job: a bar from arrival to finish (green when it met its deadline, red when
 * not, grey when rejected, a thin line for the wait before its first task), and a black
 * tick at the deadline.
 */
export function ganttChart(title: string, jobs: readonly GanttJob[], width = 900): string {
  const rowH = jobs.length > 120 ? 4 : jobs.length > 60 ? 7 : 11;
  const f: Frame = { width, height: 90 + jobs.length * rowH + 40, left: 90, right: 20, top: 40, bottom: 70 };
  const tmax = Math.max(1, ...jobs.map((j) => Math.max(j.finish ?? 0, j.absDeadline ?? 0, j.arrival)));
  const ticks = niceTicks(0, tmax);
  const tEnd = ticks[ticks.length - 1] as number;
  const plotW = f.width - f.left - f.right;
  const sx = (t: number) => f.left + (t / tEnd) * plotW;
  let body = header(f, title);
  for (const t of ticks) {
    body += `<line x1="${sx(t)}" x2="${sx(t)}" y1="${f.top}" y2="${f.height - f.bottom}" stroke="#eee"/>`;
    body += `<text x="${sx(t)}" y="${f.height - f.bottom + 14}" text-anchor="middle" font-size="11" ${FONT}>${fmt(t)}</text>`;
  }
  body += `<text x="${f.left + plotW / 2}" y="${f.height - f.bottom + 32}" text-anchor="middle" font-size="12" ${FONT}>time (s)</text>\n`;
  jobs.forEach((j, i) => {
    const y = f.top + i * rowH;
    const h = Math.max(2, rowH - 2);
    if (rowH >= 10)
      body += `<text x="${f.left - 4}" y="${y + h}" text-anchor="end" font-size="9" ${FONT}>${escapeXml(j.id)}</text>`;
    if (j.status === 'rejected' || j.finish === null) {
      body += `<rect x="${sx(j.arrival)}" y="${y}" width="3" height="${h}" fill="#bbb"><title>${escapeXml(`${j.id}: ${j.status}`)}</title></rect>`;
    } else {
      const ok = j.absDeadline === null || j.finish <= j.absDeadline + 1e-9;
      const start = j.start ?? j.arrival;
      body += `<line x1="${sx(j.arrival)}" x2="${sx(start)}" y1="${y + h / 2}" y2="${y + h / 2}" stroke="#999"/>`;
      body += `<rect x="${sx(start)}" y="${y}" width="${Math.max(1, sx(j.finish) - sx(start))}" height="${h}" fill="${ok ? '#59a14f' : '#e15759'}"><title>${escapeXml(
        `${j.id}: arrival ${fmt(j.arrival)}, finish ${fmt(j.finish)}, deadline ${j.absDeadline === null ? 'none' : fmt(j.absDeadline)}`,
      )}</title></rect>`;
    }
    if (j.absDeadline !== null)
      body += `<rect x="${sx(j.absDeadline) - 1}" y="${y - 1}" width="2" height="${h + 2}" fill="#000"/>`;
    body += '\n';
  });
  const ly = f.height - 18;
  const items: Array<[string, string]> = [
    ['#59a14f', 'met deadline'],
    ['#e15759', 'missed deadline'],
    ['#bbb', 'rejected'],
    ['#000', 'deadline'],
  ];
  let lx = f.left;
  for (const [c, n] of items) {
    body += `<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${c}"/><text x="${lx + 16}" y="${ly}" font-size="12" ${FONT}>${n}</text>`;
    lx += 30 + n.length * 7;
  }
  return body + '\n</svg>\n';
}
