import { ValidationError, type ValidationIssue } from '../../errors/validation';

/**
 * Where tasks run, as the vector calculations see it.
 *
 * - `mr1`: separate map and reduce slots (seed 000, seed 004 ch. 5). Two lanes: lane 0 holds
 *   T^m (l map slots), lane 1 holds T^r (q reduce slots).
 * - `unified`: one pool of YARN containers. One lane: maps and reduces of a job are drawn from
 *   the same sorted vector, the maps first (Alg. 5.2), then the reduces on what the maps left
 *   (Alg. 5.3), so a successor's maps are placed after this job's reduces have been reserved.
 */
export type SlotModel =
  | { readonly name: 'mr1'; readonly mapSlots: number; readonly reduceSlots: number }
  | { readonly name: 'unified'; readonly containers: number };

/** Sorted (ascending) slot availability times, one vector per lane. */
export type Lanes = readonly Float64Array[];

export function laneSizes(model: SlotModel): number[] {
  return model.name === 'mr1' ? [model.mapSlots, model.reduceSlots] : [model.containers];
}
export function mapLane(_model: SlotModel): number {
  return 0;
}
export function reduceLane(model: SlotModel): number {
  return model.name === 'mr1' ? 1 : 0;
}
/** Slots a job's reduces can run on at once: the reduce slots, or every container. */
export function reduceCapacity(model: SlotModel): number {
  return model.name === 'mr1' ? model.reduceSlots : model.containers;
}

export function validateSlotModel(input: unknown, path = 'slotModel'): SlotModel {
  const issues: ValidationIssue[] = [];
  const rec = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const positiveInt = (f: string): number => {
    const v = rec[f];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      issues.push({ path: `${path}.${f}`, message: 'must be a whole number >= 1' });
      return 1;
    }
    return v;
  };
  let model: SlotModel | undefined;
  if (rec.name === 'mr1')
    model = { name: 'mr1', mapSlots: positiveInt('mapSlots'), reduceSlots: positiveInt('reduceSlots') };
  else if (rec.name === 'unified') model = { name: 'unified', containers: positiveInt('containers') };
  else issues.push({ path: `${path}.name`, message: "must be 'mr1' or 'unified'" });
  if (issues.length > 0 || model === undefined) throw new ValidationError(issues);
  return Object.freeze(model);
}

/** All slots free at time `at` (the paper's [0,0,...0]). */
export function freeLanes(model: SlotModel, at = 0): Float64Array[] {
  return laneSizes(model).map((n) => new Float64Array(n).fill(at));
}

/**
 * The work of one queued job that is still to be placed on the vectors. A fresh job has all M
 * maps and R reduces pending. A job rebuilt from a running cluster may have maps done or
 * running: running tasks already hold their slots in the base vectors, and only end the stage
 * at `mapsBusyUntil` / `reducesBusyUntil`.
 */
export interface JobWork {
  readonly pendingMaps: number;
  readonly mapSeconds: number;
  readonly mapsBusyUntil: number;
  readonly pendingReduces: number;
  readonly reduceSeconds: number;
  readonly reducesBusyUntil: number;
}

/** Result of placing one job on its predecessor's vectors. */
export interface Placement {
  /** e^m: estimated end of the map stage. */
  readonly mapEnd: number;
  /** e: estimated finish of the job. */
  readonly finish: number;
}
