// @ts-check
/*
 * The replays view (#replays, #replay=<id>; GET /api/v1/replays, docs/replay.md): the replays
 * kept, and the one picked with its figures per policy and the as-ran run's fidelity. Read
 * only while the view is open. The report's fields beyond those its schema names are read
 * where they are of the expected type.
 */
import { ApiError, AuthRequired, errorText, fieldOf, listOf, readReplays } from './api.js';
import { renderBarChart } from './charts.js';
import { $, buildHead, clear, emptyRow, node, safeClass, setText, tbodyOf } from './dom.js';
import { fmtPercent, fmtTime, isNum, plural } from './format.js';
import { state } from './state.js';
import { askForToken } from './status.js';
import { CHART_H, CHART_W } from './stats.js';

/** @typedef {import('./api.js').Replay} Replay */
/** @typedef {NonNullable<Replay['report']>} ReplayReport */
/** @typedef {import('./charts.js').BarInput} BarInput */

/** @type {import('./dom.js').Head[]} */
const REPLAY_HEADS = [
  ['Replay'],
  ['State'],
  ['Started'],
  ['Finished'],
  ['Progress', 'The phase it is in (reading, learning, then each policy) and its share done'],
  ['Jobs'],
  [
    'Fidelity',
    "Median |simulated - real| / real duration of the as-ran run: how closely FIFO replays the cluster's own order",
  ],
  ['Asked'],
];

/** @type {import('./dom.js').Head[]} */
const POLICY_HEADS = [
  ['Policy'],
  ['Admitted'],
  ['Rejected'],
  ['Met'],
  ['Missed'],
  ['No deadline', 'Jobs with no deadline (refused by a policy that promises deadlines)'],
  ['Utilisation'],
  ['Accept ratio'],
  ['Success ratio', 'Met over admitted'],
];

export function buildReplayTables() {
  buildHead('replays', REPLAY_HEADS);
  buildHead('replay-policies', POLICY_HEADS);
}

/** @type {{ selected: string | null, timer: number | undefined, generation: number }} */
export const replayView = { selected: null, timer: undefined, generation: 0 };

export function inReplays() {
  return /^#replay/.test(window.location.hash);
}

/**
 * What a replay was asked for, in a few words.
 * @param {Replay['request']} r
 */
function askedText(r) {
  const parts = [];
  if (r.since) parts.push(`last ${r.since}`);
  if (r.from) parts.push(`from ${r.from}`);
  if (r.to) parts.push(`to ${r.to}`);
  if (isNum(r.slack)) parts.push(`slack ${r.slack}x`);
  if (r.deadlines) parts.push(plural(Object.keys(r.deadlines).length, 'named deadline'));
  if (Array.isArray(r.policies)) parts.push(r.policies.join(', '));
  if (isNum(r.maxJobs)) parts.push(`at most ${r.maxJobs} jobs`);
  return parts.join(' · ') || 'defaults (last 7d, every policy)';
}

/** @param {Replay} r */
function progressText(r) {
  if (r.state === 'running') return r.progress ? `${r.progress.phase} ${r.progress.percent} %` : 'starting';
  return r.state === 'failed' ? r.error || 'failed' : 'done';
}

/** @param {Replay} r */
function replayRow(r) {
  const tr = document.createElement('tr');
  tr.dataset.replayId = r.id;
  tr.tabIndex = 0;
  tr.className = `replay ${safeClass(r.state, ['running', 'done', 'failed'])}`;
  if (r.id === replayView.selected) tr.classList.add('selected');
  const report = r.report;
  const fidelity = report && report.fidelity ? report.fidelity.medianAbsError : null;
  const cells = [
    r.id,
    r.state,
    fmtTime(r.startedAt),
    r.finishedAt ? fmtTime(r.finishedAt) : '–',
    progressText(r),
    report ? report.jobs : '–',
    fidelity === null || fidelity === undefined ? '–' : fmtPercent(fidelity),
    askedText(r.request),
  ];
  cells.forEach((c, i) => {
    const td = node('td', c);
    td.dataset.col = REPLAY_HEADS[i][0].toLowerCase();
    tr.appendChild(td);
  });
  return tr;
}

/**
 * The replays kept; with no list, the message says why there is none.
 * @param {Replay[] | null} list @param {string} [message]
 */
function renderReplayList(list, message) {
  const tbody = tbodyOf('replays');
  clear(tbody);
  if (!list) {
    setText('replays-count', '');
    emptyRow(tbody, message || '');
    return;
  }
  setText('replays-count', list.length ? plural(list.length, 'replay') + ' kept' : '');
  if (!list.length) {
    emptyRow(tbody, 'no replay yet: POST /api/v1/replays starts one');
    return;
  }
  for (const r of list) tbody.appendChild(replayRow(r));
}

/**
 * A bar chart of the replay view, or its empty note.
 * @param {string} id @param {string} label @param {BarInput[]} bars @param {string} emptyMessage
 */
function replayChart(id, label, bars, emptyMessage) {
  renderBarChart(document, $(id), { label, bars, width: CHART_W, height: CHART_H, emptyMessage });
}

/**
 * The fidelity's |error| buckets: label, share of the jobs, and how many.
 * @param {unknown} fidelity
 */
function bucketsOf(fidelity) {
  return listOf(fieldOf(fidelity, 'buckets')).map((b) => {
    const share = fieldOf(b, 'share');
    return { label: String(fieldOf(b, 'label')), share: isNum(share) ? share : 0, jobs: fieldOf(b, 'jobs') };
  });
}

