import { isJobType } from '../core/kinds';
import { RmRemoteError } from '../errors/rm-remote';
import { RmUnavailableError } from '../errors/rm-unavailable';
import { ValidationError } from '../errors/validation';
import type { ResourceManagerApi } from '../yarn/api';
import type { HttpResourceManagerClient } from '../yarn/client';
import { queueLeaf } from '../yarn/ids';
import type { JobHistoryClient } from '../yarn/jobhistory';
import type { AppReport, JobSummary, QueueInfo, TaskReport } from '../yarn/model';
import { decodeTags } from '../yarn/tags';
import {
  LeftOutTally,
  type ClockSkew,
  type ClusterShape,
  type HistoryJob,
  type LeftOut,
  type LeftOutReason,
} from './history';
import type { DetailOrLeft, HistoryCache, JobDetail } from './history-cache';

/**
 * Reading a window of history (docs/replay.md, "What is read"): the JobHistory server's jobs
 * listed window by window (its `/jobs` has no offset: a window whose answer fills the page is
 * split in two and read again, so no job is missed however many a window holds), each job's
 * tasks and counters read a few at a time, and kept compact (history.ts); the RM's finished
 * apps of the same window for their tags and label, and as jobs of their own when the
 * JobHistory server does not know them. Memory holds the compact jobs and one window's
 * listing, never a whole answer of the window.
 */

export interface HistoryReadRequest {
  readonly jhs: JobHistoryClient;
  /** The RM: apps, their tags, and the jobs the JobHistory server does not know; none: JobHistory alone. */
  readonly rm?: Pick<ResourceManagerApi, 'apps'>;
  /** Jobs that started (the JobHistory server's startTime) in [fromMs, toMs]. */
  readonly fromMs: number;
  readonly toMs: number;
  /** The width of one listing window, ms (default an hour). */
  readonly windowMs?: number;
  /** Jobs asked per listing (`limit`); a window that fills it is split (default 1000). */
  readonly pageJobs?: number;
  /** Jobs whose tasks and counters are read at once (default 4). */
  readonly concurrency?: number;
  /** Read each task's counters too (a request per task): each map's own bytes. */
  readonly taskCounters?: boolean;
  /** At most this many jobs are replayed; the newest are left out past it (default 1,000,000). */
  readonly maxJobs?: number;
  /** Clock skew beyond this (ms, either way) is corrected (default 3000). */
  readonly skewToleranceMs?: number;
  /** Where each job's details are kept once read, and found again (a second or resumed run). */
  readonly cache?: HistoryCache;
  readonly onProgress?: (done: number, listed: number) => void;
}

export interface HistoryRead {
  /** In submission order (then id). */
  readonly jobs: HistoryJob[];
  readonly leftOut: LeftOut[];
  readonly skew: ClockSkew & { readonly corrected: boolean };
  /** Jobs whose tasks started before their submission even after the skew (their set-up taken as 0). */
  readonly tasksBeforeSubmit: number;
  /** Requests made to the JobHistory server and the RM. */
  readonly requests: number;
  /** Jobs whose details came from the cache (no request made for them). */
  readonly fromCache: number;
}

const DEFAULTS = {
  windowMs: 3_600_000,
  pageJobs: 1000,
  concurrency: 4,
  maxJobs: 1_000_000,
  skewToleranceMs: 3000,
};

/** The window's checks: a typed error naming what is wrong. */
export function checkWindow(fromMs: number, toMs: number): void {
  const issues = [];
  if (!Number.isFinite(fromMs) || fromMs < 0)
    issues.push({ path: 'from', message: 'must be a time (epoch ms >= 0)' });
  if (!Number.isFinite(toMs) || toMs < 0)
    issues.push({ path: 'to', message: 'must be a time (epoch ms >= 0)' });
  if (issues.length === 0 && toMs <= fromMs)
    issues.push({
      path: 'to',
      message: `must be after from (${new Date(fromMs).toISOString()}), got ${new Date(toMs).toISOString()}`,
    });
  if (issues.length > 0) throw new ValidationError(issues);
}

/** `application_X_N` of `job_X_N`. */
export function appIdOfJob(jobId: string): string {
  return jobId.replace(/^job_/, 'application_');
}

