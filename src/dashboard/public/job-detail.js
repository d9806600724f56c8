// @ts-check
/*
 * The job panel (GET /api/v1/jobs/:id): its times on one axis, why it was rejected, its fields,
 * its apps, the decisions taken on it and the RM writes that enforced them. Opened from a row,
 * a slack bar, a ticket's link or the address (#job=<id>).
 */
import { AuthRequired, errorText, readJob } from './api.js';
import { renderTimeline } from './charts.js';
import { rmAppUrl } from './cluster.js';
import { $, clear, field, jsonDetails, node, outsideLink, safeClass, setText, tbodyOf } from './dom.js';
import {
  appsOf,
  energyText,
  fmtBytes,
  fmtDuration,
  fmtTime,
  isNum,
  jobLabel,
  NO_ENERGY,
  plural,
  predictedLateBy,
  reasonText,
  shownSlack,
} from './format.js';
import { markSelected } from './jobs.js';
import { state } from './state.js';
import { showError, showToken } from './status.js';
import { TICKET_STATES } from './tickets.js';

/** @typedef {import('./api.js').JobDetail} JobDetail */
/** @typedef {import('./api.js').Job} Job */

const ACTION_STATES = ['pending', 'done', 'failed', 'skipped'];

let lastDetailKey = '';

/** @param {string | null | undefined} iso */
const ms = (iso) => (iso ? Date.parse(iso) : null);

/**
 * The finish the panel compares with the deadline, and a prediction other than the estimate
 * (marked beside it) for an open admitted job.
 * @param {Job} job
 */
function finishOf(job) {
  const open = !job.finishedAt && job.decision === 'admitted';
  const end = job.finishedAt || (open && job.predictedFinish) || job.estimatedFinish;
  const predicted =
    open && job.predictedFinish && job.predictedFinish !== job.estimatedFinish ? job.predictedFinish : null;
  return { open, end, predicted };
}

/** The job's times on one axis, with the stretch from its end to its deadline. @param {Job} job */
function renderJobTimeline(job) {
  const { end, predicted } = finishOf(job);
  const deadline = Date.parse(job.deadline);
  const marks = [
    { key: 'arrival', label: 'arrival', ms: ms(job.arrival) },
    { key: 'estimate', label: 'estimated finish', ms: ms(job.estimatedFinish) },
    { key: 'predicted', label: 'predicted finish', ms: ms(predicted) },
    { key: 'finished', label: 'finished', ms: ms(job.finishedAt) },
    { key: 'deadline', label: 'deadline', ms: deadline },
    { key: 'earliest', label: 'earliest admissible', ms: ms(job.earliestAdmissibleDeadline) },
  ];
  const to = end ? Date.parse(end) : NaN;
  renderTimeline(document, $('detail-timeline'), {
    label: 'Deadline vs estimated vs actual finish',
    marks,
    width: 760,
    height: 90,
    band:
      end && job.decision === 'admitted'
        ? { from: to, to: deadline, kind: to > deadline ? 'late' : 'spare' }
        : null,
  });
}

/** Why a rejected job was rejected, and the earliest deadline that would be admitted. @param {Job} job */
function renderRejection(job) {
  const rejected = job.decision === 'rejected';
  $('detail-rejection').hidden = !rejected;
  setText('detail-reason', rejected ? reasonText(job.reason) || 'no reason recorded' : '');
  let earliest = '';
  if (rejected && job.earliestAdmissibleDeadline) {
    const later = (Date.parse(job.earliestAdmissibleDeadline) - Date.parse(job.deadline)) / 1000;
    earliest = `${fmtTime(job.earliestAdmissibleDeadline)} (${fmtDuration(later)} after the requested deadline)`;
  } else if (rejected) {
    earliest = 'none now: no deadline would be admitted';
  }
  setText('detail-earliest', earliest);
}