/** The line saying what was replayed. @param {ReplayReport} report */
function replayMeta(report) {
  const window_ = fieldOf(report, 'window');
  const from = fieldOf(window_, 'from');
  const to = fieldOf(window_, 'to');
  const counts = fieldOf(report, 'deadlines');
  /** @type {Array<[string, unknown]>} */
  const entries = counts !== null && typeof counts === 'object' ? Object.entries(counts) : [];
  const deadlines = entries
    .filter(([, n]) => isNum(n) && n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const times = `started ${fmtTime(typeof from === 'string' ? from : null)} to ${fmtTime(typeof to === 'string' ? to : null)}`;
  return `${report.jobs} jobs replayed, ${times}; deadlines: ${deadlines || 'none'}; ${fieldOf(report, 'requests')} requests`;
}

/** The as-ran run's fidelity in words. @param {ReplayReport['fidelity']} f */
function fidelityText(f) {
  const jobs = fieldOf(f, 'jobs');
  if (!jobs) return 'Fidelity: no job finished in the as-ran run';
  const p90 = fmtPercent(fieldOf(f, 'p90AbsError'));
  const within = fmtPercent(fieldOf(f, 'within10'));
  return `Fidelity (as-ran vs real, ${jobs} jobs): median |error| ${fmtPercent(f.medianAbsError)}, p90 ${p90}, ${within} of jobs within 10 %`;
}

/**
 * The figures per policy: a row each, and three bars each (met, missed, rejected).
 * @param {ReplayReport} report @param {HTMLTableSectionElement} tbody
 */
function renderPolicies(report, tbody) {
  const policies = Object.entries(report.policies || {});
  /** @type {BarInput[]} */
  const bars = [];
  for (const [name, p] of policies) {
    const tr = document.createElement('tr');
    tr.dataset.policy = name;
    const rates = [p.utilization, p.acceptRatio, p.successRatio].map(fmtPercent);
    for (const c of [name, p.admitted, p.rejected, p.met, p.missed, p.noDeadline, ...rates])
      tr.appendChild(node('td', c));
    tbody.appendChild(tr);
    for (const kind of /** @type {const} */ (['met', 'missed', 'rejected']))
      bars.push({ key: `${name}:${kind}`, value: p[kind], kind, title: `${name}: ${p[kind]} ${kind}` });
  }
  replayChart('chart-replay-policies', 'Jobs met, missed and rejected per policy', bars, 'no policy ran');
  return policies.map(([name]) => name);
}

/** A replay without a report: running, or failed before it. @param {Replay} r @param {HTMLTableSectionElement} tbody */
function renderNoReport(r, tbody) {
  setText('replay-plot-note', '');
  setText('replay-meta', r.state === 'running' ? 'running: its figures come when it is done' : '');
  setText('replay-fidelity', '');
  emptyRow(tbody, r.state === 'running' ? 'not done yet' : 'no report');
  replayChart('chart-replay-policies', '', [], 'no report');
  replayChart('chart-replay-fidelity', '', [], 'no report');
}

/**
 * The replay picked, or none.
 * @param {Replay | null} r
 */
function renderReplay(r) {
  $('replay-detail').hidden = !r;
  if (!r) return;
  setText('replay-title', `Replay ${r.id}`);
  $('replay-error').hidden = r.state !== 'failed';
  setText('replay-error', r.state === 'failed' ? `Failed: ${r.error || 'no reason given'}` : '');
  const tbody = tbodyOf('replay-policies');
  clear(tbody);
  const report = r.report;
  if (!report) return renderNoReport(r, tbody);
  setText('replay-meta', replayMeta(report));
  const f = report.fidelity || { medianAbsError: null };
  setText('replay-fidelity', fidelityText(f));
  const names = renderPolicies(report, tbody);
  const buckets = bucketsOf(f);
  setText(
    'replay-plot-note',
    `Left to right: each policy's met (green), missed (red) and rejected (grey), in the table's order (${names.join(', ')}); the |error| buckets ${buckets.map((b) => b.label).join(', ')}.`,
  );
  const bars = buckets.map((b) => ({
    key: b.label,
    value: b.share * 100,
    kind: 'open',
    title: `|error| ${b.label}: ${b.jobs} jobs (${fmtPercent(b.share)})`,
  }));
  replayChart('chart-replay-fidelity', 'Share of jobs per |error| bucket, %', bars, 'no job to compare');
}

/** Read the replays, draw the list and the one picked, and read again while the view is open. */
export async function refreshReplays() {
  window.clearTimeout(replayView.timer);
  const generation = ++replayView.generation;
  try {
    const body = await readReplays();
    if (generation !== replayView.generation) return;
    const list = body && Array.isArray(body.replays) ? body.replays : [];
    renderReplayList(list);
    renderReplay(list.find((r) => r.id === replayView.selected) || null);
    document.body.dataset.replayRefreshes = String(Number(document.body.dataset.replayRefreshes || 0) + 1);
  } catch (err) {
    if (generation !== replayView.generation) return;
    if (err instanceof AuthRequired) return askForToken();
    // A service without replays answers 404 saying so: the view says it too.
    const notFound = err instanceof ApiError && err.status === 404;
    renderReplayList(null, notFound ? errorText(err) : `Cannot read the replays: ${errorText(err)}`);
    renderReplay(null);
  }
  if (inReplays() && !state.locked)
    replayView.timer = window.setTimeout(refreshReplays, state.config.pollIntervalMs);
}
