import type { PreemptionModel, SharingMode } from '../core/sharing';
import { ValidationError, type ValidationIssue } from '../errors/validation';
import type { ClusterSpec } from './model';
import { mulberry32 } from './rng';
import { gpuSlotsOf } from './policies/cluster-slots';

/**
 * Another tenant of the simulated cluster: a second CapacityScheduler queue beside the
 * real-time one, with its own guaranteed share of the CPU containers and a maximum it may grow
 * to by borrowing the real-time queue's idle guarantee, and a seeded stream of its own jobs.
 * What the simulated scheduler does with it is src/sim/engine/tenant.ts; what admission sees of
 * it is src/sim/policies/sharing.ts (the same core functions as the live sidecar's lanes).
 *
 * Worked example: 130 CPU containers, share 0.5, max 1.0 → the tenant is guaranteed 65, the
 * real-time queue 65, and the tenant may hold up to 130 while the real-time queue has no
 * admitted work; the 65 it then holds beyond its own are the real-time queue's, held.
 */

/** The tenant's jobs: exponential arrivals, each a number of containers that run a while. */
export interface TenantWorkloadSpec {
  /** Mean seconds between two of its jobs (exponential). */
  readonly meanGapSeconds: number;
  /** Containers of one job, uniform whole number in [min, max]. */
  readonly containers: readonly [number, number];
  /** Seconds one of its containers runs, uniform in [min, max]. */
  readonly runSeconds: readonly [number, number];
  /** Share of its jobs that are long ones, [0, 1]. */
  readonly longShare: number;
  /** Seconds a long job's containers run, uniform in [min, max]. */
  readonly longRunSeconds: readonly [number, number];
}

/** Hadoop's preemption settings as the simulated RM runs them (yarn-site.xml's keys). */
export interface TenantPreemptionSpec {
  /** ...monitor.interval / monitoring_interval, seconds between two runs of the policy. */
  readonly monitoringIntervalSeconds: number;
  /** max_wait_before_kill, seconds from marking a container to killing it. */
  readonly maxWaitBeforeKillSeconds: number;
  /** natural_termination_factor: share of what is over target marked in one run, (0, 1]. */
  readonly naturalTerminationFactor: number;
  /** total_preemption_per_round: share of the partition marked in one run at most, (0, 1]. */
  readonly totalPreemptionPerRound: number;
}

export interface TenantSpec {
  /** The tenant queue's guaranteed share of the CPU containers, [0, 1). */
  readonly share: number;
  /** Its maximum capacity, [share, 1]: how far it may grow into the real-time queue's idle guarantee. */
  readonly max: number;
  /** Whether the RM's preemption monitor takes the real-time queue's guarantee back. */
  readonly preemption: 'on' | 'off';
  readonly preemptionSettings: TenantPreemptionSpec;
  /**
   * Whether admission knows when each of the tenant's containers ends (its apps' run times, as
   * the live sidecar may learn them): `known` counts a held container as back when the tenant's
   * container ends, `unknown` never (with preemption off the lane then shrinks by it).
   */
  readonly releases: 'known' | 'unknown';
  /**
   * `seen` (the default): admission counts the holds as the sidecar does. `blind`: admission
   * takes the guarantee as the admitted jobs' own, as it did before it counted other tenants (to show why).
   */
  readonly admission: 'seen' | 'blind';
  readonly workload: TenantWorkloadSpec;
}

/** Hadoop's defaults (ProportionalCapacityPreemptionPolicy): 3 s, 15 s, 0.2, 0.1. */
export const HADOOP_PREEMPTION: TenantPreemptionSpec = Object.freeze({
  monitoringIntervalSeconds: 3,
  maxWaitBeforeKillSeconds: 15,
  naturalTerminationFactor: 0.2,
  totalPreemptionPerRound: 0.1,
});

/** One of the tenant's jobs. */
export interface TenantJob {
  readonly id: string;
  readonly arrival: number;
  readonly containers: number;
  /** Seconds each of its containers runs (a preempted one starts again from nothing). */
  readonly seconds: number;
}

