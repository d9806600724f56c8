// @ts-check
/*
 * The jobs table, its filters and the slack chart. decision, state, queue and user are the
 * API's own filters (the query carries them); label and search filter what is loaded.
 */
import { fieldOf, listOf } from './api.js';
import { renderBarChart } from './charts.js';
import { $, $as, buildHead, node, safeClass, setText, tbodyOf } from './dom.js';
import {
  appsOf,
  energyText,
  fmtDuration,
  fmtTime,
  isNum,
  jobLabel,
  labelName,
  NO_ENERGY,
  predictedLateBy,
  reasonText,
  shownSlack,
  showsPrediction,
} from './format.js';
import { state } from './state.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Cluster} Cluster */
/** @typedef {{ decision: string, state: string, queue: string, label: string, user: string, search: string }} Filters */

const JOB_LIMIT = 1000;
const KNOWN_DECISIONS = ['admitted', 'rejected'];
const KNOWN_OUTCOMES = ['met', 'missed'];

/**
 * The jobs table: [name, cell value, header, header tooltip].
 * @type {ReadonlyArray<[name: string, value: (j: Job) => string, header: string, title?: string]>}
 */
const COLUMNS = [
  ['id', (j) => j.id, 'Id'],
  ['name', (j) => j.name, 'Name'],
  ['user', (j) => j.user, 'User'],
  ['decision', (j) => j.decision, 'Decision'],
  ['state', (j) => j.state, 'State'],
  ['outcome', (j) => j.outcome || '', 'Outcome'],
  ['queue', (j) => j.queue || '', 'Queue'],
  ['label', (j) => jobLabel(j), 'Label'],
  ['deadline', (j) => fmtTime(j.deadline), 'Deadline'],
  ['estimate', (j) => fmtTime(j.estimatedFinish), 'Est. finish'],
  [
    'predicted',
    (j) => (showsPrediction(j) ? fmtTime(j.predictedFinish) : ''),
    'Pred. finish',
    "A running job's predicted finish: its lane's placement made again from its tasks' progress (the estimate until they are read); red when it is after the deadline",
  ],
  ['finished', (j) => fmtTime(j.finishedAt), 'Finished'],
  [
    'slack',
    (j) => fmtDuration(shownSlack(j)),
    'Slack',
    'Deadline minus the finish: the actual one once the job ended, else its predicted finish (the estimate until its tasks are read); negative: late',
  ],
  [
    'energy',
    (j) => energyText(j),
    'Energy',
    "Estimated energy of the job's map tasks, from the energy profile",
  ],
  ['reason', (j) => reasonText(j.reason), 'Reason'],
];
/**
 * The jobs table's column widths (dashboard.css); a column not named takes what is left.
 * @type {Record<string, string>}
 */
const JOB_WIDTHS = {
  id: 'w-id',
  name: 'w-name',
  user: 'w-user',
  decision: 'w-decision',
  state: 'w-state',
  outcome: 'w-outcome',
  queue: 'w-queue',
  label: 'w-label',
  deadline: 'w-time',
  estimate: 'w-time',
  predicted: 'w-time',
  finished: 'w-time',
  slack: 'w-slack',
  energy: 'w-energy',
};
/**
 * Header classes: the columns a narrow window hides (dashboard.css).
 * @type {Record<string, string>}
 */
const HEAD_CLASSES = { user: 'c-user', queue: 'c-queue' };
/** @param {string} name */
const column = (name) => COLUMNS.findIndex(([n]) => n === name);

/**
 * What a state's name alone does not say, shown beside it in the state filter.
 * @type {Record<string, string>}
 */
const STATE_NOTES = {
  lost: 'the RM forgot its app',
  expired: 'a ticket no app bound',
  cancelled: 'a ticket',
};

/**
 * The jobs filters, in page order: [name (the select is #f-<name>), label, the choices that are
 * not read from the data as [value, text]]; '' (all) comes first. The states are the API's own,
 * from /dashboard/config.json.
 * @returns {Array<[name: string, label: string, choices: Array<[string, string]>]>}
 */
function filterChoices() {
  /** @param {string} v @returns {[string, string]} */
  const own = (v) => [v, v];
  /** @param {string} s @returns {[string, string]} */
  const noted = (s) => [s, STATE_NOTES[s] ? `${s} (${STATE_NOTES[s]})` : s];
  return [
    ['decision', 'Decision', KNOWN_DECISIONS.map(own)],
    ['state', 'State', state.config.jobStates.map(noted)],
    ['queue', 'Queue', []],
    ['label', 'Label', []],
    ['user', 'User', []],
  ];
}

