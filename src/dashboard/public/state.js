// @ts-check
/*
 * What the page's modules share: its settings (GET /dashboard/config.json) and what the last
 * reads left, for the views that need another view's data (the tickets and the job panel link
 * apps through the cluster's RM addresses; the partitions table shows the stats' energy).
 */

/** @typedef {import('../index').DashboardSettings} DashboardSettings */
/** @typedef {import('./api.js').Job} Job */
/** @typedef {import('./api.js').Cluster} Cluster */

/**
 * @typedef {object} PageState
 * @property {DashboardSettings} config the page's settings; these defaults until they are read
 * @property {Job[]} jobs the jobs the table's filters read, newest first
 * @property {number} total how many jobs the API holds under those filters
 * @property {string | null} selectedId the job whose panel is open
 * @property {{ queue: Set<string>, label: Set<string>, user: Set<string> }} seen every value the
 *   filters have seen, so a choice stays offered when no loaded job has it now
 * @property {number | undefined} timer the next poll
 * @property {number} generation the newest refresh: an older one's answer is dropped
 * @property {number} refreshes refreshes done (document.body's data-refreshes, for the tests)
 * @property {boolean} locked waiting for a bearer token: nothing is read
 * @property {Cluster} cluster the cluster as last read
 * @property {Record<string, number>} energyByLabel the newest sample's kWh per partition
 */

/** @type {PageState} */
export const state = {
  config: { pollIntervalMs: 5000, apiBase: '/api/v1', jobStates: [] },
  jobs: [],
  total: 0,
  selectedId: null,
  seen: { queue: new Set(), label: new Set(), user: new Set() },
  timer: undefined,
  generation: 0,
  refreshes: 0,
  locked: false,
  cluster: null,
  energyByLabel: {},
};

/**
 * Take the settings the server gave, each only when it has the right type.
 * @param {unknown} body
 */
export function applySettings(body) {
  if (body === null || typeof body !== 'object') return;
  const { pollIntervalMs, apiBase, jobStates } = /** @type {Partial<Record<string, unknown>>} */ (body);
  if (typeof pollIntervalMs === 'number' && pollIntervalMs > 0) state.config.pollIntervalMs = pollIntervalMs;
  if (typeof apiBase === 'string') state.config.apiBase = apiBase;
  if (Array.isArray(jobStates)) {
    /** @type {unknown[]} */
    const states = jobStates;
    state.config.jobStates = states.filter((s) => typeof s === 'string');
  }
}
