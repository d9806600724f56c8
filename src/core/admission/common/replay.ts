import { absoluteDeadline, type DeadlineJob } from '../../job';
import { laneSizes, type SlotModel } from '../../slots/model';
import type { DispatchChoice, DispatchJobView } from './dispatch';
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

/** The event loop between instants: the policy's state, the free slots, what runs, each job's fate. */
interface Loop<S> {
  readonly policy: AdmissionPolicy<S>;
  readonly model: SlotModel;
  readonly rule: DispatchRule | undefined;
  state: S;
  /** Free slots per lane. */
  readonly free: number[];
  running: Running[];
  /** The admitted jobs not finished yet. */
  readonly progress: Map<string, Progress>;
  readonly outcomes: Map<string, ReplayOutcome>;
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
  const arrivals = [...jobs].sort((a, b) => a.job.arrival - b.job.arrival);
  const loop: Loop<S> = {
    policy,
    model,
    rule: options.rule,
    state: initial,
    free: laneSizes(model),
    running: [],
    progress: new Map(),
    outcomes: new Map(),
  };
  let ai = 0;
  for (;;) {
    let t = ai < arrivals.length ? arrivals[ai]!.job.arrival : Infinity;
    for (const r of loop.running) if (r.end < t) t = r.end;
    if (t === Infinity) break;
    finishTasks(loop, t);
    while (ai < arrivals.length && arrivals[ai]!.job.arrival === t) admitArrival(loop, arrivals[ai++]!, t);
    dispatch(loop, t);
  }
  const all = jobs.map((j) => loop.outcomes.get(j.job.id)!);
  const misses = all.filter(
    (o) => o.admitted && (o.finishedAt === undefined || o.finishedAt > o.deadline + tol),
  );
  return { outcomes: all, state: loop.state, misses };
}

/** The tasks ending at `t` free their slots; a job whose last task ended is reported back. */
function finishTasks<S>(loop: Loop<S>, t: number): void {
  const done = loop.running.filter((r) => r.end <= t);
  loop.running = loop.running.filter((r) => r.end > t);
  for (const r of done) {
    loop.free[r.lane]!++;
    const p = loop.progress.get(r.jobId)!;
    if (r.kind === 'map') {
      p.runningMaps--;
      p.mapFinishes.push(r.end);
    } else {
      p.runningReduces--;
      p.reduceFinishes.push(r.end);
    }
    if (p.pendingMaps + p.runningMaps + p.pendingReduces + p.runningReduces === 0) {
      loop.progress.delete(r.jobId);
      loop.outcomes.set(r.jobId, { ...loop.outcomes.get(r.jobId)!, finishedAt: r.end });
      const actuals = {
        mapFinishTimes: p.mapFinishes,
        reduceFinishTimes: p.reduceFinishes,
        finishedAt: r.end,
      };
      loop.state = loop.policy.complete(loop.state, r.jobId, actuals, t);
    }
  }
}

/** A job arriving at `t` put to the policy (Alg. 5.1); admitted, its tasks wait for slots. */
function admitArrival<S>(loop: Loop<S>, rj: ReplayJob, t: number): void {
  const res = loop.policy.admit(loop.state, rj.job, t, { searchEarliest: false });
  const deadline = absoluteDeadline(rj.job);
  if (!res.admitted) {
    loop.outcomes.set(rj.job.id, { jobId: rj.job.id, admitted: false, deadline });
    return;
  }
  loop.state = res.state;
  loop.outcomes.set(rj.job.id, {
    jobId: rj.job.id,
    admitted: true,
    deadline,
    estimatedFinish: res.estimatedFinish,
  });
  loop.progress.set(rj.job.id, {
    rj,
    pendingMaps: rj.job.maps,
    runningMaps: 0,
    pendingReduces: rj.job.reduces,
    runningReduces: 0,
    mapFinishes: [],
    reduceFinishes: [],
    started: false,
  });
}

/** Free slots given tasks in the policy's queue order under the dispatch rule, until none takes one. */
function dispatch<S>(loop: Loop<S>, t: number): void {
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (let lane = 0; lane < loop.free.length; lane++) {
      while (loop.free[lane]! > 0) {
        const choice = dispatchDispatchable(loop.rule, loop.model, lane, queueView(loop), loop.free[lane]!);
        if (choice === null) break;
        startTask(loop, choice, lane, t);
        progressed = true;
      }
    }
  }
}

/** The policy's queue as the dispatch rule sees it: the admitted jobs not finished, in order. */
function queueView<S>(loop: Loop<S>): DispatchJobView[] {
  return loop.policy
    .queue(loop.state)
    .filter((j) => loop.progress.has(j.id))
    .map((j) => {
      const p = loop.progress.get(j.id)!;
      return {
        id: j.id,
        pendingMaps: p.pendingMaps,
        runningMaps: p.runningMaps,
        pendingReduces: p.pendingReduces,
      };
    });
}

/** The chosen task runs on a slot of `lane` from `t` for its actual time; a job's first map starts it. */
function startTask<S>(loop: Loop<S>, choice: DispatchChoice, lane: number, t: number): void {
  const p = loop.progress.get(choice.jobId)!;
  let secs: number;
  if (choice.kind === 'map') {
    secs = p.rj.mapSeconds[p.rj.job.maps - p.pendingMaps]!;
    p.pendingMaps--;
    p.runningMaps++;
    if (!p.started) {
      p.started = true;
      loop.state = loop.policy.markStarted(loop.state, choice.jobId);
    }
  } else {
    secs = p.rj.reduceSeconds[p.rj.job.reduces - p.pendingReduces]!;
    p.pendingReduces--;
    p.runningReduces++;
  }
  loop.running.push({ end: t + secs, lane, jobId: choice.jobId, kind: choice.kind });
  loop.free[lane]!--;
}
