import { SidecarMetrics } from '../api/metrics';
import type { SidecarConfig } from '../config/schema';
import type { AdmissionPolicy } from '../core/admission/types';
import type { Estimates } from '../core/estimates';
import type { DeadlineJob } from '../core/job';
import type { EstimateFrom } from '../core/profiles';
import { defaultRegistry } from '../core/registry';
import { silentLogger } from '../log';
import { EstimateKeeper, type JobFields } from '../loop/learning';
import { SqliteLedger } from '../store/ledger';
import type { JobRecord } from '../store/types';
import type { TaskReport } from '../yarn/model';
import { taskCount, type HistoryJob } from './history';

/**
 * What the sidecar would have judged each job of a history with at its arrival, learned only
 * from the jobs that finished before it (docs/replay.md, "No peeking"): the sidecar's own
 * EstimateKeeper (src/loop/learning.ts: its classes' figures and the profiles of recurring jobs,
 * src/core/profiles.ts), on a ledger that keeps nothing (throwawayLedger), fed in time order. At each arrival every job
 * finished by then is learned first, in the order they finished, as the live sidecar learns
 * them from the JobHistory server; then the job is judged.
 *
 * A profile learns a run's error (actual / estimated duration, the factor taken out) as the
 * sidecar does; the estimate a run is compared with is its estimate alone on the cluster (an
 * empty lane of RTMR with its figures), the same for every policy the replay then runs.
 */

export interface JudgedAtArrival {
  /** The figures it is judged with (its profile's times its factor, or its class's times the margin). */
  readonly estimates: Estimates;
  /** Where they came from; undefined under the papers' model (no profiles). */
  readonly from: EstimateFrom | undefined;
  /** Its duration estimated alone on the cluster's containers, seconds (null: not admissible even alone). */
  readonly aloneSeconds: number | null;
}

const NO_DEADLINE_MS = 1e15;

/**
 * The keeper's ledger for a replay: an empty one in memory that keeps nothing the keeper writes
 * (the decisions it records, the figures it saves), since nothing outlives the replay. Every
 * read answers as an empty ledger does; a write is done with at once. A history of 100,000 jobs
 * then holds no row, and no write waits for the event loop.
 */
