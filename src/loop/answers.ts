import type { RejectionReason } from '../api/views';
import type { DeadlineJob } from '../core/job';
import type { JobRecord } from '../store/types';
import type { LoopParts } from './context';
import type { LaneOutcome } from './lanes';
import { enforce, planAdmittedSubmission } from './plan';
import { earliest, noDeadlineWithin, reasonOf } from './reasons';
import type { ResolvedSubmission } from './resolve';
import { ticketFor } from './tickets';

/**
 * What a decided submission answers and records: an admission (201, its estimated finish,
 * position and priority, a ticket when the client submits the app; its RM writes or ticket
 * recorded with it) or a rejection (200, the reason and the earliest deadline admitted now).
 */

/** A submission resolved and decided, with what the answer and the ledger say of it. */
export interface Judged {
  id: string;
  s: ResolvedSubmission;
  queue: string;
  record: Pick<
    JobRecord,
    'id' | 'arrivalMs' | 'deadlineMs' | 'maps' | 'reduces' | 'inputBytes' | 'jobType' | 'spec'
  >;
  job: DeadlineJob;
  outcome: LaneOutcome;
  /** Said in the answer and kept with the decision: the class and the figures it was judged with. */
  judgedWith: { workloadClass: string | undefined; estimates: unknown; estimateFrom?: unknown };
  /** Said in the answer, the job's spec and the decision: where the deadline came from. */
  deadlineFrom: Record<string, unknown>;
  /** The input size when it was read from the input paths. */
  derived: Record<string, unknown>;
  /** Why a partition was chosen, shown in the answer and kept with the decision. */
  placement: Record<string, unknown>;
}

/** What differs between an admission and a rejection; the recording is shared. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  fields: Pick<
    JobRecord,
    | 'decision'
    | 'reason'
    | 'estimatedFinishMs'
    | 'predictedFinishMs'
    | 'earliestDeadlineMs'
    | 'label'
    | 'priority'
    | 'state'
    | 'energyJoules'
  >;
  policyName: string;
  detail: Record<string, unknown>;
  /** Inside the transaction: the RM writes the decision calls for. */
  enqueue: () => void;
  /** After it was recorded: the in-memory admission state. */
  adopt: () => void;
}

/**
 * An admission's point prediction: its span from arrival to the bound admission judged with,
 * taken at the errors' median instead of the factor's quantile (estimateFrom: profiles.ts's
 * `expected` over `factor`). Without it (the papers' model) the bound itself.
 */
export function expectedFinish(arrivalMs: number, estimatedFinishMs: number, from: unknown): number {
  const f = from as { factor?: unknown; expected?: unknown } | undefined;
  if (typeof f?.factor !== 'number' || typeof f.expected !== 'number' || !(f.factor > 0))
    return estimatedFinishMs;
  return Math.round(arrivalMs + ((estimatedFinishMs - arrivalMs) * f.expected) / f.factor);
}

/** The 201 answer of an admission (ticket included when the client is to submit the app). */
function admittedBody(
  j: Judged,
  a: {
    priority: number;
    label: string | null;
    estimatedFinishMs: number;
    expectedFinishMs: number;
    energyJoules: number | null;
    ticket: ReturnType<typeof ticketFor> | undefined;
  },
) {
  const { id, s, queue, judgedWith, derived, deadlineFrom } = j;
  const { priority, label, estimatedFinishMs, expectedFinishMs, energyJoules, ticket } = a;
  const result = (j.outcome as Extract<LaneOutcome, { lane: object }>).result;
  if (!result.admitted) throw new Error('not an admission');
  return {
    id,
    decision: 'admitted',
    deadline: new Date(s.deadlineMs).toISOString(),
    estimatedFinish: new Date(estimatedFinishMs).toISOString(),
    expectedFinish: new Date(expectedFinishMs).toISOString(),
    slackSeconds: (s.deadlineMs - estimatedFinishMs) / 1000,
    position: result.position + 1,
    queue,
    priority,
    label,
    energyJoules,
    placement: j.placement,
    ...judgedWith,
    ...derived,
    ...deadlineFrom,
    dryRun: s.dryRun,
    ...(ticket === undefined ? {} : { ticket }),
  };
}