/** The jobs table's header and the filters' selects, before the search field. */
export function buildJobsTable() {
  buildHead(
    'jobs',
    COLUMNS.map(([name, , text, title]) => [text, title, HEAD_CLASSES[name]]),
    COLUMNS.map(([name]) => JOB_WIDTHS[name] || ''),
  );
  const search = $('f-search').parentElement;
  if (!search || !search.parentElement) throw new Error('#f-search is not inside a label in a form');
  for (const [name, text, choices] of filterChoices()) {
    const select = document.createElement('select');
    select.id = `f-${name}`;
    select.name = name;
    for (const [value, label] of [['', 'all'], ...choices]) {
      const o = node('option', label);
      o.value = value;
      select.appendChild(o);
    }
    const field = node('label', text);
    field.appendChild(select);
    search.parentElement.insertBefore(field, search);
  }
}

/** @param {string} name */
const selected = (name) => $as(`f-${name}`, HTMLSelectElement).value;

/** @returns {Filters} */
export function filters() {
  return {
    decision: selected('decision'),
    state: selected('state'),
    queue: selected('queue'),
    label: selected('label'),
    user: selected('user'),
    search: $as('f-search', HTMLInputElement).value.trim().toLowerCase(),
  };
}

/**
 * The path of the jobs read: decision, state, queue and user are the API's own filters.
 * @param {Partial<Filters>} f
 */
export function jobsQuery(f) {
  const q = new URLSearchParams();
  for (const key of /** @type {const} */ (['decision', 'state', 'queue', 'user'])) {
    const value = f[key];
    if (value) q.set(key, value);
  }
  q.set('limit', String(JOB_LIMIT));
  return `/jobs?${q.toString()}`;
}

/** @param {Job} job @param {Filters} f */
function matchesLocal(job, f) {
  if (f.label && jobLabel(job) !== f.label) return false;
  if (!f.search) return true;
  const hay = [
    job.id,
    job.name,
    job.user,
    job.appId,
    ...appsOf(job).map((a) => a.id),
    job.queue,
    job.label,
    job.reason && job.reason.message,
  ]
    .filter((v) => typeof v === 'string')
    .join('\n')
    .toLowerCase();
  return hay.includes(f.search);
}

/**
 * Keep each select's options the union of every value seen, with the choice preserved.
 * @param {string} selectId @param {Set<string>} values
 */
function syncOptions(selectId, values) {
  const select = $as(selectId, HTMLSelectElement);
  const current = select.value;
  const sorted = Array.from(values).sort((a, b) => a.localeCompare(b));
  const existing = Array.from(select.options)
    .slice(1)
    .map((o) => o.value);
  if (existing.length === sorted.length && existing.every((v, i) => v === sorted[i])) return;
  while (select.options.length > 1) select.remove(1);
  for (const v of sorted) {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v;
    select.appendChild(o);
  }
  select.value = sorted.includes(current) ? current : '';
}

/**
 * Note the queues, labels and users of the jobs and the cluster, for the filters' choices.
 * @param {Job[]} jobs @param {Cluster} cluster
 */
export function noteSeen(jobs, cluster) {
  const { seen } = state;
  for (const j of jobs) {
    if (j.queue) seen.queue.add(j.queue);
    if (j.user) seen.user.add(j.user);
    if (j.decision === 'admitted' || j.label) seen.label.add(labelName(j.label));
  }
  for (const p of (cluster && cluster.partitions) || []) seen.label.add(labelName(p.label));
  // The cluster's queues are not in its schema: names, or objects with a name.
  for (const q of listOf(fieldOf(cluster, 'queues'))) {
    const name = typeof q === 'string' ? q : fieldOf(q, 'name');
    if (typeof name === 'string' && name) seen.queue.add(name);
  }
  syncOptions('f-queue', seen.queue);
  syncOptions('f-label', seen.label);
  syncOptions('f-user', seen.user);
}

/** @param {string} id */
function newRow(id) {
  const tr = document.createElement('tr');
  tr.dataset.jobId = id;
  tr.tabIndex = 0;
  for (const [name] of COLUMNS) tr.appendChild(node('td', '', `c-${name}`));
  return tr;
}

/**
 * The marks of a row's cells beyond their text: late slack, a predicted miss, no kWh estimate.
 * @param {HTMLTableRowElement} tr @param {Job} j
 */
