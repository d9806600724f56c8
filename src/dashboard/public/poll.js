// @ts-check
/*
 * The poll: every few seconds, read the jobs, the cluster, the stats, the open job and the
 * estimates together, and draw them all from the same moment. A newer refresh (a filter
 * changed meanwhile) owns the page: an older one's answers are dropped.
 */
import {
  ApiError,
  AuthRequired,
  errorText,
  liveRead,
  readCluster,
  readEstimates,
  readJob,
  readJobs,
  readStats,
} from './api.js';
import { renderCluster, renderFollower } from './cluster.js';
import { renderCosts } from './costs.js';
import { fmtInterval } from './format.js';
import { renderDetail } from './job-detail.js';
import { filters, jobsQuery, noteSeen, renderJobs } from './jobs.js';
import { renderProfiles } from './profiles.js';
import { state } from './state.js';
import { renderStats } from './stats.js';
import { askForToken, hideError, setStatus, showError } from './status.js';
import { renderTickets } from './tickets.js';

/** @typedef {import('./api.js').LiveReads} LiveReads */

/**
 * The open job, or null when it is gone (404); undefined when none is open.
 * @param {string | null} selected
 */
function readSelected(selected) {
  if (!selected) return Promise.resolve(undefined);
  return readJob(selected).catch((/** @type {unknown} */ err) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });
}

/**
 * Every read of one refresh, at once.
 * @param {string | null} selected @param {LiveReads} live
 */
function readAll(selected, live) {
  const query = jobsQuery(filters());
  const unfiltered = jobsQuery({});
  return Promise.all([
    readJobs(query),
    liveRead(readCluster(), live),
    readStats(),
    readSelected(selected),
    liveRead(readEstimates(), live),
    // The tickets panel lists every ticket, whatever the table's filters.
    query === unfiltered ? Promise.resolve(null) : readJobs(unfiltered),
  ]);
}

/**
 * Draw what one refresh read.
 * @param {Awaited<ReturnType<typeof readAll>>} answers @param {string | null} selected
 * @param {LiveReads} live
 */
function renderAll([jobs, cluster, stats, detail, costs, all], selected, live) {
  state.jobs = Array.isArray(jobs && jobs.jobs) ? jobs.jobs : [];
  state.total = jobs && Number.isFinite(jobs.total) ? jobs.total : state.jobs.length;
  noteSeen(state.jobs, cluster);
  renderJobs();
  renderStats(stats);
  renderCluster(cluster, live.notLeader);
  renderTickets(all ? (Array.isArray(all.jobs) ? all.jobs : []) : state.jobs, cluster);
  state.cluster = cluster;
  renderCosts(costs);
  renderProfiles(costs);
  renderFollower(live.notLeader);
  if (selected && selected === state.selectedId) renderDetail(detail || null);
}

export async function refresh() {
  const generation = ++state.generation;
  const selected = state.selectedId;
  /** @type {LiveReads} */
  const live = { notLeader: null };
  try {
    const answers = await readAll(selected, live);
    if (generation !== state.generation) return;
    renderAll(answers, selected, live);
    hideError();
    state.refreshes++;
    document.body.dataset.refreshes = String(state.refreshes);
    // No time of the browser's own here: the page's one clock is the sidecar's (cluster.js).
    setStatus(true, `live · read every ${fmtInterval(state.config.pollIntervalMs)}`);
  } catch (err) {
    if (generation !== state.generation) return;
    if (err instanceof AuthRequired) return askForToken();
    const every = fmtInterval(state.config.pollIntervalMs);
    showError(`Cannot read the API: ${errorText(err)}. Retrying every ${every}.`);
    setStatus(false, 'API unreachable');
  }
}

function schedule() {
  window.clearTimeout(state.timer);
  if (state.locked) return;
  state.timer = window.setTimeout(async () => {
    await refresh();
    schedule();
  }, state.config.pollIntervalMs);
}

/** Refresh now, and poll on from here. */
export async function refreshNow() {
  await refresh();
  schedule();
}
