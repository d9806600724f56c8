import { dcNextTask, dcReduceSlots, type DcDispatchJob, type DcOptions } from '../../core/admission/dc';
import {
  nextContainerTask,
  nextMapTask,
  nextReduceTask,
  type DispatchJobView,
} from '../../core/admission/dispatch';
import type { AdmissionPolicy } from '../../core/admission/types';
import type { EstimateBook } from '../../core/estimate-book';
import type { Estimates } from '../../core/estimates';
import type { AdmissionCapabilities, PolicyRegistry } from '../../core/registry';
import type { SlotModel } from '../../core/slots/model';
import { gpuSlotsOf, containerLanesOf, coreSlotModel, unrunnableReason } from './cluster-slots';
import { traceClassOf } from './estimates';
import { LanedAdmission, type AdmissionLane, type LaneLayout } from './admission-lanes';
import { LaneSharing, type LaneSharingOptions } from './sharing';
import { simulatorRegistry } from './spec';
import type { ClusterSpec } from '../model';
import { handlesOverruns, OverrunFeedback, type OverrunFeedbackOptions } from '../overrun-feedback';
import { pendingMapCount, type AdmissionPort, type JobView } from '../policy-port';

/**
 * Every job accepted, queue in arrival order: the runs that compare placement alone. Only a job
 * no slot of `cluster` can run is refused (unrunnableReason), as every policy refuses it.
 */
export function noAdmission(cluster?: ClusterSpec): AdmissionPort {
  return {
    name: 'none',
    promisesDeadlines: false,
    decide: (job) => {
      const why = cluster ? unrunnableReason(cluster, job) : null;
      return why === null ? { admit: true } : { admit: false, reason: why };
    },
    compare: (a, b) => a.spec.arrival - b.spec.arrival,
    jobStarted: () => undefined,
    jobFinished: () => undefined,
    jobKilled: () => undefined,
  };
}

/**
 * The registry's admission policy `name` as the engine's port.
 *
 * Policies with their own dispatcher (RTMR's Alg. 5.4, DC's minimum-task assignment) run on a
 * unified cluster with GPU containers as two lanes (containerLanesOf), each an instance of the
 * policy sized to its containers: a job is admitted in one lane, and the engine runs all its
 * tasks, maps and reduces, in that lane's containers, so each lane is a cluster of its own and
 * RTMR's guarantee holds per lane. The other policies (yarn-greedy, fifo-all) have no
 * dispatcher that could keep a job in its lane, and admit against the whole pool.
 *
 * RTMR on mr1 with GPU map slots is one instance whose model has a GPU map lane
 * (coreSlotModel): a job is admitted with the map lane of its kind (an adaptive job tried in
 * each, lanesForJob), its maps run only in map slots of that kind, and every job's reduces
 * share the reduce slots. On mr1 RTMR's dispatcher also names the job for each free map slot
 * (Alg. 5.4 lines 4-5: the first job in queue order with a map left), and the placement
 * policy picks that job's task.
 *
 * A job no slot of the cluster can run (unrunnableReason) is refused by every policy, with
 * that reason, before the policy is asked.
 */
export function admissionPort(
  name: string,
  args: Record<string, unknown>,
  cluster: ClusterSpec,
  book: EstimateBook,
  registry: PolicyRegistry = simulatorRegistry(),
  /** Overrun handling (overrun-feedback.ts): how to learn, and each admitted job's progress. */
  overruns?: Pick<OverrunFeedbackOptions, 'learning' | 'heartbeatSeconds' | 'progressOf'>,
  /** Another tenant sharing the CPU containers (sharing.ts): admission sees its holds. */
  tenant?: Omit<LaneSharingOptions, 'createPolicy'>,
  /** Search each rejected job's earliest admissible deadline (JobOutcome.earliestDeadline). */
  searchEarliest = false,
): AdmissionPort {
  const caps = registry.admissionCapabilities(name);
  const layout = laneLayout(cluster, caps);
  // The policy's own figures are the default; every job carries its class's (withClass),
  // which every policy reads first (taskEstimates, dcCosts).
  const create = (slotModel: SlotModel) =>
    registry.createAdmission(
      name,
      policyArgs(caps, slotModel, book.default, args),
    ) as AdmissionPolicy<unknown>;
  const sharing = tenant ? new LaneSharing({ ...tenant, createPolicy: create }) : null;
  const lanes = createLanes(layout, cluster, create);
  // With another tenant, a lane of CPU containers is sized to the real-time queue's guarantee.
  if (sharing) for (const lane of lanes) sizeToGuarantee(lane, sharing, create);
  // Overrun handling (overrun-feedback.ts), for a policy with feedback and a snapshot rebuild.
  const feedback =
    overruns && lanes.every((l) => handlesOverruns(l.policy))
      ? new OverrunFeedback(lanes, { ...overruns, configured: book, classOf: traceClassOf })
      : null;
  const laned = new LanedAdmission(lanes, layout, cluster, book, caps, feedback, sharing, searchEarliest);
  const port: AdmissionPort = {
    name,
    promisesDeadlines: caps.promisesDeadlines,
    decide: (job, now) => laned.decide(job, now),
    compare: (a, b) => laned.compare(a, b),
    jobStarted: (jobId) => laned.jobStarted(jobId),
    jobFinished: (record, now) => laned.jobFinished(record, now),
    jobKilled: (jobId, now) => laned.jobKilled(jobId, now),
  };
  if (layout.laneSpecs || layout.mapLanes) port.containerLanes = true;
  if (caps.dispatch === 'reservation') {
    if (layout.mr1Dispatch) port.dispatchesMapSlots = true;
    port.dispatch = reservationDispatch(laned);
  } else if (caps.dispatch === 'minimum-tasks') {
    port.dispatchesMapSlots = true;
    port.dispatch = minimumTasksDispatch(laned);
  }
  return port;
}

