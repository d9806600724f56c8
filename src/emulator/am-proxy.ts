import express, { type NextFunction, type Request, type Response } from 'express';
import { remoteRejection } from '../errors/emulated-rm-rejection';
import type { Logger } from '../log';
import type { Controls } from './controls';
import { answer, handle, query, useEmulatedBasics } from './http';
import { jobTasks, taskById, taskContent, type TaskEntry } from './jhs-app';
import type { Content } from './render';
import type { AppRecord, AppView, EmulatedRm } from './rm-state';
import type { RunningAttempt } from '../sim/engine';

/**
 * The RM's web proxy in front of each app's MapReduce AM (INDEX.md section 12, A1-A2):
 * `/proxy/{appid}/ws/v1/mapreduce/jobs`, `…/jobs/{jobid}`, `…/jobs/{jobid}/tasks` (with
 * `type=m|r`) and `…/jobs/{jobid}/tasks/{taskid}`, in JSON or XML by Accept, from the
 * simulated job: finished tasks SUCCEEDED with their times, running ones RUNNING since their
 * attempt started (finishTime 0), the rest SCHEDULED (startTime -1). Task attempts and the
 * attempt state endpoint (A3-A5) are not served.
 *
 * What the proxy does when there is no AM to reach, as Hadoop's WebAppProxyServlet does:
 * - unknown app: 404, "Application … could not be found in RM or history server";
 * - ended app (FINISHED, FAILED, KILLED): 302 to its final tracking URL plus the rest of the
 *   path and the query. A MapReduce app's final tracking URL is its job page on the history
 *   server (`{jhs}/jobhistory/job/{jobid}`), so the REST path lands on a page that is not a
 *   REST resource there: a client reads the JobHistory REST API instead. An app that never
 *   ran, or is not MapReduce, goes to the RM's app page (`/cluster/app/{appid}`);
 * - app not running yet (its AM has not registered, no tracking URL): 302 to the RM's app page;
 * - running app whose AM is not a MapReduce AM (applicationType other than MAPREDUCE): the AM's
 *   web server has no such path, 404 plain text.
 */

const AM = '/proxy/:appId/ws/v1/mapreduce';
const FINAL = new Set(['FINISHED', 'FAILED', 'KILLED']);

/**
 * Every task of a running job, maps then reduces: finished ones as the JobHistory server shows
 * them, the attempts running now with their start, the rest waiting.
 */
export function runningJobTasks(rm: EmulatedRm, rec: AppRecord): TaskEntry[] {
  const running = new Map<string, RunningAttempt>();
  for (const t of rm.engine.runningTasksOf(rec.id)) running.set(`${t.kind}/${t.index}`, t);
  const now = rm.engine.now;
  return jobTasks(rm, rec).map((t, i) => {
    if (t.state === 'SUCCEEDED') return t;
    const index = t.type === 'MAP' ? i : i - rec.maps;
    const attempt = running.get(`${t.type === 'MAP' ? 'map' : 'reduce'}/${index}`);
    if (attempt !== undefined) {
      // A task that lost an attempt keeps the start of its first one.
      const startMs = rm.epoch(attempt.start);
      return {
        ...t,
        state: 'RUNNING',
        startTime: t.startTime >= 0 ? Math.min(t.startTime, startMs) : startMs,
        finishTime: 0,
        progress: attemptProgress(attempt, now),
      };
    }
    return { ...t, state: 'SCHEDULED', finishTime: 0 };
  });
}

/**
 * How far a running attempt has got, 0 to 100 as Hadoop's AM reports a task's progress: the
 * share of its run time (start to when the simulation ends it) elapsed at `now`, to two
 * decimals like the job's map and reduce progress.
 */
export function attemptProgress(a: Pick<RunningAttempt, 'start' | 'due'>, now: number): number {
  const span = a.due - a.start;
  if (!(span > 0)) return now >= a.due ? 100 : 0;
  const share = Math.min(1, Math.max(0, (now - a.start) / span));
  return Math.round(10000 * share) / 100;
}

function jobContent(rec: AppRecord, v: AppView, tasks: readonly TaskEntry[], nowMs: number): Content {
  const count = (type: TaskEntry['type'], state: TaskEntry['state']) =>
    tasks.filter((t) => t.type === type && t.state === state).length;
  const started = tasks.filter((t) => t.startTime >= 0).map((t) => t.startTime);
  const startTime = started.length > 0 ? Math.min(...started) : v.startedTime;
  const mapsCompleted = count('MAP', 'SUCCEEDED');
  const reducesCompleted = count('REDUCE', 'SUCCEEDED');
  const pct = (done: number, total: number) => (total === 0 ? 100 : Math.round((10000 * done) / total) / 100);
  return {
    startTime,
    finishTime: 0,
    elapsedTime: Math.max(0, nowMs - startTime),
    id: `job_${rec.id.slice('application_'.length)}`,
    name: rec.name,
    user: rec.user,
    state: 'RUNNING',
    mapsTotal: rec.maps,
    mapsCompleted,
    reducesTotal: rec.reduces,
    reducesCompleted,
    mapProgress: pct(mapsCompleted, rec.maps),
    reduceProgress: pct(reducesCompleted, rec.reduces),
    mapsPending: count('MAP', 'SCHEDULED'),
    mapsRunning: count('MAP', 'RUNNING'),
    reducesPending: count('REDUCE', 'SCHEDULED'),
    reducesRunning: count('REDUCE', 'RUNNING'),
    uberized: false,
    diagnostics: '',
  };
}