/** An unreachable server's error, saying which server it is. */
const naming =
  (service: string) =>
  (err: unknown): never => {
    if (err instanceof RmUnavailableError)
      throw new RmUnavailableError(
        `${service} is unreachable: ${err.message}`,
        { addresses: err.addresses, outcomeUnknown: err.outcomeUnknown, noActiveRm: err.noActiveRm },
        { cause: err },
      );
    throw err;
  };

const is404 = (err: unknown): boolean => err instanceof RmRemoteError && err.status === 404;

/**
 * Lists every item of [from, to] by windows of `windowMs`: a window whose answer has `page`
 * items (the server may have left some out) is split in two and each half read again; a window
 * of one millisecond that still fills the page is taken as it is (nothing narrower can be asked).
 */
export async function listWindows<T>(
  fromMs: number,
  toMs: number,
  windowMs: number,
  page: number,
  read: (beginMs: number, endMs: number, limit: number) => Promise<T[]>,
  each: (items: T[]) => Promise<void>,
): Promise<number> {
  let requests = 0;
  const visit = async (b: number, e: number): Promise<void> => {
    requests++;
    const items = await read(b, e, page);
    if (items.length >= page && e > b) {
      const mid = Math.floor((b + e) / 2);
      await visit(b, mid);
      await visit(mid + 1, e);
      return;
    }
    await each(items);
  };
  for (let b = fromMs; b <= toMs; b += windowMs) await visit(b, Math.min(toMs, b + windowMs - 1));
  return requests;
}

/**
 * Runs `work` over `items` with at most `n` at once, in order of start. After a failure no item
 * is started, and the failure is thrown once the items in flight are done: nothing of the pool
 * runs on after it (an interrupted read keeps, and is done with, every job it finished).
 */
async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      try {
        await work(items[next++] as T);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failure) throw failure.err;
}

