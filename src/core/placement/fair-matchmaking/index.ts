import { createMatchmaking, type MatchmakingState } from '../matchmaking';
import type { PlacementPolicy } from '../common/types';
import { placementEntry, LOCALITY_FIRST } from '../../policy-entry';

export { matchmakingArgsSchema as fairMatchmakingArgsSchema } from '../matchmaking';

/** Matchmaking on fair-share order (He, dissertation, section 4.4, "Fair with matchmaking algorithm"). */
export function createFairMatchmaking(rawArgs: unknown = {}): PlacementPolicy<MatchmakingState> {
  return createMatchmaking(rawArgs, 'fair');
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'fair-matchmaking';
export const entry = placementEntry(
  'matchmaking on fair-share order',
  (a) => createFairMatchmaking(a),
  LOCALITY_FIRST,
);