/** Container lanes for a policy with its own dispatcher; map lanes for RTMR on mr1 with GPU map slots. */
function laneLayout(cluster: ClusterSpec, caps: AdmissionCapabilities): LaneLayout {
  const mr1Dispatch = caps.dispatch === 'reservation' && cluster.slotModel === 'mr1';
  return {
    laneSpecs: caps.dispatch !== null ? containerLanesOf(cluster) : null,
    mr1Dispatch,
    mapLanes: mr1Dispatch && gpuSlotsOf(cluster) > 0,
  };
}

/** One policy instance per container lane (a lane without containers has none), or one for the cluster. */
function createLanes(
  layout: LaneLayout,
  cluster: ClusterSpec,
  create: (slotModel: SlotModel) => unknown,
): AdmissionLane[] {
  const models: Array<{ kind: 'cpu' | 'gpu' | null; model: SlotModel }> = layout.laneSpecs
    ? layout.laneSpecs
        .filter((l) => l.containers > 0)
        .map((l) => ({ kind: l.kind, model: { name: 'unified', containers: l.containers } }))
    : [{ kind: null, model: coreSlotModel(cluster, layout.mapLanes) }];
  return models.map(({ kind, model }) => {
    const policy = create(model) as AdmissionPolicy<unknown>;
    return { kind, policy, model, state: policy.initialState(0), rank: new Map<string, number>() };
  });
}

/** A lane of CPU containers sized to the real-time queue's guarantee (a new policy instance for it). */
function sizeToGuarantee(
  lane: AdmissionLane,
  sharing: LaneSharing,
  create: (slotModel: SlotModel) => AdmissionPolicy<unknown>,
): void {
  if (lane.model.name !== 'unified' || lane.kind === 'gpu') return;
  const containers = sharing.baseContainers(lane.kind, lane.model.containers);
  lane.model = { name: 'unified', containers };
  lane.policy = create(lane.model);
  lane.state = lane.policy.initialState(0);
}

/** DC (seed 001) takes unit costs of its own: the same worst-case figures RTMR takes as estimates. */
function policyArgs(
  caps: AdmissionCapabilities,
  slotModel: SlotModel,
  estimates: Estimates,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const own =
    caps.args === 'unit-costs'
      ? {
          slotModel,
          filterRatio: estimates.eta,
          mapCost: estimates.mapCostMax,
          reduceCost: estimates.reduceCostMax,
          transferCost: 0,
        }
      : { slotModel, estimates };
  return { ...own, ...args };
}

/** RTMR's Alg. 5.4 over the jobs of the slot's lane. */
function reservationDispatch(laned: LanedAdmission): NonNullable<AdmissionPort['dispatch']> {
  const toDispatchView = (v: JobView): DispatchJobView => ({
    id: v.id,
    pendingMaps: pendingMapCount(v),
    runningMaps: v.runningMaps,
    pendingReduces: v.pendingReduces,
  });
  return (lane, queue, free, _now, container) => {
    const views = laned.inLane(queue, container).map(toDispatchView);
    if (lane === 'reduce') return nextReduceTask(views, free);
    return lane === 'map' ? nextMapTask(views) : nextContainerTask(views, free);
  };
}

/** DC's minimum-task assignment (seed 001 III) over the jobs of the slot's lane. */
function minimumTasksDispatch(laned: LanedAdmission): NonNullable<AdmissionPort['dispatch']> {
  // The unit costs DC was built with (the same in every lane; only the slot model differs).
  const dcOptions = (laned.lanes[0]?.policy as unknown as { options: DcOptions }).options;
  const toDcView = (v: JobView, now: number): DcDispatchJob => {
    const d = laned.dcJobs.get(v.id);
    let reduceSlots = v.pendingReduces + v.runningReduces;
    if (d && v.mapsDone) {
      // n_r^min is computed when the scheduler first sees the map stage done (seed 001 III.A).
      d.reduceSlots ??= dcReduceSlots(dcOptions, d.job, now);
      reduceSlots = d.reduceSlots;
    }
    return {
      id: v.id,
      pendingMaps: pendingMapCount(v),
      runningMaps: v.runningMaps,
      pendingReduces: v.pendingReduces,
      runningReduces: v.runningReduces,
      mapsDone: v.mapsDone,
      mapSlots: d?.mapSlots ?? v.spec.maps,
      reduceSlots,
    };
  };
  return (lane, queue, _free, now, container) =>
    dcNextTask(
      lane,
      laned.inLane(queue, container).map((v) => toDcView(v, now)),
    );
}
