/**
 * Adapters from the registry's pure policies (src/core) to the engine's ports. The policies
 * stay pure values with explicit state; the adapter holds the current state and threads it
 * through every call. Nothing here decides anything a policy decides.
 *
 * - spec.ts: the `--policies` list and the registry the simulator runs with;
 * - cluster-slots.ts: the cluster's slots as admission counts them, and its lanes;
 * - estimates.ts: the worst-case estimates admission judges trace jobs with;
 * - admission-port.ts, admission-lanes.ts: an admission policy as the engine's port, in lanes;
 * - placement-port.ts: a placement policy as the engine's port.
 */
export { simulatorRegistry, parsePolicyList, type PolicySpec } from './spec';
export { containerLanesOf, coreSlotModel, gpuSlotsOf, lanesForJob, unrunnableReason } from './cluster-slots';
export {
  ESTIMATE_BASES,
  estimateView,
  judgedBy,
  measuredEstimates,
  toDeadlineJob,
  traceClassOf,
  worstCaseEstimates,
  type EstimateBasis,
  type MeasuredTask,
} from './estimates';
export { admissionPort, noAdmission } from './admission-port';
export { energyProfileOf, placementPort, type PlacementPortOptions } from './placement-port';
export { pendingMapCount } from '../policy-port';
