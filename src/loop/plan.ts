import type { SidecarConfig } from '../config/schema';
import { taskEstimates } from '../core/estimates';
import type { DeadlineJob } from '../core/job';
import { Enforcer } from '../enforce/enforcer';
import {
  appIdOf,
  decodeActions,
  refusalStatusOf,
  type ActionPayload,
  type OutboxAction,
  type SubmitPayload,
} from '../enforce/outbox';
import type { JobRecord, Ledger } from '../store/types';
import type { AppReport } from '../yarn/model';
import { submissionTags } from '../yarn/tags';
import type { Lane } from './lanes';
import type { ResolvedSubmission } from './resolve';

/**
 * Plan, the pipeline's third stage: from decisions and the RM's state to the exact RM writes,
 * each with its reason. A plan is a value; recordPlan writes each of its writes in the ledger's
 * outbox, in the transaction of the decision that calls for it, and the enforcer
 * (src/enforce/enforcer.ts) carries them out.
 */
export interface PlannedWrite {
  readonly jobId: string;
  readonly action: ActionPayload;
  /** Why the write is made, in a reader's words. */
  readonly reason: string;
}

export type Plan = readonly PlannedWrite[];

/** The application tags of an API job: the sidecar's own (id, deadline, sizes, type) and the user's. */
export function jobTags(id: string, s: ResolvedSubmission): string[] {
  return submissionTags(
    {
      sidecarId: id,
      deadlineMs: s.deadlineMs,
      maps: s.maps,
      reduces: s.reduces,
      inputBytes: s.inputBytes,
      jobType: s.jobType,
      ...(s.workloadClass === undefined ? {} : { workloadClass: s.workloadClass }),
      ...(s.inputPaths === undefined ? {} : { inputPaths: s.inputPaths }),
    },
    s.tags ?? [],
  );
}

/** Records a plan's writes in the outbox, in order; the enforcer carries them out later. */
export function recordPlan(ledger: Ledger, plan: Plan): void {
  for (const w of plan) Enforcer.enqueue(ledger, w.jobId, w.action);
}

const ENDED_APP_STATES = new Set(['FINISHED', 'FAILED', 'KILLED']);
const NOT_YET_SCHEDULED = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED']);

/**
 * The writes an admitted API job needs: with enforcement.reservations a YARN reservation whose
 * stages mirror its map and reduce phases (sized by its class's per-task estimates, as
 * admission planned them), then the submission itself at its EDF priority and label.
 */
export function planAdmittedSubmission(
  config: SidecarConfig,
  a: {
    id: string;
    s: ResolvedSubmission;
    queue: string;
    label: string | null;
    priority: number;
    nowMs: number;
    /** The job as admission judged it, arriving now (its class's estimates on it). */
    job: DeadlineJob;
    defaultEstimates: Parameters<typeof taskEstimates>[0];
  },
): Plan {
  const { id, s, queue, label, priority, nowMs, job } = a;
  const plan: PlannedWrite[] = [];
  if (config.enforcement.reservations) {
    const est = taskEstimates(a.defaultEstimates, job);
    const capability = {
      memoryMB: config.admission.containerMemoryMb,
      vcores: config.admission.containerVcores,
      extra: {},
    };
    const stage = (seconds: number, numContainers: number) => ({
      durationMs: Math.max(1000, Math.ceil(seconds * 1000)),
      numContainers,
      minConcurrency: 1,
      capability,
    });
    plan.push({
      jobId: id,
      reason: 'enforcement.reservations: capacity held for the admitted job until its deadline',
      action: {
        kind: 'reserve',
        payload: {
          queue,
          definition: {
            arrival: nowMs,
            deadline: s.deadlineMs,
            name: id,
            interpreter: 2, // ORDER: maps, then reduces
            requests: [stage(est.mapSeconds, s.maps), stage(est.reduceSeconds, job.reduces)],
          },
        },
      },
    });
  }
  const payload = submitPayload(config, id, s, queue, label, priority);
  plan.push({
    jobId: id,
    reason: 'admitted: submitted at its EDF priority and partition',
    action: { kind: 'submit', payload },
  });
  return plan;
}

/** The submission of an admitted API job: its EDF priority, partition, queue and tags. */
function submitPayload(
  config: SidecarConfig,
  id: string,
  s: ResolvedSubmission,
  queue: string,
  label: string | null,
  priority: number,
): SubmitPayload {
  return {
    sidecarId: id,
    name: s.name,
    user: s.user,
    queue,
    priority,
    labelExpression: label,
    tags: jobTags(id, s),
    applicationType: config.yarn.applicationType,
    ...(s.request === undefined ? {} : { request: s.request }),
  };
}

/** A found app moved to the queue its decision gives it, unless it is there already. */
export function planMove(jobId: string, app: AppReport, queue: string, reason: string): Plan {
  if (app.queue.split('.').pop() === queue) return [];
  return [{ jobId, reason, action: { kind: 'move-queue', payload: { appId: app.id, queue } } }];
}

