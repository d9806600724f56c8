import type { DeadlineJob } from '../../job';

/** f, c_m, c_r, c_d of seed 001 (see DcOptions). */
export interface DcCosts {
  readonly filterRatio: number;
  readonly mapCost: number;
  readonly reduceCost: number;
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
