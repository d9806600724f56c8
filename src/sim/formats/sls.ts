import { MB, type TraceJob } from '../model';
import { scanJsonObjects } from './json-stream';
import { isRecord, optionalNumber, optionalString, problem, type RecordResult } from './record';

/**
 * Reader for Hadoop's Scheduler Load Simulator (SLS) JSON job format, the shape of SLS's own
 * inputsls.json and sls_dag.json (SchedulerLoadSimulator.md, "SLS JSON input file format"): a
 * stream of JSON objects, one per job. Every key SLS reads is accepted:
 *
 * - job: `am.type` (or `yarn.sls.am.type`: mapreduce, stream, dag), `job.start.ms`,
 *   `job.end.ms`, `job.queue.name`, `job.label.expression`, `job.id`, `job.user`, `job.count`,
 *   `job.tasks`;
 * - task: `count`, `container.host`, `container.start.ms`, `container.end.ms`,
 *   `container.duration.ms` (or the older `duration.ms`), `container.priority`,
 *   `container.type` (map | reduce), `container.execution.type` (GUARANTEED | OPPORTUNISTIC),
 *   `container.allocation.id`, `container.request.delay`, `container.memory`,
 *   `container.vcores`.
 *
 * An object with `num.nodes` (the topology hint some files start with) holds no job. `//`
 * comments as in the documentation's examples are allowed. Keys SLS does not read are ignored,
 * as SLS ignores them; a key it reads with a value of the wrong type is an error naming it.
 *
 * SLS jobs have no deadline; `deadlineFactor` (when given) sets one to factor times the job's
 * recorded duration (job.end.ms - job.start.ms). Task durations are kept and replayed as the
 * tasks' actual run times. Containers of stream and dag AMs, which are not map or reduce
 * tasks, run as map tasks (independent containers).
 */
export interface SlsOptions {
  deadlineFactor?: number | null;
  /** Input size assumed per map task (SLS records none), bytes. */
  bytesPerMap?: number;
}

const EXECUTION_TYPES = ['GUARANTEED', 'OPPORTUNISTIC'];

/** One SLS job object as jobs (several when `job.count` > 1); `nextId` numbers jobs without an id. */
export function slsRecord(v: unknown, options: SlsOptions, nextId: () => number): RecordResult {
  if (!isRecord(v)) return problem('job', 'must be a JSON object');
  if ('num.nodes' in v && !('job.tasks' in v)) return { ok: true, jobs: [], skip: true };
  const problems: Problems = [];
  const start = optionalNumber(v, 'job.start.ms', 'job.start.ms', problems);
  if (start === undefined && problems.length === 0)
    problems.push({ path: 'job.start.ms', message: 'required, a non-negative number of milliseconds' });
  else if (start !== undefined && start < 0)
    problems.push({ path: 'job.start.ms', message: `must be >= 0, got ${start}` });
  const end = optionalNumber(v, 'job.end.ms', 'job.end.ms', problems) ?? 0;
  // The AM type changes only how SLS's AM asks for the containers; their run times are what we replay.
  optionalString(v, 'am.type', 'am.type', problems);
  optionalString(v, 'yarn.sls.am.type', 'yarn.sls.am.type', problems);
  optionalString(v, 'job.label.expression', 'job.label.expression', problems);
  const queue = optionalString(v, 'job.queue.name', 'job.queue.name', problems);
  const user = optionalString(v, 'job.user', 'job.user', problems);
  const givenId = optionalString(v, 'job.id', 'job.id', problems);
  const jobCount = optionalNumber(v, 'job.count', 'job.count', problems) ?? 1;
  if (!Number.isInteger(jobCount) || jobCount < 1)
    problems.push({ path: 'job.count', message: `must be a positive integer, got ${jobCount}` });
  const tasks = v['job.tasks'];
  if (!Array.isArray(tasks) || tasks.length === 0) {
    problems.push({ path: 'job.tasks', message: 'required, a non-empty list of containers' });
    return { ok: false, problems };
  }
  const seconds = { map: [] as number[], reduce: [] as number[] };
  tasks.forEach((t: unknown, i: number) => {
    const task = slsTask(t, `job.tasks[${i}]`, problems);
    if (task) for (let k = 0; k < task.count; k++) seconds[task.type].push(task.seconds);
  });
  if (problems.length) return { ok: false, problems };
  if (seconds.map.length === 0) return problem('job.tasks', 'a job needs at least one map container');
  const factor = options.deadlineFactor ?? null;
  const startMs = start as number;
  const deadline = factor !== null && end > startMs ? (factor * (end - startMs)) / 1000 : null;
  const jobs: TraceJob[] = [];
  for (let c = 0; c < jobCount; c++) {
    const auto = nextId();
    jobs.push({
      id: givenId !== undefined && jobCount === 1 ? givenId : `job_${auto}`,
      arrival: startMs / 1000,
      deadline,
      maps: seconds.map.length,
      reduces: seconds.reduce.length,
      inputBytes: seconds.map.length * (options.bytesPerMap ?? 128 * MB),
      splits: null,
      type: 'cpu',
      user: user ?? 'default',
      queue: queue ?? 'default',
      blocks: null,
      replay: { mapSeconds: seconds.map.slice(), reduceSeconds: seconds.reduce.slice() },
    });
  }
  return { ok: true, jobs };
}

