import type { RejectionReason } from '../model/job-views';
import type { AdmissionResult } from '../core/admission';
import { describeHolds } from '../core/sharing';
import { sharingOf, type Lane } from './lanes';

/**
 * A policy's rejection as the API says it: whose deadline would be missed, by how much, where,
 * and, when other queues hold part of the lane's guarantee, how (`sharing`: preemption takes
 * it back, or it is lent with preemption off).
 */
export function reasonOf(
  result: AdmissionResult<unknown>,
  lane: Pick<Lane, 'label' | 'holds'>,
  ownId: string,
): RejectionReason {
  if (result.admitted) throw new Error('not a rejection');
  const label = lane.label;
  const held = describeHolds(lane.holds);
  const r = result.reason;
  const whose = r.jobId === ownId ? 'this job' : `admitted job ${r.jobId}`;
  const late = r.lateBySeconds === null ? '' : ` by ${r.lateBySeconds.toFixed(1)} s`;
  const where = label === '' ? '' : ` (partition '${label}')`;
  const message =
    r.kind === 'new-job-misses' || r.kind === 'admitted-job-would-miss'
      ? `${whose} would miss its deadline ${isoOrNull(r.deadline * 1000)}${late}${where}`
      : `${r.kind}${where}`;
  return {
    kind: r.kind,
    message: held === undefined ? message : `${message}; ${held}`,
    jobId: r.jobId,
    deadline: isoOrNull(r.deadline * 1000),
    // Learned estimates can grow without bound (papers' model): a finish past what a Date can
    // show is shown as null.
    estimatedFinish: r.estimatedFinish === null ? null : isoOrNull(r.estimatedFinish * 1000),
    lateBySeconds: r.lateBySeconds ?? undefined,
    // null for the default partition, as the job's `label` and placement's partitions say it.
    partition: label === '' ? null : label,
    ...(held === undefined ? {} : { sharing: sharingOf(lane) }),
  };
}

export function earliest(r: AdmissionResult<unknown>): number | null {
  return r.admitted ? null : r.earliestAdmissibleDeadline;
}

/** Why a rejection names no earliest deadline: none is admitted within the search's horizon. */
export function noDeadlineWithin(seconds: number): string {
  return `no feasible deadline within ${seconds} s (${(seconds / 86400).toFixed(1)} days) of the job's arrival would be admitted now`;
}

/** An epoch-ms time as ISO-8601, or null where a Date cannot hold it. */
export function isoOrNull(ms: number): string | null {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : null;
}
