import { MB, type ClusterSpec, type NodeClassSpec, type RunKind, type TraceJob } from '../model';
import type { Rng } from '../rng';
import type { ContainerKind } from './types';

/**
 * The timing model (docs/simulator.md, "Model"): a map task's time is (fixed + perMB * split)
 * / speed, times (1 + remoteReadPenalty) when no replica of its block is on the node, times a
 * seeded jitter factor; a reduce's, (fixed + perMB * its share of the shuffle) / speed, times
 * the jitter. A replayed job's tasks take their recorded times.
 */

/**
 * How a task runs: a CPU job's task runs CPU code; a GPU or adaptive job's task runs its
 * GPU code in a GPU container and its CPU code in a CPU container (adaptive execution).
 */
export function runKind(type: TraceJob['type'], container: ContainerKind): RunKind {
  if (type === 'cpu') return 'cpu';
  return container === 'gpu' ? 'gpu' : 'gpuOnCpu';
}

/** Split `bytes` into `n` near-equal integer parts that add up exactly. */
export function evenSplits(bytes: number, n: number): number[] {
  const base = Math.floor(bytes / n);
  const out = new Array<number>(n).fill(base);
  let rest = bytes - base * n;
  for (let i = 0; rest > 0; i++, rest--) out[i % n] = (out[i % n] as number) + 1;
  return out;
}

/**
 * The papers' eps^m: the longest a map task of this job can take anywhere it may run
 * (slowest eligible class and container kind, remote read, largest split, top of the
 * jitter range).
 */
export function worstMapSecondsOn(cluster: ClusterSpec, job: TraceJob): number {
  if (job.replay) return Math.max(...job.replay.mapSeconds) * (1 + cluster.remoteReadPenalty);
  const splits = job.splits ?? evenSplits(job.inputBytes, job.maps);
  const maxMB = Math.max(...splits) / MB;
  const c = cluster.costs[job.type === 'cpu' ? 'cpu' : 'gpu'];
  let worst = 0;
  for (const [cls, run] of eligibleRuns(cluster, job)) {
    worst = Math.max(
      worst,
      ((c.mapFixedSeconds + c.mapSecondsPerMB * maxMB) / cls.speed[run]) *
        (1 + cluster.remoteReadPenalty) *
        c.jitter[1],
    );
  }
  return worst;
}

/**
 * The papers' eps^r: the longest a reduce task of this job can take. Reduces run in CPU
 * containers, and a GPU or adaptive job's reduces also in GPU containers (where a GPU
 * admission lane runs them, unified slots).
 */
export function worstReduceSecondsOn(cluster: ClusterSpec, job: TraceJob): number {
  if (job.reduces === 0) return 0;
  if (job.replay) return Math.max(...job.replay.reduceSeconds);
  const c = cluster.costs[job.type === 'cpu' ? 'cpu' : 'gpu'];
  const mb = (c.shuffleRatio * job.inputBytes) / MB / job.reduces;
  const nominal = c.reduceFixedSeconds + c.reduceSecondsPerMB * mb;
  let worst = 0;
  for (const cls of cluster.nodeClasses) {
    if (cls.count === 0) continue;
    worst = Math.max(worst, (nominal / cls.speed[runKind(job.type, 'cpu')]) * c.jitter[1]);
    const gpuLane =
      cluster.slotModel === 'unified' && cls.gpuContainers > 0 && cls.labels.includes(cluster.gpuLabel);
    if (job.type !== 'cpu' && gpuLane) worst = Math.max(worst, (nominal / cls.speed.gpu) * c.jitter[1]);
  }
  return worst;
}

/** The (class, way of running) pairs a job's map tasks may use. */
function eligibleRuns(cluster: ClusterSpec, job: TraceJob): Array<[NodeClassSpec, RunKind]> {
  const out: Array<[NodeClassSpec, RunKind]> = [];
  for (const cls of cluster.nodeClasses) {
    if (cls.count === 0) continue;
    const hasGpu = cls.gpuContainers > 0 && cls.labels.includes(cluster.gpuLabel);
    const cpuContainers = (cluster.slotModel === 'mr1' ? cls.mapSlots : cls.containers) - cls.gpuContainers;
    if (job.type === 'cpu') {
      if (cpuContainers > 0) out.push([cls, 'cpu']);
    } else {
      if (hasGpu) out.push([cls, 'gpu']);
      if (job.type === 'adaptive' && cpuContainers > 0) out.push([cls, 'gpuOnCpu']);
    }
  }
  return out;
}

// ---------------------------------------------------------------- job views

/** One map attempt's run time: `split` bytes on a node of class `cls`, in a `container`. */
export function mapSeconds(
  cluster: ClusterSpec,
  job: TraceJob,
  index: number,
  split: number,
  cls: NodeClassSpec,
  container: ContainerKind,
  local: boolean,
  jitter: Rng,
): number {
  const penalty = local ? 1 : 1 + cluster.remoteReadPenalty;
  const replay = job.replay;
  if (replay) return (replay.mapSeconds[index] as number) * penalty;
  const cost = cluster.costs[job.type === 'cpu' ? 'cpu' : 'gpu'];
  const mb = split / MB;
  const nominal =
    ((cost.mapFixedSeconds + cost.mapSecondsPerMB * mb) / cls.speed[runKind(job.type, container)]) * penalty;
  return nominal * jitter.uniform(cost.jitter[0], cost.jitter[1]);
}

/** One reduce attempt's run time on a node of class `cls`, in a `container`. */
export function reduceSeconds(
  cluster: ClusterSpec,
  job: TraceJob,
  index: number,
  cls: NodeClassSpec,
  container: ContainerKind,
  jitter: Rng,
): number {
  const replay = job.replay;
  if (replay) return replay.reduceSeconds[index] as number;
  const cost = cluster.costs[job.type === 'cpu' ? 'cpu' : 'gpu'];
  const mb = (cost.shuffleRatio * job.inputBytes) / MB / Math.max(1, job.reduces);
  const nominal =
    (cost.reduceFixedSeconds + cost.reduceSecondsPerMB * mb) / cls.speed[runKind(job.type, container)];
  return nominal * jitter.uniform(cost.jitter[0], cost.jitter[1]);
}
