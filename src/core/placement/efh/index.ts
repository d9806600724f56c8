import { z } from 'zod';
import { ValidationError } from '../../../errors/validation';
import { dataOverlap, energyEfficiency, fitness, workloadOf } from '../../energy/fitness';
import type { EnergyProfile } from '../../energy/profile';
import { compareIds, parseArgs } from '../common/helpers';
import type {
  AllocateResult,
  Assignment,
  ClusterView,
  GrantedContainer,
  HeartbeatInput,
  HeartbeatResult,
  NodeView,
  PlacementJob,
  PlacementPolicy,
} from '../common/types';
import { containerGroups, levelI, type EfhOptions } from './level1';
import { dispatchTasks } from './level2';
import { placementEntry } from '../../policy-entry';

export { dispatchTasks } from './level2';
export { levelI, rankCandidates, containerGroups } from './level1';

/** T defaults to the config's `placement.longWaitThresholdSeconds` default, 300 s. */
export const DEFAULT_LONG_WAIT_THRESHOLD_MS = 300_000;

export const efhArgsSchema = z.strictObject({
  longWaitThresholdMs: z.number().finite().nonnegative().default(DEFAULT_LONG_WAIT_THRESHOLD_MS),
  /** With adaptive execution: which jobs may use CPU containers (EfhOptions.aeScope). */
  aeScope: z.enum(['all', 'long-waiting']).default('all'),
  /** Defaults to the energy profile's `gpuLabel`. */
  gpuLabel: z.string().min(1).optional(),
});
export type EfhArgs = z.output<typeof efhArgsSchema>;

export interface EfhState {
  /** The long-waiting queue: job ids in the order they joined it. */
  readonly longWaiting: readonly string[];
  /** Last known state of every node (for the cluster-wide optsets when driven by heartbeats). */
  readonly nodes: Readonly<Record<string, NodeView>>;
}

export interface EfhContext {
  readonly energyProfile?: EnergyProfile;
}

/** EFH's options from the policy's arguments and the energy profile (required, and its GPU label). */
function efhOptions(name: string, rawArgs: unknown, ctx: EfhContext, adaptiveExecution: boolean): EfhOptions {
  const args = parseArgs(efhArgsSchema, rawArgs, 'placement.args');
  const profile = ctx.energyProfile;
  if (!profile) {
    throw new ValidationError([
      { path: 'placement.energyProfile', message: `required by placement policy ${name}` },
    ]);
  }
  if (args.gpuLabel !== undefined && args.gpuLabel !== profile.gpuLabel) {
    throw new ValidationError([
      {
        path: 'placement.args.gpuLabel',
        message: `"${args.gpuLabel}" differs from the energy profile's gpuLabel "${profile.gpuLabel}"`,
      },
    ]);
  }
  return {
    profile,
    gpuLabel: profile.gpuLabel,
    longWaitThresholdMs: args.longWaitThresholdMs,
    adaptiveExecution,
    aeScope: args.aeScope,
  };
}

/**
 * EFH, the energy-efficient two-level scheduler for hybrid CPU/GPU clusters (He, dissertation,
 * section 6.2): level I (`allocate`) grants containers to jobs cluster-wide by fitness, with
 * a long-waiting queue against starvation; level II (`dispatch`) places each job's tasks in
 * the containers it got. `efh` runs with adaptive execution (Table 6.2), `efh-no-ae` without
 * (Table 6.3).
 *
 * Driven by heartbeats, `onHeartbeat` remembers the node's report, runs level I over every
 * node known (their last reported free containers) and keeps only the grants on the
 * heartbeating node, which level II turns into assignments; grants elsewhere are recomputed
 * when those nodes report. Driven by a cluster view, call `allocate` whenever containers are
 * released (the dissertation runs level I "every time when a job releases resources") and `dispatch`
 * for each job with grants.
 */
export function createEfh(
  rawArgs: unknown = {},
  ctx: EfhContext = {},
  adaptiveExecution = true,
): PlacementPolicy<EfhState> {
  const name = adaptiveExecution ? 'efh' : 'efh-no-ae';
  const opts = efhOptions(name, rawArgs, ctx, adaptiveExecution);
  const profile = opts.profile;

  const fitnessFor = (job: PlacementJob, nodes: ReadonlyMap<string, NodeView>) => {
    const workload = workloadOf(job, profile);
    return (g: GrantedContainer) => {
      const node = nodes.get(g.nodeId);
      if (!node) return 0;
      const ef = energyEfficiency(profile, workload, node.nodeClass, g.containerKind);
      return fitness(ef, dataOverlap(job.pendingTasks, g.nodeId));
    };
  };

  const dispatch = (job: PlacementJob, grants: readonly GrantedContainer[], nodes: readonly NodeView[]) =>
    dispatchTasks(job, grants, fitnessFor(job, new Map(nodes.map((n) => [n.nodeId, n]))));

  return {
    name,
    initialState: () => ({ longWaiting: [], nodes: {} }),

    allocate(state: EfhState, view: ClusterView): AllocateResult<EfhState> {
      const nodes = { ...state.nodes, ...Object.fromEntries(view.nodes.map((n) => [n.nodeId, n])) };
      const { grants, longWaiting } = levelI(
        view.jobs,
        containerGroups(view.nodes),
        state.longWaiting,
        view.nowMs,
        opts,
      );
      return { grants, state: { longWaiting, nodes } };
    },

    dispatch,

    onHeartbeat(state: EfhState, input: HeartbeatInput): HeartbeatResult<EfhState> {
      const me = input.node;
      const known = { ...state.nodes, [me.nodeId]: me };
      const groups = containerGroups(Object.values(known));
      const { grants, longWaiting } = levelI(input.jobs, groups, state.longWaiting, input.nowMs, opts);
      const mine = grants.filter((g) => g.nodeId === me.nodeId);
      const byJob = new Map<string, GrantedContainer[]>();
      for (const g of mine) byJob.set(g.jobId, [...(byJob.get(g.jobId) ?? []), g]);
      const nodeList = Object.values(known);
      const assignments: Assignment[] = [];
      for (const job of [...input.jobs].sort((a, b) => compareIds(a.jobId, b.jobId))) {
        const g = byJob.get(job.jobId);
        if (g) assignments.push(...dispatch(job, g, nodeList));
      }
      const used = { cpu: 0, gpu: 0 };
      for (const a of assignments) used[a.containerKind] += 1;
      const after: NodeView = { ...me, free: { cpu: me.free.cpu - used.cpu, gpu: me.free.gpu - used.gpu } };
      return { assignments, state: { longWaiting, nodes: { ...known, [me.nodeId]: after } } };
    },
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'efh';
export const entry = placementEntry(
  'EFH energy-efficient two-level scheduler with adaptive execution (He, dissertation, Tables 6.2, 6.4)',
  (a, c) => createEfh(a, c),
  { energyProfile: true, partitionRanking: 'fitness' },
);
