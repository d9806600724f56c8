import { ValidationError, type ValidationIssue } from '../../../errors/validation';
import { compareIds } from '../common/helpers';

/**
 * A job of the ASRPT paper's time-slotted model: it arrives in slot `arrivalSlot`, has `maps` map
 * tasks of one unit of work each, and reduce tasks with the given units of work.
 */
export interface SlottedJob {
  readonly jobId: string;
  readonly arrivalSlot: number;
  readonly maps: number;
  readonly reduces: readonly number[];
}

export interface FlowTimeResult {
  /** Sum over jobs of F_i = f_i - a_i + 1 (slots). */
  readonly totalFlowTime: number;
  /** f_i: the slot in which each job's last unit of work is done. */
  readonly finishSlot: Readonly<Record<string, number>>;
}

export function validateSlottedJobs(jobs: readonly SlottedJob[], machines: number): void {
  const issues: ValidationIssue[] = [];
  if (!Number.isInteger(machines) || machines < 1)
    issues.push({ path: 'machines', message: 'must be an integer >= 1' });
  const ids = new Set<string>();
  jobs.forEach((j, i) => {
    if (ids.has(j.jobId)) issues.push({ path: `jobs.${i}.jobId`, message: `duplicate job id "${j.jobId}"` });
    ids.add(j.jobId);
    if (!Number.isInteger(j.arrivalSlot) || j.arrivalSlot < 0)
      issues.push({ path: `jobs.${i}.arrivalSlot`, message: 'must be an integer >= 0' });
    if (!Number.isInteger(j.maps) || j.maps < 0)
      issues.push({ path: `jobs.${i}.maps`, message: 'must be an integer >= 0' });
    j.reduces.forEach((r, k) => {
      if (!Number.isInteger(r) || r < 1)
        issues.push({ path: `jobs.${i}.reduces.${k}`, message: 'must be an integer >= 1' });
    });
    if (j.maps + j.reduces.length === 0) issues.push({ path: `jobs.${i}`, message: 'has no work' });
  });
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * SRPT's total flow time on `machines` machines, ignoring that reduces wait for maps: the
 * lower bound of Zheng et al., ASRPT, Lemma 1 on the total flow time of any MapReduce schedule,
 * preemptive or not. In each slot the jobs that have arrived are served in order of least
 * remaining work (ties: arrival, id), each getting as many machines as it has units left,
 * until the slot's `machines` are used; a job done in slot t has flow time t - a + 1.
 */
export function srptLowerBound(jobs: readonly SlottedJob[], machines: number): FlowTimeResult {
  validateSlottedJobs(jobs, machines);
  const left = new Map(jobs.map((j) => [j.jobId, j.maps + j.reduces.reduce((a, b) => a + b, 0)]));
  const byArrival = [...jobs].sort((a, b) => a.arrivalSlot - b.arrivalSlot || compareIds(a.jobId, b.jobId));
  const finishSlot: Record<string, number> = {};
  let total = 0;
  let next = 0; // index of the next job to arrive
  const active: SlottedJob[] = [];
  let t = byArrival.length > 0 ? byArrival[0].arrivalSlot : 0;
  while (next < byArrival.length || active.length > 0) {
    if (active.length === 0 && byArrival[next].arrivalSlot > t) t = byArrival[next].arrivalSlot;
    while (next < byArrival.length && byArrival[next].arrivalSlot <= t) active.push(byArrival[next++]);
    active.sort(
      (a, b) =>
        left.get(a.jobId)! - left.get(b.jobId)! ||
        a.arrivalSlot - b.arrivalSlot ||
        compareIds(a.jobId, b.jobId),
    );
    let d = machines;
    for (const j of active) {
      if (d === 0) break;
      const give = Math.min(d, left.get(j.jobId)!);
      left.set(j.jobId, left.get(j.jobId)! - give);
      d -= give;
    }
    for (let i = active.length - 1; i >= 0; i--) {
      const j = active[i];
      if (left.get(j.jobId) === 0) {
        finishSlot[j.jobId] = t;
        total += t - j.arrivalSlot + 1;
        active.splice(i, 1);
      }
    }
    t += 1;
  }
  return { totalFlowTime: total, finishSlot };
}
