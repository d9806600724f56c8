import type { JobType } from '../core/kinds';

/**
 * A finished job as the replay holds it (docs/replay.md): read from the JobHistory server (a
 * MapReduce job, its tasks' times and counters) or, for an app the JobHistory server does not
 * know (Spark, other frameworks), from the RM's app report (app-level times). Times are epoch
 * milliseconds on the JobHistory server's clock (an RM-only app's are moved onto it by the
 * measured skew, read.ts). Compact: a task is its start and finish, nothing else is kept.
 */
export interface HistoryJob {
  /** `job_…` for a JobHistory job, `application_…` for an RM-only app. */
  readonly id: string;
  readonly appId: string;
  readonly name: string;
  readonly user: string;
  /** The leaf queue (`root.` taken off). */
  readonly queue: string;
  readonly source: 'jobhistory' | 'rm';
  /** The RM's application type (`MAPREDUCE`, `SPARK`, …); `MAPREDUCE` for a JobHistory job. */
  readonly applicationType: string;
  readonly submitMs: number;
  readonly finishMs: number;
  /** Each successful map's start and finish (ms): maps[2i] is map i's start, maps[2i+1] its finish. */
  readonly maps: readonly number[];
  readonly reduces: readonly number[];
  /** Bytes the maps read (the job counter HDFS_BYTES_READ, maps' share); 0 when unknown. */
  readonly inputBytes: number;
  /** Each map's bytes read (task counters, `--task-counters`), else null. */
  readonly mapBytes: readonly number[] | null;
  /** Bytes the reduces shuffled (REDUCE_SHUFFLE_BYTES), or null when unknown. */
  readonly shuffleBytes: number | null;
  /** The deadline its `deadline:` tag carried (epoch ms), when it carried one (RM report). */
  readonly taggedDeadlineMs?: number;
  /** Its `class:` tag. */
  readonly workloadClass?: string;
  /** `gpu` when it ran in the GPU partition (its label expression, or its `type:` tag). */
  readonly jobType: JobType;
  /** The RM's start of its app (ms, JobHistory clock), when the RM still knows the app. */
  readonly appStartMs?: number;
  /** For an RM-only app: when its AM's container was launched (ms), when the RM said. */
  readonly launchMs?: number;
}

/** Why a job of the window is not replayed, with how many and the first few ids. */
export interface LeftOut {
  readonly reason: LeftOutReason;
  readonly count: number;
  readonly examples: readonly string[];
}

export const LEFT_OUT_REASONS = [
  /** The JobHistory server listed it but answers 404 for it (its aggregated history deleted). */
  'history-deleted',
  /** FAILED: its tasks' times are not a run to replay or learn from. */
  'failed',
  /** KILLED, likewise. */
  'killed',
  /** No map task ran (killed before its tasks, or a job of no maps). */
  'no-tasks',
  /** An RM app that never ran (finished at once, or no start time). */
  'never-ran',
  /** Past `--max-jobs`: the newest jobs are left out. */
  'over-max-jobs',
] as const;
export type LeftOutReason = (typeof LEFT_OUT_REASONS)[number];

/** What the reason says in the report. */
export const LEFT_OUT_TEXT: Readonly<Record<LeftOutReason, string>> = Object.freeze({
  'history-deleted':
    'listed by the JobHistory server, which answers 404 for its tasks or counters (its aggregated history was deleted)',
  failed: 'FAILED: its tasks are no run to replay or learn from',
  killed: 'KILLED: its tasks are no run to replay or learn from',
  'no-tasks': 'no map task ran',
  'never-ran': 'an RM app that never ran (no start, or finished before it started)',
  'over-max-jobs': 'past --max-jobs (the newest left out)',
});

/** Keeps the count of each reason and its first few ids. */
export class LeftOutTally {
  private readonly byReason = new Map<LeftOutReason, { count: number; examples: string[] }>();

  constructor(private readonly examples = 5) {}

  add(reason: LeftOutReason, id: string): void {
    let r = this.byReason.get(reason);
    if (!r) this.byReason.set(reason, (r = { count: 0, examples: [] }));
    r.count++;
    if (r.examples.length < this.examples) r.examples.push(id);
  }

  list(): LeftOut[] {
    return LEFT_OUT_REASONS.filter((r) => this.byReason.has(r)).map((reason) => ({
      reason,
      ...(this.byReason.get(reason) as { count: number; examples: string[] }),
    }));
  }
}

/** Clock skew between the RM and the JobHistory server, measured on the jobs both know. */
export interface ClockSkew {
  /** Median of (RM app start - JobHistory submit), ms; 0 when no job is known to both. */
  readonly medianMs: number;
  /** Jobs it was measured on. */
  readonly jobs: number;
  /** The largest |difference| seen, ms. */
  readonly maxAbsMs: number;
}

/** The cluster as the RM showed it: what the replay's model is built from (cluster.ts). */
export interface ClusterShape {
  /** Running nodes: id, their labels (none: the default partition) and resources. */
  readonly nodes: ReadonlyArray<{
    readonly id: string;
    readonly labels: readonly string[];
    readonly memoryMB: number;
    readonly vcores: number;
  }>;
  /** Leaf queues: path, guaranteed and maximum share of the cluster (absolute, 0-100). */
  readonly queues: ReadonlyArray<{
    readonly path: string;
    readonly absoluteCapacity: number;
    readonly absoluteMaxCapacity: number;
  }>;
  /** The scheduler's smallest container, MB (yarn.scheduler.minimum-allocation-mb), when known. */
  readonly minimumAllocationMb?: number;
}

/** Map i's run time, seconds. */
export function taskSeconds(times: readonly number[], i: number): number {
  return ((times[2 * i + 1] as number) - (times[2 * i] as number)) / 1000;
}

/** The count of tasks in a start/finish list. */
export function taskCount(times: readonly number[]): number {
  return times.length / 2;
}
