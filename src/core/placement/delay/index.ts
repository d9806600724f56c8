import { z } from 'zod';
import { NodeFill, fairOrder, fifoOrder, gpuLabelSchema, parseArgs } from '../common/helpers';
import type {
  ContainerKind,
  HeartbeatInput,
  HeartbeatResult,
  PlacementJob,
  PlacementPolicy,
} from '../common/types';
import { placementEntry, LOCALITY_FIRST } from '../../policy-entry';

/**
 * D defaults to 1.5 heartbeat intervals (He, dissertation, section 4.2: "By default, it is set at 1.5
 * times the slave node's heartbeat interval"), with Hadoop 1's 3 s heartbeat used in chapter 4.
 */
export const DEFAULT_MAX_DELAY_MS = 4500;

/**
 * How a skipped job's wait is counted:
 *  - `first-skip`: the time since the job was first skipped, cleared by a local launch;
 *  - `hadoop1`: as Hadoop 1's fair scheduler counts `timeWaitedForLocalMap`: a heartbeat adds
 *    the time since the cluster's previous heartbeat to each job skipped at that previous one
 *    (visited, and launched no map); every map launch resets it to 0. A non-local launch lets the
 *    job launch non-local maps at once until it launches a local one (its locality level stays
 *    RACK, which on one rack is every node).
 */
export const DELAY_WAIT_RULES = ['first-skip', 'hadoop1'] as const;

export const delayArgsSchema = z.strictObject({
  maxDelayMs: z.number().finite().nonnegative().default(DEFAULT_MAX_DELAY_MS),
  waitRule: z.enum(DELAY_WAIT_RULES).default('first-skip'),
  gpuLabel: gpuLabelSchema,
});
export type DelayArgs = z.output<typeof delayArgsSchema>;

export interface DelayState {
  /** Per job: when it was first skipped for want of a local task; cleared when it launches a local task. */
  readonly skippedSinceMs: Readonly<Record<string, number>>;
  /** `hadoop1` rule: per job, the wait counted so far (ms). */
  readonly waitedMs?: Readonly<Record<string, number>>;
  /** `hadoop1` rule: the jobs skipped at the cluster's previous heartbeat, and when it was. */
  readonly skippedLast?: readonly string[];
  readonly lastHeartbeatMs?: number;
  /** `hadoop1` rule: jobs whose last map launch was non-local (they may launch non-local maps at once). */
  readonly nonLocal?: readonly string[];
}

export type JobOrder = 'fifo' | 'fair';

/**
 * Delay scheduling (Zaharia et al., EuroSys 2010, as summarised in He, dissertation, section 4.2), on
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
      if (args.waitRule === 'hadoop1')
        return hadoop1Heartbeat(state, input, args.maxDelayMs, args.gpuLabel, order);
      const { node, nowMs } = input;
      const fill = new NodeFill(node, args.gpuLabel);
      const { tally } = fill;
      // Forget timers of jobs that left the queue, so the state stays the size of the queue.
      const present = presentJobs(input);
      const skipped = new Map(Object.entries(state.skippedSinceMs).filter(([id]) => present.has(id)));
      fillSlots(fill, input, order, (job, kind) => {
        const local = tally.firstLocal(job);
        if (local) {
          fill.give(job, local, kind);
          skipped.delete(job.jobId);
          return true;
        }
        const since = skipped.get(job.jobId);
        if (since !== undefined && nowMs - since >= args.maxDelayMs) {
          fill.give(job, tally.firstAny(job)!, kind);
          return true;
        }
        if (since === undefined) skipped.set(job.jobId, nowMs);
        return false;
      });
      return { assignments: fill.assignments, state: { skippedSinceMs: Object.fromEntries(skipped) } };
    },
  };
}

/**
 * One heartbeat under Hadoop 1's fair scheduler's delay rule (FairScheduler.assignTasks,
 * updateLocalityWaitTimes, updateLastMapLocalityLevel, getAllowedLocalityLevel; one rack, so
 * RACK is every node): see DELAY_WAIT_RULES.
 */
function hadoop1Heartbeat(
  state: DelayState,
  input: HeartbeatInput,
  maxDelayMs: number,
  gpuLabel: string,
  order: JobOrder,
): HeartbeatResult<DelayState> {
  const { node, nowMs } = input;
  const fill = new NodeFill(node, gpuLabel);
  const { tally } = fill;
  const present = presentJobs(input);
  const waited = new Map(Object.entries(state.waitedMs ?? {}).filter(([id]) => present.has(id)));
  // updateLocalityWaitTimes: the jobs skipped at the previous heartbeat waited since it.
  const sinceLast = state.lastHeartbeatMs === undefined ? 0 : Math.max(0, nowMs - state.lastHeartbeatMs);
  for (const id of state.skippedLast ?? [])
    if (present.has(id)) waited.set(id, (waited.get(id) ?? 0) + sinceLast);
  const nonLocal = new Set((state.nonLocal ?? []).filter((id) => present.has(id)));
  const visited = new Set<string>();
  const launched = new Set<string>();
  fillSlots(fill, input, order, (job, kind) => {
    visited.add(job.jobId);
    const local = tally.firstLocal(job);
    const any =
      local ??
      (nonLocal.has(job.jobId) || (waited.get(job.jobId) ?? 0) >= maxDelayMs
        ? tally.firstAny(job)
        : undefined);
    if (!any) return false;
    fill.give(job, any, kind);
    // updateLastMapLocalityLevel: every launch resets the wait and records its level.
    launched.add(job.jobId);
    waited.set(job.jobId, 0);
    if (local) nonLocal.delete(job.jobId);
    else nonLocal.add(job.jobId);
    return true;
  });
  return {
    assignments: fill.assignments,
    state: {
      skippedSinceMs: {},
      waitedMs: Object.fromEntries(waited),
      skippedLast: [...visited].filter((id) => !launched.has(id)),
      lastHeartbeatMs: nowMs,
      nonLocal: [...nonLocal],
    },
  };
}

/** The ids of the jobs in the queue at this heartbeat: state kept for any other is dropped. */
function presentJobs(input: HeartbeatInput): Set<string> {
  return new Set(input.jobs.map((j) => j.jobId));
}

/**
 * Fills the node's free slots one at a time: each is offered to the jobs in `order` (FIFO order
 * does not change within a heartbeat; fair order does, as it counts this heartbeat's
 * assignments) that have a pending task the slot can run, until `offer` launches one (true).
 * When every job passes on a slot, the rest of the node is left idle.
 */
function fillSlots(
  fill: NodeFill,
  input: HeartbeatInput,
  order: JobOrder,
  offer: (job: PlacementJob, kind: ContainerKind) => boolean,
): void {
  const fifo = order === 'fifo' ? fifoOrder(input.jobs) : null;
  slots: while (fill.free.total > 0) {
    const jobs = fifo ?? fairOrder(input.jobs, fill.tally.perJob);
    for (const job of jobs) {
      const kind = fill.kindFor(job);
      if (!kind || !fill.tally.hasPending(job)) continue;
      if (offer(job, kind)) continue slots;
    }
    break; // every job passed on this slot
  }
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'delay';
export const entry = placementEntry(
  'delay scheduling (skip a job without a local task for up to D) on FIFO order',
  (a) => createDelay(a),
  LOCALITY_FIRST,
);
