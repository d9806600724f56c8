import { ValidationError, type ValidationIssue } from '../../errors/validation';
import { MB, type TraceJob } from '../model';

/**
 * Reader for Hadoop's Scheduler Load Simulator (SLS) JSON job format, as documented in
 * Hadoop's SchedulerLoadSimulator.md ("SLS JSON input file format"): a stream of JSON
 * objects, one per job, each with `job.start.ms`, `job.end.ms`, `job.queue.name`,
 * `job.id`, `job.user`, `job.count` and `job.tasks` (each task: `count`,
 * `container.host`, `container.start.ms`, `container.end.ms`, `duration.ms`,
 * `container.priority`, `container.type` map|reduce). An object with `num.nodes` (the
 * topology hint some files start with) is skipped. The documentation's examples carry
 * `//` comments, which are not JSON; they are stripped outside strings.
 *
 * SLS jobs have no deadline; `deadlineFactor` (when given) sets one to factor times the
 * job's recorded duration (job.end.ms - job.start.ms). Task durations are kept and
 * replayed as the tasks' actual run times.
 */
export interface SlsOptions {
  deadlineFactor?: number | null;
  /** Input size assumed per map task (SLS records none), bytes. */
  bytesPerMap?: number;
}

interface RawObject {
  text: string;
  line: number;
}

/** Split a stream of concatenated JSON objects, remembering each one's first line. */
export function splitJsonObjects(text: string): { objects: RawObject[]; strayLine: number | null } {
  const objects: RawObject[] = [];
  let depth = 0;
  let inString = false;
  let escape = false;
  let start = -1;
  let startLine = 1;
  let line = 1;
  let buf = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\n') line++;
    if (inString) {
      buf += ch;
      if (escape) escape = false;
      else if (ch === '\\') escape = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      if (i < text.length) {
        line++;
        if (depth > 0) buf += '\n';
      }
      continue;
    }
    if (depth === 0) {
      if (ch === '{') {
        depth = 1;
        start = i;
        startLine = line;
        buf = '{';
      } else if (!/\s|,|\[|\]/.test(ch)) {
        return { objects, strayLine: line };
      }
      continue;
    }
    buf += ch;
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) {
        objects.push({ text: buf, line: startLine });
        start = -1;
      }
    }
  }
  return { objects, strayLine: start >= 0 ? startLine : null };
}

export function parseSlsTrace(text: string, file: string, options: SlsOptions = {}): TraceJob[] {
  const bytesPerMap = options.bytesPerMap ?? 128 * MB;
  const issues: ValidationIssue[] = [];
  const { objects, strayLine } = splitJsonObjects(text);
  if (strayLine !== null)
    issues.push({
      path: '(syntax)',
      message: 'text outside a JSON object, or an unclosed object',
      file,
      line: strayLine,
    });
  const jobs: TraceJob[] = [];
  let autoId = 0;
  for (const obj of objects) {
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(obj.text) as Record<string, unknown>;
    } catch (e) {
      issues.push({
        path: '(syntax)',
        message: `not valid JSON: ${(e as Error).message}`,
        file,
        line: obj.line,
      });
      continue;
    }
    if ('num.nodes' in v && !('job.tasks' in v)) continue;
    const at = (path: string, message: string) => issues.push({ path, message, file, line: obj.line });
    const start = v['job.start.ms'];
    if (typeof start !== 'number' || !Number.isFinite(start) || start < 0) {
      at('job.start.ms', 'required, a non-negative number of milliseconds');
      continue;
    }
    const end = typeof v['job.end.ms'] === 'number' ? (v['job.end.ms'] as number) : 0;
    const tasks = v['job.tasks'];
    if (!Array.isArray(tasks) || tasks.length === 0) {
      at('job.tasks', 'required, a non-empty list of containers');
      continue;
    }
    const mapSeconds: number[] = [];
    const reduceSeconds: number[] = [];
    let bad = false;
    tasks.forEach((t: Record<string, unknown>, i: number) => {
      const count = t.count === undefined ? 1 : t.count;
      const type = t['container.type'] ?? 'map';
      let dur: number | null = null;
      if (typeof t['duration.ms'] === 'number') dur = t['duration.ms'] as number;
      else if (typeof t['container.start.ms'] === 'number' && typeof t['container.end.ms'] === 'number') {
        dur = (t['container.end.ms'] as number) - (t['container.start.ms'] as number);
      }
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
        at(`job.tasks[${i}].count`, 'must be a positive integer');
        bad = true;
      } else if (type !== 'map' && type !== 'reduce') {
        at(`job.tasks[${i}].container.type`, `must be map or reduce, got ${String(type)}`);
        bad = true;
      } else if (dur === null || !Number.isFinite(dur) || dur <= 0) {
        at(
          `job.tasks[${i}]`,
          'needs duration.ms, or container.start.ms and container.end.ms with end after start',
        );
        bad = true;
      } else {
        for (let k = 0; k < count; k++) (type === 'map' ? mapSeconds : reduceSeconds).push(dur / 1000);
      }
    });
    if (bad) continue;
    if (mapSeconds.length === 0) {
      at('job.tasks', 'a job needs at least one map container');
      continue;
    }
    const jobCount = typeof v['job.count'] === 'number' ? (v['job.count'] as number) : 1;
    const baseId = typeof v['job.id'] === 'string' && jobCount === 1 ? (v['job.id'] as string) : null;
    const factor = options.deadlineFactor ?? null;
    const deadline = factor !== null && end > start ? (factor * (end - start)) / 1000 : null;
    for (let c = 0; c < jobCount; c++) {
      const id = baseId ?? `job_${autoId}`;
      autoId++;
      jobs.push({
        id,
        arrival: start / 1000,
        deadline,
        maps: mapSeconds.length,
        reduces: reduceSeconds.length,
        inputBytes: mapSeconds.length * bytesPerMap,
        splits: null,
        type: 'cpu',
        user: typeof v['job.user'] === 'string' ? (v['job.user'] as string) : 'default',
        queue: typeof v['job.queue.name'] === 'string' ? (v['job.queue.name'] as string) : 'default',
        blocks: null,
        replay: { mapSeconds: mapSeconds.slice(), reduceSeconds: reduceSeconds.slice() },
      });
    }
  }
  if (issues.length) throw new ValidationError(issues);
  if (jobs.length === 0)
    throw new ValidationError([{ path: 'jobs', message: 'the SLS file has no jobs', file, line: 1 }]);
  return jobs;
}

/** True when a trace's text looks like SLS JSON rather than our JSON Lines format. */
export function looksLikeSls(text: string): boolean {
  return /"job\.tasks"\s*:/.test(text) || /"num\.nodes"\s*:/.test(text);
}
