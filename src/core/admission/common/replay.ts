import { absoluteDeadline, type DeadlineJob } from '../../job';
import { laneSizes, type SlotModel } from '../../slots/model';
import { dispatchDispatchable, type DispatchRule } from './replay-rule';
import type { AdmissionPolicy } from './types';

/** A job to replay, with the run time each of its tasks will actually take. */
export interface ReplayJob {
  readonly job: DeadlineJob;
  readonly mapSeconds: readonly number[];
  readonly reduceSeconds: readonly number[];
}

export interface ReplayOutcome {
  readonly jobId: string;
  readonly admitted: boolean;
  readonly deadline: number;
  readonly estimatedFinish?: number;
  readonly finishedAt?: number;
}

export interface ReplayResult<S> {
  readonly outcomes: readonly ReplayOutcome[];
  readonly state: S;
  /** Admitted jobs that finished after A + D (beyond `toleranceSeconds`). */
  readonly misses: readonly ReplayOutcome[];
}

interface Running {
  readonly end: number;
  readonly lane: number;
  readonly jobId: string;
  readonly kind: 'map' | 'reduce';
}

interface Progress {
  readonly rj: ReplayJob;
  pendingMaps: number;
  runningMaps: number;
  pendingReduces: number;
  runningReduces: number;
  readonly mapFinishes: number[];
  readonly reduceFinishes: number[];
  started: boolean;
}

/**
 * A compact event loop over slots (not a cluster simulator): jobs arrive and are put to the
 * policy at their arrival time; admitted jobs' tasks are dispatched whenever a slot is free,
 * in the policy's queue order, under the reservation rule (Alg. 5.4 and its unified form);
 * a finished job is reported back (feedback, Alg. 5.5, where the policy has one). At one
 * instant: finishes first, then arrivals, then dispatch. Pure: same input, same output.
 */
export function replay<S>(
  policy: AdmissionPolicy<S>,
  initial: S,
  model: SlotModel,
  jobs: readonly ReplayJob[],
  options: { toleranceSeconds?: number; rule?: DispatchRule } = {},
): ReplayResult<S> {
  const tol = options.toleranceSeconds ?? 1e-6;
  let state = initial;
  const arrivals = [...jobs].sort((a, b) => a.job.arrival - b.job.arrival);
  const free = laneSizes(model);
  let running: Running[] = [];
  const progress = new Map<string, Progress>();
  const outcomes = new Map<string, ReplayOutcome>();
  let ai = 0;
  for (;;) {
    let t = ai < arrivals.length ? arrivals[ai]!.job.arrival : Infinity;
    for (const r of running) if (r.end < t) t = r.end;
    if (t === Infinity) break;
    // Finishes at t.
    const done = running.filter((r) => r.end <= t);
    running = running.filter((r) => r.end > t);
    for (const r of done) {
      free[r.lane]!++;
      const p = progress.get(r.jobId)!;
      if (r.kind === 'map') {
        p.runningMaps--;
        p.mapFinishes.push(r.end);
      } else {
        p.runningReduces--;
        p.reduceFinishes.push(r.end);
      }
      if (p.pendingMaps + p.runningMaps + p.pendingReduces + p.runningReduces === 0) {
        progress.delete(r.jobId);
        outcomes.set(r.jobId, { ...outcomes.get(r.jobId)!, finishedAt: r.end });
        state = policy.complete(
          state,
          r.jobId,
          { mapFinishTimes: p.mapFinishes, reduceFinishTimes: p.reduceFinishes, finishedAt: r.end },
          t,
        );
      }
    }
    // Arrivals at t.
    while (ai < arrivals.length && arrivals[ai]!.job.arrival === t) {
      const rj = arrivals[ai++]!;
      const res = policy.admit(state, rj.job, t, { searchEarliest: false });
      const deadline = absoluteDeadline(rj.job);
      if (res.admitted) {
        state = res.state;
        outcomes.set(rj.job.id, {
          jobId: rj.job.id,
          admitted: true,
          deadline,
          estimatedFinish: res.estimatedFinish,
        });
        progress.set(rj.job.id, {
          rj,
          pendingMaps: rj.job.maps,
          runningMaps: 0,
          pendingReduces: rj.job.reduces,
          runningReduces: 0,
          mapFinishes: [],
          reduceFinishes: [],
          started: false,
        });
      } else outcomes.set(rj.job.id, { jobId: rj.job.id, admitted: false, deadline });
    }
    // Dispatch onto free slots.
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (let lane = 0; lane < free.length; lane++) {
        while (free[lane]! > 0) {
          const view = policy
            .queue(state)
            .filter((j) => progress.has(j.id))
            .map((j) => {
              const p = progress.get(j.id)!;
              return {
                id: j.id,
                pendingMaps: p.pendingMaps,
                runningMaps: p.runningMaps,
                pendingReduces: p.pendingReduces,
              };
            });
          const choice = dispatchDispatchable(options.rule, model, lane, view, free[lane]!);
          if (choice === null) break;
          const p = progress.get(choice.jobId)!;
          let secs: number;
          if (choice.kind === 'map') {
            secs = p.rj.mapSeconds[p.rj.job.maps - p.pendingMaps]!;
            p.pendingMaps--;
            p.runningMaps++;
            if (!p.started) {
              p.started = true;
              state = policy.markStarted(state, choice.jobId);
            }
          } else {
            secs = p.rj.reduceSeconds[p.rj.job.reduces - p.pendingReduces]!;
            p.pendingReduces--;
            p.runningReduces++;
          }
          running.push({ end: t + secs, lane, jobId: choice.jobId, kind: choice.kind });
          free[lane]!--;
          progressed = true;
        }
      }
    }
  }
  const all = jobs.map((j) => outcomes.get(j.job.id)!);
  const misses = all.filter(
    (o) => o.admitted && (o.finishedAt === undefined || o.finishedAt > o.deadline + tol),
  );
  return { outcomes: all, state, misses };
}
