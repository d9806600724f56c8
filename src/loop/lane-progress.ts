import { predictedToMiss } from '../model/job-views';
import type { TaskProgress } from '../core/admission/common/progress';
import { laneFinishes } from '../core/lanes';
import { SidecarError } from '../errors/base';
import type { Logger } from '../log';
import type { JobRecord, Ledger } from '../store/types';
import type { AppReport, TaskReport } from '../yarn/model';
import { laneKeyOf, type Lane, type LaneBook } from './lanes';

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
 * Running admitted jobs as their AMs report them: overruns found, lanes rebuilt from their
 * running jobs' task progress, and each running job's predicted finish written from the rebuilt
 * lane (the core's placement made again at `now`, core/lanes laneFinishes).
 */
export class ProgressWatch {
  /** Running admitted jobs found past their estimated finish, each warned of once (detectOverruns). */
  private readonly overran = new Set<string>();
  /**
   * Jobs found past their estimate or their predicted finish in this cycle: predicted again when
   * their lane is rebuilt, whether their tasks could be read or not (then counted whole).
   */
  private readonly due = new Set<string>();
  /** Jobs whose AM could not be read, logged once each. */
  private readonly unavailable = new Set<string>();

  constructor(private readonly deps: ProgressWatchDeps) {}

  /** A job ended or was lost: forgotten. */
  forget(jobId: string): void {
    this.unavailable.delete(jobId);
    this.overran.delete(jobId);
    this.due.delete(jobId);
  }

  /** How many open admitted jobs run and are predicted to miss their deadline (predictedToMiss). */
  countPredictedToMiss(open: readonly JobRecord[] = this.deps.ledger.openAdmittedJobsReused()): number {
    let n = 0;
    for (const j of open) if (predictedToMiss(j)) n++;
    return n;
  }

  /**
   * Overruns (docs/estimates.md): a running admitted job past its estimated finish by more than
   * the feedback threshold shows its class's estimates were too low. Its lane is rebuilt from its
   * running jobs' task progress in this cycle (readLaneProgress), where a task past its estimate
   * keeps its slot (runningTaskEnd), so later submissions are judged against the delay the
   * overrun causes instead of slots the vectors count free, and the job's predicted finish is
   * the rebuilt lane's. The overrun is warned of once per job; its end then feeds the feedback
   * controller and learning as any job's does. A job still running past a predicted finish
   * later than its estimate, by more than the threshold, is predicted again the same way: its
   * prediction moves on while it runs instead of staying in the past.
   */
  detectOverruns(open: readonly JobRecord[] = this.deps.ledger.openAdmittedJobsReused()): void {
    const { lanes } = this.deps;
    const nowMs = this.deps.now();
    const thresholdMs = this.deps.feedbackThresholdSeconds * 1000;
    for (const j of open) {
      if (j.state !== 'running' || j.estimatedFinishMs === null) continue;
      const overEstimate = nowMs > j.estimatedFinishMs + thresholdMs && !this.overran.has(j.id);
      // A prediction later than the estimate (the job overran it): predicted again once past it.
      const overPrediction =
        j.predictedFinishMs !== null &&
        j.predictedFinishMs > j.estimatedFinishMs &&
        nowMs > j.predictedFinishMs + thresholdMs;
      if (!overEstimate && !overPrediction) continue;
      const lane = laneKeyOf(j);
      this.due.add(j.id);
      // Without the AMs' task progress the lane is rebuilt at once, every job counted whole.
      if (this.deps.runningAppTasks) lanes.toRead.add(lane);
      else {
        const known = lanes.get(lane);
        if (known) this.predict(lanes.rebuild(known.queue, known.label, known.containers), new Set([j.id]));
      }
      if (overEstimate) {
        this.overran.add(j.id);
        this.deps.log.warn('admitted job overran its estimate; its lane is rebuilt from task progress', {
          job: j.id,
          app: j.appId,
          lane,
          estimatedFinish: new Date(j.estimatedFinishMs).toISOString(),
          overSeconds: (nowMs - j.estimatedFinishMs) / 1000,
        });
      } else {
        this.deps.log.info('running job past its predicted finish; predicted again from task progress', {
          job: j.id,
          app: j.appId,
          lane,
          predictedFinish: new Date(j.predictedFinishMs!).toISOString(),
          overSeconds: (nowMs - j.predictedFinishMs!) / 1000,
        });
      }
    }
  }

  /**
   * Rebuilds the lanes marked since the last cycle with their running jobs' progress: for each
   * open admitted job the RM reports RUNNING, its tasks from the AM. When an AM cannot be read
   * (404, a proxy redirect because the app just ended, a timeout, a non-MapReduce app), the job
   * counts whole, and that is logged once per job. Each running job whose tasks were read, and
   * each found past its estimate or its prediction (read or not), gets the finish the rebuilt
   * lane places it at as its predicted finish.
   */
  async readLaneProgress(apps: readonly AppReport[]): Promise<void> {
    const { lanes } = this.deps;
    if (lanes.toRead.size === 0) return;
    const keys = new Set(lanes.toRead);
    lanes.toRead.clear();
    if (!this.deps.runningAppTasks) {
      this.due.clear();
      return;
    }
    const byId = new Map(apps.map((a) => [a.id, a]));
    const running = this.deps.ledger
      .openAdmittedJobsReused()
      .filter((j) => keys.has(laneKeyOf(j)))
      .map((j) => ({ job: j, app: j.appId === null ? undefined : byId.get(j.appId) }))
      .filter((x): x is { job: JobRecord; app: AppReport } => x.app?.state === 'RUNNING');
    const tasks = await this.readTasks(running);
    // Rebuilt from the ledger as it is now: jobs admitted while the AMs were read are included.
    const predicted = new Set([...tasks.keys(), ...this.due]);
    this.due.clear();
    for (const key of keys) {
      const lane = lanes.get(key);
      if (!lane || !lanes.fromProgress) continue;
      const rebuilt = lanes.rebuild(lane.queue, lane.label, lane.containers, tasks);
      const r = rebuilt.rebuild;
      if (r.jobs > 0) this.deps.log.info('lane rebuilt from task progress', { lane: key, ...r });
      this.predict(rebuilt, predicted);
    }
  }

  /**
   * Writes the predicted finish of each running job of `ids` in a lane just rebuilt: its finish
   * in the lane's new state (core/lanes laneFinishes), to the millisecond, where it changed. A
   * lane whose policy keeps no finish per job (dc, yarn-greedy) predicts nothing: the API then
   * shows the estimate.
   */
  private predict(lane: Lane, ids: ReadonlySet<string>): void {
    const finishes = laneFinishes(lane);
    if (finishes.size === 0) return;
    const { ledger } = this.deps;
    const changed: Array<[string, number]> = [];
    for (const j of ledger.openAdmittedJobsReused()) {
      const at = finishes.get(j.id);
      if (at === undefined || j.state !== 'running' || !ids.has(j.id)) continue;
      const ms = Math.round(at * 1000);
      if (ms !== j.predictedFinishMs) changed.push([j.id, ms]);
    }
    if (changed.length === 0) return;
    ledger.transaction(() => {
      for (const [id, ms] of changed) ledger.updateJob(id, { predictedFinishMs: ms });
    });
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
