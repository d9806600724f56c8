import { createEfh, type EfhContext, type EfhState } from '../efh';
import type { PlacementPolicy } from '../common/types';
import { placementEntry } from '../../policy-entry';

export { efhArgsSchema as efhNoAeArgsSchema } from '../efh';

/**
 * EFH without adaptive execution (He, dissertation, Table 6.3, "EFH-w/o-AE" in Table 6.11): every
 * GPU-capable job is bound to GPU-labelled containers, even one that ships CPU code.
 */
export function createEfhNoAe(rawArgs: unknown = {}, ctx: EfhContext = {}): PlacementPolicy<EfhState> {
  return createEfh(rawArgs, ctx, false);
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'efh-no-ae';
export const entry = placementEntry(
  'EFH without adaptive execution (He, dissertation, Tables 6.3, 6.4)',
  (a, c) => createEfhNoAe(a, c),
  { energyProfile: true, partitionRanking: 'fitness', adaptiveExecution: false },
);
