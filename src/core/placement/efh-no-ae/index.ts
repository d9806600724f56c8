import { createEfh, type EfhContext, type EfhState } from '../efh';
import type { PlacementPolicy } from '../types';

export { efhArgsSchema as efhNoAeArgsSchema } from '../efh';

/**
 * EFH without adaptive execution (He, dissertation, Table 6.3, "EFH-w/o-AE" in Table 6.11): every
 * GPU-capable job is bound to GPU-labelled containers, even one that ships CPU code.
 */
export function createEfhNoAe(rawArgs: unknown = {}, ctx: EfhContext = {}): PlacementPolicy<EfhState> {
  return createEfh(rawArgs, ctx, false);
}
