import type { EngineSnapshot } from '../../sim/engine';
import { queueLeaf } from '../../yarn/ids';
import type { SimTime } from '../clock';
import {
  AM_ATTEMPT_SECONDS,
  FINISHING_SECONDS,
  type AppQueryFilter,
  type AppRecord,
  type AppView,
} from './types';

/**
 * How an app looks from outside at a simulated instant: the states and times of its report,
 * derived from its record and the simulated job behind it. Pure: the engine's instant and the
 * scaled clock come in as arguments.
 */

export type JobSnapshot = EngineSnapshot['jobs'][number];
type ReportView = Omit<AppView, 'rmState'>;
type Base = Pick<
  ReportView,
  'rec' | 'startedTime' | 'runningContainers' | 'pendingMaps' | 'mapsDone' | 'reducesDone' | 'launchedSeconds'
>;

/** The app as the RM reports it at simulated second `now`. */
export function appView(rec: AppRecord, job: JobSnapshot | undefined, now: number, time: SimTime): AppView {
  const v = reportView(rec, job, now, time);
  // The AM has unregistered (the report says FINISHED) and its container still runs.
  const finishing =
    v.state === 'FINISHED' && now < time.fromEpochMs(v.finishedTime) + FINISHING_SECONDS - 1e-9;
  return { ...v, rmState: finishing ? 'FINISHING' : v.state };
}

function reportView(rec: AppRecord, job: JobSnapshot | undefined, now: number, time: SimTime): ReportView {
  const base: Base = {
    rec,
    startedTime: time.toEpochMs(rec.submittedSeconds),
    runningContainers: 0,
    pendingMaps: job ? job.mapsPending : rec.inEngine ? rec.maps : 0,
    mapsDone: job?.mapsDone ?? 0,
    reducesDone: job?.reducesDone ?? 0,
    launchedSeconds: null,
  };
  const totalTasks = rec.maps + rec.reduces;
  const progress = job ? (100 * (job.mapsDone + job.reducesDone)) / Math.max(1, totalTasks) : 0;
  const nowMs = time.nowEpochMs();
  const failed = rec.failedSeconds !== null && rec.failedSeconds <= now + 1e-9;
  if (rec.killedSeconds !== null && !(failed && rec.failedSeconds! < rec.killedSeconds))
    return ended(base, 'KILLED', time.toEpochMs(rec.killedSeconds), 100);
  // 0.0 as the RM reports an app whose AM never ran.
  if (failed) return ended(base, 'FAILED', time.toEpochMs(rec.failedSeconds!), 0);
  // Waiting for an AM to register: an unmanaged one, or a failing one between attempts.
  if (rec.unmanaged || rec.amFailure) return open(base, 'ACCEPTED', nowMs, 0);
  if (!job) return open(base, 'NEW', nowMs, 0);
  switch (job.status) {
    case 'waiting':
      return open(base, 'SUBMITTED', nowMs, 0);
    case 'admitted':
      return open(base, 'ACCEPTED', nowMs, progress);
    case 'running':
      return {
        ...open(base, 'RUNNING', nowMs, progress),
        runningContainers: job.mapsRunning + job.reducesRunning,
      };
    case 'finished':
      return ended(base, 'FINISHED', time.toEpochMs(job.finish!), 100);
    case 'rejected':
    case 'killed':
      return ended(base, 'KILLED', time.toEpochMs(job.finish ?? now), progress);
  }
}

/** An app still going: no final status, no finish time, elapsed up to now. */
function open(base: Base, state: AppView['state'], nowMs: number, progress: number): ReportView {
  return {
    ...base,
    state,
    finalStatus: 'UNDEFINED',
    finishedTime: 0,
    elapsedTime: nowMs - base.startedTime,
    progress,
  };
}

/** An app that ended: its final status is its state's (SUCCEEDED for FINISHED). */
function ended(
  base: Base,
  state: 'FINISHED' | 'FAILED' | 'KILLED',
  finishedTime: number,
  progress: number,
): ReportView {
  return {
    ...base,
    state,
    finalStatus: state === 'FINISHED' ? 'SUCCEEDED' : state,
    finishedTime,
    elapsedTime: finishedTime - base.startedTime,
    progress,
  };
}

