import type { Request } from 'express';
import { nodePartition } from '../ports';
import { EntryMap, type Content } from '../render';
import type { AppRecord, AppView, EmulatedRm } from '../rm-state';
import { base, partitionUsage, resource, type Res, type RmContext } from './context';

/** An app as the RM's AppInfo renders it, and the ids and hosts of its AM. */

const FINAL = ['FINISHED', 'FAILED', 'KILLED'];

export const suffixOf = (id: string) => id.slice('application_'.length);

/** The host of the app's AM: the first node of its AM's partition. */
export const amHostOf = (rm: EmulatedRm, r: AppRecord) =>
  rm.nodeUsage().find((n) => nodePartition(n.labels) === (r.amNodeLabelExpression || r.partition))?.host ??
  '';

export const containerOf = (r: AppRecord, attempt: number) =>
  `container_${suffixOf(r.id)}_${String(attempt).padStart(2, '0')}_000001`;

/** The AM attempt the app report speaks of: its number, once one has started. */
function currentAttempt(rm: EmulatedRm, r: AppRecord): number | undefined {
  if (r.amFailure) return rm.amFailureAttempts(r).at(-1)?.n;
  return r.inEngine ? 1 : undefined;
}

/** Container time of the app's tasks so far, simulated seconds (memorySeconds / MB). */
function containerSeconds(rm: EmulatedRm, r: AppRecord): number {
  const now = rm.engine.now;
  const done = rm.taskRecordsOf(r.id).reduce((a, t) => a + (t.end - t.start), 0);
  const running = rm.engine.runningTasksOf(r.id).reduce((a, t) => a + Math.max(0, now - t.start), 0);
  const am = rm.amFailureAttempts(r).reduce((a, t) => a + (Math.min(t.end, now) - t.start), 0);
  return done + running + am;
}

/** A pending ask as the RM's ResourceRequestInfo renders it. */
function request(priority: number, r: Res, numContainers: number, label: string): Content {
  return {
    priority,
    allocationRequestId: -1,
    resourceName: '*',
    capability: resource(r),
    numContainers,
    relaxLocality: true,
    nodeLabelExpression: label,
    executionTypeRequest: { executionType: 'GUARANTEED', enforceExecutionType: false },
  };
}

/** What the parts of an app's report share about its AM and its end. */
interface AppFacts {
  r: AppRecord;
  final: boolean;
  /** FINISHED in the report, its AM container still held until it ends (measured on 3.4.3). */
  finishing: boolean;
  attempt: number | undefined;
  launched: boolean;
  amHost: string;
  /** An AM that never registered leaves the RM's app page as the tracking URL. */
  neverRegistered: boolean;
  amAsk: Res;
  seconds: number;
}

function factsOf({ rm, slot }: RmContext, v: AppView): AppFacts {
  const r = v.rec;
  const final = FINAL.includes(v.state);
  const attempt = currentAttempt(rm, r);
  const amAsk = slot(0);
  amAsk.memoryMB = r.amResource.memoryMB;
  amAsk.vcores = r.amResource.vcores;
  return {
    r,
    final,
    finishing: v.rmState === 'FINISHING',
    attempt,
    launched: attempt !== undefined && (v.state === 'RUNNING' || final || r.amFailure !== null),
    amHost: amHostOf(rm, r),
    neverRegistered: r.amFailure !== null || r.unmanaged,
    amAsk,
    seconds: attempt !== undefined ? containerSeconds(rm, r) : 0,
  };
}

/**
 * An app as the RM 3.4.3's AppInfo renders it (measured): the queue as a full path, the
 * submission's name, type (empty when not given), lower-cased sorted tags, priority (-1 when
 * not given, capped), label expressions (the AM's is the app's when not given; none for an
 * unmanaged AM), the pending asks (the AM's before it runs, the maps' after), and -1 for the
 * allocations of a final app.
 */
export function appContent(c: RmContext, req: Request, v: AppView, deSelects: Set<string>): Content {
  const f = factsOf(c, v);
  const { r, final, finishing, amAsk } = f;
  const out: Record<string, Content> = { ...reportFields(c, req, v, f), ...allocationFields(c, v, f) };
  if (!deSelects.has('resourceRequests') && !final && r.queueKnown && !r.unmanaged) {
    const waiting = r.inEngine && v.state !== 'RUNNING';
    if (waiting) out.resourceRequests = [request(0, amAsk, 1, r.amNodeLabelExpression)];
    else if (v.state === 'RUNNING' && v.pendingMaps > 0)
      // MapReduce asks for maps at priority 20 (RMContainerAllocator's PRIORITY_MAP).
      out.resourceRequests = [request(20, c.slot(1), v.pendingMaps, r.partition)];
  }
  out.logAggregationStatus = 'DISABLED';
  out.unmanagedApplication = r.unmanaged;
  out.reservationId = r.reservationId ?? undefined;
  if (!deSelects.has('appNodeLabelExpression')) out.appNodeLabelExpression = r.appNodeLabelExpression;
  if (!deSelects.has('amNodeLabelExpression') && !r.unmanaged)
    out.amNodeLabelExpression = r.amNodeLabelExpression;
  if (
    !deSelects.has('resourceInfo') &&
    (!final || finishing) &&
    r.queueKnown &&
    !r.unmanaged &&
    f.attempt !== undefined
  )
    out.resourceInfo = resourceInfo(c, v, f);
  if (!deSelects.has('timeouts')) out.timeouts = { timeout: [c.rm.timeoutOf(r)] };
  return out;
}

