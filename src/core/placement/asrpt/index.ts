import { z } from 'zod';
import { NodeFill, compareIds, gpuLabelSchema, parseArgs } from '../common/helpers';
import type { HeartbeatInput, HeartbeatResult, PlacementJob, PlacementPolicy } from '../common/types';
import { placementEntry } from '../../policy-entry';

export { srptLowerBound, validateSlottedJobs, type SlottedJob, type FlowTimeResult } from './srpt';
export { simulateAsrpt, type AsrptOptions, type AsrptSlot } from './asrpt';

export const asrptArgsSchema = z.strictObject({ gpuLabel: gpuLabelSchema });
export type AsrptState = Record<string, never>;

/**
 * ASRPT's map-task priority as a heartbeat policy: free containers go to jobs in
 * non-decreasing available workload (pending map tasks plus remaining reduce work, Zheng et al., ASRPT,
 * Algorithm 1 line 2), local tasks first within a job, and the whole node is filled (the
 * scheduler is work-conserving). The full slotted algorithm, with the virtual SRPT schedule
 * and reduce assignment, is `simulateAsrpt`; the simulator uses it with `srptLowerBound` as
 * the yardstick for total flow time.
 */
export function createAsrpt(rawArgs: unknown = {}): PlacementPolicy<AsrptState> {
  const args = parseArgs(asrptArgsSchema, rawArgs, 'placement.args');
  const availableWork = (j: PlacementJob) => j.pendingTasks.length + (j.remainingReduceWork ?? 0);
  return {
    name: 'asrpt',
    initialState: () => ({}),
    onHeartbeat(state: AsrptState, input: HeartbeatInput): HeartbeatResult<AsrptState> {
      const fill = new NodeFill(input.node, args.gpuLabel);
      // Ranked once per heartbeat, as the ASRPT paper ranks once per slot.
      const order = [...input.jobs].sort(
        (a, b) =>
          availableWork(a) - availableWork(b) || a.arrivalMs - b.arrivalMs || compareIds(a.jobId, b.jobId),
      );
      while (fill.free.total > 0) {
        const job = order.find((j) => fill.usable(j));
        if (!job) break;
        fill.giveNext(job, fill.kindFor(job)!);
      }
      return { assignments: fill.assignments, state };
    },
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'asrpt';
export const entry = placementEntry(
  'available shortest remaining processing time (Zheng et al., ASRPT, Alg. 1)',
  (a) => createAsrpt(a),
);
