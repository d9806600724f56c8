import { z } from 'zod';
import { NodeFill, fairOrder, fifoOrder, gpuLabelSchema, parseArgs } from '../common/helpers';
import type { JobOrder } from '../delay';
import type { HeartbeatInput, HeartbeatResult, PlacementPolicy } from '../common/types';
import { placementEntry, LOCALITY_FIRST } from '../../policy-entry';

export const matchmakingArgsSchema = z.strictObject({ gpuLabel: gpuLabelSchema });
export type MatchmakingArgs = z.output<typeof matchmakingArgsSchema>;

export interface MatchmakingState {
  /**
   * LocalityMarker[i] of Algorithm 1: absent = null (never missed since the last clean),
   * 0 = marked (the node's last look found no local task), n > 0 = local tasks taken since.
   */
  readonly markers: Readonly<Record<string, number>>;
  /** Jobs seen in the queue so far; a job not in it is a new arrival (Algorithm 2). */
  readonly knownJobIds: readonly string[];
}

/**
 * Matchmaking (He, dissertation, section 4.3, Algorithms 1 and 2), on FIFO order (`matchmaking`) or
 * fair-share order (`fair-matchmaking`).
 *
 * On a heartbeat from node i, while it has free slots: look through all jobs in order for a
 * task local to i and assign it (Alg. 1 lines 7-18). When no job has one:
 *  - Alg. 1 line 19 as printed (`previousMarker == LocalityMarker[i]`) is true on every miss,
 *    so line 22 (`else if LocalityMarker[i] == 0`) could only run after a hit, when the marker
 *    is at least 1: read literally, no node would ever get a non-local task. We follow the
 *    section's text instead and read line 19 as "previousMarker != 0" (this is the first miss in
 *    a row): mark the node (line 20) and assign nothing; and line 22 as "previousMarker == 0"
 *    (the node was already marked, this is its second miss in a row): assign exactly one
 *    non-local task from the first job (line 23). Either way the loop ends (lines 21, 25), so
 *    a node gets at most one non-local task per heartbeat.
 *  - A hit after a mark counts the marker up from 0 (lines 11-13), which unmarks the node.
 * When a new job joins the queue, every marker is cleared (Algorithm 2); the policy sees the
 * arrival as a job id it has not seen before, so a poller that learns of jobs late still works.
 */
export function createMatchmaking(
  rawArgs: unknown = {},
  order: JobOrder = 'fifo',
): PlacementPolicy<MatchmakingState> {
  const args = parseArgs(matchmakingArgsSchema, rawArgs, 'placement.args');
  return {
    name: order === 'fifo' ? 'matchmaking' : 'fair-matchmaking',
    initialState: () => ({ markers: {}, knownJobIds: [] }),
    onHeartbeat(state: MatchmakingState, input: HeartbeatInput): HeartbeatResult<MatchmakingState> {
      const { node } = input;
      const known = new Set(state.knownJobIds);
      const arrived = input.jobs.some((j) => !known.has(j.jobId));
      // Algorithm 2: a new job clears every node's marker.
      const markers = new Map(arrived ? [] : Object.entries(state.markers));
      const fill = new NodeFill(node, args.gpuLabel);
      const { tally } = fill;

      // FIFO order does not change within a heartbeat; fair order does (it counts this heartbeat's assignments).
      const fifo = order === 'fifo' ? fifoOrder(input.jobs) : null;
      while (fill.free.total > 0) {
        const previousMarker = markers.get(node.nodeId); // Alg. 1 line 6
        const jobs = fifo ?? fairOrder(input.jobs, tally.perJob);
        let hit = false;
        for (const job of jobs) {
          const kind = fill.kindFor(job);
          const local = kind ? tally.firstLocal(job) : undefined;
          if (kind && local) {
            fill.give(job, local, kind); // lines 9-10
            markers.set(node.nodeId, (previousMarker ?? 0) + 1); // lines 11-13
            hit = true;
            break; // line 15
          }
        }
        if (hit) continue;
        if (previousMarker !== 0) {
          markers.set(node.nodeId, 0); // line 20 (first miss in a row): mark, assign nothing
          break;
        }
        // Line 23 (second miss in a row): one non-local task from the first job that can run here.
        const first = jobs.find((j) => fill.usable(j));
        if (first) fill.give(first, tally.firstAny(first)!, fill.kindFor(first)!);
        break; // line 25
      }

      // Markers of nodes are kept for every node; job ids only for jobs still queued.
      const nextKnown = [...new Set([...input.jobs.map((j) => j.jobId)])];
      return {
        assignments: fill.assignments,
        state: { markers: Object.fromEntries(markers), knownJobIds: nextKnown },
      };
    },
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'matchmaking';
export const entry = placementEntry(
  'matchmaking with locality markers on FIFO order (He, dissertation, Alg. 1-2)',
  (a) => createMatchmaking(a),
  LOCALITY_FIRST,
);
