import type { DeadlineJob } from '../../job';
import type { SlotModel } from '../../slots/model';

/** f, c_m, c_r, c_d of Kc and Anyanwu, DC. */
export interface DcCosts {
  /** f: intermediate / input size. */
  readonly filterRatio: number;
  /** c_m, c_r: seconds per unit of data in a map / reduce. */
  readonly mapCost: number;
  readonly reduceCost: number;
  /** c_d: seconds per unit of intermediate data transferred. */
  readonly transferCost: number;
}

/**
 * DC's unit costs for one job: its class's worst-case figures when it carries them (f = eta,
 * c_m = c_m^max, c_r = c_r^max, as the simulator gives DC the same figures RTMR gets), else the
 * policy's own. c_d is the policy's (no class learns a transfer cost).
 */
export function dcCosts(o: DcCosts, job: DeadlineJob): DcCosts {
  const e = job.estimates;
  if (e === undefined) return o;
  return {
    filterRatio: e.eta,
    mapCost: e.mapCostMax,
    reduceCost: e.reduceCostMax,
    transferCost: o.transferCost,
  };
}

/** DC's options: the slot model and its unit costs (index.ts: the schedulability test they serve). */
export interface DcOptions extends DcCosts {
  readonly slotModel: SlotModel;
}
