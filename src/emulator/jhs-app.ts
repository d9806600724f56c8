import express, { type Request, type Response } from 'express';
import { remoteRejection } from '../errors/emulated-rm-rejection';
import type { Logger } from '../log';
import type { TaskRecord } from '../sim/engine';
import type { Controls } from './controls';
import { answer, emulatedApp, handle, query, queryNumber, unknownRoutes } from './http';
import type { Content } from './render';
import type { AppRecord, AppView, EmulatedRm } from './rm-state';
import type { SyntheticHistory, SyntheticJob, SyntheticTask } from './synthetic-history';

/**
 * The emulated MapReduce JobHistory server (INDEX.md section 12, J1-J9): jobs of finished
 * (and killed) apps, with their tasks and attempts at their simulated start and finish times.
 *
 * Ids follow the real formats: `job_<ts>_<NNNN>` for `application_<ts>_<NNNN>`,
 * `task_<ts>_<NNNN>_<m|r>_<NNNNNN>`, `attempt_<ts>_<NNNN>_<m|r>_<NNNNNN>_<n>`.
 * The simulator has no reduce phases: a reduce attempt's shuffle and merge are reported as
 * finishing at its start, so all its time is reduce time.
 */

const H = '/ws/v1/history';

export interface TaskEntry {
  id: string;
  type: 'MAP' | 'REDUCE';
  /** RUNNING and SCHEDULED only while the job runs (the AM's view, am-proxy.ts). */
  state: 'SUCCEEDED' | 'KILLED' | 'RUNNING' | 'SCHEDULED';
  /** -1 when it never started (HistoryServerRest.md). */
  startTime: number;
  finishTime: number;
  successfulAttempt: string;
  attempts: Array<{ id: string; record: TaskRecord; containerId: string }>;
  /** A RUNNING task's progress, 0 to 100 (am-proxy.ts); others read 100 when SUCCEEDED, else 0. */
  progress?: number;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Every task of a finished job, maps then reduces, with their attempts in the order they ended. */
export function jobTasks(rm: EmulatedRm, rec: AppRecord): TaskEntry[] {
  const suffix = rec.id.slice('application_'.length);
  const records = rm.taskRecordsOf(rec.id);
  const out: TaskEntry[] = [];
  for (const [kind, count, letter] of [
    ['map', rec.maps, 'm'],
    ['reduce', rec.reduces, 'r'],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const taskId = `task_${suffix}_${letter}_${pad(i, 6)}`;
      const mine = records.filter((t) => t.kind === kind && t.index === i);
      const attempts = mine.map((record, n) => ({
        id: `attempt_${suffix}_${letter}_${pad(i, 6)}_${n}`,
        record,
        // Container 1 is the AM's; tasks' containers follow in the order their attempts ended.
        containerId: `container_${suffix}_01_${pad(records.indexOf(record) + 2, 6)}`,
      }));
      const ok = attempts.find((a) => a.record.completed);
      const first = attempts[0];
      out.push({
        id: taskId,
        type: kind === 'map' ? 'MAP' : 'REDUCE',
        state: ok ? 'SUCCEEDED' : 'KILLED',
        startTime: first ? rm.epoch(Math.min(...mine.map((t) => t.start))) : -1,
        finishTime: ok
          ? rm.epoch(ok.record.end)
          : first
            ? rm.epoch(attempts[attempts.length - 1]!.record.end)
            : 0,
        successfulAttempt: ok?.id ?? '',
        attempts,
      });
    }
  }
  return out;
}

/**
 * A task as the JobHistory server and the AM render it. Elapsed time is finish - start once
 * both are set and, for a RUNNING task, `nowMs` - start (INDEX.md section 12, `Times.elapsed`).
 * Progress is 100 for a SUCCEEDED task, the share of its run time elapsed for a RUNNING one
 * (set by the AM view, am-proxy.ts), else 0.
 */
export function taskContent(t: TaskEntry, nowMs = 0): Content {
  const elapsed =
    t.state === 'RUNNING'
      ? Math.max(0, nowMs - t.startTime)
      : t.startTime >= 0 && t.finishTime > 0
        ? t.finishTime - t.startTime
        : 0;
  return {
    startTime: t.startTime,
    finishTime: t.finishTime,
    elapsedTime: elapsed,
    progress: t.state === 'SUCCEEDED' ? 100 : (t.progress ?? 0),
    id: t.id,
    state: t.state,
    type: t.type,
    successfulAttempt: t.successfulAttempt,
    status: '',
  };
}

function attemptContent(rm: EmulatedRm, t: TaskEntry, a: TaskEntry['attempts'][number]): Content {
  const start = rm.epoch(a.record.start);
  const finish = rm.epoch(a.record.end);
  const out: Record<string, Content> = {
    startTime: start,
    finishTime: finish,
    elapsedTime: finish - start,
    progress: a.record.completed ? 100 : 0,
    id: a.id,
    rack: '/default-rack',
    state: a.record.completed ? 'SUCCEEDED' : 'KILLED',
    status: '',
    nodeHttpAddress: `${a.record.node}:8042`,
    diagnostics: '',
    type: t.type,
    assignedContainerId: a.containerId,
  };
  if (t.type === 'REDUCE') {
    out.shuffleFinishTime = start;
    out.mergeFinishTime = start;
    out.elapsedShuffleTime = 0;
    out.elapsedMergeTime = 0;
    out.elapsedReduceTime = finish - start;
  }
  return out;
}

const JOB_STATES = ['NEW', 'INITED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'KILLED', 'ERROR'];

function jobState(v: AppView): string {
  return v.state === 'FINISHED' ? 'SUCCEEDED' : v.state;
}

/** A job's summary as the JobHistory server lists it (the fields every job answer starts with). */
function jobSummary(rm: EmulatedRm, rec: AppRecord, v: AppView): Record<string, Content> {
  const tasks = jobTasks(rm, rec);
  const started = tasks.filter((t) => t.startTime >= 0).map((t) => t.startTime);
  return {
    submitTime: v.startedTime,
    startTime: started.length > 0 ? Math.min(...started) : v.startedTime,
    finishTime: v.finishedTime,
    id: `job_${rec.id.slice('application_'.length)}`,
    name: rec.name,
    queue: `root.${rec.queue}`,
    user: rec.user,
    state: jobState(v),
    mapsTotal: rec.maps,
    mapsCompleted: tasks.filter((t) => t.type === 'MAP' && t.state === 'SUCCEEDED').length,
    reducesTotal: rec.reduces,
    reducesCompleted: tasks.filter((t) => t.type === 'REDUCE' && t.state === 'SUCCEEDED').length,
  };
}

/** The job `:jobId` names, or the JobHistory server's 404 (malformed id, or no such job). */
function mustJob(rm: EmulatedRm, req: Request): { rec: AppRecord; view: AppView } {
  const id = String(req.params.jobId);
  if (!/^job_\d+_\d+$/.test(id)) {
    throw remoteRejection(
      404,
      'NotFoundException',
      `java.lang.Exception: JobId string : ${id} is not properly formed`,
    );
  }
  const found = rm.historyJob(id);
  if (!found)
    throw remoteRejection(404, 'NotFoundException', `java.lang.Exception: job, ${id}, is not found`);
  return found;
}

/** The task of `tasks` with id `taskId`, or the 404 the JobHistory server and the AM answer. */
export function taskById(tasks: readonly TaskEntry[], taskId: unknown): TaskEntry {
  const t = tasks.find((x) => x.id === taskId);
  if (!t)
    throw remoteRejection(
      404,
      'NotFoundException',
      `java.lang.Exception: task not found with id ${String(taskId)}`,
    );
  return t;
}

/** The task `:taskId` of the job `:jobId` names, or a 404. */
function mustTask(rm: EmulatedRm, req: Request): TaskEntry {
  const { rec } = mustJob(rm, req);
  return taskById(jobTasks(rm, rec), req.params.taskId);
}

const badRequest = (message: string) =>
  remoteRejection(400, 'BadRequestException', `java.lang.Exception: ${message}`);

/** The filters of `GET /mapreduce/jobs`, checked as the JobHistory server checks them. */
function jobFilters(req: Request) {
  const state = query(req, 'state');
  if (state !== undefined && !JOB_STATES.includes(state)) {
    throw remoteRejection(
      400,
      'IllegalArgumentException',
      `java.lang.IllegalArgumentException: No enum constant org.apache.hadoop.mapreduce.v2.api.records.JobState.${state}`,
    );
  }
  const limit = queryNumber(req, 'limit');
  if (limit !== undefined && limit <= 0) throw badRequest('limit value must be greater then 0');
  const sb = queryNumber(req, 'startedTimeBegin', 0);
  const se = queryNumber(req, 'startedTimeEnd', 0);
  const fb = queryNumber(req, 'finishedTimeBegin', 0);
  const fe = queryNumber(req, 'finishedTimeEnd', 0);
  if (sb !== undefined && se !== undefined && sb > se)
    throw badRequest('startedTimeEnd must be greater than startTimeBegin');
  if (fb !== undefined && fe !== undefined && fb > fe)
    throw badRequest('finishedTimeEnd must be greater than finishedTimeBegin');
  const outside = (t: number, begin: number | undefined, end: number | undefined) =>
    (begin !== undefined && t < begin) || (end !== undefined && t > end);
  const keeps = (rec: AppRecord, j: Record<string, Content>): boolean => {
    if (state && j.state !== state) return false;
    if (query(req, 'user') && rec.user !== query(req, 'user')) return false;
    const q = query(req, 'queue');
    if (q && rec.queue !== q.replace(/^root\./, '')) return false;
    return !outside(j.startTime as number, sb, se) && !outside(j.finishTime as number, fb, fe);
  };
  return { limit, keeps };
}

/** A synthetic job's summary (the fields every job answer starts with). */
function syntheticSummary(j: SyntheticJob): Record<string, Content> {
  const done = (type: 'MAP' | 'REDUCE') => j.tasks.filter((t) => t.type === type).length;
  return {
    submitTime: j.submitTime,
    startTime: j.startTime,
    finishTime: j.finishTime,
    id: j.id,
    name: j.name,
    queue: `root.${j.queue}`,
    user: j.user,
    state: j.state,
    mapsTotal: j.maps,
    mapsCompleted: done('MAP'),
    reducesTotal: j.reduces,
    reducesCompleted: done('REDUCE'),
  };
}

/**
 * The synthetic jobs the filters keep, up to `limit` (`out` gets them): those started in the
 * window are found by binary search and made one by one, so a page costs its own jobs only.
 */
function listSynthetic(
  history: SyntheticHistory,
  req: Request,
  limit: number | undefined,
  out: Content[],
): void {
  const sb = queryNumber(req, 'startedTimeBegin', 0);
  const se = queryNumber(req, 'startedTimeEnd', 0);
  const fb = queryNumber(req, 'finishedTimeBegin', 0);
  const fe = queryNumber(req, 'finishedTimeEnd', 0);
  const [lo, hi] = history.startedIn(sb, se);
  const state = query(req, 'state');
  const user = query(req, 'user');
  const q = query(req, 'queue')?.replace(/^root\./, '');
  for (let i = lo; i < hi; i++) {
    if (limit !== undefined && out.length >= limit) return;
    const j = history.job(i);
    if (state && j.state !== state) continue;
    if (user && j.user !== user) continue;
    if (q && j.queue !== q) continue;
    if ((fb !== undefined && j.finishTime < fb) || (fe !== undefined && j.finishTime > fe)) continue;
    out.push(syntheticSummary(j));
  }
}

/** `GET /mapreduce/jobs`: the finished jobs the filters keep, up to `limit`. */
function listJobs(rm: EmulatedRm, req: Request, res: Response, history?: SyntheticHistory): void {
  const { limit, keeps } = jobFilters(req);
  const jobs: Content[] = [];
  if (history) listSynthetic(history, req, limit, jobs);
  for (const { rec, view } of rm.historyJobs()) {
    if (limit !== undefined && jobs.length >= limit) break;
    const j = jobSummary(rm, rec, view);
    if (!keeps(rec, j)) continue;
    jobs.push(j);
    if (limit !== undefined && jobs.length >= limit) break;
  }
  answer(req, res, 'jobs', { job: jobs });
}

/** `GET /mapreduce/jobs/{jobid}`: the summary with averages and attempt counts. */
function oneJob(rm: EmulatedRm, req: Request, res: Response): void {
  const { rec, view } = mustJob(rm, req);
  const tasks = jobTasks(rm, rec);
  const ofType = (type: 'MAP' | 'REDUCE') => tasks.filter((t) => t.type === type);
  const succeeded = (type: 'MAP' | 'REDUCE') => ofType(type).filter((t) => t.state === 'SUCCEEDED');
  const avg = (type: 'MAP' | 'REDUCE') => {
    const done = succeeded(type);
    return done.length === 0
      ? 0
      : Math.round(done.reduce((s, t) => s + t.finishTime - t.startTime, 0) / done.length);
  };
  const killed = (type: 'MAP' | 'REDUCE') =>
    ofType(type).reduce((s, t) => s + t.attempts.filter((a) => !a.record.completed).length, 0);
  answer(req, res, 'job', {
    ...jobSummary(rm, rec, view),
    uberized: false,
    diagnostics: rec.diagnostics.join('\n'),
    avgMapTime: avg('MAP'),
    avgReduceTime: avg('REDUCE'),
    avgShuffleTime: 0,
    avgMergeTime: 0,
    failedReduceAttempts: 0,
    killedReduceAttempts: killed('REDUCE'),
    successfulReduceAttempts: succeeded('REDUCE').length,
    failedMapAttempts: 0,
    killedMapAttempts: killed('MAP'),
    successfulMapAttempts: succeeded('MAP').length,
    acls: [],
  });
}

/** `GET /mapreduce/jobs/{jobid}/tasks`, of one type with `?type=m|r`. */
function listTasks(rm: EmulatedRm, req: Request, res: Response): void {
  const { rec } = mustJob(rm, req);
  const type = query(req, 'type');
  if (type !== undefined && type !== 'm' && type !== 'r') throw badRequest('tasktype must be either m or r');
  const tasks = jobTasks(rm, rec).filter((t) => type === undefined || (type === 'm') === (t.type === 'MAP'));
  answer(req, res, 'tasks', { task: tasks.map(taskContent) });
}

/** `GET .../tasks/{taskid}/attempts/{attemptid}`. */
function oneAttempt(rm: EmulatedRm, req: Request, res: Response): void {
  const t = mustTask(rm, req);
  const a = t.attempts.find((x) => x.id === req.params.attemptId);
  if (!a)
    throw remoteRejection(
      404,
      'NotFoundException',
      `java.lang.Exception: Error getting info on task attempt id ${String(req.params.attemptId)}`,
    );
  answer(req, res, 'taskAttempt', attemptContent(rm, t, a));
}

/** `GET /ws/v1/history` and `/info`. */
function historyInfo(rm: EmulatedRm, req: Request, res: Response): void {
  answer(req, res, 'historyInfo', {
    startedOn: rm.clusterTimestamp,
    hadoopVersion: rm.config.hadoopVersion,
    hadoopBuildVersion: `${rm.config.hadoopVersion} from yarn-sched-sidecar emulator`,
    hadoopVersionBuiltOn: '2024-01-01T00:00Z',
  });
}

/** A counter group as the JobHistory server renders it. */
function counterGroup(name: string, counters: Array<[string, number, number, number]>): Content {
  return {
    counterGroupName: name,
    counter: counters.map(([n, total, map, reduce]) => ({
      name: n,
      totalCounterValue: total,
      mapCounterValue: map,
      reduceCounterValue: reduce,
    })),
  };
}

const FS_GROUP = 'org.apache.hadoop.mapreduce.FileSystemCounter';
const TASK_GROUP = 'org.apache.hadoop.mapreduce.TaskCounter';

/** `GET /jobs/{jobid}/counters`: the bytes its maps read and its reduces shuffled. */
function jobCountersContent(id: string, inputBytes: number, shuffleBytes: number): Content {
  return {
    id,
    counterGroup: [
      counterGroup(FS_GROUP, [['HDFS_BYTES_READ', inputBytes, inputBytes, 0]]),
      counterGroup(TASK_GROUP, [['REDUCE_SHUFFLE_BYTES', shuffleBytes, 0, shuffleBytes]]),
    ],
  };
}

/** A task's counters: a map's bytes read, a reduce's bytes shuffled. */
function taskCountersContent(id: string, type: 'MAP' | 'REDUCE', bytes: number): Content {
  const counter = (group: string, name: string) => ({
    counterGroupName: group,
    counter: [{ name, value: bytes }],
  });
  return {
    id,
    taskCounterGroup: [
      type === 'MAP' ? counter(FS_GROUP, 'HDFS_BYTES_READ') : counter(TASK_GROUP, 'REDUCE_SHUFFLE_BYTES'),
    ],
  };
}

function jobCounters(rm: EmulatedRm, req: Request, res: Response): void {
  const { rec } = mustJob(rm, req);
  const shuffle = Math.round(rec.inputBytes * rm.config.cluster.costs.cpu.shuffleRatio);
  answer(
    req,
    res,
    'jobCounters',
    jobCountersContent(String(req.params.jobId), rec.inputBytes, rec.reduces > 0 ? shuffle : 0),
  );
}

function taskCounters(rm: EmulatedRm, req: Request, res: Response): void {
  const { rec } = mustJob(rm, req);
  const t = mustTask(rm, req);
  const bytes =
    t.type === 'MAP'
      ? Math.round(rec.inputBytes / Math.max(1, rec.maps))
      : Math.round((rec.inputBytes * rm.config.cluster.costs.cpu.shuffleRatio) / Math.max(1, rec.reduces));
  answer(req, res, 'jobTaskCounters', taskCountersContent(t.id, t.type, bytes));
}

/** The synthetic job `:jobId` names (undefined: not one of them); 404 when its history was deleted. */
function syntheticJob(history: SyntheticHistory, req: Request, whole = false): SyntheticJob | undefined {
  const j = history.byId(String(req.params.jobId));
  if (j?.deleted && !whole)
    throw remoteRejection(
      404,
      'NotFoundException',
      `java.lang.Exception: Could not load history file for job ${j.id}`,
    );
  return j;
}

function syntheticTaskContent(t: SyntheticTask): Content {
  return {
    startTime: t.startTime,
    finishTime: t.finishTime,
    elapsedTime: t.finishTime - t.startTime,
    progress: 100,
    id: t.id,
    state: 'SUCCEEDED',
    type: t.type,
    successfulAttempt: `attempt_${t.id.slice('task_'.length)}_0`,
    status: '',
  };
}

/**
 * The synthetic history's jobs, tasks and counters, before the emulated RM's own: a request
 * for an id that is not synthetic goes on to them.
 */
function syntheticRoutes(app: express.Express, history: SyntheticHistory, log: Logger): void {
  const J = `${H}/mapreduce/jobs/:jobId`;
  /** `fn` answers for a synthetic job and says so; any other request goes on to the RM's own jobs. */
  const h =
    (fn: (req: Request, res: Response) => boolean) =>
    (req: Request, res: Response, next: express.NextFunction): void => {
      let handled = true;
      handle(log, (rq, rs) => (handled = fn(rq, rs)), 'jhs')(req, res, next);
      if (!handled) next();
    };
  app.get(
    J,
    h((req, res) => {
      const j = syntheticJob(history, req, true);
      if (!j) return false;
      answer(req, res, 'job', { ...syntheticSummary(j), uberized: false, diagnostics: '' });
      return true;
    }),
  );
  app.get(
    `${J}/tasks`,
    h((req, res) => {
      const j = syntheticJob(history, req);
      if (!j) return false;
      const type = query(req, 'type');
      if (type !== undefined && type !== 'm' && type !== 'r')
        throw badRequest('tasktype must be either m or r');
      const tasks = j.tasks.filter((t) => type === undefined || (type === 'm') === (t.type === 'MAP'));
      answer(req, res, 'tasks', { task: tasks.map(syntheticTaskContent) });
      return true;
    }),
  );
  app.get(
    `${J}/counters`,
    h((req, res) => {
      const j = syntheticJob(history, req);
      if (!j) return false;
      answer(req, res, 'jobCounters', jobCountersContent(j.id, j.inputBytes, j.shuffleBytes));
      return true;
    }),
  );
  app.get(
    `${J}/tasks/:taskId/counters`,
    h((req, res) => {
      const j = syntheticJob(history, req);
      if (!j) return false;
      const t = j.tasks.find((x) => x.id === req.params.taskId);
      if (!t)
        throw remoteRejection(
          404,
          'NotFoundException',
          `java.lang.Exception: task not found with id ${String(req.params.taskId)}`,
        );
      answer(req, res, 'jobTaskCounters', taskCountersContent(t.id, t.type, t.bytes));
      return true;
    }),
  );
}

export function buildJhsApp(
  rm: EmulatedRm,
  controls: Controls,
  log: Logger,
  history?: SyntheticHistory,
): express.Express {
  const app = emulatedApp(rm, controls, false);
  const h = (fn: (rm: EmulatedRm, req: Request, res: Response) => void) =>
    handle(log, (req, res) => fn(rm, req, res), 'jhs');
  const J = `${H}/mapreduce/jobs/:jobId`;
  app.get([H, `${H}/info`], h(historyInfo));
  app.get(
    `${H}/mapreduce/jobs`,
    h((rm, req, res) => listJobs(rm, req, res, history)),
  );
  if (history) syntheticRoutes(app, history, log);
  app.get(`${J}/counters`, h(jobCounters));
  app.get(`${J}/tasks/:taskId/counters`, h(taskCounters));
  app.get(J, h(oneJob));
  app.get(`${J}/tasks`, h(listTasks));
  app.get(
    `${J}/tasks/:taskId`,
    h((rm, req, res) => answer(req, res, 'task', taskContent(mustTask(rm, req)))),
  );
  app.get(
    `${J}/tasks/:taskId/attempts`,
    h((rm, req, res) => {
      const t = mustTask(rm, req);
      answer(req, res, 'taskAttempts', { taskAttempt: t.attempts.map((a) => attemptContent(rm, t, a)) });
    }),
  );
  app.get(`${J}/tasks/:taskId/attempts/:attemptId`, h(oneAttempt));
  // A known path asked with another method: 503; an unknown one: the web UI's 404 page.
  app.use(unknownRoutes(app, log, 'jhs'));
  return app;
}
