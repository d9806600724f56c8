// @ts-check
/*
 * The read API's client. The page reads only the public read API, as any outside client would;
 * the answers' types are the API's own schemas' (src/api/openapi.ts), so the type checker holds
 * every view to what the API promises.
 *   GET /api/v1/jobs?decision=&state=&queue=&user=&limit=   the table; and unfiltered, the tickets
 *   GET /api/v1/jobs/:id                                    the job panel
 *   GET /api/v1/cluster                                     the partitions table and the clock
 *   GET /api/v1/stats                                       the tiles and the charts over time
 *   GET /api/v1/estimates                                   the task costs and the profiles
 *   GET /api/v1/replays                                     the replays view, while it is open
 */
import { state } from './state.js';

/** @typedef {import('../../api/openapi').JobAnswer} Job */
/** @typedef {import('../../api/openapi').JobDetailAnswer} JobDetail */
/** @typedef {import('../../api/openapi').JobListAnswer} JobList */
/** @typedef {import('../../api/openapi').ClusterAnswer} Cluster */
/** @typedef {import('../../api/openapi').StatsAnswer} Stats */
/** @typedef {Stats['samples'][number]} StatsSample */
/** @typedef {import('../../api/openapi').EstimatesAnswer} Estimates */
/** @typedef {import('../../api/openapi').ReplayAnswer} Replay */
/** @typedef {import('../../api/openapi').ReplayListAnswer} ReplayList */
/** @typedef {import('../../api/openapi').ErrorAnswer} ErrorAnswer */

const TOKEN_KEY = 'yss-dashboard-token';

/** The read API answered 401: the page asks for a bearer token. */
export class AuthRequired extends Error {}

/** The read API answered an error: its status, and its code and leader from the error body. */
export class ApiError extends Error {
  /**
   * @param {string} message @param {number} status
   * @param {ErrorAnswer['error']['code'] | undefined} code
   * @param {string | null} leader NOT_LEADER's leader, when one is known
   */
  constructor(message, status, code, leader) {
    super(message);
    this.status = status;
    this.code = code;
    this.leader = leader;
  }
}

/** @param {unknown} err */
export function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A field of a JSON value, or undefined: for the fields a loose schema leaves `unknown`.
 * @param {unknown} value @param {string} key
 * @returns {unknown}
 */
export function fieldOf(value, key) {
  if (value === null || typeof value !== 'object' || !(key in value)) return undefined;
  return /** @type {Record<string, unknown>} */ (value)[key];
}

/**
 * A JSON value as a list: itself when it is an array, else empty.
 * @param {unknown} value
 * @returns {unknown[]}
 */
export function listOf(value) {
  return Array.isArray(value) ? value : [];
}

function readToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** The bearer token: kept for this browser tab only. */
let token = readToken();

export function hasToken() {
  return Boolean(token);
}

/** @param {string | null} value */
export function storeToken(value) {
  token = value;
  try {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage may be disabled; the token then lives only in this page.
  }
}

/**
 * The error an answer that is not OK carries: its message, code and leader.
 * @param {string} path @param {number} status @param {unknown} body
 */
function apiError(path, status, body) {
  const error = fieldOf(body, 'error');
  const message = fieldOf(error, 'message');
  const code = fieldOf(error, 'code');
  const leader = fieldOf(error, 'leader');
  return new ApiError(
    `${path}: ${typeof message === 'string' && message ? message : `HTTP ${status}`}`,
    status,
    typeof code === 'string' ? /** @type {ErrorAnswer['error']['code']} */ (code) : undefined,
    typeof leader === 'string' ? leader : null,
  );
}

/**
 * GET a path of the read API, with the token when there is one.
 * @param {string} path
 * @returns {Promise<unknown>}
 */
async function getJson(path) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(state.config.apiBase + path, { headers, cache: 'no-store' });
  if (res.status === 401) throw new AuthRequired('the read API needs a bearer token');
  /** @type {unknown} */
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) throw apiError(path, res.status, body);
  return body;
}

// Each read's answer is the type its schema gives (the API's own contract): the one place the
// page takes the server's JSON at its word.

/** @param {string} path `/jobs?...` */
export const readJobs = async (path) => /** @type {JobList} */ (await getJson(path));
/** @param {string} id */
export const readJob = async (id) =>
  /** @type {JobDetail} */ (await getJson(`/jobs/${encodeURIComponent(id)}`));
export const readCluster = async () => /** @type {Cluster} */ (await getJson('/cluster'));
export const readStats = async () => /** @type {Stats} */ (await getJson('/stats'));
export const readEstimates = async () => /** @type {Estimates} */ (await getJson('/estimates'));
export const readReplays = async () => /** @type {ReplayList} */ (await getJson('/replays'));

/** @typedef {{ notLeader: { leader: string | null } | null }} LiveReads */

/**
 * A read of the loop's live state (the cluster, the task costs). A follower of a pair of
 * sidecars (docs/deploy.md) has none and answers NOT_LEADER naming the leader: the read gives
 * null and `live.notLeader` the answer, and the page goes on with the jobs the follower reads
 * from the shared ledger.
 * @template T
 * @param {Promise<T>} reading @param {LiveReads} live
 * @returns {Promise<T | null>}
 */
export function liveRead(reading, live) {
  return reading.catch((/** @type {unknown} */ err) => {
    if (!(err instanceof ApiError) || err.code !== 'NOT_LEADER') throw err;
    live.notLeader = { leader: err.leader };
    return null;
  });
}

/** The page's settings (GET /dashboard/config.json); null when they cannot be read. */
export async function readSettings() {
  try {
    const res = await fetch('/dashboard/config.json', { cache: 'no-store' });
    /** @type {unknown} */
    const body = res.ok ? await res.json() : null;
    return body;
  } catch {
    // Keep the defaults: the API may still answer.
    return null;
  }
}
