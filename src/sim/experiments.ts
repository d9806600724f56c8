import type { EstimateModel } from '../core/learning';
import type { ClusterSpec, TraceJob } from './model';
import type { PolicySpec } from './policies';
import { tenantOf } from './tenant';
import {
  efhCluster,
  efhWorkload,
  localityCluster,
  localityWorkload,
  rtmrCluster,
  sharedClusterWorkload,
  typicalMapSeconds,
  workloadI,
  workloadII,
} from './workloads';

/**
 * The built-in experiments: each names its cluster, its workload generator (seeded) and the
 * policy combinations to compare, as in the seeds' evaluations.
 */
export interface Experiment {
  name: string;
  description: string;
  cluster: ClusterSpec;
  jobs(seed: number): TraceJob[];
  specs: PolicySpec[];
  jobsFor?: (spec: PolicySpec, jobs: readonly TraceJob[]) => readonly TraceJob[];
  /**
   * How admission's estimates are modelled unless the caller says otherwise (docs/estimates.md):
   * the seeds' reproductions use the papers' model, as docs/results.md records them.
   */
  estimateModel?: EstimateModel;
  /** What the x axis of the locality plots is (delay D, seconds), when the experiment sweeps one. */
  sweep?: { parameter: string; values: number[] };
}

/**
 * The admission policies of seed 000 section V, plus YARN's own ReservationSystem agent.
 * RTMR's feedback threshold DeltaT is "a typical map task execution time" (seed 000 V), taken
 * from the cluster's loadgen cost model rather than the policy's generic 30 s default.
 */
function admissionSpecs(cluster: ClusterSpec): PolicySpec[] {
  const feedbackThresholdSeconds = typicalMapSeconds(cluster.costs.cpu);
  return [
    { label: 'dc', admission: 'dc', placement: 'fifo' },
    { label: 'rtmr', admission: 'rtmr', admissionArgs: { feedbackThresholdSeconds }, placement: 'fifo' },
    { label: 'rtmr-no-feedback', admission: 'rtmr-no-feedback', placement: 'fifo' },
    { label: 'yarn-greedy', admission: 'yarn-greedy', placement: 'fifo' },
    { label: 'fifo-all', admission: 'fifo-all', placement: 'fifo' },
  ];
}

/** Seed 004 4.4.1: D from 0.1 to 10 heartbeat intervals of 3 s, 8 values. */
export const DELAY_VALUES_SECONDS = [0.3, 0.9, 1.5, 3, 4.5, 9, 15, 30];

export function experiment(name: string): Experiment {
  switch (name) {
    case 'rtmr-workload-1': {
      const cluster = rtmrCluster('mr1');
      return {
        name,
        description:
          'seed 000 Table V: workload I (Facebook bins 1-6) on the 30-node heterogeneous cluster, mr1 slots',
        cluster,
        jobs: workloadI,
        specs: admissionSpecs(cluster),
        estimateModel: 'paper',
      };
    }
    case 'rtmr-workload-2': {
      const cluster = rtmrCluster('mr1');
      const reduceSlots = cluster.nodeClasses.reduce((n, c) => n + c.count * c.reduceSlots, 0);
      return {
        name,
        description:
          'seed 000 Table VI: workload II (Table IV) on the 30-node heterogeneous cluster, mr1 slots',
        cluster,
        jobs: workloadII,
        specs: admissionSpecs(cluster),
        estimateModel: 'paper',
        // Seed 000 V: jobs with more reduces than the cluster's reduce slots are left out when DC is tested.
        jobsFor: (spec, jobs) =>
          spec.admission === 'dc' ? jobs.filter((j) => j.reduces <= reduceSlots) : jobs,
      };
    }
    case 'locality': {
      const specs: PolicySpec[] = [
        { label: 'fifo', admission: null, placement: 'fifo' },
        { label: 'matchmaking', admission: null, placement: 'matchmaking' },
        { label: 'fair-matchmaking', admission: null, placement: 'fair-matchmaking' },
      ];
      for (const d of DELAY_VALUES_SECONDS) {
        specs.push({
          label: `delay:D=${d}`,
          admission: null,
          placement: 'delay',
          placementArgs: { maxDelayMs: d * 1000 },
        });
        specs.push({
          label: `fair-delay:D=${d}`,
          admission: null,
          placement: 'fair-delay',
          placementArgs: { maxDelayMs: d * 1000 },
        });
      }
      return {
        name,
        description:
          'seed 004 4.4: 30 nodes x 2 map slots, 100 blocks x 2 replicas, 3 s heartbeats, Facebook schedule',
        cluster: localityCluster(),
        jobs: localityWorkload,
        specs,
        sweep: { parameter: 'D', values: DELAY_VALUES_SECONDS },
      };
    }
    case 'efh':
      return {
        name,
        description:
          'seed 004 6.3: 6 CPU + 2 GPU nodes, 87 jobs half loadgen half MD simulation, Zipf(1) data access',
        cluster: efhCluster(),
        jobs: (seed) => efhWorkload(seed, 'adaptive'),
        specs: [
          { label: 'fifo', admission: null, placement: 'fifo' },
          { label: 'efh-no-ae', admission: null, placement: 'efh-no-ae' },
          { label: 'efh', admission: null, placement: 'efh' },
          { label: 'ideal-energy', admission: null, placement: 'ideal-energy' },
        ],
      };
    case 'tenants': {
      // Issue 23: the real-time queue guaranteed half of a unified cluster, another tenant the
      // other half and up to all of it; preemption on or off, its containers' ends known to
      // admission or not, and admission blind to it as it was before (to show why it must see it).
      const cluster = rtmrCluster('unified');
      const feedbackThresholdSeconds = typicalMapSeconds(cluster.costs.cpu);
      const rtmr = (label: string, tenant?: Parameters<typeof tenantOf>[1]): PolicySpec => ({
        label,
        admission: 'rtmr',
        admissionArgs: { feedbackThresholdSeconds },
        placement: 'fifo',
        ...(tenant ? { tenant: tenantOf(cluster, tenant) } : {}),
      });
      return {
        name,
        description:
          'issue 23: rtmr on the 30-node cluster (unified) shared half and half with another tenant that may grow to all of it; no tenant, preemption on, preemption off with its run times known or not, and admission blind to it',
        cluster,
        jobs: sharedClusterWorkload,
        specs: [
          rtmr('no-tenant'),
          rtmr('preemption-on', { preemption: 'on' }),
          rtmr('preemption-off-known', { preemption: 'off', releases: 'known' }),
          rtmr('preemption-off-unknown', { preemption: 'off', releases: 'unknown' }),
          rtmr('blind-preemption-on', { preemption: 'on', admission: 'blind' }),
          rtmr('blind-preemption-off', { preemption: 'off', admission: 'blind' }),
        ],
      };
    }
    default:
      throw new RangeError(`unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`);
  }
}

export const EXPERIMENTS = ['rtmr-workload-1', 'rtmr-workload-2', 'locality', 'efh', 'tenants'];