export function throwawayLedger(): SqliteLedger {
  const ledger = SqliteLedger.open(':memory:');
  return new Proxy(ledger, {
    get(target, prop, receiver) {
      if (prop === 'writeSoon') return () => Promise.resolve();
      if (prop === 'recordDecision') return () => 0;
      if (prop === 'setValue') return () => undefined;
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** A history job as the ledger row the keeper judges and learns (its spec says what it knows). */
function recordOf(j: HistoryJob, judged?: { from?: EstimateFrom; aloneSeconds: number | null }): JobRecord {
  const maps = taskCount(j.maps);
  return {
    id: j.id,
    name: j.name,
    user: j.user,
    submitter: j.user,
    source: 'discovered',
    jobType: j.jobType,
    maps,
    reduces: taskCount(j.reduces),
    inputBytes: j.inputBytes,
    arrivalMs: j.submitMs,
    deadlineMs: j.submitMs + NO_DEADLINE_MS,
    decision: 'admitted',
    reason: null,
    estimatedFinishMs:
      judged?.aloneSeconds === null || judged === undefined ? null : j.submitMs + judged.aloneSeconds * 1000,
    predictedFinishMs: null,
    earliestDeadlineMs: null,
    queue: j.queue,
    label: null,
    priority: null,
    appId: j.appId,
    state: 'finished',
    outcome: null,
    finishedMs: j.finishMs,
    energyJoules: null,
    spec: {
      name: j.name,
      user: j.user,
      ...(j.workloadClass !== undefined ? { workloadClass: j.workloadClass } : {}),
      ...(j.mapBytes !== null && j.mapBytes.length === maps ? { splitBytes: j.mapBytes } : {}),
      ...(judged?.from !== undefined ? { estimateFrom: judged.from, profileKey: judged.from.profile } : {}),
    },
    createdMs: j.submitMs,
    updatedMs: j.finishMs,
  };
}

/** A history job's tasks as the JobHistory server's task list (what the keeper learns from). */
function taskReports(j: HistoryJob): TaskReport[] {
  const out: TaskReport[] = [];
  const add = (times: readonly number[], type: 'MAP' | 'REDUCE') => {
    for (let i = 0; i < times.length; i += 2) {
      const startTime = times[i] as number;
      const finishTime = times[i + 1] as number;
      out.push({
        id: `${type === 'MAP' ? 'm' : 'r'}${i / 2}`,
        type,
        state: 'SUCCEEDED',
        startTime,
        finishTime,
        elapsedTime: finishTime - startTime,
        progress: 100,
        successfulAttempt: '',
      });
    }
  };
  add(j.maps, 'MAP');
  add(j.reduces, 'REDUCE');
  return out;
}

export interface ArrivalLearning {
  readonly config: SidecarConfig;
  /** Containers a job is estimated alone on (the cluster's CPU containers). */
  readonly containers: number;
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Each job's figures as of its arrival (see the module's comment), in the order of `jobs`
 * (which must be in submission order).
 */
export function judgeAtArrival(jobs: readonly HistoryJob[], o: ArrivalLearning): JudgedAtArrival[] {
  let nowMs = 0;
  const ledger = throwawayLedger();
  try {
    const keeper = new EstimateKeeper({
      config: o.config,
      ledger,
      metrics: new SidecarMetrics(),
      log: silentLogger(),
      now: () => nowMs,
    });
    const policy = defaultRegistry().createAdmission('rtmr', {
      slotModel: { name: 'unified', containers: Math.max(1, o.containers) },
      estimates: keeper.book.default,
    }) as AdmissionPolicy<unknown>;
    const finishOrder = jobs.map((_, i) => i).sort((a, b) => jobs[a]!.finishMs - jobs[b]!.finishMs || a - b);
    const judged: Array<JudgedAtArrival | undefined> = new Array(jobs.length);
    let f = 0;
    const out: JudgedAtArrival[] = [];
    jobs.forEach((j, i) => {
      if (i > 0 && j.submitMs < jobs[i - 1]!.submitMs)
        throw new RangeError('jobs must be in submission order');
      // Everything finished by this arrival is learned first, in the order it finished.
      while (f < finishOrder.length && jobs[finishOrder[f]!]!.finishMs <= j.submitMs) {
        const k = finishOrder[f++]!;
        const done = jobs[k]!;
        nowMs = done.finishMs;
        learn(keeper, done, judged[k]);
        judged[k] = undefined;
      }
      nowMs = j.submitMs;
      const fields: JobFields = recordOf(j);
      const { job, from } = keeper.judge(fields);
      const result: JudgedAtArrival = {
        estimates: job.estimates as Estimates,
        from,
        aloneSeconds: alone(policy, job),
      };
      judged[i] = result;
      out.push(result);
      if (i % 500 === 0) o.onProgress?.(i, jobs.length);
    });
    o.onProgress?.(jobs.length, jobs.length);
    return out;
  } finally {
    ledger.close();
  }
}

/** One finished job learned, as the sidecar learns it: a MapReduce job from its tasks, a Spark app from its times. */
function learn(keeper: EstimateKeeper, j: HistoryJob, judged: JudgedAtArrival | undefined): void {
  const record = recordOf(j, judged && { from: judged.from, aloneSeconds: judged.aloneSeconds });
  if (j.source === 'jobhistory') {
    keeper.learnFrom(
      record,
      { finishedTime: j.finishMs, startedTime: j.appStartMs ?? j.submitMs },
      taskReports(j),
    );
  } else if (j.applicationType.toUpperCase() === 'SPARK') {
    keeper.learnSpark(record, {
      startedMs: j.submitMs,
      finishedMs: j.finishMs,
      ...(j.launchMs !== undefined ? { launchMs: j.launchMs } : {}),
    });
  }
}

/** The job's duration estimated alone on an empty lane (seconds), null when even that is refused. */
function alone(policy: AdmissionPolicy<unknown>, job: DeadlineJob): number | null {
  const r = policy.admit(policy.initialState(job.arrival), { ...job, deadline: 1e12 }, job.arrival, {
    searchEarliest: false,
  });
  return r.admitted ? r.estimatedFinish - job.arrival : null;
}
