import { snapshotFromProgress, type ProgressedJob } from '../admission/common/progress';
import type { ClusterSnapshot, RtmrState } from '../admission/rtmr/state';
import type { AdmissionPolicy, AdmissionResult, AdmitOptions, JobActuals } from '../admission/common/types';
import type { Estimates } from '../estimates';
import type { DeadlineJob } from '../job';
import type { JobType } from '../kinds';
import type { SlotModel } from '../slots/model';

/**
 * Admission lanes, shared by the simulator and the live sidecar. A lane is one instance of an
 * admission policy sized to the containers of one kind (CPU or GPU, a label partition on YARN),
 * with its own state: a GPU-only job can only run in GPU containers, so admitting it against the
 * whole pool would count containers it can never use. A job is admitted in one lane, the first
 * of its candidates (laneKindsFor) that admits it, and from then on its start, end or departure
 * concern that lane alone.
 */
export interface Lane {
  readonly policy: AdmissionPolicy<unknown>;
  state: unknown;
}

/** One lane to try a job in: the lane, and the job as that lane judges it (any fields more). */
export interface LaneCandidate<L extends Lane = Lane> {
  readonly lane: L;
  readonly job: DeadlineJob;
}

/** A candidate tried, with the policy's answer there. */
export type LaneTry<T extends LaneCandidate> = T & { readonly result: AdmissionResult<unknown> };

/**
 * The kinds of container a job type may run in, in the order tried: a CPU job in CPU lanes, a
 * GPU-only job in GPU lanes, an adaptive job in both, the CPU lane first unless `gpuFirst` (its
 * map costs less energy on a GPU).
 */
export function laneKindsFor(jobType: JobType | string, gpuFirst = false): Array<'cpu' | 'gpu'> {
  if (jobType === 'cpu') return ['cpu'];
  if (jobType === 'gpu') return ['gpu'];
  return gpuFirst ? ['gpu', 'cpu'] : ['cpu', 'gpu'];
}

/**
 * Tries a job in each candidate lane, in order, until one admits it. No lane's state changes
 * here: the caller adopts `admitted.result.state` (the sidecar only once its decision is
 * recorded). `onRejected` sees each rejection as it happens, before the next lane is tried.
 */
export function admitInLanes<T extends LaneCandidate>(
  tries: readonly T[],
  now: number,
  options?: AdmitOptions,
  onRejected?: (t: LaneTry<T>) => void,
): { admitted: LaneTry<T> | null; rejected: Array<LaneTry<T>> } {
  const rejected: Array<LaneTry<T>> = [];
  for (const t of tries) {
    const { lane, job } = t;
    const result =
      options === undefined
        ? lane.policy.admit(lane.state, job, now)
        : lane.policy.admit(lane.state, job, now, options);
    const tried = { ...t, result };
    if (result.admitted) return { admitted: tried, rejected };
    rejected.push(tried);
    onRejected?.(tried);
  }
  return { admitted: null, rejected };
}

/** The rejection whose earliest admissible deadline is soonest (the first on a tie). */
export function soonestRejection<T extends LaneCandidate>(
  rejected: ReadonlyArray<LaneTry<T>>,
): LaneTry<T> | undefined {
  const at = (t: LaneTry<T>) =>
    t.result.admitted
      ? Number.POSITIVE_INFINITY
      : (t.result.earliestAdmissibleDeadline ?? Number.POSITIVE_INFINITY);
  return [...rejected].sort((a, b) => at(a) - at(b))[0];
}

/** A job of the lane started running. */
export function laneStarted(lane: Lane, jobId: string): void {
  lane.state = lane.policy.markStarted(lane.state, jobId);
}

/** A job of the lane finished: with its actual task times (feedback), or it just leaves. */
export function laneFinished(lane: Lane, jobId: string, actuals: JobActuals | undefined, now: number): void {
  lane.state = actuals
    ? lane.policy.complete(lane.state, jobId, actuals, now)
    : lane.policy.leave(lane.state, jobId, now);
}

/** A job leaves the lane without finishing (killed, lost, refused by the RM). */
export function laneLeft(lane: Lane, jobId: string, now: number): void {
  lane.state = lane.policy.leave(lane.state, jobId, now);
}

/** Each queued job's position in its lane's queue, 0 first. */
export function queueRanks(lane: Lane): Map<string, number> {
  return new Map(lane.policy.queue(lane.state).map((j, i) => [j.id, i]));
}

/** A policy that can rebuild its state from a snapshot of a running cluster (RTMR's vectors). */
export interface SnapshotPolicy<S = unknown> extends AdmissionPolicy<S> {
  fromSnapshot(snapshot: ClusterSnapshot): S;
}

export function takesSnapshot(p: AdmissionPolicy<unknown>): p is SnapshotPolicy {
  return typeof (p as Partial<SnapshotPolicy>).fromSnapshot === 'function';
}

/**
 * A lane's state rebuilt from its open jobs. A policy with a snapshot rebuild counts each job's
 * work still to come (its progress when known, else whole: core/admission/common/progress.ts); the
 * others (dc, yarn-greedy) re-admit each job whole, in order, without the earliest-deadline search.
 * `heldUntil` (slots other queues hold, and when each returns) reaches only a snapshot policy;
 * the caller sizes the others' lanes without the held slots.
 */
export function rebuildLaneState(
  policy: AdmissionPolicy<unknown>,
  model: SlotModel,
  estimates: Estimates,
  now: number,
  jobs: readonly ProgressedJob[],
  heldUntil: readonly number[] = [],
): unknown {
  if (takesSnapshot(policy))
    return policy.fromSnapshot(snapshotFromProgress(model, estimates, now, jobs, heldUntil));
  let state = policy.initialState(now);
  for (const { job } of jobs) state = policy.admit(state, job, now, { searchEarliest: false }).state;
  return state;
}

/**
 * Each queued job's finish as the lane's state places it now (seconds on the caller's clock):
 * the record J.e of every entry of a policy on RTMR's slot vectors. Read after the lane was
 * rebuilt from its jobs' progress at `now` (rebuildLaneState with each job's JobProgress), this
 * is a running job's predicted finish: its finished tasks count no more, a running one holds its
 * slot until runningTaskEnd (past its estimate: up to twice it, then one more estimate from
 * `now`), its pending ones take their whole estimates, placed behind the jobs that started
 * before it, and its commit follows its last task. A job no task of which was read counts whole
 * from `now`. Empty for a policy whose state keeps no finish per job (dc, yarn-greedy).
 *
 * Worked example (test/core/lanes.test.ts): 2 maps of 10 s and a reduce of 20 s, admitted at 0
 * on free slots (estimated finish 30); both maps done and the reduce running since 70: at 75
 * the reduce is within its estimate and ends at 90; at 100 it has overrun and ends at
 * 70 + 2 * 20 = 110; at 120, past that too, at 120 + 20 = 140.
 */
export function laneFinishes(lane: Lane): Map<string, number> {
  const state = lane.state as Partial<RtmrState> | null;
  if (!takesSnapshot(lane.policy) || state?.kind !== 'rtmr' || state.entries === undefined) return new Map();
  return new Map(state.entries.map((e) => [e.job.id, e.finish]));
}
