// @ts-check
/*
 * The profiles of recurring jobs (GET /api/v1/estimates `profiles`), most recently learned
 * first: what each was fitted to (its latest run's longest tasks beside the fit), its errors
 * (actual / predicted duration) and the factor its next jobs are judged with. The last column
 * draws the latest run's error against 1 (on time as predicted): left of the mark ran faster.
 */
import { fieldOf } from './api.js';
import { $, clear, keyedCells, tbodyOf } from './dom.js';
import { isNum, plural } from './format.js';

/** @typedef {import('./api.js').Estimates} Estimates */
/** @typedef {Estimates['profiles'][number]} Profile */

const SVG_NS = 'http://www.w3.org/2000/svg';
const BAR_W = 120;
const BAR_H = 14;

let lastProfilesKey = '';

/**
 * A number to so many decimals, without trailing zeros; '–' when there is none.
 * @param {unknown} v @param {number} digits
 */
function fixed(v, digits) {
  return isNum(v) ? Number(v.toFixed(digits)).toString() : '–';
}

/**
 * A figure of the latest run (its schema leaves the run's fields open); null when absent.
 * @param {Profile} p @param {string} key
 */
function lastRunFigure(p, key) {
  const v = fieldOf(p.lastRun, key);
  return isNum(v) ? v : null;
}

/**
 * The fitted longest task of a stage for the latest run's data, seconds; null without a fit.
 * @param {number} taskSeconds @param {number} secondsPerMb @param {number | null} mb
 */
function fitted(taskSeconds, secondsPerMb, mb) {
  return isNum(taskSeconds) ? taskSeconds + (secondsPerMb || 0) * (mb || 0) : null;
}

/**
 * A stage's cell: the fit and the latest run's own longest task, '–' when it had none.
 * @param {Profile} p @param {'map' | 'reduce'} stage @param {number | null} fit
 */
function stageText(p, stage, fit) {
  const count = lastRunFigure(p, stage === 'map' ? 'maps' : 'reduces');
  if (!(count !== null && count > 0)) return '–';
  return `${fixed(fit, 1)} (last ${fixed(lastRunFigure(p, `${stage}Seconds`), 1)})`;
}

/** @param {Profile} p */
function profileRow(p) {
  const fitMap = fitted(p.mapTaskSeconds, p.mapSecondsPerMb, lastRunFigure(p, 'mapMb'));
  const fitReduce = fitted(p.reduceTaskSeconds, p.reduceSecondsPerMb, lastRunFigure(p, 'reduceMb'));
  const quantile = isNum(p.errorQuantile)
    ? `${fixed(p.errorQuantile, 2)} (p${Math.round(p.quantile * 100)})`
    : '–';
  const tr = document.createElement('tr');
  tr.dataset.profile = p.profile;
  keyedCells(tr, [
    ['profile', p.profile, null],
    ['runs', isNum(p.runs) ? String(p.runs) : '–', p.runs],
    ['setup', fixed(p.setupSeconds, 1), p.setupSeconds],
    ['map', stageText(p, 'map', fitMap), fitMap],
    ['reduce', stageText(p, 'reduce', fitReduce), fitReduce],
    ['commit', fixed(p.commitSeconds, 1), p.commitSeconds],
    ['errorMedian', fixed(p.errorMedian, 2), p.errorMedian],
    ['errorQuantile', quantile, p.errorQuantile],
    ['factor', `×${fixed(p.factor, 2)}`, p.factor],
  ]);
  tr.appendChild(errorBar(lastRunFigure(p, 'error'), p.factor));
  return tr;
}

/**
 * @param {Estimates | null} est
 */
export function renderProfiles(est) {
  const key = JSON.stringify(est && est.profiles);
  if (key === lastProfilesKey) return;
  lastProfilesKey = key;
  const profiles =
    est && Array.isArray(est.profiles)
      ? est.profiles.filter((p) => p && typeof p === 'object' && typeof p.profile === 'string')
      : [];
  const tbody = tbodyOf('profiles');
  clear(tbody);
  for (const p of profiles) tbody.appendChild(profileRow(p));
  const meta = [
    profiles.length === 0
      ? "no profile yet: a job is learned into its profile when it ends (none under the papers' model)"
      : `${plural(profiles.length, 'profile')}, most recently learned first`,
    "a job with a profile is judged with its figures times its factor; one without, with its class's times the margin",
  ];
  $('profiles-meta').textContent = meta.join(' · ');
}

/** @param {number} v the error on 0-2, as x on the bar */
const barX = (v) => Math.max(0, Math.min(BAR_W, (v / 2) * BAR_W));

/**
 * An SVG element with its attributes.
 * @param {string} name @param {Record<string, string | number>} attrs
 */
function svgEl(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * A small bar of a run's error on 0-2 (1: as predicted), with the factor marked.
 * @param {number | null} error @param {number} factor
 */
function errorBar(error, factor) {
  const td = document.createElement('td');
  td.dataset.k = 'lastError';
  const label = isNum(error)
    ? `latest run's error ${error.toFixed(2)} (1 is as predicted), factor ${isNum(factor) ? factor.toFixed(2) : '–'}`
    : 'no error known for the latest run (it was not judged on its profile)';
  const svg = svgEl('svg', { width: BAR_W, height: BAR_H, role: 'img', 'aria-label': label });
  const title = svgEl('title', {});
  title.textContent = label;
  svg.appendChild(title);
  svg.appendChild(svgEl('line', { x1: barX(1), x2: barX(1), y1: 0, y2: BAR_H, class: 'axis' }));
  if (isNum(error)) {
    const late = error > (isNum(factor) ? factor : 1);
    svg.appendChild(
      svgEl('rect', {
        x: Math.min(barX(1), barX(error)),
        width: Math.abs(barX(error) - barX(1)),
        y: 3,
        height: BAR_H - 6,
        class: late ? 'bar missed' : 'bar met',
      }),
    );
    td.dataset.value = String(error);
  }
  if (isNum(factor))
    svg.appendChild(svgEl('line', { x1: barX(factor), x2: barX(factor), y1: 0, y2: BAR_H, class: 'mark' }));
  td.appendChild(svg);
  return td;
}
