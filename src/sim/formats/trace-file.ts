import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../errors/validation';
import { WORKLOAD_CLASS_PATTERN } from '../../core/estimates';
import { JOB_TYPES } from '../../core/kinds';
import { labelsInCluster, type ClusterSpec, type TraceJob } from '../model';
import { pathText } from './source-lines';

/**
 * The trace file, version 1: JSON Lines, one job per line (docs/simulator.md). An optional
 * first line `{"format":"yarn-sched-sidecar-trace","version":1}` names the format.
 * Times are seconds; `deadline` is relative to `arrival` (J = (A, D, M, R, delta)).
 */

export const TRACE_FORMAT = 'yarn-sched-sidecar-trace';

const headerSchema = z.strictObject({ format: z.literal(TRACE_FORMAT), version: z.literal(1) });

export const traceJobSchema = z.strictObject({
  id: z.string().min(1),
  arrival: z.number().finite().nonnegative(),
  deadline: z.number().finite().positive().nullable(),
  maps: z.number().int().positive(),
  reduces: z.number().int().nonnegative(),
  inputBytes: z.number().finite().nonnegative(),
  splits: z.array(z.number().finite().nonnegative()).optional(),
  type: z.enum(JOB_TYPES).default('cpu'),
  /** The workload class for admission estimates (default: the type); same names as the API's. */
  class: z
    .string()
    .regex(
      WORKLOAD_CLASS_PATTERN,
      'must be 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
    )
    .optional(),
  user: z.string().min(1).default('default'),
  queue: z.string().min(1).default('default'),
  blocks: z.array(z.string().min(1)).optional(),
});

/** Checks one job against itself and the cluster; returns problems as (path, message). */
export function checkJob(
  job: TraceJob,
  cluster: ClusterSpec | null,
): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  if (job.splits) {
    if (job.splits.length !== job.maps)
      out.push({ path: 'splits', message: `has ${job.splits.length} entries for ${job.maps} maps` });
    const sum = job.splits.reduce((a, b) => a + b, 0);
    if (Math.abs(sum - job.inputBytes) > Math.max(1, job.inputBytes * 1e-9)) {
      out.push({ path: 'splits', message: `add up to ${sum} bytes, not inputBytes ${job.inputBytes}` });
    }
  }
  if (job.blocks && job.blocks.length !== job.maps) {
    out.push({ path: 'blocks', message: `has ${job.blocks.length} block ids for ${job.maps} maps` });
  }
  if (cluster && job.type === 'gpu') {
    const labels = labelsInCluster(cluster);
    if (!labels.has(cluster.gpuLabel)) {
      out.push({
        path: 'type',
        message: `job type gpu needs label '${cluster.gpuLabel}', which no node in the cluster has`,
      });
    } else if (
      !cluster.nodeClasses.some(
        (c) => c.count > 0 && c.gpuContainers > 0 && c.labels.includes(cluster.gpuLabel),
      )
    ) {
      out.push({
        path: 'type',
        message: `job type gpu needs a GPU container; no node labelled '${cluster.gpuLabel}' has gpuContainers > 0`,
      });
    }
  }
  return out;
}

/** What one line of a JSON Lines trace holds: the header, a job, or its problems. */
export type TraceLine =
  | { kind: 'header'; problems: Array<{ path: string; message: string }> }
  | { kind: 'job'; job: TraceJob; problems: Array<{ path: string; message: string }> }
  | { kind: 'bad'; problems: Array<{ path: string; message: string }> };

/** Reads one non-empty line; `first` is true for the file's first such line (the header's place). */
export function traceLine(textLine: string, first: boolean, cluster: ClusterSpec | null): TraceLine {
  let value: unknown;
  try {
    value = JSON.parse(textLine);
  } catch (e) {
    return {
      kind: 'bad',
      problems: [{ path: '(syntax)', message: `not valid JSON: ${(e as Error).message}` }],
    };
  }
  if (first && value && typeof value === 'object' && 'format' in value) {
    const h = headerSchema.safeParse(value);
    return {
      kind: 'header',
      problems: h.success
        ? []
        : h.error.issues.map((i) => ({ path: `header.${pathText(i.path)}`, message: i.message })),
    };
  }
  const parsed = traceJobSchema.safeParse(value);
  if (!parsed.success) {
    return {
      kind: 'bad',
      problems: parsed.error.issues.map((i) => {
        const path = pathText(i.path);
        const message =
          i.code === 'invalid_type' && i.input === undefined ? `required field is missing` : i.message;
        return { path: path === '(root)' ? 'job' : path, message };
      }),
    };
  }
  const d = parsed.data;
  const job: TraceJob = {
    id: d.id,
    arrival: d.arrival,
    deadline: d.deadline,
    maps: d.maps,
    reduces: d.reduces,
    inputBytes: d.inputBytes,
    splits: d.splits ?? null,
    type: d.type,
    ...(d.class === undefined ? {} : { workloadClass: d.class }),
    user: d.user,
    queue: d.queue,
    blocks: d.blocks ?? null,
  };
  return { kind: 'job', job, problems: checkJob(job, cluster) };
}

/**
 * Parse and validate a JSON Lines trace. All problems of all lines are collected (each
 * with file and line) and thrown together; nothing is returned unless the whole file is
 * good. The cluster, when given, is used for cross-checks (labels).
 */
export function parseTraceFile(text: string, file: string, cluster: ClusterSpec | null): TraceJob[] {
  const issues: ValidationIssue[] = [];
  const jobs: TraceJob[] = [];
  const seen = new Map<string, number>();
  let first = true;
  text.split('\n').forEach((raw, idx) => {
    const line = idx + 1;
    const textLine = raw.trim();
    if (textLine === '') return;
    const r = traceLine(textLine, first, cluster);
    first = false;
    for (const p of r.problems) issues.push({ ...p, file, line });
    if (r.kind !== 'job') return;
    const prev = seen.get(r.job.id);
    if (prev !== undefined)
      issues.push({
        path: 'id',
        message: `duplicate job id ${r.job.id} (first on line ${prev})`,
        file,
        line,
      });
    seen.set(r.job.id, line);
    jobs.push(r.job);
  });
  if (issues.length) throw new ValidationError(issues);
  if (jobs.length === 0)
    throw new ValidationError([{ path: 'jobs', message: 'the trace has no jobs', file, line: 1 }]);
  return jobs;
}

/** Serialise jobs as a version-1 trace (header line, then one job per line). */
export function formatTrace(jobs: readonly TraceJob[]): string {
  const out = [JSON.stringify({ format: TRACE_FORMAT, version: 1 })];
  for (const j of jobs) {
    const o: Record<string, unknown> = {
      id: j.id,
      arrival: round6(j.arrival),
      deadline: j.deadline === null ? null : round6(j.deadline),
      maps: j.maps,
      reduces: j.reduces,
      inputBytes: j.inputBytes,
      type: j.type,
      user: j.user,
      queue: j.queue,
    };
    if (j.workloadClass !== undefined) o.class = j.workloadClass;
    if (j.splits) o.splits = j.splits;
    if (j.blocks) o.blocks = j.blocks;
    out.push(JSON.stringify(o));
  }
  return out.join('\n') + '\n';
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
