import { z } from 'zod';
import { WORKLOAD_CLASS_PATTERN } from '../../core/estimates';
import type { ValidationIssue } from '../../errors/validation';
import { MB, type TraceJob } from '../model';
import { hash32, mulberry32, type Rng } from '../rng';
import { parseLocated, pathText } from './source-lines';

/**
 * Reader for the workload description of SLS's synthetic load generator (SynthTraceJobProducer,
 * `slsrun.sh --tracetype=SYNTH`; SchedulerLoadSimulator.md, "SYNTH JSON input file format"):
 * one JSON document of workloads, each with job classes and a time distribution, from which
 * `num_jobs` jobs are drawn. Both of SLS's job-class shapes are read: the first one
 * (`mtasks_avg`, `mtime_avg`, `dur_avg`, `deadline_factor_avg`, ... with their `_stddev`), and
 * the generic one (`type`, `duration`, `deadline_factor` and a `tasks` list, each value a
 * sample `{"val": v, "std": s}` or `{"discrete": [...], "weights": [...]}`).
 *
 * Drawing, as SLS does: a workload by `workload_weight`, a class in it by `class_weight`, a
 * start time from `time_distribution` (a bucket `{time, weight}` by weight, then uniform up to
 * the next bucket's time; seconds), and each number from a log-normal with the given mean and
 * standard deviation (a value without `std` is constant). Task times are seconds. The job's
 * deadline is its drawn deadline factor times its drawn duration (SLS: deadline = start +
 * factor x duration). Tasks of types other than map and reduce (a stream job's containers) run
 * as map tasks. Memory and vcores are not modelled (our cluster file sizes containers);
 * `num_nodes` and `nodes_per_rack` are likewise the cluster file's business.
 *
 * The draw is seeded with the file's `rand_seed` and the run's seed, so `--runs 3` replays
 * three draws of the same workload, each the same on every machine.
 */

const num = z.number().finite();
const nonNeg = num.nonnegative();

const sampleSchema = z
  .object({
    val: nonNeg.optional(),
    std: nonNeg.optional(),
    discrete: z.array(nonNeg).min(1).optional(),
    weights: z.array(nonNeg).min(1).optional(),
  })
  .refine((s) => s.val !== undefined || s.discrete !== undefined, 'needs "val" or "discrete"')
  .refine(
    (s) => s.weights === undefined || (s.discrete !== undefined && s.weights.length === s.discrete.length),
    '"weights" needs a "discrete" list of the same length',
  );
type Sample = z.infer<typeof sampleSchema>;

const taskSchema = z.object({
  type: z.string().min(1),
  priority: num.optional(),
  count: sampleSchema,
  time: sampleSchema,
  max_memory: sampleSchema.optional(),
  max_vcores: sampleSchema.optional(),
  execution_type: z.enum(['GUARANTEED', 'OPPORTUNISTIC']).optional(),
});