/** The queues' shares of the CPU containers, in containers. */
export interface TenantShares {
  /** CPU containers of the cluster (the partition the queues share). */
  readonly total: number;
  /** The real-time queue's guarantee, and its maximum: it never borrows (see docs/simulator.md). */
  readonly realtime: number;
  /** The tenant's guarantee. */
  readonly guaranteed: number;
  /** The tenant's maximum. */
  readonly max: number;
  /** Containers the preemption policy marks in one run at most. */
  readonly perRound: number;
}

/** Containers of a share, as the CapacityScheduler rounds a queue's capacity (down). */
function containersOf(share: number, total: number): number {
  return Math.floor(share * total + 1e-9);
}

/** The CPU containers of a cluster: every container that holds no GPU. */
export function cpuContainersOf(cluster: ClusterSpec): number {
  let all = 0;
  for (const c of cluster.nodeClasses) all += c.count * c.containers;
  return all - gpuSlotsOf(cluster);
}

export function tenantShares(cluster: ClusterSpec, spec: TenantSpec): TenantShares {
  const total = cpuContainersOf(cluster);
  const guaranteed = containersOf(spec.share, total);
  return {
    total,
    realtime: total - guaranteed,
    guaranteed,
    max: Math.max(guaranteed, containersOf(spec.max, total)),
    perRound: Math.max(1, containersOf(spec.preemptionSettings.totalPreemptionPerRound, total)),
  };
}

/** The core's model of the RM's preemption (core/sharing.ts), from the tenant's settings. */
export function preemptionModelOf(spec: TenantSpec, shares: TenantShares): PreemptionModel {
  const p = spec.preemptionSettings;
  return {
    monitoringIntervalSeconds: p.monitoringIntervalSeconds,
    maxWaitBeforeKillSeconds: p.maxWaitBeforeKillSeconds,
    naturalTerminationFactor: p.naturalTerminationFactor,
    perRoundContainers: shares.perRound,
  };
}

/** How the guarantee is held, as the core names it: taken back by preemption, or only lent. */
export function sharingModeOf(spec: TenantSpec): Exclude<SharingMode, 'own'> {
  return spec.preemption === 'on' ? 'preemption' : 'lent';
}

/**
 * A default workload for a tenant of `shares`: a job every 60 s on average of 1 to a third of
 * its maximum containers, each running 30-300 s, one job in five a long one of 15-45 minutes.
 */
export function defaultTenantWorkload(shares: Pick<TenantShares, 'max'>): TenantWorkloadSpec {
  return {
    meanGapSeconds: 60,
    containers: [1, Math.max(1, Math.ceil(shares.max / 3))],
    runSeconds: [30, 300],
    longShare: 0.2,
    longRunSeconds: [900, 2700],
  };
}

/** A tenant of the given shape with Hadoop's preemption settings and the default workload. */
export function tenantOf(
  cluster: ClusterSpec,
  over: Partial<Omit<TenantSpec, 'workload'>> & { workload?: Partial<TenantWorkloadSpec> },
): TenantSpec {
  const base = {
    share: 0.5,
    max: 1,
    preemption: 'off' as const,
    preemptionSettings: HADOOP_PREEMPTION,
    releases: 'unknown' as const,
    admission: 'seen' as const,
    ...over,
  };
  const shares = tenantShares(cluster, { ...base, workload: defaultTenantWorkload({ max: 1 }) });
  return { ...base, workload: { ...defaultTenantWorkload(shares), ...over.workload } };
}

/**
 * The tenant's jobs from time 0 to `horizonSeconds`, seeded: the same seed and spec, the same
 * jobs. Its own stream (not the engine's), so a run with a tenant draws the same heartbeat
 * phases, blocks and jitter as one without.
 */