/** The times and the slack. @param {HTMLElement} dl @param {Job} job */
function timeFields(dl, job) {
  const { open, predicted } = finishOf(job);
  field(dl, 'Decision', job.decision);
  field(dl, 'State', job.state);
  field(dl, 'Outcome', job.outcome);
  field(dl, 'Arrival', fmtTime(job.arrival));
  field(dl, 'Deadline', fmtTime(job.deadline));
  field(dl, 'Estimated finish', fmtTime(job.estimatedFinish));
  if (open && job.predictedFinish)
    field(
      dl,
      'Predicted finish',
      job.predictedMiss
        ? `${fmtTime(job.predictedFinish)} (predicted to miss its deadline by ${fmtDuration(predictedLateBy(job)).slice(1)})`
        : fmtTime(job.predictedFinish),
    );
  field(dl, 'Actual finish', fmtTime(job.finishedAt));
  const slack = shownSlack(job);
  const slackOf = job.finishedAt ? '' : predicted ? ' (predicted)' : ' (estimated)';
  field(dl, 'Slack', isNum(slack) ? `${fmtDuration(slack)}${slackOf}` : '');
}

/** Where it runs, who sent it and what it is. @param {HTMLElement} dl @param {Job} job */
function placementFields(dl, job) {
  field(dl, 'Queue', job.queue);
  field(dl, 'Label', jobLabel(job));
  field(dl, 'Priority', job.priority);
  field(dl, 'EDF position', job.position);
  field(dl, 'Application', job.appId);
  field(dl, 'User', job.user);
  field(dl, 'Submitted by', job.submitter);
  field(dl, 'Source', job.source);
  field(dl, 'Job type', job.jobType);
  field(dl, 'Tasks', `${plural(job.maps, 'map')}, ${plural(job.reduces, 'reduce')}`);
  field(dl, 'Input', fmtBytes(job.inputBytes));
  const energy = isNum(job.energyJoules) ? energyText(job) : job.decision === 'admitted' ? NO_ENERGY : '';
  field(dl, 'Energy (est.)', energy);
}

/** A ticket's state, expiry, label and client. @param {HTMLElement} dl @param {Job} job */
function ticketFields(dl, job) {
  const ticket = job.ticket && typeof job.ticket === 'object' ? job.ticket : null;
  if (!ticket) return;
  field(dl, 'Ticket', TICKET_STATES.includes(ticket.status) ? ticket.status : 'unknown');
  field(dl, 'Ticket expires', fmtTime(ticket.expiresAt));
  field(dl, 'Ticket label expression', ticket.labelExpression);
  const client = ticket.client && typeof ticket.client === 'object' ? ticket.client : null;
  if (client)
    field(
      dl,
      'Client',
      client.state === 'exited'
        ? `exited ${client.exitCode}`
        : `running (reported ${fmtTime(client.reportedAt)})`,
    );
}

/**
 * Every app of the job (several for a ticket whose client ran one app after another).
 * @param {Job} job
 */
function renderApps(job) {
  const apps = appsOf(job);
  $('detail-apps-wrap').hidden = apps.length === 0;
  setText(
    'detail-apps-note',
    job.betweenApps
      ? 'between apps: every app so far has ended and the client runs on; the job is judged on its last app once the client has exited'
      : apps.length > 1
        ? `${plural(apps.length, 'app')} under one ticket; the job is judged on the last`
        : '',
  );
  const tbody = tbodyOf('detail-apps');
  clear(tbody);
  for (const a of apps) {
    const tr = document.createElement('tr');
    tr.dataset.appId = a.id;
    const url = rmAppUrl(state.cluster, a.id);
    const td = node('td', null, 'c-app');
    if (url) td.appendChild(outsideLink(a.id, url, 'app-link'));
    else td.textContent = a.id;
    tr.appendChild(td);
    tr.appendChild(node('td', a.state || 'not tracked', 'c-state'));
    tr.appendChild(node('td', a.queue || '', 'c-queue'));
    tr.appendChild(node('td', fmtTime(a.startedAt), 'c-started'));
    tr.appendChild(node('td', fmtTime(a.finishedAt), 'c-finished'));
    tbody.appendChild(tr);
  }
}

