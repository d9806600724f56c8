import { ValidationError, type ValidationIssue } from '../../errors/validation';

/**
 * Where tasks run, as the vector calculations see it.
 *
 * - `mr1`: separate map and reduce slots (He et al., RTMR; He, dissertation, ch. 5). Two lanes: lane 0 holds
 *   T^m (l map slots), lane 1 holds T^r (q reduce slots). With `gpuMapSlots` > 0 a third lane,
 *   lane 2, holds the GPU map slots (He, dissertation, 6.1.4: a GPU is a map slot of its own kind):
 *   `mapSlots` then counts only the CPU map slots. A job's maps draw from the map lane of its
 *   kind (`DeadlineJob.lane`), every job's reduces from the one reduce lane, so a CPU job is
 *   never promised a GPU slot it cannot run in.
 * - `unified`: one pool of YARN containers. One lane: maps and reduces of a job are drawn from
 *   the same sorted vector, the maps first (Alg. 5.2), then the reduces on what the maps left
 *   (Alg. 5.3), so a successor's maps are placed after this job's reduces have been reserved.
 *   (GPU containers are a lane of their own by being a policy instance of their own: the
 *   simulator's admission lanes, the live sidecar's label partitions.)
 */
export type SlotModel =
  | {
      readonly name: 'mr1';
      readonly mapSlots: number;
      readonly reduceSlots: number;
      /** GPU map slots, a lane of their own; 0 or absent: none. */
      readonly gpuMapSlots?: number;
    }
  | { readonly name: 'unified'; readonly containers: number };

/** The kind of map slot a job's maps run in: CPU code in CPU slots, GPU code in GPU slots. */
export type MapLaneKind = 'cpu' | 'gpu';

/** Sorted (ascending) slot availability times, one vector per lane. */
export type Lanes = readonly Float64Array[];

const GPU_MAP_LANE = 2;

export function gpuMapSlotsOf(model: SlotModel): number {
  return model.name === 'mr1' ? (model.gpuMapSlots ?? 0) : 0;
}

export function laneSizes(model: SlotModel): number[] {
  if (model.name === 'unified') return [model.containers];
  const gpu = gpuMapSlotsOf(model);
  return gpu > 0 ? [model.mapSlots, model.reduceSlots, gpu] : [model.mapSlots, model.reduceSlots];
}
/**
 * The lane a job's maps are placed on: lane 0, or on `mr1` with GPU map slots lane 2 for a job
 * whose maps run in GPU slots.
 */
export function mapLane(model: SlotModel, kind: MapLaneKind = 'cpu'): number {
  return kind === 'gpu' && gpuMapSlotsOf(model) > 0 ? GPU_MAP_LANE : 0;
}
/** Slots of `kind` a job's maps can ever run in on this model (0: it can never run). */
export function usableMapSlots(model: SlotModel, kind: MapLaneKind = 'cpu'): number {
  if (model.name === 'unified') return model.containers;
  return kind === 'gpu' ? gpuMapSlotsOf(model) : model.mapSlots;
}
export function reduceLane(model: SlotModel): number {
  return model.name === 'mr1' ? 1 : 0;
}
/** Slots a job's reduces can run on at once: the reduce slots, or every container. */
export function reduceCapacity(model: SlotModel): number {
  return model.name === 'mr1' ? model.reduceSlots : model.containers;
}

/**
 * Checks a slot model. `gpuMapLane: false` for a policy without lanes by slot kind (DC,
 * yarn-greedy): GPU map slots are then refused rather than silently counted for every job.
 */
export function validateSlotModel(
  input: unknown,
  path = 'slotModel',
  opts: { gpuMapLane?: boolean } = {},
): SlotModel {
  const issues: ValidationIssue[] = [];
  const rec = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const wholeAtLeast = (f: string, min: number): number => {
    const v = rec[f];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      issues.push({ path: `${path}.${f}`, message: `must be a whole number >= ${min}` });
      return min;
    }
    return v;
  };
  const positiveInt = (f: string): number => wholeAtLeast(f, 1);
  let model: SlotModel | undefined;
  if (rec.name === 'mr1') {
    const gpuMapSlots = rec.gpuMapSlots === undefined ? 0 : wholeAtLeast('gpuMapSlots', 0);
    if (gpuMapSlots > 0 && opts.gpuMapLane === false)
      issues.push({
        path: `${path}.gpuMapSlots`,
        message: 'this policy has no GPU map lane: count every map slot in mapSlots',
      });
    // With GPU map slots the CPU map slots may be none (every map slot holds a GPU): CPU jobs
    // are then refused as unrunnable, GPU jobs still run.
    const mapSlots = wholeAtLeast('mapSlots', gpuMapSlots > 0 ? 0 : 1);
    const reduceSlots = positiveInt('reduceSlots');
    model =
      gpuMapSlots > 0
        ? { name: 'mr1', mapSlots, reduceSlots, gpuMapSlots }
        : { name: 'mr1', mapSlots, reduceSlots };
  } else if (rec.name === 'unified') model = { name: 'unified', containers: positiveInt('containers') };
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
  /** The lane its maps draw from (mapLane); 0 when absent. */
  readonly mapLane?: number;
  readonly pendingMaps: number;
  readonly mapSeconds: number;
  readonly mapsBusyUntil: number;
  readonly pendingReduces: number;
  readonly reduceSeconds: number;
  readonly reducesBusyUntil: number;
  /**
   * What the job spends outside its tasks (absent: nothing, the papers' model). With
   * `amSlot`, its AM takes the smallest slot time u of its maps' lane before any of its tasks,
   * starts at max(u, now) and holds that container until the job's finish; without, the AM is
   * counted elsewhere (already running, or not in a container of this lane) and starts at
   * `now`. Either way the maps start no earlier than the AM's start plus `setupSeconds`, and
   * the job finishes `commitSeconds` after its last task.
   */
  readonly am?: JobOverheads;
}

/** What a job spends outside its tasks (JobWork.am). */
export interface JobOverheads {
  readonly setupSeconds: number;
  readonly commitSeconds: number;
  /** The AM holds a container of the maps' lane from its start to the job's finish. */
  readonly amSlot: boolean;
}

/** Whether placing this work takes a container for its AM first. */
export function takesAmSlot(work: JobWork): boolean {
  return work.am?.amSlot === true;
}

/**
 * For work with an AM: the instant up to which `now` cannot change its placement on vectors
 * whose maps' lane starts at `laneMin` (the record is the same for every now at or before it).
 * With an AM slot, only max(u, now) reads now (u = laneMin, the slot the AM takes); without,
 * the maps read max(t, now + set-up), and with no map left the map stage ends at
 * max(mapsBusyUntil, now + set-up).
 */
export function amNowBound(work: JobWork, laneMin: number): number {
  const am = work.am!;
  if (am.amSlot) return laneMin;
  return (work.pendingMaps > 0 ? laneMin : work.mapsBusyUntil) - am.setupSeconds;
}

/** Result of placing one job on its predecessor's vectors. */
export interface Placement {
  /** e^m: estimated end of the map stage. */
  readonly mapEnd: number;
  /** e: estimated finish of the job (with its commit, when it has an AM). */
  readonly finish: number;
}