/**
 * EDF order as YARN application priorities: for each lane's queue order, the target priority
 * of position p is max(1, cap - p) within the RM's cap (priorityAt). A write is planned only
 * where the app's priority on the RM differs, no write for it is pending, and the last write
 * for the app did not already ask for this target: at most one write per app per change. With
 * enforcement.lifetimeTimeouts each app also gets its deadline as lifetime, once.
 */
export function planPriorities(
  config: SidecarConfig,
  ledger: Ledger,
  lanes: readonly Lane[],
  apps: readonly AppReport[],
  priorityAt: (position: number) => number,
  /** The open admitted jobs as just read, if the caller has them (else each is read). */
  open?: readonly JobRecord[],
): Plan {
  if (!config.enforcement.priorities && !config.enforcement.lifetimeTimeouts) return [];
  const byId = new Map(apps.map((a) => [a.id, a]));
  const known = new Map((open ?? []).map((j) => [j.id, j]));
  const pending = decodeActions(ledger.pendingActions()).actions;
  const pendingFor = (kind: OutboxAction['kind'], appId: string) =>
    pending.some((a) => a.kind === kind && appIdOf(a) === appId);
  const plan: PlannedWrite[] = [];
  for (const lane of lanes) {
    lane.policy.queue(lane.state).forEach((job, position) => {
      const rec = known.get(job.id)?.appId ? known.get(job.id) : ledger.getJob(job.id);
      if (!rec?.appId) return;
      const app = currentApp(ledger, rec, byId);
      // Until the scheduler has accepted an app (NEW, NEW_SAVING, SUBMITTED) a real RM shows its
      // priority as -1: it has none yet, and a write now would only repeat the submission's.
      if (!app || ENDED_APP_STATES.has(app.state) || NOT_YET_SCHEDULED.has(app.state)) return;
      const target = priorityAt(position);
      // The RM already shows the target, and no lifetime to set: nothing to write (the common case).
      const shown = app.priority ?? rec.priority ?? undefined;
      if (!config.enforcement.lifetimeTimeouts && (!config.enforcement.priorities || shown === target))
        return;
      // The writes for this app (a ticket's client may run several apps, each written to).
      const actions = decodeActions(ledger.actionsOf(rec.id)).actions.filter((a) => appIdOf(a) === app.id);
      if (config.enforcement.priorities) {
        if (needsPriorityWrite(rec, app, actions, target) && !pendingFor('set-priority', app.id)) {
          plan.push({
            jobId: rec.id,
            reason: `EDF position ${position + 1} in lane ${lane.key}`,
            action: { kind: 'set-priority', payload: { appId: app.id, priority: target } },
          });
        }
      }
      if (config.enforcement.lifetimeTimeouts && !actions.some((a) => a.kind === 'set-lifetime')) {
        plan.push({
          jobId: rec.id,
          reason: 'enforcement.lifetimeTimeouts: the app stops at its deadline',
          action: { kind: 'set-lifetime', payload: { appId: app.id, expiryMs: rec.deadlineMs } },
        });
      }
    });
  }
  return plan;
}

/**
 * The app of a job its priority is written to: its first while that one runs, else its latest
 * (another app of a ticket's client, src/loop/job-apps.ts). The ledger is read only for a job
 * whose first app ended.
 */
function currentApp(
  ledger: Ledger,
  rec: JobRecord,
  byId: ReadonlyMap<string, AppReport>,
): AppReport | undefined {
  const first = byId.get(rec.appId!);
  if (first && !ENDED_APP_STATES.has(first.state)) return first;
  const latest = ledger.appsOf(rec.id).at(-1);
  return latest === undefined || latest.appId === rec.appId ? first : byId.get(latest.appId);
}

/**
 * Once per change of target: the last write for the app asked for this target and the RM
 * answered it (capped or not) or refused it for good: not sent again. A real RM answers 503 (a
 * NullPointerException in the scheduler) to a write that comes before the app's first attempt
 * exists; that refusal is tried again, up to 3 times in all.
 */
function needsPriorityWrite(
  rec: JobRecord,
  app: AppReport,
  actions: readonly OutboxAction[],
  target: number,
): boolean {
  const writes = actions.filter(
    (a): a is Extract<OutboxAction, { kind: 'set-priority' }> => a.kind === 'set-priority',
  );
  const last = writes.filter((a) => a.status !== 'skipped').at(-1);
  const lastTarget = last?.payload.priority;
  const refusals503 = writes.filter(
    (a) => a.status === 'failed' && a.payload.priority === target && refusalStatusOf(a.result) === 503,
  ).length;
  const settled = lastTarget === target && !(last?.status === 'failed' && refusals503 > 0 && refusals503 < 3);
  const shown = app.priority ?? rec.priority ?? undefined;
  const unset = shown !== undefined && shown < 0;
  return !unset && shown !== target && !settled;
}
