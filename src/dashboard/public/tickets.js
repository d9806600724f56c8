// @ts-check
/*
 * The tickets panel: every job admitted before its app existed, newest first, whatever the
 * jobs table's filters: its state, expiry, placement and, once bound, its app.
 */
import { rmAppUrl } from './cluster.js';
import { buildHead, clear, emptyRow, link, node, outsideLink, safeClass, setText, tbodyOf } from './dom.js';
import { appsOf, fmtTime, isNum, labelName, plural } from './format.js';

/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Cluster} Cluster */
/**
 * A ticket as its row shows it.
 * @typedef {object} TicketRow
 * @property {string} id @property {string} name @property {string} status
 * @property {string | null} expiresAt @property {string | null} queue
 * @property {number | null} priority @property {string | null} label
 * @property {string | null} appId @property {string | null} appUrl
 * @property {number} moreApps apps the client ran under the ticket beyond the first
 */

export const TICKET_STATES = ['waiting', 'bound', 'expired', 'cancelled'];

/**
 * The tickets table, in the order ticketRow writes its cells: [header, column width].
 * @type {ReadonlyArray<[string, string]>}
 */
const TICKET_COLUMNS = [
  ['Job', 'w-id'],
  ['Name', ''],
  ['Ticket', 'w-status'],
  ['Expires', 'w-instant'],
  ['Queue', 'w-queue'],
  ['Priority', 'w-num'],
  ['Label', 'w-label'],
  ['App', 'w-app'],
];

export function buildTicketsTable() {
  buildHead(
    'tickets',
    TICKET_COLUMNS.map(([text]) => [text]),
    TICKET_COLUMNS.map(([, w]) => w),
  );
}

/**
 * @param {Job} j @param {NonNullable<Job['ticket']>} t @param {Cluster} cluster
 * @returns {TicketRow}
 */
function ticketOf(j, t, cluster) {
  const status = TICKET_STATES.includes(t.status) ? t.status : 'unknown';
  const appId = typeof t.appId === 'string' && t.appId ? t.appId : j.appId || null;
  return {
    id: j.id,
    name: j.name,
    status,
    expiresAt: typeof t.expiresAt === 'string' ? t.expiresAt : null,
    queue: typeof t.queue === 'string' ? t.queue : j.queue,
    priority: isNum(t.priority) ? t.priority : j.priority,
    label: typeof t.labelExpression === 'string' ? t.labelExpression : null,
    appId: status === 'bound' ? appId : null,
    appUrl: status === 'bound' && appId ? rmAppUrl(cluster, appId) : null,
    // A client that ran several apps under the ticket: how many more than the first.
    moreApps: Math.max(0, appsOf(j).length - 1),
  };
}

/** @param {TicketRow} r */
function ticketRow(r) {
  const tr = document.createElement('tr');
  tr.dataset.jobId = r.id;
  tr.dataset.status = r.status;
  tr.className = 'ticket';
  /** @param {string} name @param {string | Node} child */
  const cell = (name, child) => {
    const td = node('td', null, `c-${name}`);
    if (typeof child === 'string') {
      td.textContent = child;
      td.title = child;
    } else td.appendChild(child);
    tr.appendChild(td);
    return td;
  };
  // The job's own panel, as a row of the jobs table opens it.
  cell('id', link(r.id, `#job=${encodeURIComponent(r.id)}`, 'job-link')).title = r.id;
  cell('name', r.name);
  cell('status', node('span', r.status, `badge ${safeClass(r.status, TICKET_STATES)}`));
  cell('expires', fmtTime(r.expiresAt));
  cell('queue', r.queue || '');
  cell('priority', r.priority === null ? '' : String(r.priority));
  cell('label', labelName(r.label));
  if (r.appId && r.appUrl) {
    const a = outsideLink(r.appId, r.appUrl, 'app-link');
    a.title = `the app's page on the ResourceManager: ${r.appUrl}`;
    const td = cell('app', a);
    if (r.moreApps > 0) td.appendChild(node('span', ` +${plural(r.moreApps, 'app')}`, 'more-apps'));
  } else cell('app', r.appId || (r.status === 'waiting' ? 'none yet' : '–'));
  return tr;
}

let lastTicketsKey = '';

/**
 * Every job with a ticket, newest first; redrawn only when one changed.
 * @param {Job[]} jobs @param {Cluster} cluster
 */
export function renderTickets(jobs, cluster) {
  /** @type {TicketRow[]} */
  const rows = [];
  for (const j of jobs)
    if (j && j.ticket && typeof j.ticket === 'object') rows.push(ticketOf(j, j.ticket, cluster));
  const key = JSON.stringify(rows);
  if (key === lastTicketsKey) return;
  lastTicketsKey = key;
  const tbody = tbodyOf('tickets');
  clear(tbody);
  /** @type {Record<string, number>} */
  const counts = {};
  for (const r of rows) {
    counts[r.status] = (counts[r.status] || 0) + 1;
    tbody.appendChild(ticketRow(r));
  }
  if (!rows.length) emptyRow(tbody, 'no ticket among the newest jobs');
  const parts = TICKET_STATES.filter((st) => counts[st]).map((st) => `${counts[st]} ${st}`);
  setText('tickets-count', rows.length ? `${plural(rows.length, 'ticket')}: ${parts.join(', ')}` : '');
}