/** The decisions taken on the job, oldest first. @param {JobDetail} job */
function renderDecisions(job) {
  const decisions = $('detail-decisions');
  clear(decisions);
  for (const d of job.decisions || []) {
    const li = node('li', null, 'decision');
    li.appendChild(node('time', fmtTime(d.at)));
    li.appendChild(node('span', `${d.decision} by ${d.policy}`, 'what'));
    const extra = jsonDetails('detail', d.detail);
    if (extra) li.appendChild(extra);
    decisions.appendChild(li);
  }
  if (!decisions.firstChild) decisions.appendChild(node('li', 'none recorded', 'empty'));
}

/** One RM write: kind, status, attempts, error, and its request and result folded. @param {JobDetail['actions'][number]} a */
function actionItem(a) {
  const li = node('li', null, 'action');
  li.dataset.kind = a.kind;
  li.appendChild(node('time', fmtTime(a.createdAt)));
  li.appendChild(node('span', a.kind, 'what'));
  li.appendChild(node('span', a.status, `badge ${safeClass(a.status, ACTION_STATES)}`));
  if (a.attempts > 1) li.appendChild(node('span', `${a.attempts} attempts`, 'attempts'));
  if (a.updatedAt && a.updatedAt !== a.createdAt)
    li.appendChild(node('span', `updated ${fmtTime(a.updatedAt)}`, 'updated'));
  if (a.error) li.appendChild(node('span', a.error, 'error'));
  for (const [label, value] of /** @type {const} */ ([
    ['request', a.payload],
    ['result', a.result],
  ])) {
    const d = jsonDetails(label, value);
    if (d) li.appendChild(d);
  }
  return li;
}

/** The RM writes that enforced the decision. @param {JobDetail} job */
function renderActions(job) {
  const actions = $('detail-actions');
  clear(actions);
  for (const a of job.actions || []) actions.appendChild(actionItem(a));
  if (!actions.firstChild) {
    const none = job.decision === 'rejected' ? 'none: a rejected job never reaches the RM' : 'none yet';
    actions.appendChild(node('li', none, 'empty'));
  }
}

/**
 * The panel of a job, or closed for none. An unchanged job is left as drawn, so an expanded
 * request or result stays open.
 * @param {JobDetail | null} job
 */
export function renderDetail(job) {
  const panel = $('detail');
  if (!job) {
    panel.hidden = true;
    lastDetailKey = '';
    return;
  }
  const key = JSON.stringify(job);
  if (key === lastDetailKey && !panel.hidden) return;
  lastDetailKey = key;
  panel.hidden = false;
  panel.dataset.jobId = job.id;
  setText('detail-title', `${job.name} — ${job.id}`);
  renderJobTimeline(job);
  renderRejection(job);
  const dl = $('detail-fields');
  clear(dl);
  timeFields(dl, job);
  placementFields(dl, job);
  ticketFields(dl, job);
  renderApps(job);
  renderDecisions(job);
  renderActions(job);
}

/**
 * Open a job's panel: its row marked, the address #job=<id>, the job read at once.
 * @param {string} id
 */
export async function openJob(id) {
  state.selectedId = id;
  window.history.replaceState(null, '', `#job=${encodeURIComponent(id)}`);
  markSelected();
  try {
    const job = await readJob(id);
    if (state.selectedId === id) {
      renderDetail(job);
      $('detail').scrollIntoView({ block: 'nearest' });
    }
  } catch (err) {
    if (err instanceof AuthRequired) showToken('');
    else showError(`Cannot read job ${id}: ${errorText(err)}`);
  }
}

export function closeJob() {
  state.selectedId = null;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  renderDetail(null);
  markSelected();
}
