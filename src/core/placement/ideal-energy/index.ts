import { z } from 'zod';
import { ValidationError } from '../../../errors/validation';
import { mapTaskEnergy, workloadOf } from '../../energy/fitness';
import type { EnergyProfile } from '../../energy/profile';
import { NodeFill, compareIds, fifoOrder, parseArgs, relevantKinds } from '../common/helpers';
import type {
  ContainerKind,
  HeartbeatInput,
  HeartbeatResult,
  PlacementJob,
  PlacementPolicy,
} from '../common/types';
import { placementEntry } from '../../policy-entry';

export const idealEnergyArgsSchema = z.strictObject({});

export interface IdealEnergyState {
  /** Every (node class, labels) seen so far: the container types the cluster offers. */
  readonly classes: Readonly<Record<string, readonly string[]>>;
}

/**
 * The "IDEAL" energy run of He, dissertation, section 6.3.3.3: every map task runs only on the
 * container type (node class and kind) that spends the least energy for its workload,
 * whatever the wait ("if we have 10 map tasks that runs on node A is more energy efficient
 * than running on node B, we will not allow any map task run on node B"). It is a lower
 * bound on map energy, not a scheduler to run: the dissertation measured about 3x the turnaround.
 * Jobs are served in FIFO order, local tasks first. GPU jobs still respect the GPU label;
 * adaptive jobs may use either kind, whichever is cheaper.
 */
export function createIdealEnergy(
  rawArgs: unknown = {},
  ctx: { energyProfile?: EnergyProfile } = {},
): PlacementPolicy<IdealEnergyState> {
  parseArgs(idealEnergyArgsSchema, rawArgs, 'placement.args');
  const profile = ctx.energyProfile;
  if (!profile) {
    throw new ValidationError([
      { path: 'placement.energyProfile', message: 'required by placement policy ideal-energy' },
    ]);
  }
  const gpuLabel = profile.gpuLabel;

  /** The least energy a task of `job` can run with on any known container type. */
  const bestEnergy = (job: PlacementJob, classes: Readonly<Record<string, readonly string[]>>) => {
    const w = workloadOf(job, profile);
    let best = Infinity;
    for (const [cls, labels] of Object.entries(classes)) {
      for (const kind of relevantKinds(job.kind, { labels }, gpuLabel)) {
        const e = mapTaskEnergy(profile, w, cls, kind);
        if (e !== undefined && e < best) best = e;
      }
    }
    return best;
  };

  return {
    name: 'ideal-energy',
    initialState: () => ({ classes: {} }),
    onHeartbeat(state: IdealEnergyState, input: HeartbeatInput): HeartbeatResult<IdealEnergyState> {
      const { node } = input;
      const classes = { ...state.classes, [node.nodeClass]: node.labels };
      const fill = new NodeFill(node, gpuLabel);
      const idealKind = (job: PlacementJob): ContainerKind | undefined => {
        const best = bestEnergy(job, classes);
        const w = workloadOf(job, profile);
        const kinds = fill.kinds(job).filter((k) => mapTaskEnergy(profile, w, node.nodeClass, k) === best);
        return fill.free.firstAvailable(kinds);
      };
      const order = fifoOrder(input.jobs);
      while (fill.free.total > 0) {
        const job = order.find((j) => fill.tally.hasPending(j) && idealKind(j) !== undefined);
        if (!job) break;
        fill.giveNext(job, idealKind(job)!);
      }
      const sorted = Object.fromEntries(Object.entries(classes).sort(([a], [b]) => compareIds(a, b)));
      return { assignments: fill.assignments, state: { classes: sorted } };
    },
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'ideal-energy';
export const entry = placementEntry(
  'every map task on its least-energy container type only (He, dissertation, section 6.3.3.3)',
  (a, c) => createIdealEnergy(a, c),
  { energyProfile: true, partitionRanking: 'energy' },
);
