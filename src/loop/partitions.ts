import type { SidecarConfig } from '../config/schema';
import { mapTaskEnergy } from '../core/energy/fitness';
import type { EnergyProfile } from '../core/energy/profile';
import type { JobType } from '../core/kinds';
import { laneKindsFor } from '../core/lanes';
import type { PlacementCapabilities } from '../core/policy-entry';
import {
  rankPartitions,
  uniformLocality,
  type PartitionLocality,
  type RankedPartition,
} from '../core/placement/common/locality';

/**
 * Where a job may be decided in the live sidecar: the label partitions its type may use, best
 * first as the configured placement policy ranks them (its `partitionRanking` capability; EFH's
 * fitness h = ef * dop at partition level by default, He, dissertation, eq. 6.1), and the energy its map
 * tasks would use there, from the energy profile.
 */
export class Partitions {
  constructor(
    private readonly placement: SidecarConfig['placement'],
    private readonly gpuLabel: string,
    private readonly policy: Pick<PlacementCapabilities, 'partitionRanking' | 'adaptiveExecution'>,
    private readonly energyProfile: EnergyProfile | undefined,
  ) {}

  /**
   * The label partitions a job type may use: an adaptive job either, the default one first (as
   * a GPU job only, under a placement policy without adaptive execution).
   */
  candidates(jobType: string): string[] {
    const type = jobType === 'adaptive' && !this.policy.adaptiveExecution ? 'gpu' : jobType;
    return laneKindsFor(type).map((k) => (k === 'cpu' ? '' : this.gpuLabel));
  }

  /**
   * Partitions to try for a job type, best first. Under EFH with uniform dop this is the energy
   * order: the partition whose map task costs less energy first.
   */
  ranked(jobType: string, locality?: PartitionLocality): RankedPartition[] {
    const labels = this.candidates(jobType);
    return rankPartitions(
      labels.map((label) => ({ label, mapEnergy: this.mapEnergy(jobType, label) })),
      locality ?? uniformLocality(labels),
      this.policy.partitionRanking,
    );
  }

  /** Energy of one map task of a job type in a partition, from the profile (kWh or relative units). */
  private mapEnergy(jobType: string, label: string): number | undefined {
    const profile = this.energyProfile;
    if (!profile) return undefined;
    const nodeClass =
      label === '' ? this.placement.defaultNodeClass : (this.placement.nodeClassByLabel[label] ?? label);
    const workload = profile.defaultWorkload[jobType as JobType];
    if (!workload) return undefined;
    const kind = label === '' || jobType === 'cpu' ? 'cpu' : 'gpu';
    return (
      mapTaskEnergy(profile, workload, nodeClass, kind) ?? mapTaskEnergy(profile, workload, nodeClass, 'cpu')
    );
  }

  /** The energy a job's map tasks would use in a partition, in joules; null without kWh figures. */
  energyJoules(jobType: string, label: string, maps: number): number | null {
    const profile = this.energyProfile;
    const e = this.mapEnergy(jobType, label);
    const workload = profile?.defaultWorkload[jobType as JobType];
    if (e === undefined || !workload || profile?.workloads[workload]?.unit !== 'kWh') return null;
    return e * maps * 3.6e6;
  }
}