/** The Location of a redirect: a base, the rest of the proxied path, and the query as sent. */
function redirect(req: Request, res: Response, target: string): void {
  const q = req.originalUrl.indexOf('?');
  const location = q < 0 ? target : `${target}${req.originalUrl.slice(q)}`;
  res
    .status(302)
    .set('Location', location)
    .type('text/html')
    .send(
      `<html><head><title>Moved</title></head><body><h1>Moved</h1><div>Content has moved <a href="${location}">here</a></div></body></html>`,
    );
}

/** The app a proxied path names, and its state. */
interface Reached {
  rec: AppRecord;
  view: AppView;
}

/**
 * The app behind the path, if its MapReduce AM can answer; otherwise the proxy answers as
 * Hadoop's does (404 for an unknown app, a redirect for one not running, 404 for another AM).
 */
function reachAm(rm: EmulatedRm, jhsBase: () => string, req: Request, res: Response): Reached | undefined {
  const appId = String(req.params.appId);
  const view = rm.allViews().find((v) => v.rec.id === appId);
  const rmBase = `http://${req.get('host') ?? 'localhost'}`;
  const rest = req.path.slice(`/proxy/${appId}`.length);
  if (!view) {
    res
      .status(404)
      .type('text/html')
      .send(
        `<html><body><h1>Not Found</h1>Application ${appId} could not be found in RM or history server</body></html>`,
      );
    return undefined;
  }
  const mapreduce = view.rec.applicationType.toUpperCase() === 'MAPREDUCE';
  if (FINAL.has(view.state)) {
    const target =
      mapreduce && view.rec.inEngine
        ? `${jhsBase()}/jobhistory/job/job_${appId.slice('application_'.length)}${rest}`
        : `${rmBase}/cluster/app/${appId}`;
    redirect(req, res, target);
    return undefined;
  }
  if (view.state !== 'RUNNING') {
    redirect(req, res, `${rmBase}/cluster/app/${appId}`);
    return undefined;
  }
  if (!mapreduce) {
    res.status(404).type('text/plain').send('Not Found');
    return undefined;
  }
  return { rec: view.rec, view };
}

/** The path's job id must be well formed and be the app's own job. */
function mustJob(req: Request, rec: AppRecord): void {
  const id = String(req.params.jobId);
  if (!/^job_\d+_\d+$/.test(id))
    throw remoteRejection(
      404,
      'NotFoundException',
      `java.lang.Exception: JobId string : ${id} is not properly formed`,
    );
  if (id !== `job_${rec.id.slice('application_'.length)}`)
    throw remoteRejection(404, 'NotFoundException', `java.lang.Exception: job, ${id}, is not found`);
}

/** One AM resource's answer, for the running MapReduce app its path reached. */
type AmRoute = (rm: EmulatedRm, req: Request, res: Response, found: Reached) => void;

const jobsRoute: AmRoute = (rm, req, res, { rec, view }) => {
  const tasks = runningJobTasks(rm, rec);
  answer(req, res, 'jobs', { job: [jobContent(rec, view, tasks, rm.time.nowEpochMs())] });
};

const jobRoute: AmRoute = (rm, req, res, { rec, view }) => {
  mustJob(req, rec);
  answer(req, res, 'job', jobContent(rec, view, runningJobTasks(rm, rec), rm.time.nowEpochMs()));
};

const tasksRoute: AmRoute = (rm, req, res, { rec }) => {
  mustJob(req, rec);
  const type = query(req, 'type');
  if (type !== undefined && type !== 'm' && type !== 'r')
    throw remoteRejection(400, 'BadRequestException', 'java.lang.Exception: tasktype must be either m or r');
  const now = rm.time.nowEpochMs();
  const task = runningJobTasks(rm, rec)
    .filter((t) => type === undefined || (type === 'm') === (t.type === 'MAP'))
    .map((t) => taskContent(t, now));
  answer(req, res, 'tasks', { task });
};

const taskRoute: AmRoute = (rm, req, res, { rec }) => {
  mustJob(req, rec);
  const t = taskById(runningJobTasks(rm, rec), req.params.taskId);
  answer(req, res, 'task', taskContent(t, rm.time.nowEpochMs()));
};

/** The AM's REST resources the proxy serves (A1-A2), by path. */
const AM_ROUTES: ReadonlyArray<readonly [string, AmRoute]> = [
  [`${AM}/jobs`, jobsRoute],
  [`${AM}/jobs/:jobId`, jobRoute],
  [`${AM}/jobs/:jobId/tasks`, tasksRoute],
  [`${AM}/jobs/:jobId/tasks/:taskId`, taskRoute],
];

/**
 * The proxy's router, mounted on the RM's app before its own routes: it handles `/proxy/…`
 * only and lets every other path through untouched. `jhsBase` gives the history server's
 * address (known once it listens).
 */
export function buildAmProxy(
  rm: EmulatedRm,
  controls: Controls,
  log: Logger,
  jhsBase: () => string,
): express.Router {
  const r = express.Router();
  r.use((req: Request, _res: Response, next: NextFunction) =>
    req.path.startsWith('/proxy/') ? next() : next('router'),
  );
  useEmulatedBasics(r, rm, controls, true);
  const h = (fn: (req: Request, res: Response) => void) => handle(log, fn, 'am');
  for (const [path, route] of AM_ROUTES) {
    r.get(
      path,
      h((req, res) => {
        const found = reachAm(rm, jhsBase, req, res);
        if (found) route(rm, req, res, found);
      }),
    );
  }
  // Any other path of a running MapReduce AM: Jersey's own 404, not a RemoteException.
  r.all(
    '/proxy/:appId/*rest',
    h((req, res) => {
      if (!reachAm(rm, jhsBase, req, res)) return;
      res.status(404).type('text/plain').send('Not Found');
    }),
  );
  return r;
}
