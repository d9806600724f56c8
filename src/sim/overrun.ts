import { runPolicies } from './driver';
import { MB, type ClusterSpec, type NodeClassSpec, type SlotModel, type TraceJob } from './model';
import type { PolicySpec } from './policies';
import { mulberry32, type Rng } from './rng';

/**
 * The overrun study: RTMR's admitted jobs when tasks run past their
 * estimates. Admission's estimates are half the model's worst case (estimateScale 0.5), and
 * task times are drawn from a quarter to all of the worst case (jitter [0.25, 1]), so an actual
 * task time lies between 0.5x and 2x its estimate. Each generated workload runs under three
 * arms on the same cluster, trace and seed:
 *
 * - `no-feedback`: rtmr-no-feedback (vectors change only on admission);
 * - `satu-only`: rtmr with the papers' feedback controller alone (Alg. 5.5-5.6: a finished
 *   job's vectors rebuilt from its actual task times), no learning;
 * - `feedback`: rtmr with overrun handling (src/sim/overrun-feedback.ts): finished jobs teach
 *   their class's estimates (src/core/learning.ts), and the admission state is rebuilt, every
 *   queued job with its class's current estimates and every overrunning task holding its slot,
 *   whenever the estimates change or an admitted job's task is found past its estimate when a
 *   new job arrives.
 *
 * `npm run bench -- overrun` prints the figure; test/sim/overrun.test.ts keeps it from sliding.
 */

export type OverrunArm = 'no-feedback' | 'satu-only' | 'feedback';
export const OVERRUN_ARMS: readonly OverrunArm[] = ['no-feedback', 'satu-only', 'feedback'];

export interface OverrunStudyOptions {
  readonly workloads: number;
  /** Seeds the workloads and each run (workload i uses seed + i). */
  readonly seed: number;
  readonly slotModel?: SlotModel;
  /** Jobs per workload, inclusive range. */
  readonly jobs?: readonly [number, number];
  /** Estimates are the worst case times this (default 0.5: actual up to 2x the estimate). */
  readonly estimateScale?: number;
}

export interface ArmTally {
  readonly admitted: number;
  /** Admitted jobs that finished after their deadline (or never finished). */
  readonly misses: number;
  readonly rejected: number;
}

export interface OverrunStudy {
  readonly workloads: number;
  readonly jobs: number;
  readonly arms: Readonly<Record<OverrunArm, ArmTally>>;
}

/** A small heterogeneous cluster with every block on every node (no locality effects). */
export function overrunCluster(slotModel: SlotModel = 'mr1'): ClusterSpec {
  const node = (name: string, count: number, speed: number): NodeClassSpec => ({
    name,
    count,
    mapSlots: 2,
    reduceSlots: 1,
    containers: 3,
    gpuContainers: 0,
    labels: [],
    speed: { cpu: speed, gpu: speed, gpuOnCpu: speed },
    idleWatts: 100,
    taskEnergyKWh: { cpu: 0.001, gpu: 0.001, gpuOnCpu: 0.001 },
  });
  const cost = {
    mapFixedSeconds: 2,
    mapSecondsPerMB: 0.2,
    reduceFixedSeconds: 2,
    reduceSecondsPerMB: 1,
    shuffleRatio: 0.1,
    jitter: [0.25, 1] as [number, number],
  };
  return {
    version: 1,
    slotModel,
    heartbeatSeconds: 1,
    remoteReadPenalty: 0,
    gpuLabel: 'gpu',
    nodeClasses: [node('fast', 3, 1), node('slow', 2, 0.8)],
    costs: { cpu: cost, gpu: cost },
    hdfs: { blockMB: 128, replication: 5, blocks: 0 },
    failures: null,
    energyWindowSeconds: null,
  };
}

/** One random workload: arrivals 0-12 s apart, 1-20 maps of 16-128 MB, deadlines 1.2-4x a rough lone time. */
export function overrunWorkload(rng: Rng, count: number): TraceJob[] {
  let t = 0;
  const jobs: TraceJob[] = [];
  for (let i = 0; i < count; i++) {
    t += rng.int(0, 12);
    const maps = rng.int(1, 20);
    const reduces = rng.int(1, 6);
    const mb = rng.int(16, 128);
    // A rough time alone on the cluster at the worst case: map waves, then the reduces.
    const alone = Math.ceil(maps / 10) * (2 + 0.2 * mb) * 1.25 + 2 + (maps * mb * 0.1) / reduces;
    jobs.push({
      id: `j${i}`,
      arrival: t,
      deadline: Math.max(10, Math.round(alone * rng.uniform(1.2, 4))),
      maps,
      reduces,
      inputBytes: maps * mb * MB,
      splits: null,
      type: 'cpu',
      user: 'u',
      queue: 'default',
      blocks: null,
    });
  }
  return jobs;
}

const NO_FEEDBACK: PolicySpec = { label: 'no-feedback', admission: 'rtmr-no-feedback', placement: 'fifo' };
const RTMR = (label: OverrunArm): PolicySpec => ({ label, admission: 'rtmr', placement: 'fifo' });

export function overrunStudy(options: OverrunStudyOptions): OverrunStudy {
  const [lo, hi] = options.jobs ?? [10, 30];
  const cluster = overrunCluster(options.slotModel);
  const tally: Record<OverrunArm, { admitted: number; misses: number; rejected: number }> = {
    'no-feedback': { admitted: 0, misses: 0, rejected: 0 },
    'satu-only': { admitted: 0, misses: 0, rejected: 0 },
    feedback: { admitted: 0, misses: 0, rejected: 0 },
  };
  let jobCount = 0;
  for (let w = 0; w < options.workloads; w++) {
    const seed = options.seed + w;
    const rng = mulberry32(seed).fork('overrun-workload');
    const jobs = overrunWorkload(rng, rng.int(lo, hi));
    jobCount += jobs.length;
    const common = { cluster, jobs, seed, estimateScale: options.estimateScale ?? 0.5 };
    const results = [
      ...runPolicies({ ...common, specs: [NO_FEEDBACK, RTMR('satu-only')], learning: null }),
      ...runPolicies({ ...common, specs: [RTMR('feedback')] }),
    ];
    for (const r of results) {
      const t = tally[r.spec.label as OverrunArm];
      for (const o of r.outcomes) {
        if (!o.admitted) t.rejected++;
        else {
          t.admitted++;
          if (o.metDeadline !== true) t.misses++;
        }
      }
    }
  }
  return { workloads: options.workloads, jobs: jobCount, arms: tally };
}