/** Whether an app's view passes the filters of `GET /apps`. */
export function matchesFilter(v: AppView, f: AppQueryFilter): boolean {
  const states = f.states?.map((s) => s.toUpperCase());
  const types = f.applicationTypes?.map((t) => t.toUpperCase());
  const tags = f.applicationTags?.map((t) => t.toLowerCase());
  if (states && states.length > 0 && !states.includes(v.state)) return false;
  if (f.finalStatus && v.finalStatus !== f.finalStatus.toUpperCase()) return false;
  if (f.user && v.rec.user !== f.user) return false;
  // The app's current queue, finished apps included, by leaf or full path (measured on
  // 3.4.3, where INDEX.md row 4 expected unfinished apps only).
  if (f.queue && (!v.rec.queueKnown || v.rec.queue !== queueLeaf(f.queue))) return false;
  if (f.startedTimeBegin !== undefined && v.startedTime < f.startedTimeBegin) return false;
  if (f.startedTimeEnd !== undefined && v.startedTime > f.startedTimeEnd) return false;
  if (f.finishedTimeBegin !== undefined && v.finishedTime < f.finishedTimeBegin) return false;
  if (f.finishedTimeEnd !== undefined && v.finishedTime > f.finishedTimeEnd) return false;
  if (types && types.length > 0 && !types.includes(v.rec.applicationType.toUpperCase())) return false;
  if (tags && tags.length > 0 && !tags.some((t) => v.rec.tags.includes(t))) return false;
  if (f.name && v.rec.name !== f.name) return false;
  return true;
}

/**
 * The attempts of an app whose AM exits at once, as far as they have gone at simulated second
 * `now`: simulated start and end seconds, and whether each is over.
 */
export function amFailureAttempts(
  rec: AppRecord,
  now: number,
): Array<{ n: number; start: number; end: number; over: boolean }> {
  if (!rec.amFailure) return [];
  const stop = rec.killedSeconds ?? Number.POSITIVE_INFINITY;
  const out: Array<{ n: number; start: number; end: number; over: boolean }> = [];
  for (let n = 1; n <= rec.amFailure.attempts; n++) {
    const start = rec.submittedSeconds + (n - 1) * AM_ATTEMPT_SECONDS;
    if (start > now + 1e-9 || start >= stop) break;
    const end = Math.min(start + AM_ATTEMPT_SECONDS, stop);
    out.push({ n, start, end, over: end <= now + 1e-9 });
  }
  return out;
}

/**
 * The app's diagnostics as the RM reports them in `state`. `rmBase` is the RM's web address,
 * which the failure of an AM that exits names (the app page to look at; measured on 3.4.3).
 */
export function diagnosticsOf(rec: AppRecord, state: AppView['state'], rmBase: string): string {
  if (rec.amFailure && state === 'FAILED') {
    const f = rec.amFailure;
    const limits =
      f.localLimit !== undefined ? ` (global limit =${f.globalLimit}; local limit is =${f.localLimit})` : '';
    const attempt = `appattempt_${rec.id.slice('application_'.length)}_${String(f.attempts).padStart(6, '0')}`;
    return [
      ...rec.diagnostics,
      `Application ${rec.id} failed ${f.attempts} times${limits} due to AM Container for ${attempt} exited with  exitCode: 0\n` +
        `Failing this attempt.Diagnostics: For more detailed output, check the application tracking page: ${rmBase}/cluster/app/${rec.id} Then click on links to logs of each attempt.\n` +
        '. Failing the application.',
    ].join('\n');
  }
  if ((rec.amFailure || rec.unmanaged) && state === 'ACCEPTED')
    return [
      ...rec.diagnostics,
      'AM container is launched, waiting for AM container to Register with RM',
    ].join('\n');
  return rec.diagnostics.join('\n');
}
