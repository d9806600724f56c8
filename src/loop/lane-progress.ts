import type { TaskProgress } from '../core/admission/progress';
import { SidecarError } from '../errors/base';
import type { Logger } from '../log';
import type { JobRecord, Ledger } from '../store/types';
import type { AppReport, TaskReport } from '../yarn/model';
import { laneKeyOf, type LaneBook } from './lanes';

/** AMs read at once when lanes are rebuilt: a slow AM holds one of these, not the whole cycle. */
const AM_READS_AT_ONCE = 4;

/** An AM task report in core terms: SUCCEEDED is done, RUNNING runs since its start, the rest wait. */
export function taskProgress(t: TaskReport): TaskProgress {
  return {
    kind: t.type === 'MAP' ? 'map' : 'reduce',
    state: t.state === 'SUCCEEDED' ? 'done' : t.state === 'RUNNING' ? 'running' : 'pending',
    start: t.startTime > 0 ? t.startTime / 1000 : -1,
  };
}

export interface ProgressWatchDeps {
  ledger: Ledger;
  lanes: LaneBook;
  log: Logger;
  now: () => number;
  feedbackThresholdSeconds: number;
  /** The tasks of a running MapReduce app, from its AM (SidecarDeps.runningAppTasks). */
  runningAppTasks?: (appId: string) => Promise<readonly TaskReport[]>;
}

/**
 * Running admitted jobs as their AMs report them: overruns found, and lanes rebuilt from their
 * running jobs' task progress.
 */
export class ProgressWatch {
  /** Running admitted jobs found past their estimated finish, each handled once (detectOverruns). */
  private readonly overran = new Set<string>();
  /** Jobs whose AM could not be read, logged once each. */
  private readonly unavailable = new Set<string>();

  constructor(private readonly deps: ProgressWatchDeps) {}

  /** A job ended or was lost: forgotten. */
  forget(jobId: string): void {
    this.unavailable.delete(jobId);
    this.overran.delete(jobId);
  }

  /**
   * Overruns (docs/estimates.md): a running admitted job past its estimated finish by more than
   * the feedback threshold shows its class's estimates were too low. Its lane is rebuilt from its
   * running jobs' task progress in this cycle (readLaneProgress), where a task past its estimate
   * keeps its slot (runningTaskEnd), so later submissions are judged against the delay the
   * overrun causes instead of slots the vectors count free. Each job is handled once; its end
   * then feeds the feedback controller and learning as any job's does.
   */
  detectOverruns(open: readonly JobRecord[] = this.deps.ledger.openAdmittedJobsReused()): void {
    const { lanes } = this.deps;
    const nowMs = this.deps.now();
    const thresholdMs = this.deps.feedbackThresholdSeconds * 1000;
    for (const j of open) {
      if (j.state !== 'running' || j.estimatedFinishMs === null || this.overran.has(j.id)) continue;
      if (nowMs <= j.estimatedFinishMs + thresholdMs) continue;
      this.overran.add(j.id);
      const lane = laneKeyOf(j);
      const known = lanes.get(lane);
      // Without the AMs' task progress the lane is rebuilt at once, every job counted whole.
      if (this.deps.runningAppTasks) lanes.toRead.add(lane);
      else if (known) lanes.rebuild(known.queue, known.label, known.containers);
      this.deps.log.warn('admitted job overran its estimate; its lane is rebuilt from task progress', {
        job: j.id,
        app: j.appId,
        lane,
        estimatedFinish: new Date(j.estimatedFinishMs).toISOString(),
        overSeconds: (nowMs - j.estimatedFinishMs) / 1000,
      });
    }
  }

  /**
   * Rebuilds the lanes marked since the last cycle with their running jobs' progress: for each
   * open admitted job the RM reports RUNNING, its tasks from the AM. When an AM cannot be read
   * (404, a proxy redirect because the app just ended, a timeout, a non-MapReduce app), the job
   * counts whole, and that is logged once per job.
   */
  async readLaneProgress(apps: readonly AppReport[]): Promise<void> {
    const { lanes } = this.deps;
    if (lanes.toRead.size === 0) return;
    const keys = new Set(lanes.toRead);
    lanes.toRead.clear();
    if (!this.deps.runningAppTasks) return;
    const byId = new Map(apps.map((a) => [a.id, a]));
    const running = this.deps.ledger
      .openAdmittedJobsReused()
      .filter((j) => keys.has(laneKeyOf(j)))
      .map((j) => ({ job: j, app: j.appId === null ? undefined : byId.get(j.appId) }))
      .filter((x): x is { job: JobRecord; app: AppReport } => x.app?.state === 'RUNNING');
    const tasks = await this.readTasks(running);
    // Rebuilt from the ledger as it is now: jobs admitted while the AMs were read are included.
    for (const key of keys) {
      const lane = lanes.get(key);
      if (!lane || !lanes.fromProgress) continue;
      const r = lanes.rebuild(lane.queue, lane.label, lane.containers, tasks).rebuild;
      if (r.jobs > 0) this.deps.log.info('lane rebuilt from task progress', { lane: key, ...r });
    }
  }

  /** The running jobs' tasks from their AMs, a few at once; a job whose AM fails is left out. */
  private async readTasks(
    running: ReadonlyArray<{ job: JobRecord; app: AppReport }>,
  ): Promise<Map<string, readonly TaskProgress[]>> {
    const reader = this.deps.runningAppTasks!;
    const tasks = new Map<string, readonly TaskProgress[]>();
    const read = async ({ job, app }: { job: JobRecord; app: AppReport }): Promise<void> => {
      let reason: string;
      if (app.applicationType.toUpperCase() !== 'MAPREDUCE') {
        reason = `not a MapReduce app (${app.applicationType})`;
      } else {
        try {
          tasks.set(job.id, (await reader(app.id)).map(taskProgress));
          return;
        } catch (err) {
          reason = err instanceof SidecarError ? `${err.code}: ${err.message}` : String(err);
        }
      }
      if (this.unavailable.has(job.id)) return;
      this.unavailable.add(job.id);
      this.deps.log.info('task progress unavailable; the job counts whole', {
        job: job.id,
        app: app.id,
        reason,
      });
    };
    for (let i = 0; i < running.length; i += AM_READS_AT_ONCE)
      await Promise.all(running.slice(i, i + AM_READS_AT_ONCE).map(read));
    return tasks;
  }
}