const jobClassSchema = z
  .object({
    class_name: z.string().min(1),
    user_name: z.string().min(1).optional(),
    class_weight: nonNeg,
    // The generic shape.
    type: z.string().min(1).optional(),
    duration: sampleSchema.optional(),
    deadline_factor: sampleSchema.optional(),
    reservation: sampleSchema.optional(),
    tasks: z.array(taskSchema).min(1).optional(),
    // The first shape.
    mtasks_avg: nonNeg.optional(),
    mtasks_stddev: nonNeg.optional(),
    rtasks_avg: nonNeg.optional(),
    rtasks_stddev: nonNeg.optional(),
    dur_avg: nonNeg.optional(),
    dur_stddev: nonNeg.optional(),
    mtime_avg: nonNeg.optional(),
    mtime_stddev: nonNeg.optional(),
    rtime_avg: nonNeg.optional(),
    rtime_stddev: nonNeg.optional(),
    map_max_memory_avg: nonNeg.optional(),
    map_max_memory_stddev: nonNeg.optional(),
    reduce_max_memory_avg: nonNeg.optional(),
    reduce_max_memory_stddev: nonNeg.optional(),
    map_max_vcores_avg: nonNeg.optional(),
    map_max_vcores_stddev: nonNeg.optional(),
    reduce_max_vcores_avg: nonNeg.optional(),
    reduce_max_vcores_stddev: nonNeg.optional(),
    map_execution_type: z.enum(['GUARANTEED', 'OPPORTUNISTIC']).optional(),
    reduce_execution_type: z.enum(['GUARANTEED', 'OPPORTUNISTIC']).optional(),
    chance_of_reservation: nonNeg.optional(),
    deadline_factor_avg: nonNeg.optional(),
    deadline_factor_stddev: nonNeg.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.tasks !== undefined) {
      if (!c.tasks.some((t) => t.type !== 'reduce'))
        ctx.addIssue({ code: 'custom', path: ['tasks'], message: 'needs a task that is not a reduce' });
      return;
    }
    for (const key of ['mtasks_avg', 'mtime_avg'] as const)
      if (c[key] === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: 'required (or give the generic "tasks" list)' });
  });
type JobClass = z.infer<typeof jobClassSchema>;

const workloadSchema = z.object({
  workload_name: z.string().min(1),
  workload_weight: nonNeg,
  description: z.string().optional(),
  queue_name: z.string().min(1),
  job_classes: z.array(jobClassSchema).min(1),
  time_distribution: z
    .array(z.object({ time: nonNeg, weight: nonNeg.optional(), jobs: nonNeg.optional() }))
    .min(1)
    .refine((b) => b.some((x) => (x.weight ?? x.jobs ?? 0) > 0), 'needs a bucket with weight > 0'),
});

export const synthSchema = z.object({
  description: z.string().optional(),
  num_nodes: z.number().int().positive().optional(),
  nodes_per_rack: z.number().int().positive().optional(),
  num_jobs: z.number().int().positive(),
  rand_seed: z.number().int().default(0),
  workloads: z
    .array(workloadSchema)
    .min(1)
    .refine((w) => w.some((x) => x.workload_weight > 0), 'needs a workload with workload_weight > 0'),
});
export type SynthSpec = z.infer<typeof synthSchema>;

/** Validates a synthetic-load file; every problem with its line and path. */
export function parseSynthSpec(
  text: string,
  file: string,
): { spec: SynthSpec | null; issues: ValidationIssue[] } {
  const doc = parseLocated(text, file);
  if (doc.syntaxIssues.length) return { spec: null, issues: doc.syntaxIssues };
  const parsed = synthSchema.safeParse(doc.value);
  if (parsed.success) return { spec: parsed.data, issues: [] };
  return {
    spec: null,
    issues: parsed.error.issues.map((i) => ({
      path: pathText(i.path),
      message: i.code === 'invalid_type' && i.input === undefined ? 'required field is missing' : i.message,
      file,
      line: doc.lineOf(i.path),
    })),
  };
}

function weighted<T>(items: readonly T[], weight: (t: T) => number, rng: Rng): T {
  const total = items.reduce((s, x) => s + weight(x), 0);
  let r = rng.next() * total;
  for (const x of items) {
    r -= weight(x);
    if (r < 0 && weight(x) > 0) return x;
  }
  return items.filter((x) => weight(x) > 0).pop() as T;
}

/** Log-normal with the given mean and standard deviation (SLS's choice: no negative draws). */
function logNormal(mean: number, sd: number | undefined, rng: Rng): number {
  if (!sd || mean <= 0) return mean;
  const sigma2 = Math.log(1 + (sd * sd) / (mean * mean));
  return Math.exp(Math.log(mean) - sigma2 / 2 + Math.sqrt(sigma2) * rng.normal(0, 1));
}