/** A task list's successful tasks of one type as start/finish pairs, in task order. */
function times(tasks: readonly TaskReport[], type: 'MAP' | 'REDUCE'): number[] {
  const ran = (t: TaskReport) =>
    t.type === type && t.state === 'SUCCEEDED' && t.startTime > 0 && t.finishTime >= t.startTime;
  let n = 0;
  for (const t of tasks) if (ran(t)) n++;
  // Of its size (an array grown by push keeps room to spare): it is kept for the whole replay.
  const out = new Array<number>(2 * n);
  let i = 0;
  for (const t of tasks)
    if (ran(t)) {
      out[i++] = t.startTime;
      out[i++] = t.finishTime;
    }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** What an app's tags and labels say of its job. */
function fromApp(
  app: AppReport | undefined,
): Pick<HistoryJob, 'taggedDeadlineMs' | 'workloadClass' | 'jobType'> {
  if (!app) return { jobType: 'cpu' };
  const tags = decodeTags(app.applicationTags);
  const label = app.appNodeLabelExpression?.trim();
  const type = tags.jobType !== undefined && isJobType(tags.jobType) ? tags.jobType : label ? 'gpu' : 'cpu';
  return {
    jobType: type === 'adaptive' ? 'adaptive' : type,
    ...(tags.deadlineMs !== undefined ? { taggedDeadlineMs: tags.deadlineMs } : {}),
    ...(tags.workloadClass !== undefined ? { workloadClass: tags.workloadClass } : {}),
  };
}

/** Reads the window's history (see the module's comment). */
export async function readHistory(req: HistoryReadRequest): Promise<HistoryRead> {
  checkWindow(req.fromMs, req.toMs);
  const o = { ...DEFAULTS, ...definedOf(req) };
  const left = new LeftOutTally();
  // The RM's finished apps of the window first (the RM keeps a bounded number of them).
  const rm = req.rm ? await readRmApps(req.rm, req.fromMs, req.toMs, o) : { apps: new Map(), requests: 0 };
  const jhs = await readJhsJobs(req, o, rm.apps, left);
  const skew = skewOf(jhs.skews, o.skewToleranceMs);
  const shift = skew.corrected ? skew.medianMs : 0;
  const onClock = ontoHistoryClock(jhs.jobs, shift);
  const out = [...onClock.jobs, ...rmOnlyJobs(rm.apps, jhs.seenApps, shift, left)];
  out.sort((a, b) => a.submitMs - b.submitMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (out.length > o.maxJobs) for (const j of out.splice(o.maxJobs)) left.add('over-max-jobs', j.id);
  return {
    jobs: out,
    leftOut: left.list(),
    skew,
    tasksBeforeSubmit: onClock.tasksBeforeSubmit,
    requests: rm.requests + jhs.requests,
    fromCache: jhs.fromCache,
  };
}

type ReadOptions = typeof DEFAULTS;

/** The RM's finished apps of the window, by id. */
async function readRmApps(
  rm: Pick<ResourceManagerApi, 'apps'>,
  fromMs: number,
  toMs: number,
  o: ReadOptions,
): Promise<{ apps: Map<string, AppReport>; requests: number }> {
  const apps = new Map<string, AppReport>();
  const requests = await listWindows(
    fromMs,
    toMs,
    o.windowMs,
    o.pageJobs,
    (b, e, limit) =>
      rm.apps({
        states: ['FINISHED', 'FAILED', 'KILLED'],
        startedTimeBegin: b,
        startedTimeEnd: e,
        limit,
        deSelects: ['resourceRequests'],
      }),
    async (items) => {
      for (const a of items) apps.set(a.id, a);
    },
  ).catch(naming('the RM'));
  return { apps, requests };
}

/** The JobHistory server's jobs of the window, before the clock skew is known. */
interface JhsJobs {
  readonly jobs: HistoryJob[];
  /** The apps of the jobs listed (whatever became of them): an RM app among them is no job of its own. */
  readonly seenApps: Set<string>;
  /** Per job the RM also knows: the RM's finish - the JobHistory server's finish, ms. */
  readonly skews: number[];
  readonly requests: number;
  /** Jobs whose details came from the cache. */
  readonly fromCache: number;
}

/** Lists the JobHistory server's jobs window by window and reads each one's details. */
async function readJhsJobs(
  req: HistoryReadRequest,
  o: ReadOptions,
  apps: ReadonlyMap<string, AppReport>,
  left: LeftOutTally,
): Promise<JhsJobs> {
  const got: JhsJobs = { jobs: [], seenApps: new Set(), skews: [], requests: 0, fromCache: 0 };
  const strings = interner();
  let requests = 0;
  let fromCache = 0;
  let listed = 0;
  let done = 0;
  const one = async ([s, appId]: readonly [JobSummary, string]): Promise<void> => {
    const r = await detailOf(req, s, () => requests++).catch(naming('the JobHistory server'));
    if (r.cached) fromCache++;
    done++;
    if (typeof r.detail === 'string') left.add(r.detail, s.id);
    else {
      const app = apps.get(appId);
      if (app && app.finishedTime > 0 && s.finishTime > 0) got.skews.push(app.finishedTime - s.finishTime);
      got.jobs.push(historyJobOf(s, appId, r.detail, app, strings));
    }
    if (done % 100 === 0) req.onProgress?.(done, listed);
  };
  const listings = await listWindows(
    req.fromMs,
    req.toMs,
    o.windowMs,
    o.pageJobs,
    (b, e, limit) =>
      req.jhs.jobs({ startedTimeBegin: b, startedTimeEnd: e, limit }).catch(naming('the JobHistory server')),
    async (listing) => {
      // A job listed twice (a server that does not hold to the window's ends) is read once.
      const items: Array<readonly [JobSummary, string]> = [];
      for (const s of listing) {
        const appId = appIdOfJob(s.id);
        if (got.seenApps.has(appId)) continue;
        got.seenApps.add(appId);
        items.push([s, appId]);
      }
      listed += items.length;
      req.onProgress?.(done, listed);
      await pool(items, o.concurrency, one);
    },
  );
  req.onProgress?.(done, listed);
  return { ...got, requests: requests + listings, fromCache };
}

/**
 * A listed job's details: FAILED and KILLED jobs need none; else from the cache when it holds
 * them, or read from the JobHistory server (and kept in the cache).
 */
async function detailOf(
  req: HistoryReadRequest,
  s: JobSummary,
  count: () => void,
): Promise<{ detail: DetailOrLeft | LeftOutReason; cached: boolean }> {
  if (s.state === 'FAILED' || s.state === 'ERROR') return { detail: 'failed', cached: false };
  if (s.state === 'KILLED') return { detail: 'killed', cached: false };
  const startMs = s.startTime > 0 ? s.startTime : s.submitTime;
  const taskCounters = req.taskCounters ?? false;
  const kept = req.cache?.get(s.id, startMs, taskCounters);
  if (kept !== undefined) return { detail: kept, cached: true };
  const detail = await readDetail(req.jhs, s.id, taskCounters, count);
  req.cache?.put(s.id, startMs, detail);
  return { detail, cached: false };
}

/** A request whose 404 says the job's history is gone. */
async function orDeleted<T>(count: () => void, ask: () => Promise<T>): Promise<T | 'history-deleted'> {
  count();
  try {
    return await ask();
  } catch (err) {
    if (is404(err)) return 'history-deleted';
    throw err;
  }
}

/** A job's tasks and counters (and each map's counters when asked) from the JobHistory server. */
export async function readDetail(
  jhs: JobHistoryClient,
  jobId: string,
  taskCounters: boolean,
  count: () => void = () => undefined,
): Promise<DetailOrLeft> {
  const tasks = await orDeleted(count, () => jhs.tasks(jobId));
  if (tasks === 'history-deleted') return tasks;
  const maps = times(tasks, 'MAP');
  // A job is its maps (then its reduces): without a map that ran there is no run to replay.
  if (maps.length === 0) return 'no-tasks';
  const counters = await orDeleted(count, () => jhs.jobCounters(jobId));
  if (counters === 'history-deleted') return counters;
  let mapBytes: number[] | null = null;
  if (taskCounters) {
    mapBytes = [];
    for (const t of tasks)
      if (t.type === 'MAP' && t.state === 'SUCCEEDED' && t.startTime > 0) {
        const c = await orDeleted(count, () => jhs.taskCounters(jobId, t.id));
        if (c === 'history-deleted') return c;
        mapBytes.push(c.HDFS_BYTES_READ ?? 0);
      }
  }
  return {
    maps,
    reduces: times(tasks, 'REDUCE'),
    inputBytes: counters.HDFS_BYTES_READ?.map ?? 0,
    shuffleBytes: counters.REDUCE_SHUFFLE_BYTES?.total ?? null,
    mapBytes,
  };
}

/**
 * One copy of each string it is given (up to `max` of them): a week's jobs repeat a few hundred
 * names, users and queues, each read as a string of its own.
 */
function interner(max = 100_000): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const kept = seen.get(s);
    if (kept !== undefined) return kept;
    if (seen.size < max) seen.set(s, s);
    return s;
  };
}

