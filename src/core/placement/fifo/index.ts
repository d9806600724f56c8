import { z } from 'zod';
import { NodeFill, fifoOrder, gpuLabelSchema, parseArgs } from '../common/helpers';
import type { HeartbeatInput, HeartbeatResult, PlacementPolicy } from '../common/types';
import { placementEntry, LOCALITY_FIRST } from '../../policy-entry';

export const fifoArgsSchema = z.strictObject({ gpuLabel: gpuLabelSchema });
export type FifoArgs = z.output<typeof fifoArgsSchema>;

/** FIFO keeps no state between heartbeats. */
export type FifoState = Record<string, never>;

/**
 * Hadoop's default FIFO scheduler with its locality rule (He, dissertation, section 4.1): on a
 * heartbeat, look only at the first job (strict FIFO: later jobs wait while it has a task to
 * schedule); give the node that job's local tasks while slots are free; once the job has no
 * local task left, give the node one and only one non-local task in this heartbeat, however
 * many slots remain free.
 *
 * "First job" means the first job that can use this node at all: a GPU-only job is passed
 * over on a node without GPU containers, as YARN passes over a request for another partition.
 */
export function createFifo(rawArgs: unknown = {}): PlacementPolicy<FifoState> {
  const args = parseArgs(fifoArgsSchema, rawArgs, 'placement.args');
  return {
    name: 'fifo',
    initialState: () => ({}),
    onHeartbeat(state: FifoState, input: HeartbeatInput): HeartbeatResult<FifoState> {
      const fill = new NodeFill(input.node, args.gpuLabel);
      const order = fifoOrder(input.jobs);
      let nonLocalGiven = false;
      while (fill.free.total > 0) {
        const head = order.find((j) => fill.usable(j));
        if (!head) break;
        const kind = fill.kindFor(head)!;
        const local = fill.tally.firstLocal(head);
        if (local) {
          fill.give(head, local, kind);
        } else if (!nonLocalGiven) {
          // Section 4.1: "it assigns the node one and only one non-local task during this heartbeat interval".
          fill.give(head, fill.tally.firstAny(head)!, kind);
          nonLocalGiven = true;
        } else {
          break;
        }
      }
      return { assignments: fill.assignments, state };
    },
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'fifo';
export const entry = placementEntry(
  'Hadoop FIFO: local tasks of the first job, else one non-local task per heartbeat',
  (a) => createFifo(a),
  LOCALITY_FIRST,
);