export function tenantWorkload(spec: TenantWorkloadSpec, seed: number, horizonSeconds: number): TenantJob[] {
  const rng = mulberry32(seed).fork('tenant-workload');
  const out: TenantJob[] = [];
  for (let t = 0, i = 1; t <= horizonSeconds; t += rng.exponential(spec.meanGapSeconds), i++) {
    const long = rng.next() < spec.longShare;
    const [lo, hi] = long ? spec.longRunSeconds : spec.runSeconds;
    out.push({
      id: `tenant-${String(i).padStart(4, '0')}`,
      arrival: t,
      containers: rng.int(spec.containers[0], spec.containers[1]),
      seconds: rng.uniform(lo, hi),
    });
  }
  return out;
}

/**
 * Every problem of a tenant on a cluster, each with its path (`tenant.share`); empty when it
 * can run. The cluster must be `unified` (the tenant holds containers, not mr1 slots), without
 * node failures, and have CPU containers to share.
 */
export function tenantIssues(cluster: ClusterSpec, spec: TenantSpec): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const bad = (path: string, message: string) => issues.push({ path: `tenant.${path}`, message });
  const inRange = (v: number, lo: number, hi: number, loOpen = false) =>
    Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && v <= hi;
  if (cluster.slotModel !== 'unified')
    bad('cluster', 'another tenant needs a unified cluster (it holds containers, not mr1 slots)');
  if (cluster.failures) bad('cluster', 'another tenant is simulated on a cluster without node failures');
  if (!(inRange(spec.share, 0, 1) && spec.share < 1)) bad('share', 'must be a number in [0, 1)');
  if (!inRange(spec.max, 0, 1)) bad('max', 'must be a number in [0, 1]');
  else if (Number.isFinite(spec.share) && spec.max < spec.share)
    bad('max', `must be at least the share (${spec.share})`);
  if (spec.preemption !== 'on' && spec.preemption !== 'off') bad('preemption', "must be 'on' or 'off'");
  if (spec.releases !== 'known' && spec.releases !== 'unknown')
    bad('releases', "must be 'known' or 'unknown'");
  if (spec.admission !== 'seen' && spec.admission !== 'blind') bad('admission', "must be 'seen' or 'blind'");
  const p = spec.preemptionSettings;
  if (!inRange(p.monitoringIntervalSeconds, 0, 3600, true))
    bad('preemptionSettings.monitoringIntervalSeconds', 'must be a number in (0, 3600]');
  if (!inRange(p.maxWaitBeforeKillSeconds, 0, 86400))
    bad('preemptionSettings.maxWaitBeforeKillSeconds', 'must be a number in [0, 86400]');
  if (!inRange(p.naturalTerminationFactor, 0, 1, true))
    bad('preemptionSettings.naturalTerminationFactor', 'must be a number in (0, 1]');
  if (!inRange(p.totalPreemptionPerRound, 0, 1, true))
    bad('preemptionSettings.totalPreemptionPerRound', 'must be a number in (0, 1]');
  const w = spec.workload;
  if (!inRange(w.meanGapSeconds, 0, Number.MAX_VALUE, true))
    bad('workload.meanGapSeconds', 'must be a number > 0');
  const range = (path: string, r: readonly [number, number], whole: boolean, min: number) => {
    const ok = r.every((v) => Number.isFinite(v) && v >= min && (!whole || Number.isInteger(v)));
    if (!ok || r[0] > r[1])
      bad(path, `must be [min, max] with ${min} <= min <= max${whole ? ', whole numbers' : ''}`);
  };
  range('workload.containers', w.containers, true, 1);
  range('workload.runSeconds', w.runSeconds, false, 0);
  range('workload.longRunSeconds', w.longRunSeconds, false, 0);
  if (!inRange(w.longShare, 0, 1)) bad('workload.longShare', 'must be a number in [0, 1]');
  // With a share below 1 the real-time queue keeps at least one container of any it can share.
  if (cpuContainersOf(cluster) < 1)
    bad('cluster', 'the cluster has no CPU container for the queues to share');
  return issues;
}

/** Throws ValidationError with every problem of the tenant (tenantIssues). */
export function validateTenant(cluster: ClusterSpec, spec: TenantSpec): TenantSpec {
  const issues = tenantIssues(cluster, spec);
  if (issues.length > 0) throw new ValidationError(issues);
  return spec;
}
