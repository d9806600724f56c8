import { absoluteDeadline, type DeadlineJob } from '../../job';
import type { DispatchChoice } from '../common/dispatch';
import { dcCosts, type DcOptions } from './costs';

/**
 * The Deadline Constraint scheduler's task assignment (Kc and Anyanwu, DC, section III.B, its Algorithm 1,
 * and He et al., RTMR, section III): "Assign minimum tasks: Assigns only minimum number of tasks
 * required for a job to meet its deadline. Empty slots may be available for jobs submitted
 * later" (Kc and Anyanwu, DC, II.A). On a heartbeat, "Tasks scheduling is first attempted for jobs that is
 * at the front of priority queue [ordered by deadline]. If a job's minimum task count is
 * satisfied then we consider next job until there is no more jobs remaining in priority queue
 * or until there are no more unassigned map/reduce slots remaining for the Tasktracker. There
 * can be Tasktrackers which may not be assigned any tasks if the minimum task count is
 * satisfied for all the jobs" (Kc and Anyanwu, DC, III.B). So a slot beyond the job's minimum goes to the
 * next job in deadline order that is below its own minimum, and stays idle when every job has
 * its minimum: DC is not work-conserving. "The scheduling algorithm assigns reduce tasks only
 * after all the map tasks have been completed" (same paragraph), and the number of reduces is
 * n_r^min computed then (Kc and Anyanwu, DC, III.A, below).
 */

/** What DC's dispatcher reads of one queued job (queue order = deadline order). */
export interface DcDispatchJob {
  readonly id: string;
  /** Map tasks not yet started, and running now. */
  readonly pendingMaps: number;
  readonly runningMaps: number;
  /** Reduce tasks not yet started (their job's maps may still run), and running now. */
  readonly pendingReduces: number;
  readonly runningReduces: number;
  /** True once every map of the job has finished. */
  readonly mapsDone: boolean;
  /** n_m^min: the map tasks DC lets the job run at once. */
  readonly mapSlots: number;
  /** n_r^min: the reduce tasks DC lets the job run at once (read only once mapsDone). */
  readonly reduceSlots: number;
}

const mapReady = (j: DcDispatchJob): boolean => j.pendingMaps > 0 && j.runningMaps < j.mapSlots;
const reduceReady = (j: DcDispatchJob): boolean =>
  j.mapsDone && j.pendingReduces > 0 && j.runningReduces < j.reduceSlots;

/**
 * The task for one free slot, or null to leave it idle (Kc and Anyanwu, DC, III.B, quoted above).
 * `lane` is the kind of slot: `map` or `reduce` (mr1, separate slots), or `container` (one
 * pool, unified), where a job below its minimum gets the container for the stage it is in.
 */
export function dcNextTask(
  lane: 'map' | 'reduce' | 'container',
  queue: readonly DcDispatchJob[],
): DispatchChoice | null {
  for (const j of queue) {
    if (lane !== 'reduce' && mapReady(j)) return { jobId: j.id, kind: 'map' };
    if (lane !== 'map' && reduceReady(j)) return { jobId: j.id, kind: 'reduce' };
  }
  return null;
}

/**
 * n_r^min once the job's maps are done at s_r (Kc and Anyanwu, DC, III.A: "After a job is scheduled and
 * map tasks are complete, n_r^min is computed to determine how many reduce tasks should be
 * scheduled. Since s_r < S_r^max, this allows for cases when n_r^min can be less than the
 * reduce tasks specified for the job"). With the reduce stage's work f*delta*c_r spread over
 * the time left after the transfer, A + D - s_r - f*delta*c_d (as restated in
 * docs/admission.md, "DC (baseline)"):
 *   n_r^min = ceil(f*delta*c_r / (A + D - s_r - f*delta*c_d)), between 1 and R.
 * No time left (maps done at or after the point where even R reduces cannot make it) gives R.
 */
export function dcReduceSlots(o: DcOptions, job: DeadlineJob, mapsDoneAt: number): number {
  // The job's class's unit costs when it carries them (dcCosts), as in its plan.
  const c = dcCosts(o, job);
  const fd = c.filterRatio * job.inputSize;
  const left = absoluteDeadline(job) - mapsDoneAt - fd * c.transferCost;
  if (!(left > 0)) return job.reduces;
  return Math.min(job.reduces, Math.max(1, Math.ceil((fd * c.reduceCost) / left)));
}
