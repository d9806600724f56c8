import {
  mapLane,
  reduceLane,
  takesAmSlot,
  type JobWork,
  type Lanes,
  type Placement,
  type SlotModel,
} from './model';

/**
 * "Sort items in T to keep T a sorted vector" (Alg. 5.2 line 7, Alg. 5.3 line 8). Only the
 * first item changed, and it only grew, so one insertion pass re-sorts the vector exactly.
 */
function resortFirst(v: Float64Array): void {
  const x = v[0]!;
  let i = 1;
  while (i < v.length && v[i]! < x) {
    v[i - 1] = v[i]!;
    i++;
  }
  v[i - 1] = x;
}

/**
 * The reference implementation: Alg. 5.2 and 5.3 exactly as printed, one task at a time,
 * re-sorting after every task. O(M*l + R*q) per job. Kept to check and benchmark the fast one.
 */
export function literalPlace(
  model: SlotModel,
  pred: Lanes,
  work: JobWork,
  now: number,
): Placement & { lanes: Float64Array[] } {
  const lanes: Float64Array[] = pred.map((l) => Float64Array.from(l));
  const ml = work.mapLane ?? mapLane(model);
  // The AM (JobWork.am): the smallest slot of the maps' lane, out of the vector until the
  // job's finish is known; the maps are released once it has set the job up.
  let release = now;
  let amLane: Float64Array | undefined;
  if (work.am !== undefined) {
    if (takesAmSlot(work)) {
      amLane = lanes[ml]!;
      release = Math.max(amLane[0]!, now);
      lanes[ml] = amLane.subarray(1);
    }
    release += work.am.setupSeconds;
  }
  const tm = lanes[ml]!;
  let last = -Infinity;
  for (let k = 0; k < work.pendingMaps; k++) {
    let t = tm[0]!; // line 3: the smallest value
    t = Math.max(t, release); // line 4
    t += work.mapSeconds; // line 5
    last = t; // line 6: e^m
    tm[0] = t;
    resortFirst(tm); // line 7
  }
  // A job rebuilt from a running cluster may end its map stage with a running map; a fresh
  // job always has last >= now, so for it this is exactly e^m of line 6.
  const mapEnd = Math.max(last, work.mapsBusyUntil, release);
  const tr = lanes[reduceLane(model)]!;
  let lastR = -Infinity;
  for (let k = 0; k < work.pendingReduces; k++) {
    let t = tr[0]!; // Alg. 5.3 line 4
    t = Math.max(t, mapEnd); // line 5
    t += work.reduceSeconds; // line 6
    lastR = t; // line 7: e
    tr[0] = t;
    resortFirst(tr); // line 8
  }
  let finish = Math.max(lastR, work.reducesBusyUntil, mapEnd);
  if (work.am !== undefined) finish += work.am.commitSeconds;
  if (amLane !== undefined) {
    // The AM's container comes back at the job's finish: the vector again, sorted.
    const v = amLane;
    let i = 1;
    while (i < v.length && v[i]! < finish) {
      v[i - 1] = v[i]!;
      i++;
    }
    v[i - 1] = finish;
    lanes[ml] = v;
  }
  return { lanes, mapEnd, finish };
}

/**
 * SATU (Alg. 5.6 / Alg. VI): start from the predecessor's vectors and, for each actual task
 * finish time in ascending order, overwrite the smallest slot time with it (lines 7-11 for the
 * maps, 12-21 for the reduces). On `unified` both loops run on the one container vector; the
 * maps' loop runs on the job's own map lane (`jobMapLane`: its GPU map slots, say).
 */
export function satu(
  model: SlotModel,
  pred: Lanes,
  mapFinishes: readonly number[],
  reduceFinishes: readonly number[],
  jobMapLane: number = mapLane(model),
): Float64Array[] {
  const lanes = pred.map((l) => Float64Array.from(l));
  const run = (lane: Float64Array, finishes: readonly number[]): void => {
    const sorted = [...finishes].sort((a, b) => a - b);
    for (const e of sorted) {
      if (lane.length === 0) return;
      // line 9: u_1 = e; line 10: re-sort. The new value may be smaller than its neighbours.
      lane[0] = e;
      lane.sort();
    }
  };
  run(lanes[jobMapLane]!, mapFinishes);
  run(lanes[reduceLane(model)]!, reduceFinishes);
  return lanes;
}
