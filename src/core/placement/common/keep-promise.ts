import { NodeFill } from './helpers';
import type { HeartbeatInput, HeartbeatResult, PlacementPolicy } from './types';

/**
 * A placement policy under an admission promise (RTMR's guarantee, He et al., RTMR, appendix).
 *
 * The admission vectors assume that a slot freed at t is taken by the first job in queue order
 * that has a task for it at the node's next heartbeat, whatever the data's location: a
 * non-local task is estimated at its remote-read time (the estimates are the worst case), and
 * one heartbeat per task is in the estimate. Locality rules that leave a free slot idle while
 * that job has a task break this: FIFO's one non-local task per heartbeat (He, dissertation, 4.1),
 * matchmaking's first skipped heartbeat (Alg. 1), delay scheduling's wait. With 4 maps of one
 * block stored only on a reduce-only node, FIFO starts one map per 3 s heartbeat, and a job
 * estimated at 13 s finished at 19.1 s.
 *
 * So the wrapped policy still chooses which tasks run here (its locality preference), and
 * every free container it leaves while a job it was shown has a task that can use it gets that
 * job's first local task, else its first pending task, jobs taken in the order given (the
 * dispatcher's). Policies that fill every slot they can (a job alone in its queue, no skip) are
 * unchanged by it.
 */
export function keepPromise<S>(policy: PlacementPolicy<S>, gpuLabel: string): PlacementPolicy<S> {
  return {
    ...policy,
    onHeartbeat(state: S, input: HeartbeatInput): HeartbeatResult<S> {
      const inner = policy.onHeartbeat(state, input);
      const fill = new NodeFill(input.node, gpuLabel);
      for (const a of inner.assignments) {
        fill.free.take(a.containerKind);
        fill.tally.adopt(a);
      }
      for (const job of input.jobs) {
        for (let kind = fill.kindFor(job); kind !== undefined; kind = fill.kindFor(job)) {
          const task = fill.tally.firstLocal(job) ?? fill.tally.firstAny(job);
          if (!task) break;
          fill.give(job, task, kind);
        }
      }
      if (fill.assignments.length === inner.assignments.length) return inner;
      return { assignments: fill.assignments, state: inner.state };
    },
  };
}