function reportFields(c: RmContext, req: Request, v: AppView, f: AppFacts): Record<string, Content> {
  const { r, final, neverRegistered, launched } = f;
  return {
    id: r.id,
    user: r.user,
    name: r.name,
    queue: r.queueKnown ? `root.${r.queue}` : r.queue,
    state: v.state,
    finalStatus: v.finalStatus,
    progress: Math.round(v.progress * 100) / 100,
    trackingUI:
      final && r.queueKnown ? 'History' : v.state === 'RUNNING' ? 'ApplicationMaster' : 'UNASSIGNED',
    trackingUrl: !r.queueKnown
      ? undefined
      : neverRegistered
        ? final
          ? `${base(req)}/cluster/app/${r.id}`
          : undefined
        : `${base(req)}/proxy/${r.id}/`,
    diagnostics: c.rm.diagnosticsOf(r, base(req)),
    clusterId: c.rm.clusterTimestamp,
    applicationType: r.applicationType,
    applicationTags: r.tags.join(','),
    priority: r.priority,
    startedTime: v.startedTime,
    launchTime: r.unmanaged ? -1 : launched ? v.startedTime : 0,
    finishedTime: v.finishedTime,
    elapsedTime: v.elapsedTime,
  };
}

function allocationFields(c: RmContext, v: AppView, f: AppFacts): Record<string, Content> {
  const { r, final, finishing, attempt, launched, amHost, seconds } = f;
  return {
    amContainerLogs:
      launched && !r.unmanaged
        ? `http://${amHost}:8042/node/containerlogs/${containerOf(r, attempt ?? 1)}/${r.user}`
        : undefined,
    amHostHttpAddress: launched && !r.unmanaged ? `${amHost}:8042` : undefined,
    masterNodeId: launched && !r.unmanaged ? `${amHost}:45454` : '',
    allocatedMB: finishing
      ? r.amResource.memoryMB
      : final
        ? -1
        : v.runningContainers * c.cfg.containerMemoryMB,
    allocatedVCores: finishing
      ? r.amResource.vcores
      : final
        ? -1
        : v.runningContainers * c.cfg.containerVcores,
    reservedMB: final && !finishing ? -1 : 0,
    reservedVCores: final && !finishing ? -1 : 0,
    runningContainers: finishing ? 1 : final ? -1 : v.runningContainers,
    memorySeconds: Math.round(seconds * c.cfg.containerMemoryMB),
    vcoreSeconds: Math.round(seconds * c.cfg.containerVcores),
    queueUsagePercentage: 0,
    clusterUsagePercentage: 0,
    resourceSecondsMap: new EntryMap(
      attempt === undefined
        ? []
        : [
            ['memory-mb', Math.round(seconds * c.cfg.containerMemoryMB)],
            ['vcores', Math.round(seconds * c.cfg.containerVcores)],
          ],
    ),
    preemptedResourceMB: 0,
    preemptedResourceVCores: 0,
    numNonAMContainerPreempted: 0,
    numAMContainerPreempted: 0,
    preemptedMemorySeconds: 0,
    preemptedVcoreSeconds: 0,
    preemptedResourceSecondsMap: new EntryMap([]),
  };
}

/** The app's use of each partition it touches: its tasks', and its AM's. */
function resourceInfo(c: RmContext, v: AppView, f: AppFacts): Content {
  const { slot } = c;
  const { r, finishing, amAsk } = f;
  const partitions = [...new Set(['', r.partition, r.amNodeLabelExpression])];
  const used = (p: string) =>
    finishing
      ? p === r.amNodeLabelExpression
        ? amAsk
        : slot(0)
      : p === r.partition
        ? slot(v.runningContainers)
        : slot(0);
  return {
    resourceUsagesByPartition: partitions.map((p) =>
      partitionUsage(
        c,
        p,
        used(p),
        p === r.partition && v.state === 'RUNNING' ? slot(v.pendingMaps) : slot(0),
        p === r.amNodeLabelExpression ? amAsk : slot(0),
      ),
    ),
  };
}
