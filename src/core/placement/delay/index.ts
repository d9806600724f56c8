import { z } from 'zod';
import { NodeFill, fairOrder, fifoOrder, gpuLabelSchema, parseArgs } from '../common';
import type { HeartbeatInput, HeartbeatResult, PlacementPolicy } from '../types';

/**
 * D defaults to 1.5 heartbeat intervals (seed 004 section 4.2: "By default, it is set at 1.5
 * times the slave node's heartbeat interval"), with Hadoop 1's 3 s heartbeat used in chapter 4.
 */
export const DEFAULT_MAX_DELAY_MS = 4500;

export const delayArgsSchema = z.strictObject({
  maxDelayMs: z.number().finite().nonnegative().default(DEFAULT_MAX_DELAY_MS),
  gpuLabel: gpuLabelSchema,
});
export type DelayArgs = z.output<typeof delayArgsSchema>;

export interface DelayState {
  /** Per job: when it was first skipped for want of a local task; cleared when it launches a local task. */
  readonly skippedSinceMs: Readonly<Record<string, number>>;
}

export type JobOrder = 'fifo' | 'fair';

/**
 * Delay scheduling (Zaharia et al., EuroSys 2010, as summarised in seed 004 section 4.2), on
 * FIFO order (`delay`) or fair-share order (`fair-delay`). For each free slot, walk the jobs
 * in order:
 *  - a job with a task local to the node launches it, and its skip timer is cleared;
 *  - a job without one that has been skipped for at least D (`maxDelayMs`) launches a
 *    non-local task (several per heartbeat are allowed, unlike FIFO and matchmaking);
 *  - otherwise the job is skipped and, the first time, its skip timer starts at `nowMs`.
 */
export function createDelay(rawArgs: unknown = {}, order: JobOrder = 'fifo'): PlacementPolicy<DelayState> {
  const args = parseArgs(delayArgsSchema, rawArgs, 'placement.args');
  return {
    name: order === 'fifo' ? 'delay' : 'fair-delay',
    initialState: () => ({ skippedSinceMs: {} }),
    onHeartbeat(state: DelayState, input: HeartbeatInput): HeartbeatResult<DelayState> {
      const { node, nowMs } = input;
      const fill = new NodeFill(node, args.gpuLabel);
      const { tally } = fill;
      // Forget timers of jobs that left the queue, so the state stays the size of the queue.
      const present = new Set(input.jobs.map((j) => j.jobId));
      const skipped = new Map(Object.entries(state.skippedSinceMs).filter(([id]) => present.has(id)));

      // FIFO order does not change within a heartbeat; fair order does (it counts this heartbeat's assignments).
      const fifo = order === 'fifo' ? fifoOrder(input.jobs) : null;
      slots: while (fill.free.total > 0) {
        const jobs = fifo ?? fairOrder(input.jobs, tally.perJob);
        for (const job of jobs) {
          const kind = fill.kindFor(job);
          if (!kind || !tally.hasPending(job)) continue;
          const local = tally.firstLocal(job);
          if (local) {
            fill.give(job, local, kind);
            skipped.delete(job.jobId);
            continue slots;
          }
          const since = skipped.get(job.jobId);
          if (since !== undefined && nowMs - since >= args.maxDelayMs) {
            fill.give(job, tally.firstAny(job)!, kind);
            continue slots;
          }
          if (since === undefined) skipped.set(job.jobId, nowMs);
        }
        break; // every job was skipped for this slot: leave the rest of the node idle
      }
      return { assignments: fill.assignments, state: { skippedSinceMs: Object.fromEntries(skipped) } };
    },
  };
}
