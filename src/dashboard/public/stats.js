// @ts-check
/* The summary tiles and the charts over time (GET /api/v1/stats). */
import { renderLineChart } from './charts.js';
import { $, node, setText } from './dom.js';
import { fmtKWh, fmtRatio, isNum, labelName } from './format.js';
import { state } from './state.js';

/** @typedef {import('./api.js').Stats} Stats */
/** @typedef {import('./api.js').StatsSample} StatsSample */
/** @typedef {StatsSample & { t: number }} TimedSample */
/** @typedef {import('./charts.js').SeriesInput} SeriesInput */

export const CHART_W = 560;
export const CHART_H = 220;

/**
 * The summary tiles, in page order: [key of #tile-<key>, label, title or none].
 * @type {ReadonlyArray<[key: string, label: string, title?: string]>}
 */
const TILES = [
  ['admitted', 'Admitted'],
  ['rejected', 'Rejected'],
  ['accept', 'Accept ratio'],
  ['met', 'Deadlines met'],
  ['missed', 'Deadlines missed'],
  ['failed', 'Apps failed', 'Admitted jobs whose app FAILED: neither met nor missed'],
  ['killed', 'Apps killed', 'Admitted jobs whose app was KILLED: neither met nor missed'],
  ['success', 'Success ratio', 'Met over met plus missed'],
  [
    'predicted',
    'Predicted to miss',
    "Running admitted jobs whose predicted finish (from their tasks' progress) is after their deadline, counted each poll cycle (yss_jobs_predicted_to_miss); marked in red in the jobs table",
  ],
  ['energy', 'Energy (est.)'],
  ['outbox', 'RM writes pending', "RM writes recorded but not yet confirmed (the enforcer's backlog)"],
];

export function buildTiles() {
  for (const [key, label, title] of TILES) {
    const tile = node('div', null, 'tile');
    if (title) tile.title = title;
    const value = node('span', '–', 'v');
    value.id = `tile-${key}`;
    tile.append(node('span', label, 'k'), value);
    $('tiles').appendChild(tile);
  }
}

let lastStatsKey = '';

/**
 * The samples with their times, oldest first; a sample without a readable time is left out.
 * @param {Stats | null} stats
 * @returns {TimedSample[]}
 */
function timedSamples(stats) {
  return (stats && Array.isArray(stats.samples) ? stats.samples : [])
    .map((s) => ({ ...s, t: Date.parse(s.at) }))
    .filter((s) => Number.isFinite(s.t))
    .sort((a, b) => a.t - b.t);
}

/**
 * The tiles from the newest sample; '–' before any.
 * @param {TimedSample | undefined} last
 */
function renderTiles(last) {
  setText('tile-admitted', last ? last.accepted : '–');
  setText('tile-rejected', last ? last.rejected : '–');
  setText('tile-met', last ? last.met : '–');
  setText('tile-missed', last ? last.missed : '–');
  // Failed and killed apps are neither met nor missed: counted apart (0 in a sample from
  // before they were counted).
  setText('tile-failed', last ? (isNum(last.failed) ? last.failed : 0) : '–');
  setText('tile-killed', last ? (isNum(last.killed) ? last.killed : 0) : '–');
  setText('tile-accept', fmtRatio(last && last.acceptRatio));
  setText('tile-success', fmtRatio(last && last.successRatio));
  // Counted by each cycle's sample; '–' before the first sample that counted them.
  const risk = last && isNum(last.predictedToMiss) ? last.predictedToMiss : null;
  setText('tile-predicted', risk === null ? '–' : risk);
  const tile = $('tile-predicted').parentElement;
  if (tile) tile.classList.toggle('alert', risk !== null && risk > 0);
  setText('tile-energy', last && isNum(last.energyKWh) ? fmtKWh(last.energyKWh) : '–');
}

/**
 * One series of a sampled figure; a sample without it breaks the line.
 * @param {TimedSample[]} samples @param {string} name
 * @param {(s: TimedSample) => number | null | undefined} value
 * @returns {SeriesInput[]}
 */
function oneSeries(samples, name, value) {
  return [{ name, points: samples.map((s) => ({ x: s.t, y: value(s) ?? null })) }];
}

/**
 * A series per label partition of the samples' utilisation, in label order.
 * @param {TimedSample[]} samples
 * @returns {SeriesInput[]}
 */
function utilizationSeries(samples) {
  /** @type {Set<string>} */
  const labels = new Set();
  for (const s of samples) for (const k of Object.keys(s.utilizationByLabel || {})) labels.add(k);
  return Array.from(labels)
    .sort()
    .map((label) => ({
      name: labelName(label),
      points: samples.map((s) => {
        const v = s.utilizationByLabel ? s.utilizationByLabel[label] : undefined;
        return { x: s.t, y: v === undefined ? null : v };
      }),
    }));
}

/** @param {number} v */
const pct = (v) => `${Math.round(v * 100)}%`;

/** @param {TimedSample[]} samples */
function renderCharts(samples) {
  const size = { width: CHART_W, height: CHART_H };
  const ratio = { yMin: 0, yMax: 1, yFormat: pct, valueFormat: fmtRatio, ...size };
  renderLineChart(document, $('chart-accept'), {
    label: 'Accept ratio',
    series: oneSeries(samples, 'accept ratio', (s) => s.acceptRatio),
    ...ratio,
  });
  renderLineChart(document, $('chart-success'), {
    label: 'Deadline success ratio',
    series: oneSeries(samples, 'success ratio', (s) => s.successRatio),
    ...ratio,
  });
  renderLineChart(document, $('chart-utilization'), {
    label: 'Utilisation per label partition',
    series: utilizationSeries(samples),
    legend: true,
    ...ratio,
  });
  renderLineChart(document, $('chart-energy'), {
    label: 'Estimated energy, kWh',
    series: oneSeries(samples, 'energy kWh', (s) => s.energyKWh),
    valueFormat: fmtKWh,
    ...size,
  });
}

/**
 * The tiles and the charts; redrawn only when the samples changed (a chart rebuilt every poll
 * would flicker). The newest sample's kWh per partition goes to the partitions table.
 * @param {Stats | null} stats
 */
export function renderStats(stats) {
  const key = JSON.stringify(stats);
  if (key === lastStatsKey) return;
  lastStatsKey = key;
  const samples = timedSamples(stats);
  const last = samples[samples.length - 1];
  const byLabel = last && last.energyKWhByLabel;
  state.energyByLabel = byLabel && typeof byLabel === 'object' ? byLabel : {};
  renderTiles(last);
  renderCharts(samples);
}