/** A JobHistory job as the replay holds it: its listing, its details, its RM app's tags. */
function historyJobOf(
  s: JobSummary,
  appId: string,
  d: JobDetail,
  app: AppReport | undefined,
  strings: (s: string) => string,
): HistoryJob {
  return {
    id: s.id,
    appId,
    name: strings(s.name),
    user: strings(s.user),
    queue: strings(queueLeaf(s.queue)),
    source: 'jobhistory',
    applicationType: 'MAPREDUCE',
    submitMs: s.submitTime > 0 ? s.submitTime : s.startTime,
    finishMs: s.finishTime,
    maps: d.maps,
    reduces: d.reduces,
    inputBytes: d.inputBytes,
    mapBytes: d.mapBytes,
    shuffleBytes: d.shuffleBytes,
    ...fromApp(app),
    ...(app && app.startedTime > 0 ? { appStartMs: app.startedTime } : {}),
  };
}

/**
 * Clock skew: the RM's finish of an app against the JobHistory server's finish of its job (the
 * AM's clock; the RM hears of it a moment later), median; corrected beyond the tolerance.
 */
function skewOf(skews: readonly number[], toleranceMs: number): HistoryRead['skew'] {
  const medianMs = median([...skews]);
  return {
    medianMs,
    jobs: skews.length,
    maxAbsMs: skews.reduce((m, x) => Math.max(m, Math.abs(x)), 0),
    corrected: skews.length > 0 && Math.abs(medianMs) > toleranceMs,
  };
}

/**
 * The JobHistory server's submitTime is the RM's submission time handed to the AM: moved onto
 * the tasks' clock by the skew. Counts the jobs whose tasks still start before it.
 */