function markCells(tr, j) {
  const slack = shownSlack(j);
  tr.cells[column('slack')].classList.toggle('late', isNum(slack) && slack < 0);
  const predicted = tr.cells[column('predicted')];
  const miss = j.predictedMiss === true;
  predicted.classList.toggle('late', miss);
  if (miss)
    predicted.title = `${fmtTime(j.predictedFinish)}: predicted to miss its deadline by ${fmtDuration(predictedLateBy(j)).slice(1)}`;
  const energy = tr.cells[column('energy')];
  const none = j.decision === 'admitted' && !isNum(j.energyJoules);
  energy.classList.toggle('none', none);
  if (none) energy.title = NO_ENERGY;
}

/**
 * Write a job into its row, touching only what changed.
 * @param {HTMLTableRowElement} tr @param {Job} j
 */
function updateRow(tr, j) {
  const cls = ['job', safeClass(j.decision, KNOWN_DECISIONS), safeClass(j.outcome, KNOWN_OUTCOMES)];
  if (j.predictedMiss === true) cls.push('predicted-miss');
  if (j.id === state.selectedId) cls.push('selected');
  const className = cls.filter(Boolean).join(' ');
  if (tr.className !== className) tr.className = className;
  COLUMNS.forEach(([, value], i) => {
    const v = String(value(j));
    // The title gives a value the column cuts short in full.
    if (tr.cells[i].textContent !== v) {
      tr.cells[i].textContent = v;
      tr.cells[i].title = v;
    }
  });
  markCells(tr, j);
}

/**
 * Rows are kept per job id and updated in place rather than rebuilt on every poll, so the
 * keyboard focus, a hovered row and a text selection survive the live updates.
 */
export function renderJobs() {
  const f = filters();
  const shown = state.jobs.filter((j) => matchesLocal(j, f));
  const tbody = tbodyOf('jobs');
  /** @type {Map<string | undefined, HTMLTableRowElement>} */
  const existing = new Map();
  for (const tr of Array.from(tbody.rows)) existing.set(tr.dataset.jobId, tr);
  const rows = shown.map((j) => {
    const tr = existing.get(j.id) || newRow(j.id);
    existing.delete(j.id);
    updateRow(tr, j);
    return tr;
  });
  for (const tr of existing.values()) tr.remove();
  rows.forEach((tr, i) => {
    if (tbody.rows[i] !== tr) tbody.insertBefore(tr, tbody.rows[i] || null);
  });
  const more =
    state.total > state.jobs.length
      ? ` (the API holds ${state.total}; the newest ${state.jobs.length} are loaded)`
      : '';
  setText('jobs-count', `${shown.length} of ${state.jobs.length} jobs shown${more}`);
  renderSlack(shown);
}

/** Mark the open job's row, and only it. */
export function markSelected() {
  for (const tr of Array.from(tbodyOf('jobs').rows))
    tr.classList.toggle('selected', state.selectedId !== null && tr.dataset.jobId === state.selectedId);
}

let lastSlackKey = '';

/** @param {Job} j */
function slackBar(j) {
  const slack = /** @type {number} */ (shownSlack(j));
  const risk = j.predictedMiss === true;
  const end = j.finishedAt || j.predictedFinish || j.estimatedFinish;
  return {
    key: j.id,
    value: slack / 60,
    kind: j.outcome === 'met' ? 'met' : j.outcome === 'missed' ? 'missed' : risk ? 'risk' : 'open',
    title: `${j.name} (${j.id}): deadline ${fmtTime(j.deadline)}, ${j.finishedAt ? 'finished' : 'predicted'} ${fmtTime(end)}, slack ${fmtDuration(slack)}${risk ? ' (predicted to miss)' : ''}`,
  };
}

/**
 * The slack of every admitted job shown, in deadline order; redrawn only when it changed.
 * @param {Job[]} jobs
 */
function renderSlack(jobs) {
  const bars = jobs
    .filter((j) => j.decision === 'admitted' && isNum(shownSlack(j)))
    .sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline))
    .map(slackBar);
  const key = JSON.stringify(bars);
  if (key === lastSlackKey) return;
  lastSlackKey = key;
  renderBarChart(document, $('chart-slack'), {
    label: 'Slack per admitted job, minutes',
    bars,
    width: 760,
    height: 180,
    emptyMessage: 'no admitted job with an estimate in this view',
  });
}
