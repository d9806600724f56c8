import { createMatchmaking, type MatchmakingState } from '../matchmaking';
import type { PlacementPolicy } from '../types';

export { matchmakingArgsSchema as fairMatchmakingArgsSchema } from '../matchmaking';

/** Matchmaking on fair-share order (He, dissertation, section 4.4, "Fair with matchmaking algorithm"). */
export function createFairMatchmaking(rawArgs: unknown = {}): PlacementPolicy<MatchmakingState> {
  return createMatchmaking(rawArgs, 'fair');
}