function ontoHistoryClock(
  jobs: readonly HistoryJob[],
  shift: number,
): { jobs: HistoryJob[]; tasksBeforeSubmit: number } {
  let tasksBeforeSubmit = 0;
  const out = jobs.map((j) => {
    const submitMs = j.submitMs - shift;
    if (firstStart(j) < submitMs) tasksBeforeSubmit++;
    // No skew: the job as it is (no copy of every job).
    if (shift === 0) return j;
    return {
      ...j,
      submitMs,
      ...(j.appStartMs !== undefined ? { appStartMs: j.appStartMs - shift } : {}),
      ...(j.taggedDeadlineMs !== undefined ? { taggedDeadlineMs: j.taggedDeadlineMs - shift } : {}),
    };
  });
  return { jobs: out, tasksBeforeSubmit };
}

/**
 * The RM's apps the JobHistory server did not list: jobs of their own from their app-level
 * times, moved onto the JobHistory server's clock (one container from its AM's launch to its
 * finish); failed, killed and never-ran ones left out.
 */
function rmOnlyJobs(
  apps: ReadonlyMap<string, AppReport>,
  seenApps: ReadonlySet<string>,
  shift: number,
  left: LeftOutTally,
): HistoryJob[] {
  const out: HistoryJob[] = [];
  for (const a of apps.values()) {
    if (seenApps.has(a.id)) continue;
    if (a.state === 'FAILED' || a.finalStatus === 'FAILED') left.add('failed', a.id);
    else if (a.state === 'KILLED' || a.finalStatus === 'KILLED') left.add('killed', a.id);
    else if (!(a.startedTime > 0 && a.finishedTime > a.startedTime)) left.add('never-ran', a.id);
    else
      out.push({
        id: a.id,
        appId: a.id,
        name: a.name,
        user: a.user,
        queue: queueLeaf(a.queue),
        source: 'rm',
        applicationType: a.applicationType,
        submitMs: a.startedTime - shift,
        finishMs: a.finishedTime - shift,
        maps: [
          (a.launchTime !== undefined && a.launchTime > a.startedTime ? a.launchTime : a.startedTime) - shift,
          a.finishedTime - shift,
        ],
        reduces: [],
        inputBytes: 0,
        mapBytes: null,
        shuffleBytes: null,
        ...fromApp(a),
        appStartMs: a.startedTime - shift,
        ...(a.launchTime !== undefined && a.launchTime > 0 ? { launchMs: a.launchTime - shift } : {}),
      });
  }
  return out;
}

/** The first task's start of a job (ms). */
export function firstStart(j: Pick<HistoryJob, 'maps' | 'reduces'>): number {
  let m = Infinity;
  for (let i = 0; i < j.maps.length; i += 2) m = Math.min(m, j.maps[i] as number);
  for (let i = 0; i < j.reduces.length; i += 2) m = Math.min(m, j.reduces[i] as number);
  return m;
}

/** The last task's finish of a job (ms). */
export function lastFinish(j: Pick<HistoryJob, 'maps' | 'reduces'>): number {
  let m = -Infinity;
  for (let i = 1; i < j.maps.length; i += 2) m = Math.max(m, j.maps[i] as number);
  for (let i = 1; i < j.reduces.length; i += 2) m = Math.max(m, j.reduces[i] as number);
  return m;
}

function definedOf(req: HistoryReadRequest): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const k of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>)
    if (req[k] !== undefined) out[k] = req[k];
  return out;
}

/** The cluster's shape from the RM: running nodes and their labels, leaf queues, smallest container. */
export async function readClusterShape(
  rm: Pick<HttpResourceManagerClient, 'nodes' | 'scheduler' | 'confValue'>,
): Promise<ClusterShape> {
  const nodes = await rm.nodes(['RUNNING']);
  const scheduler = await rm.scheduler().catch(() => undefined);
  const queues: Array<ClusterShape['queues'][number]> = [];
  const walk = (q: QueueInfo) => {
    if (q.kind === 'leaf' || q.children.length === 0)
      queues.push({
        path: q.path,
        absoluteCapacity: q.absoluteCapacity,
        absoluteMaxCapacity: q.absoluteMaxCapacity,
      });
    for (const c of q.children) walk(c);
  };
  if (scheduler) walk(scheduler.root);
  const min = Number(await rm.confValue('yarn.scheduler.minimum-allocation-mb').catch(() => undefined));
  return {
    nodes: nodes.map((n) => ({
      id: n.id,
      labels: n.nodeLabels,
      memoryMB: n.total.memoryMB,
      vcores: n.total.vcores,
    })),
    queues,
    ...(Number.isFinite(min) && min > 0 ? { minimumAllocationMb: min } : {}),
  };
}