type Problems = Array<{ path: string; message: string }>;

/**
 * One container of an SLS job (`at` its path): its kind, how many, and its run time in
 * seconds; undefined when it is wrong, with the problems added to `problems`.
 */
function slsTask(
  t: unknown,
  at: string,
  problems: Problems,
): { type: 'map' | 'reduce'; count: number; seconds: number } | undefined {
  if (!isRecord(t)) {
    problems.push({ path: at, message: 'must be a JSON object' });
    return undefined;
  }
  const before = problems.length;
  const count = optionalNumber(t, 'count', `${at}.count`, problems) ?? 1;
  const type = optionalString(t, 'container.type', `${at}.container.type`, problems) ?? 'map';
  const startMs = optionalNumber(t, 'container.start.ms', `${at}.container.start.ms`, problems);
  const endMs = optionalNumber(t, 'container.end.ms', `${at}.container.end.ms`, problems);
  const durationMs =
    optionalNumber(t, 'container.duration.ms', `${at}.container.duration.ms`, problems) ??
    optionalNumber(t, 'duration.ms', `${at}.duration.ms`, problems);
  for (const key of [
    'container.priority',
    'container.request.delay',
    'container.memory',
    'container.vcores',
    'container.allocation.id',
  ])
    optionalNumber(t, key, `${at}.${key}`, problems);
  optionalString(t, 'container.host', `${at}.container.host`, problems);
  const exec = optionalString(t, 'container.execution.type', `${at}.container.execution.type`, problems);
  if (problems.length > before) return undefined;
  const wrong = (path: string, message: string) => {
    problems.push({ path, message });
    return undefined;
  };
  if (exec !== undefined && !EXECUTION_TYPES.includes(exec))
    return wrong(`${at}.container.execution.type`, `must be GUARANTEED or OPPORTUNISTIC, got ${exec}`);
  if (!Number.isInteger(count) || count < 1)
    return wrong(`${at}.count`, `must be a positive integer, got ${count}`);
  if (type !== 'map' && type !== 'reduce')
    return wrong(`${at}.container.type`, `must be map or reduce, got ${type}`);
  const dur = durationMs ?? (startMs !== undefined && endMs !== undefined ? endMs - startMs : undefined);
  if (dur === undefined || dur <= 0) {
    return wrong(
      durationMs !== undefined ? `${at}.container.duration.ms` : at,
      dur === undefined
        ? 'needs container.duration.ms (or duration.ms), or container.start.ms and container.end.ms'
        : `the container's duration must be > 0 ms, got ${dur}`,
    );
  }
  return { type, count, seconds: dur / 1000 };
}

/** Splits a stream of concatenated JSON objects (kept for callers of the earlier reader). */
export function splitJsonObjects(text: string): {
  objects: Array<{ text: string; line: number }>;
  strayLine: number | null;
} {
  const { objects, problems } = scanJsonObjects(text);
  return { objects, strayLine: problems.length ? (problems[0] as { line: number }).line : null };
}

/** True when a trace's text looks like SLS JSON rather than our JSON Lines format. */
export function looksLikeSls(text: string): boolean {
  return /"job\.tasks"\s*:/.test(text) || /"num\.nodes"\s*:/.test(text);
}
