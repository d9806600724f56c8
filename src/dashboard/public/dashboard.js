// @ts-check
/*
 * The operator's dashboard: the page's entry module. It builds the tables' headers and the
 * tiles, wires the page's controls, shows the view the address asks for and starts the poll.
 * The modules beside it, by concern:
 *   api.js         the read API's client, typed by the API's own schemas
 *   state.js       the page's settings and what the last reads left
 *   router.js      the view the address asks for (#job=<id>, #replays, #replay=<id>)
 *   poll.js        the poll: every read at once, every view drawn from the same moment
 *   status.js      the status line, the failure banner and the token prompt
 *   jobs.js        the jobs table, its filters and the slack chart
 *   job-detail.js  a job's panel
 *   stats.js       the summary tiles and the charts over time
 *   cluster.js     the partitions, the RM and admission line, the clock
 *   tickets.js     the tickets
 *   costs.js       the task costs per workload class
 *   profiles.js    the profiles of recurring jobs
 *   replays.js     the replays view
 *   charts.js      SVG charts: pure layout and DOM rendering
 *   format.js      times, durations, ratios and sizes as the page writes them
 *   dom.js         the DOM helpers
 * Every value that comes from the API reaches the page through textContent, an attribute or a
 * form control's value, never through markup.
 */
import { readSettings, storeToken } from './api.js';
import { buildClusterTable } from './cluster.js';
import { buildCostsTable, chooseCostClass } from './costs.js';
import { $, $as, closestTo, tbodyOf } from './dom.js';
import { closeJob, openJob } from './job-detail.js';
import { buildJobsTable, renderJobs } from './jobs.js';
import { refreshNow } from './poll.js';
import { buildReplayTables } from './replays.js';
import { applyView, jobInAddress } from './router.js';
import { applySettings, state } from './state.js';
import { buildTiles } from './stats.js';
import { buildTicketsTable } from './tickets.js';

/**
 * A click, or Enter or Space, on a row of a table that carries `attribute`, calls `pick`.
 * @param {string} tableId @param {string} attribute e.g. data-job-id
 * @param {(value: string) => void} pick
 */
function onRowPick(tableId, attribute, pick) {
  const body = tbodyOf(tableId);
  const selector = `tr[${attribute}]`;
  body.addEventListener('click', (ev) => {
    const tr = closestTo(ev, selector);
    if (tr) pick(tr.getAttribute(attribute) || '');
  });
  body.addEventListener('keydown', (ev) => {
    const tr = closestTo(ev, selector);
    if (tr && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      pick(tr.getAttribute(attribute) || '');
    }
  });
}

/** The jobs table, the slack chart's bars and the job panel. */
function wireJobs() {
  onRowPick('jobs', 'data-job-id', (id) => void openJob(id));
  $('chart-slack').addEventListener('click', (ev) => {
    const bar = closestTo(ev, 'rect[data-key]');
    if (bar) void openJob(bar.getAttribute('data-key') || '');
  });
  $('detail-close').addEventListener('click', closeJob);
  // A ticket's job link (#job=<id>) opens that job's panel, as a click on its row does;
  // #replays and #replay=<id> open the replays view.
  window.addEventListener('hashchange', () => {
    applyView();
    const id = jobInAddress();
    if (id !== null && id !== state.selectedId) void openJob(id);
  });
  onRowPick('replays', 'data-replay-id', (id) => {
    window.location.hash = `#replay=${encodeURIComponent(id)}`;
  });
}

/** The filters, the cost class's select and the token form. */
function wireForms() {
  // Server-side filters need a new read; label and search filter what is loaded.
  for (const id of ['f-decision', 'f-state', 'f-queue', 'f-user'])
    $(id).addEventListener('change', () => void refreshNow());
  $('f-label').addEventListener('change', renderJobs);
  $('f-search').addEventListener('input', renderJobs);
  const costClass = $as('cost-class', HTMLSelectElement);
  costClass.addEventListener('change', () => chooseCostClass(costClass.value));
  $('filters').addEventListener('reset', () => window.setTimeout(() => void refreshNow(), 0));
  $('filters').addEventListener('submit', (ev) => ev.preventDefault());
  // Here, not as an inline onsubmit: the content security policy runs no inline handler.
  $('costs-form').addEventListener('submit', (ev) => ev.preventDefault());
  const tokenInput = $as('token-input', HTMLInputElement);
  $('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const value = tokenInput.value.trim();
    if (!value) return;
    storeToken(value);
    tokenInput.value = '';
    $('token-panel').hidden = true;
    state.locked = false;
    applyView();
    void refreshNow();
  });
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && !state.locked) void refreshNow();
  });
}

async function start() {
  buildTiles();
  applySettings(await readSettings());
  buildClusterTable();
  buildReplayTables();
  buildCostsTable();
  buildTicketsTable();
  buildJobsTable();
  wireJobs();
  wireForms();
  applyView();
  const id = jobInAddress();
  if (id !== null) void openJob(id);
  await refreshNow();
}

// A module runs once the page is parsed (it is deferred): the elements are all there.
void start();
