import type { SlowdownView } from '../model/job-views';
import { fitStretch, meanConcurrency, type Span, type StretchFit } from '../core/slowdown';
import type { Logger } from '../log';
import type { Ledger } from '../store/types';
import type { TaskReport } from '../yarn/model';
import { coresOf, type NodeCores } from './snapshot';

/**
 * How the sidecar's finished jobs' tasks stretched with the tasks running beside them, per label
 * partition (docs/estimates.md, "Capacity as the nodes deliver it"). The JobHistory server's task
 * list does not say which node ran a task, so concurrency is counted over the partition: every
 * task of the finished jobs kept here that ran at the same time, spread evenly over its nodes.
 * AMs are not counted: between a job's set-up and its commit they use little CPU, so the fit
 * comes out in cores. Shown under GET /api/v1/estimates; admission does not use it.
 */

/** Finished jobs kept per partition, and task spans at most (the oldest jobs go first). */
export const JOBS_KEPT = 200;
export const TASKS_KEPT = 4000;
/** The ledger value the spans are kept in (they survive a restart). */
export const SLOWDOWN_KEY = 'slowdown.spans';

const MB = 1024 * 1024;

/** One finished job's tasks, epoch seconds. */
export interface KeptJob {
  id: string;
  /** Its tasks: [start, end, group]. */
  tasks: Array<[number, number, string]>;
}

/** A finished job as learning sees it. */
export interface FinishedJob {
  id: string;
  /** Its label partition ('' the default one). */
  label: string;
  workloadClass: string;
  inputBytes: number;
  maps: number;
  reduces: number;
  /** Its class's intermediate/input ratio: a reduce's data is eta * input / R. */
  eta: number;
  tasks: readonly TaskReport[];
}

/**
 * The group of tasks expected to take the same time alone: the class, the stage and the task's
 * data, in bins a factor of sqrt(2) wide (no data: a bin of its own).
 */
export function taskGroup(workloadClass: string, stage: 'map' | 'reduce', mb: number): string {
  const bin = mb * MB < 1 ? 'none' : String(Math.round(Math.log2(mb) * 2));
  return `${workloadClass}|${stage}|${bin}`;
}

/** The task spans of a finished job, in epoch seconds; tasks not finished are left out. */
export function keptJob(job: FinishedJob): KeptJob {
  const inputMb = job.inputBytes / MB;
  const mapGroup = taskGroup(job.workloadClass, 'map', inputMb / Math.max(1, job.maps));
  const reduceGroup = taskGroup(job.workloadClass, 'reduce', (job.eta * inputMb) / Math.max(1, job.reduces));
  const tasks = job.tasks
    .filter((t) => t.startTime > 0 && t.finishTime >= t.startTime)
    .map((t): [number, number, string] => [
      t.startTime / 1000,
      t.finishTime / 1000,
      t.type === 'MAP' ? mapGroup : reduceGroup,
    ]);
  return { id: job.id, tasks };
}

export class SlowdownWatch {
  private jobs: Record<string, KeptJob[]>;
  private readonly fits = new Map<string, StretchFit>();
  private saveQueued = false;

  constructor(private readonly deps: { ledger: Ledger; log: Logger }) {
    this.jobs = this.load();
  }

  /** A finished job's tasks, kept in its partition (the oldest jobs leave past the bounds). */
  record(job: FinishedJob): void {
    const kept = keptJob(job);
    if (kept.tasks.length === 0) return;
    const list = [...(this.jobs[job.label] ?? []).filter((j) => j.id !== job.id), kept];
    let tasks = list.reduce((a, j) => a + j.tasks.length, 0);
    while (list.length > 1 && (list.length > JOBS_KEPT || tasks > TASKS_KEPT))
      tasks -= list.shift()!.tasks.length;
    this.jobs = { ...this.jobs, [job.label]: list };
    this.fits.delete(job.label);
    this.saveSoon();
  }

  /** The fit of one partition's kept tasks (computed once per change). */
  fit(label: string): StretchFit {
    const cached = this.fits.get(label);
    if (cached) return cached;
    const jobs = this.jobs[label] ?? [];
    const tasks = jobs.flatMap((j) => j.tasks);
    const spans = tasks.map(([start, end]): Span => ({ start, end }));
    const concurrent = meanConcurrency(spans, spans);
    const fit = fitStretch(
      tasks.map((t, i) => ({ group: t[2], seconds: t[1] - t[0], concurrent: concurrent[i]! })),
    );
    this.fits.set(label, fit);
    return fit;
  }

  /**
   * Per partition with kept jobs: the fit, per node (the partition's RUNNING nodes as last read),
   * and the admission.nodeCores it amounts to.
   */
  view(
    nodesOf: (label: string) => number | undefined,
    cores: NodeCores,
    containerVcores: number,
  ): SlowdownView {
    return {
      usedByAdmission: false,
      partitions: Object.keys(this.jobs)
        .filter((label) => this.jobs[label]!.length > 0)
        .sort()
        .map((label) => {
          const fit = this.fit(label);
          const nodes = nodesOf(label) ?? null;
          const perNode =
            fit.fullSpeedContainers === null || nodes === null || nodes < 1
              ? null
              : fit.fullSpeedContainers / nodes;
          return {
            label,
            nodes,
            jobs: this.jobs[label]!.length,
            tasks: this.jobs[label]!.reduce((a, j) => a + j.tasks.length, 0),
            fit,
            fullSpeedContainersPerNode: perNode,
            suggestedNodeCores: perNode === null ? null : Math.max(1, Math.floor(perNode * containerVcores)),
            nodeCores: coresOf(cores, label) ?? null,
          };
        }),
    };
  }

  private saveSoon(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    const { ledger, log } = this.deps;
    ledger
      .writeSoon(() => {
        this.saveQueued = false;
        ledger.setValue(SLOWDOWN_KEY, this.jobs);
      })
      .catch((err: unknown) => log.error('the task spans could not be saved', { error: String(err) }));
  }

  /** The kept spans, or none: a stored value that does not read back is logged and dropped. */
  private load(): Record<string, KeptJob[]> {
    const saved = this.deps.ledger.getValue<unknown>(SLOWDOWN_KEY);
    if (saved === undefined) return {};
    if (isKept(saved)) return saved;
    this.deps.log.warn('the saved task spans are unreadable; starting again without them');
    return {};
  }
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function isKept(v: unknown): v is Record<string, KeptJob[]> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  return Object.values(v).every(
    (list) =>
      Array.isArray(list) &&
      list.every(
        (j: Partial<KeptJob>) =>
          typeof j?.id === 'string' &&
          Array.isArray(j.tasks) &&
          j.tasks.every(
            (t) => Array.isArray(t) && isNumber(t[0]) && isNumber(t[1]) && typeof t[2] === 'string',
          ),
      ),
  );
}
