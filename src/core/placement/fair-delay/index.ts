import { createDelay, type DelayState } from '../delay';
import type { PlacementPolicy } from '../common/types';
import { placementEntry, LOCALITY_FIRST } from '../../policy-entry';

export { delayArgsSchema as fairDelayArgsSchema } from '../delay';

/** Delay scheduling on fair-share order (the Hadoop fair scheduler's own use of it, He, dissertation, section 4.4). */
export function createFairDelay(rawArgs: unknown = {}): PlacementPolicy<DelayState> {
  return createDelay(rawArgs, 'fair');
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'fair-delay';
export const entry = placementEntry(
  'delay scheduling on fair-share order',
  (a) => createFairDelay(a),
  LOCALITY_FIRST,
);
