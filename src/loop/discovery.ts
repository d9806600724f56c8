import type { RejectionReason } from '../model/job-views';
import type { JobRecord } from '../store/types';
import type { AppReport } from '../yarn/model';
import type { decodeTags } from '../yarn/tags';
import type { LoopParts } from './context';
import type { LaneOutcome } from './lanes';
import { recordPlan, planMove } from './plan';
import { reasonOf } from './reasons';

/**
 * An app with a deadline tag that did not come through the API: the same admission, then a
 * move to the real-time queue (admitted) or the best-effort one (rejected).
 */
export function discover(p: LoopParts, app: AppReport, tags: ReturnType<typeof decodeTags>): void {
  const { ledger, config, metrics } = p.deps;
  const id = `dl-${app.id.replace(/^application_/, '')}`;
  if (ledger.getJob(id)) return;
  const jobType = tags.jobType ?? 'cpu';
  const arrivalMs = app.startedTime > 0 ? Math.min(app.startedTime, p.deps.now()) : p.deps.now();
  const deadlineMs = tags.deadlineMs!;
  const record = {
    id,
    arrivalMs,
    deadlineMs: Math.max(deadlineMs, arrivalMs + 1),
    maps: tags.maps ?? 1,
    // An app tagged reduces:0 is map-only (distcp, Sqoop); untagged, one reduce is assumed.
    reduces: tags.reduces ?? 1,
    inputBytes: tags.inputBytes ?? 0,
    jobType,
    spec: {
      appId: app.id,
      tags: app.applicationTags,
      ...(tags.workloadClass === undefined ? {} : { workloadClass: tags.workloadClass }),
    },
  };
  const queue = config.yarn.realtimeQueue;
  const outcome =
    deadlineMs <= p.deps.now() ? undefined : p.lanes.decide(p.estimates.deadlineJob(record), queue, jobType);
  const base = {
    ...record,
    name: app.name,
    user: app.user,
    submitter: 'discovered',
    source: 'discovered' as const,
    jobType,
    appId: app.id,
    outcome: null,
    finishedMs: null,
    energyJoules: null,
  };
  const admitted = outcome?.lane !== undefined && outcome.result.admitted;
  ledger.transaction(() => {
    if (outcome?.lane && outcome.result.admitted) recordAdmitted(p, app, base, queue, outcome);
    else recordRejected(p, app, base, outcome);
  });
  metrics.decisions.inc({ outcome: admitted ? 'admitted' : 'rejected', source: 'discovered' });
  p.log.info('discovered a deadline app', {
    app: app.id,
    job: id,
    decision: admitted ? 'admitted' : 'rejected',
  });
}

type Base = Omit<
  JobRecord,
  | 'decision'
  | 'reason'
  | 'estimatedFinishMs'
  | 'predictedFinishMs'
  | 'earliestDeadlineMs'
  | 'queue'
  | 'label'
  | 'priority'
  | 'state'
  | 'createdMs'
  | 'updatedMs'
>;

function recordAdmitted(
  p: LoopParts,
  app: AppReport,
  base: Base,
  queue: string,
  outcome: Extract<LaneOutcome, { lane: object }>,
): void {
  const { ledger } = p.deps;
  const { lane, result } = outcome;
  if (!result.admitted) return;
  lane.state = result.state;
  ledger.insertJob({
    ...base,
    decision: 'admitted',
    reason: null,
    estimatedFinishMs: Math.round(result.estimatedFinish * 1000),
    earliestDeadlineMs: null,
    queue,
    label: lane.label === '' ? null : lane.label,
    priority: p.cap.priorityAt(result.position),
    state: app.state === 'RUNNING' ? 'running' : 'submitted',
  });
  ledger.recordDecision(base.id, lane.policy.name, 'admitted', { lane: lane.key, discovered: app.id });
  recordPlan(ledger, planMove(base.id, app, queue, 'admitted: moved to the real-time queue'));
}

function recordRejected(p: LoopParts, app: AppReport, base: Base, outcome: LaneOutcome | undefined): void {
  const { ledger, config } = p.deps;
  const reason: RejectionReason =
    outcome === undefined
      ? { kind: 'deadline-passed', message: 'the deadline in its tags has already passed' }
      : outcome.lane
        ? reasonOf(outcome.result, outcome.lane, base.id)
        : outcome.reason;
  ledger.insertJob({
    ...base,
    decision: 'rejected',
    reason,
    estimatedFinishMs: null,
    earliestDeadlineMs: null,
    queue: config.yarn.besteffortQueue,
    label: null,
    priority: null,
    state: 'rejected',
  });
  ledger.recordDecision(base.id, config.admission.policy, 'rejected', { reason, discovered: app.id });
  recordPlan(
    ledger,
    planMove(base.id, app, config.yarn.besteffortQueue, 'rejected: moved to the best-effort queue'),
  );
}