/** An admission's answer, what it records and what it does once recorded. */
export function admittedAnswer(p: LoopParts, j: Judged): Answer {
  const { lane, result } = j.outcome as Extract<LaneOutcome, { lane: object }>;
  if (!result.admitted) throw new Error('not an admission');
  const { id, s, queue } = j;
  const label = lane.label === '' ? null : lane.label;
  const priority = p.cap.priorityAt(result.position);
  const estimatedFinishMs = Math.round(result.estimatedFinish * 1000);
  const expectedFinishMs = expectedFinish(j.record.arrivalMs, estimatedFinishMs, j.judgedWith.estimateFrom);
  const energyJoules = p.partitions.energyJoules(s.jobType, lane.label, s.maps);
  const { judgedWith, deadlineFrom } = j;
  const { config } = p.deps;
  // Without a launch context the sidecar submits nothing: the client does, with the ticket.
  const ticket =
    s.request === undefined && !s.dryRun
      ? ticketFor({
          id,
          s,
          queue,
          label,
          priority,
          expiresMs: p.deps.now() + config.tickets.ttlSeconds * 1000,
        })
      : undefined;
  const body = admittedBody(j, {
    priority,
    label,
    estimatedFinishMs,
    expectedFinishMs,
    energyJoules,
    ticket,
  });
  return {
    status: 201,
    body,
    fields: {
      decision: 'admitted',
      reason: null,
      estimatedFinishMs,
      predictedFinishMs: expectedFinishMs,
      earliestDeadlineMs: null,
      label,
      priority,
      state: 'accepted',
      energyJoules,
    },
    policyName: lane.policy.name,
    detail: {
      lane: lane.key,
      position: result.position,
      estimatedFinish: body.estimatedFinish,
      expectedFinish: body.expectedFinish,
      ...judgedWith,
      placement: j.placement,
      ...deadlineFrom,
      ...(ticket === undefined ? {} : { ticket: { expiresAt: ticket.expiresAt, tags: ticket.tags } }),
    },
    enqueue: () => enqueueAdmitted(p, j, label, priority, ticket),
    adopt: () => {
      lane.state = result.state;
    },
  };
}

/** What an admission records when it commits: its ticket, or the RM writes that submit it. */
function enqueueAdmitted(
  p: LoopParts,
  j: Judged,
  label: string | null,
  priority: number,
  ticket: ReturnType<typeof ticketFor> | undefined,
): void {
  const { id, s, queue } = j;
  const { ledger, config } = p.deps;
  if (ticket !== undefined) {
    ledger.insertTicket({ jobId: id, expiresMs: Date.parse(ticket.expiresAt), detail: ticket });
    return;
  }
  // Planned at commit time, with the estimates and clock of that moment.
  const nowMs = p.deps.now();
  const job = p.estimates.deadlineJob({
    ...j.record,
    arrivalMs: nowMs,
    spec: { ...s, ...(j.record.spec as Record<string, unknown>) },
  });
  const defaultEstimates = p.estimates.book.default;
  enforce(
    ledger,
    planAdmittedSubmission(config, { id, s, queue, label, priority, nowMs, job, defaultEstimates }),
  );
}

/** A rejection's answer (the reason, the earliest deadline admitted now) and what it records. */
export function rejectedAnswer(p: LoopParts, j: Judged, arrivalMs: number): Answer {
  const { outcome, id, s } = j;
  const reason: RejectionReason = outcome.lane ? reasonOf(outcome.result, outcome.lane, id) : outcome.reason;
  const eD = outcome.lane ? earliest(outcome.result) : null;
  const earliestDeadlineMs = eD === null ? null : Math.ceil((arrivalMs / 1000 + eD) * 1000);
  const { judgedWith, deadlineFrom, derived } = j;
  const body = {
    id,
    decision: 'rejected',
    deadline: new Date(s.deadlineMs).toISOString(),
    reason,
    earliestAdmissibleDeadline:
      earliestDeadlineMs === null ? null : new Date(earliestDeadlineMs).toISOString(),
    ...(outcome.lane && !outcome.result.admitted && outcome.result.searchedUpTo !== undefined
      ? { earliestAdmissibleDeadlineNote: noDeadlineWithin(outcome.result.searchedUpTo) }
      : {}),
    placement: j.placement,
    ...judgedWith,
    ...derived,
    ...deadlineFrom,
    dryRun: s.dryRun,
  };
  return {
    status: 200,
    body,
    fields: {
      decision: 'rejected',
      reason,
      estimatedFinishMs: null,
      predictedFinishMs: null,
      earliestDeadlineMs,
      label: null,
      priority: null,
      state: 'rejected',
      energyJoules: null,
    },
    policyName: outcome.lane?.policy.name ?? p.deps.config.admission.policy,
    detail: {
      reason,
      earliestAdmissibleDeadline: body.earliestAdmissibleDeadline,
      ...judgedWith,
      placement: j.placement,
      ...deadlineFrom,
    },
    enqueue: () => undefined,
    adopt: () => undefined,
  };
}