function draw(s: Sample, rng: Rng): number {
  if (s.discrete !== undefined) {
    const idx = s.discrete.map((_, i) => i);
    const i = weighted(idx, (k) => s.weights?.[k] ?? 1, rng);
    return s.discrete[i] as number;
  }
  return logNormal(s.val as number, s.std, rng);
}

function classTasks(
  c: JobClass,
  rng: Rng,
): { maps: number[]; reduces: number[]; duration: number; factor: number } {
  const maps: number[] = [];
  const reduces: number[] = [];
  const positive = (x: number): number => Math.max(0.001, x);
  if (c.tasks !== undefined) {
    for (const t of c.tasks) {
      const n = Math.max(0, Math.round(draw(t.count, rng)));
      for (let k = 0; k < n; k++) (t.type === 'reduce' ? reduces : maps).push(positive(draw(t.time, rng)));
    }
    // A class whose map-side counts all drew 0 still runs one container of its first such task.
    const first = c.tasks.find((t) => t.type !== 'reduce');
    if (maps.length === 0 && first) maps.push(positive(draw(first.time, rng)));
    const duration = c.duration ? draw(c.duration, rng) : 0;
    const factor = c.deadline_factor ? draw(c.deadline_factor, rng) : 0;
    return { maps, reduces, duration, factor };
  }
  const m = Math.max(1, Math.round(logNormal(c.mtasks_avg as number, c.mtasks_stddev, rng)));
  const r = Math.max(0, Math.round(logNormal(c.rtasks_avg ?? 0, c.rtasks_stddev, rng)));
  for (let k = 0; k < m; k++) maps.push(positive(logNormal(c.mtime_avg as number, c.mtime_stddev, rng)));
  for (let k = 0; k < r; k++) reduces.push(positive(logNormal(c.rtime_avg ?? 1, c.rtime_stddev, rng)));
  const duration = logNormal(c.dur_avg ?? 0, c.dur_stddev, rng);
  const factor = logNormal(c.deadline_factor_avg ?? 0, c.deadline_factor_stddev, rng);
  return { maps, reduces, duration, factor };
}

/** The jobs of one draw, in order of arrival, ids job_0, job_1, ... */
export function synthJobs(spec: SynthSpec, seed: number, bytesPerMap = 128 * MB): TraceJob[] {
  const rng = mulberry32(hash32(`synth/${spec.rand_seed}/${seed}`));
  const jobs: Array<Omit<TraceJob, 'id'>> = [];
  for (let k = 0; k < spec.num_jobs; k++) {
    const w = weighted(spec.workloads, (x) => x.workload_weight, rng);
    const c = weighted(w.job_classes, (x) => x.class_weight, rng);
    const buckets = w.time_distribution;
    const bucket = weighted(buckets, (b) => b.weight ?? b.jobs ?? 0, rng);
    const next = buckets[buckets.indexOf(bucket) + 1];
    const arrival = next && next.time > bucket.time ? rng.uniform(bucket.time, next.time) : bucket.time;
    const t = classTasks(c, rng);
    jobs.push({
      arrival,
      deadline: t.factor > 0 && t.duration > 0 ? t.factor * t.duration : null,
      maps: t.maps.length,
      reduces: t.reduces.length,
      inputBytes: t.maps.length * bytesPerMap,
      splits: null,
      type: 'cpu',
      ...(WORKLOAD_CLASS_PATTERN.test(c.class_name) ? { workloadClass: c.class_name } : {}),
      user: c.user_name ?? 'default',
      queue: w.queue_name,
      blocks: null,
      replay: { mapSeconds: t.maps, reduceSeconds: t.reduces },
    });
  }
  jobs.sort((a, b) => a.arrival - b.arrival);
  return jobs.map((j, i) => ({ id: `job_${i}`, ...j }));
}

/** True when a parsed JSON value is a synthetic-load description. */
export function looksLikeSynth(v: unknown): boolean {
  return typeof v === 'object' && v !== null && 'workloads' in v && 'num_jobs' in v;
}
