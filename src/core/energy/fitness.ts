import { ValidationError } from '../../errors/validation';
import type { ContainerKind, JobType, PendingTask } from '../kinds';
import type { EnergyProfile } from './profile';

/** The workload a job's map tasks are priced as: its own, else the profile's default for its kind. */
export function workloadOf(
  job: { readonly jobId: string; readonly kind: JobType; readonly workload?: string },
  profile: EnergyProfile,
): string {
  const w = job.workload ?? profile.defaultWorkload[job.kind];
  if (!(w in profile.workloads)) {
    throw new ValidationError([
      {
        path: `jobs.${job.jobId}.workload`,
        message: `unknown workload "${w}"; the energy profile has: ${Object.keys(profile.workloads).join(', ')}`,
      },
    ]);
  }
  return w;
}

/**
 * E_ij_map: the energy one map task of `workload` uses in a `kind` container of a `nodeClass`
 * node, idle energy excluded (He, dissertation, eq. 6.4). Undefined when the profile has no figure
 * (a class missing from the profile, or a GPU figure on a CPU-only class): the container is
 * then not a candidate for the job.
 */
export function mapTaskEnergy(
  profile: EnergyProfile,
  workload: string,
  nodeClass: string,
  kind: ContainerKind,
): number | undefined {
  return profile.workloads[workload]?.mapTask[nodeClass]?.[kind];
}

/** ef_ij = 1 / E_ij_map (eq. 6.3); 0 when the energy is unknown, so such a container ranks last. */
export function energyEfficiency(
  profile: EnergyProfile,
  workload: string,
  nodeClass: string,
  kind: ContainerKind,
): number {
  const e = mapTaskEnergy(profile, workload, nodeClass, kind);
  return e === undefined ? 0 : 1 / e;
}

/**
 * dop_ij (eq. 6.2): the share of job j's input data stored on node i. Blocks are of equal
 * size (one map task per block), so it is the share of its map tasks with a replica on i.
 * Without any replica information (no WebHDFS, or inputs not on HDFS) dop is uniform, 1 on
 * every node, and the fitness reduces to the energy efficiency (docs/placement.md, "EFH level I").
 */
export function dataOverlap(tasks: readonly PendingTask[], nodeId: string): number {
  const withData = tasks.filter((t) => t.replicaNodes.length > 0);
  if (withData.length === 0) return 1;
  return withData.filter((t) => t.replicaNodes.includes(nodeId)).length / withData.length;
}

/** h_ij = ef_ij * dop_ij (eq. 6.1). */
export function fitness(ef: number, dop: number): number {
  return ef * dop;
}
