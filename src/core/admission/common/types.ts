import type { DeadlineJob } from '../../job';

/** Why a job was refused. Data, not an exception: the API renders it to the user as is. */
export interface RejectReason {
  readonly kind:
    | 'new-job-misses'
    | 'admitted-job-would-miss'
    | 'dc-too-many-reduces'
    | 'dc-no-time-for-maps'
    | 'dc-map-slots-unavailable'
    | 'dc-reduce-slots-unavailable'
    /** yarn-greedy: planning the job would visit more plan steps than one test may. */
    | 'plan-budget-exceeded'
    /**
     * No slot the job's tasks can run in exists (a CPU job on `mr1` whose map slots all hold a
     * GPU, say): it could never start, whatever its deadline. `slotsNeeded` names the lane.
     */
    | 'no-usable-slots';
  /** The job whose deadline would be missed (the new one, or an admitted one). */
  readonly jobId: string;
  /** That job's absolute deadline A + D, seconds. */
  readonly deadline: number;
  /** Its estimated finish if the new job were admitted (null where the test has no estimate). */
  readonly estimatedFinish: number | null;
  /** estimatedFinish - deadline (null with estimatedFinish). */
  readonly lateBySeconds: number | null;
  /** For the DC kinds: slots needed and free at the instant the test looked. */
  readonly slotsNeeded?: number;
  readonly slotsFree?: number;
  /** For `no-usable-slots`: the kind of slot the job would need and has none of. */
  readonly lane?: 'cpu map' | 'gpu map' | 'reduce';
}

export type AdmissionResult<S> =
  | {
      readonly admitted: true;
      readonly jobId: string;
      readonly estimatedFinish: number;
      /** Position in the priority queue (0 = head). */
      readonly position: number;
      readonly state: S;
    }
  | {
      readonly admitted: false;
      readonly jobId: string;
      readonly reason: RejectReason;
      /** Earliest relative deadline D (whole seconds) admitted now, or null if none / not searched. */
      readonly earliestAdmissibleDeadline: number | null;
      /**
       * Set when the search ran and found none: the latest relative deadline it tried (seconds),
       * so a caller can say "no feasible deadline within" it.
       */
      readonly searchedUpTo?: number;
      /** The state, unchanged: a rejected job changes nothing. */
      readonly state: S;
    };

export interface AdmitOptions {
  /** Search the earliest admissible deadline on rejection (default true). */
  readonly searchEarliest?: boolean;
  /**
   * How far ahead of `now` that search looks, seconds (default DEADLINE_HORIZON_SECONDS): it
   * answers null rather than look past it.
   */
  readonly horizon?: number;
}

/** Actual task finish times of a finished job, for the feedback controller (Alg. 5.5). */
export interface JobActuals {
  readonly mapFinishTimes: readonly number[];
  readonly reduceFinishTimes: readonly number[];
  /** ~e: the job's actual finish time. */
  readonly finishedAt: number;
}

/**
 * An admission policy is a value: the simulator and the live sidecar hold one and thread its
 * state through. Every operation is pure and returns a new state.
 */
export interface AdmissionPolicy<S> {
  readonly name: string;
  /** An empty cluster (every slot free at `now`). */
  initialState(now: number): S;
  admit(state: S, job: DeadlineJob, now: number, options?: AdmitOptions): AdmissionResult<S>;
  /** The dispatcher launched the job's first task: nothing may be queued ahead of it any more. */
  markStarted(state: S, jobId: string): S;
  /** The job finished: feedback (where the policy has one) and removal from the queue. */
  complete(state: S, jobId: string, actuals: JobActuals, now: number): S;
  /** The job left without finishing (killed): removal only. */
  leave(state: S, jobId: string, now: number): S;
  /** Admitted, unfinished jobs in dispatch priority order. */
  queue(state: S): readonly DeadlineJob[];
}
