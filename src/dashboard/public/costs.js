// @ts-check
/*
 * The task costs panel (GET /api/v1/estimates `classes`): one workload class's learned worst
 * case beside its own observed distribution, per stage. The select lists every class; at first
 * it shows the class with the most finished jobs, so the red line is the worst case that judges
 * those tasks.
 */
import { renderHistogram } from './charts.js';
import { $, $as, buildHead, clear, keyedCells, node, setText, tbodyOf } from './dom.js';
import { fmtCost, fmtTimes, isNum, plural } from './format.js';
import { CHART_H, CHART_W } from './stats.js';

/** @typedef {import('./api.js').Estimates} Estimates */
/** @typedef {Estimates['classes'][number]} ClassEstimates */
/** @typedef {ClassEstimates['map']} StageCosts */

/** @type {ReadonlyArray<'map' | 'reduce'>} */
const STAGES = ['map', 'reduce'];

/** @type {import('./dom.js').Head[]} */
const COST_HEADS = [
  ['Stage'],
  ['Tasks'],
  ['p50'],
  ['p90'],
  ['p99'],
  ['Max'],
  ['Learned worst case'],
  ['Worst case / p50'],
];

export function buildCostsTable() {
  buildHead('costs', COST_HEADS);
}

/** The class the panel shows when the operator picked one; null: follow `mostObserved`. */
let chosenCostClass = /** @type {string | null} */ (null);
/** @type {Estimates | null} */
let lastEstimates = null;
let lastCostsKey = '';

/** @param {string} c */
const className = (c) => (c === '*' ? 'default (*)' : String(c));

/**
 * The operator picked a class in the select.
 * @param {string} name
 */
export function chooseCostClass(name) {
  chosenCostClass = name;
  renderCosts(lastEstimates);
}

/** @param {ClassEstimates[]} classes @param {string | undefined} shown */
function renderClassSelect(classes, shown) {
  const select = $as('cost-class', HTMLSelectElement);
  clear(select);
  for (const c of classes) {
    const opt = node(
      'option',
      `${className(c.workloadClass)} · ${plural(isNum(c.jobs) ? c.jobs : 0, 'job')}`,
    );
    opt.value = c.workloadClass;
    if (c.workloadClass === shown) opt.selected = true;
    select.appendChild(opt);
  }
  select.disabled = classes.length === 0;
}

/** @param {'map' | 'reduce'} stage @param {StageCosts | undefined} s */
function stageRow(stage, s) {
  const o = s && s.observed;
  const tr = document.createElement('tr');
  tr.dataset.stage = stage;
  keyedCells(tr, [
    ['stage', stage, null],
    ['count', o && isNum(o.count) ? String(o.count) : '–', o && o.count],
    ['p50', fmtCost(o && o.p50), o && o.p50],
    ['p90', fmtCost(o && o.p90), o && o.p90],
    ['p99', fmtCost(o && o.p99), o && o.p99],
    ['max', fmtCost(o && o.max), o && o.max],
    ['learned', fmtCost(s && s.learnedWorstCase), s && s.learnedWorstCase],
    ['ratio', fmtTimes(s && s.worstCaseOverP50), s && s.worstCaseOverP50],
  ]);
  return tr;
}

/**
 * The stage's histogram with the learned worst case marked.
 * @param {'map' | 'reduce'} stage @param {StageCosts | undefined} s @param {string | undefined} shown
 */
function renderStageChart(stage, s, shown) {
  const histogram = s && Array.isArray(s.observed.histogram) ? s.observed.histogram : [];
  const bins = histogram.filter((b) => b && isNum(b.from) && isNum(b.to) && isNum(b.count));
  const chart = $(`chart-cost-${stage}`);
  chart.dataset.workloadClass = shown === undefined ? '' : shown;
  const worst = s && s.learnedWorstCase;
  renderHistogram(document, chart, {
    label: `${stage} task costs of class ${className(shown ?? '')}, seconds per MB`,
    bins,
    marks: isNum(worst) ? [{ key: 'learned', label: 'learned worst case', value: worst }] : [],
    width: CHART_W,
    height: CHART_H,
    valueFormat: (v) => `${fmtCost(v)} s/MB`,
    emptyMessage: `no finished ${stage} task of this class observed yet`,
  });
}

/**
 * The line under the table: what the shown class holds and how its tasks are judged.
 * @param {Estimates | null} est @param {ClassEstimates | undefined} cls
 * @param {string | undefined} shown @param {number} classCount
 */
function renderCostsMeta(est, cls, shown, classCount) {
  const meta = [];
  if (shown !== undefined && cls && isNum(cls.jobs))
    meta.push(`${plural(cls.jobs, 'finished job')} of class ${className(shown)} observed`);
  if (est && isNum(est.jobs) && classCount > 1) meta.push(`${plural(est.jobs, 'finished job')} in all`);
  if (est && isNum(est.quantileRelativeError))
    meta.push(`quantiles within ±${Number((est.quantileRelativeError * 100).toPrecision(3))}%`);
  if (cls && isNum(cls.eta)) meta.push(`learned eta ${fmtCost(cls.eta)}`);
  if (cls && cls.ownFigures === false)
    meta.push('judged with the default figures (no figures of its own yet)');
  meta.push("admission plans every task at its class's learned worst case (seconds per MB)");
  setText('costs-meta', meta.join(' · '));
}

/**
 * The panel for the class chosen, else the most observed one; redrawn only when the estimates
 * or the choice changed.
 * @param {Estimates | null} est
 */
export function renderCosts(est) {
  const key = JSON.stringify([est, chosenCostClass]);
  if (key === lastCostsKey) return;
  lastCostsKey = key;
  lastEstimates = est;
  const classes =
    est && Array.isArray(est.classes)
      ? est.classes.filter((c) => c && typeof c === 'object' && typeof c.workloadClass === 'string')
      : [];
  const names = classes.map((c) => c.workloadClass);
  const mostObserved = est ? est.mostObserved : null;
  /** @type {string | undefined} */
  const fallback = mostObserved !== null && names.includes(mostObserved) ? mostObserved : names[0];
  const shown = chosenCostClass !== null && names.includes(chosenCostClass) ? chosenCostClass : fallback;
  renderClassSelect(classes, shown);
  const cls = classes.find((c) => c.workloadClass === shown);
  const tbody = tbodyOf('costs');
  clear(tbody);
  for (const stage of STAGES) {
    const s = cls ? cls[stage] : undefined;
    tbody.appendChild(stageRow(stage, s));
    renderStageChart(stage, s, shown);
  }
  renderCostsMeta(est, cls, shown, classes.length);
}
