// @ts-check
/* How the page writes times, durations, ratios, sizes and counts. */
import { formatNumber } from './charts.js';

/** @typedef {import('./api.js').Job} Job */

export const DEFAULT_LABEL = '(default)';

/**
 * A finite number (the API's numbers may be null, and a loosely described field anything).
 * @param {unknown} v
 * @returns {v is number}
 */
export function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

/** @param {string | null | undefined} iso */
export function fmtTime(iso) {
  if (!iso) return '';
  return String(iso)
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * Seconds as a signed short duration: 300 -> "+5m 0s", -3725 -> "-1h 2m".
 * @param {number | null | undefined} seconds
 */
export function fmtDuration(seconds) {
  if (!isNum(seconds)) return '';
  const sign = seconds < 0 ? '-' : '+';
  let s = Math.round(Math.abs(seconds));
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d) return `${sign}${d}d ${h}h`;
  if (h) return `${sign}${h}h ${m}m`;
  if (m) return `${sign}${m}m ${s}s`;
  return `${sign}${s}s`;
}

/** @param {number} ms */
export function fmtInterval(ms) {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

/** @param {number | null | undefined} r */
export function fmtRatio(r) {
  return isNum(r) ? `${(r * 100).toFixed(1)}%` : '–';
}

/** @param {unknown} x */
export function fmtPercent(x) {
  return isNum(x) ? `${(x * 100).toFixed(1)} %` : '–';
}

/** @param {unknown} n */
export function fmtBytes(n) {
  if (!isNum(n)) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/**
 * s/MB to three significant digits; '–' when there is no value yet.
 * @param {unknown} v
 */
export function fmtCost(v) {
  return isNum(v) ? String(Number(v.toPrecision(3))) : '–';
}

/** @param {unknown} r */
export function fmtTimes(r) {
  return isNum(r) ? `${Number(r.toPrecision(3))}×` : '–';
}

/** @param {number} kwh */
export function fmtKWh(kwh) {
  return `${formatNumber(kwh)} kWh`;
}

/** @param {number} n @param {string} word */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** @param {string | null | undefined} label */
export function labelName(label) {
  return label === null || label === undefined || label === '' ? DEFAULT_LABEL : label;
}

/**
 * A job's estimated energy in kWh; '–' for an admitted job without a kWh estimate.
 * @param {Job} job
 */
export function energyText(job) {
  if (isNum(job.energyJoules)) return fmtKWh(job.energyJoules / 3.6e6);
  return job.decision === 'admitted' ? '–' : '';
}

/** @param {Job['reason']} reason */
export function reasonText(reason) {
  if (!reason) return '';
  const msg = typeof reason.message === 'string' ? reason.message : '';
  return reason.kind ? `${msg} (${reason.kind})` : msg;
}

/**
 * The partition a job runs in; a rejected job runs nowhere, so it has none.
 * @param {Job} job
 */
export function jobLabel(job) {
  return job.decision === 'admitted' ? labelName(job.label) : job.label || '';
}

/**
 * A job's apps as the API lists them (first bound first).
 * @param {Job | null | undefined} job
 */
export function appsOf(job) {
  return job && Array.isArray(job.apps) ? job.apps.filter((a) => a && typeof a.id === 'string') : [];
}

/**
 * Seconds from a job's deadline to its predicted finish (positive: that much late).
 * @param {Job} j
 */
export function predictedLateBy(j) {
  return (Date.parse(j.predictedFinish || '') - Date.parse(j.deadline)) / 1000;
}

/**
 * A job's slack as the page shows it (table, chart, panel): deadline minus its actual finish
 * once ended, else minus its predicted finish (the estimate until its tasks were read),
 * seconds. The API's slackSeconds is against the estimate.
 * @param {Job} j
 */
export function shownSlack(j) {
  if (j.finishedAt || !j.predictedFinish) return j.slackSeconds;
  return -predictedLateBy(j);
}

/**
 * A job whose predicted finish the table shows: a running one, or any predicted to miss.
 * @param {Job} j
 */
export function showsPrediction(j) {
  return (
    j.decision === 'admitted' &&
    Boolean(j.predictedFinish) &&
    (j.state === 'running' || j.predictedMiss === true)
  );
}

export const NO_ENERGY =
  "no kWh estimate: the energy profile has no kWh figure for this job's workload (the shipped profile gives the cpu jobs' workload, loadgen, only relative efficiency factors)";
