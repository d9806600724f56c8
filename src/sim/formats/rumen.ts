import { MB, type TraceJob } from '../model';
import { isRecord, optionalNumber, optionalString, problem, type RecordResult } from './record';

/**
 * Reader for Rumen job histories, the trace format Hadoop's SLS replays (`slsrun.sh
 * --tracetype=RUMEN`, e.g. SLS's sample 2jobs2min-rumen-jh.json): a stream of pretty-printed
 * JSON objects, one per MapReduce job (Rumen's LoggedJob), each spanning thousands of lines.
 *
 * Read from each job: `jobID`, `user`, `queue`, `submitTime`, `finishTime` (epoch ms),
 * `mapTasks` and `reduceTasks`. A task's run time is its successful attempt's
 * `finishTime - startTime` (else its last attempt with both times, else the task's own times);
 * a task that did not succeed and has no such times (killed before it ran) is left out. A map
 * task's `inputBytes` becomes its split when every map of the job records one (>= 0); otherwise
 * each map reads `bytesPerMap`. Everything else Rumen records (counters, CDFs, the job's whole
 * configuration) is not needed and not kept.
 *
 * Arrival: SLS replays a Rumen trace from the earliest submit time; the reader subtracts it
 * (trace-reader.ts) from `submitMs`, which this module leaves in `arrival` as milliseconds
 * until then. Rumen jobs have no deadline; `deadlineFactor` sets one to factor times the job's
 * recorded duration (finishTime - submitTime).
 */
export interface RumenOptions {
  deadlineFactor?: number | null;
  bytesPerMap?: number;
}

type Problems = Array<{ path: string; message: string }>;

/** The run time of one Rumen task in ms, null for a task to leave out, or a problem. */
function taskMs(t: unknown, at: string, problems: Problems): number | null {
  if (!isRecord(t)) {
    problems.push({ path: at, message: 'must be a JSON object' });
    return null;
  }
  const attempts = t.attempts === undefined ? [] : t.attempts;
  if (!Array.isArray(attempts)) {
    problems.push({ path: `${at}.attempts`, message: 'must be a list of attempts' });
    return null;
  }
  const timed: Array<{ ms: number; success: boolean }> = [];
  attempts.forEach((a: unknown, k: number) => {
    if (!isRecord(a)) {
      problems.push({ path: `${at}.attempts[${k}]`, message: 'must be a JSON object' });
      return;
    }
    const s = optionalNumber(a, 'startTime', `${at}.attempts[${k}].startTime`, problems);
    const f = optionalNumber(a, 'finishTime', `${at}.attempts[${k}].finishTime`, problems);
    if (s !== undefined && f !== undefined && s > 0 && f > s)
      timed.push({ ms: f - s, success: a.result === 'SUCCESS' });
  });
  const chosen = timed.find((x) => x.success) ?? timed[timed.length - 1];
  if (chosen) return chosen.ms;
  const s = optionalNumber(t, 'startTime', `${at}.startTime`, problems);
  const f = optionalNumber(t, 'finishTime', `${at}.finishTime`, problems);
  if (s !== undefined && f !== undefined && s > 0 && f > s) return f - s;
  const status = t.taskStatus;
  if (status !== undefined && status !== 'SUCCESS') return null;
  problems.push({
    path: `${at}.finishTime`,
    message: 'a successful task needs an attempt (or its own) startTime and a later finishTime',
  });
  return null;
}

/** One Rumen job object as a trace job, its `arrival` still the submit time in epoch ms. */
export function rumenRecord(v: unknown, options: RumenOptions): RecordResult {
  if (!isRecord(v)) return problem('job', 'must be a JSON object');
  const problems: Problems = [];
  const id = optionalString(v, 'jobID', 'jobID', problems);
  if (id === undefined && problems.length === 0)
    problems.push({ path: 'jobID', message: 'required, the job id' });
  const submit = optionalNumber(v, 'submitTime', 'submitTime', problems);
  if (submit === undefined && !problems.some((p) => p.path === 'submitTime'))
    problems.push({ path: 'submitTime', message: 'required, the submit time in epoch milliseconds' });
  else if (submit !== undefined && submit < 0)
    problems.push({ path: 'submitTime', message: `must be >= 0, got ${submit}` });
  const finish = optionalNumber(v, 'finishTime', 'finishTime', problems);
  const user = optionalString(v, 'user', 'user', problems);
  const queue = optionalString(v, 'queue', 'queue', problems);
  const lists: Record<'mapTasks' | 'reduceTasks', unknown[]> = { mapTasks: [], reduceTasks: [] };
  for (const key of ['mapTasks', 'reduceTasks'] as const) {
    const x = v[key];
    if (x === undefined || x === null) continue;
    if (!Array.isArray(x)) problems.push({ path: key, message: 'must be a list of tasks' });
    else lists[key] = x;
  }
  const mapSeconds: number[] = [];
  const reduceSeconds: number[] = [];
  const splits: Array<number | null> = [];
  lists.mapTasks.forEach((t, i) => {
    const ms = taskMs(t, `mapTasks[${i}]`, problems);
    if (ms === null) return;
    mapSeconds.push(ms / 1000);
    const bytes = isRecord(t) && typeof t.inputBytes === 'number' && t.inputBytes >= 0 ? t.inputBytes : null;
    splits.push(bytes);
  });
  lists.reduceTasks.forEach((t, i) => {
    const ms = taskMs(t, `reduceTasks[${i}]`, problems);
    if (ms !== null) reduceSeconds.push(ms / 1000);
  });
  if (problems.length) return { ok: false, problems };
  if (mapSeconds.length === 0) return problem('mapTasks', 'a job needs at least one map task that ran');
  const bytesPerMap = options.bytesPerMap ?? 128 * MB;
  const recorded = splits.every((b): b is number => b !== null) ? (splits as number[]) : null;
  const inputBytes = recorded ? recorded.reduce((a, b) => a + b, 0) : mapSeconds.length * bytesPerMap;
  const factor = options.deadlineFactor ?? null;
  const submitMs = submit as number;
  const deadline =
    factor !== null && finish !== undefined && finish > submitMs
      ? (factor * (finish - submitMs)) / 1000
      : null;
  const job: TraceJob = {
    id: id as string,
    arrival: submitMs,
    deadline,
    maps: mapSeconds.length,
    reduces: reduceSeconds.length,
    inputBytes,
    splits: recorded,
    type: 'cpu',
    user: user ?? 'default',
    queue: queue ?? 'default',
    blocks: null,
    replay: { mapSeconds, reduceSeconds },
  };
  return { ok: true, jobs: [job] };
}
