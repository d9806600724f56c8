import { createDelay, type DelayState } from '../delay';
import type { PlacementPolicy } from '../types';

export { delayArgsSchema as fairDelayArgsSchema } from '../delay';

/** Delay scheduling on fair-share order (the Hadoop fair scheduler's own use of it, He, dissertation, section 4.4). */
export function createFairDelay(rawArgs: unknown = {}): PlacementPolicy<DelayState> {
  return createDelay(rawArgs, 'fair');
}
