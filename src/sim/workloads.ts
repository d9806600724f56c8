import {
  MB,
  type ClusterSpec,
  type NodeClassSpec,
  type SlotModel,
  type TaskCostSpec,
  type TraceJob,
} from './model';
import { mulberry32, zipfSampler, type Rng } from './rng';

/**
 * The papers' clusters and workloads, as seeded generators. Every number quoted from a
 * paper says where it comes from; every number the papers do not give (task costs, speeds
 * of the older nodes, energy of a loadgen task) is marked as ours in docs/simulator.md.
 */

const BLOCK = 128 * MB;

/** He et al., RTMR, Table II / He, dissertation, Table 4.4: the Facebook job-size bins of Zaharia et al. */
export const FACEBOOK_BINS: ReadonlyArray<{ bin: number; maps: number; jobs: number; share: number }> = [
  { bin: 1, maps: 1, jobs: 38, share: 0.39 },
  { bin: 2, maps: 2, jobs: 16, share: 0.16 },
  { bin: 3, maps: 10, jobs: 14, share: 0.14 },
  { bin: 4, maps: 50, jobs: 8, share: 0.09 },
  { bin: 5, maps: 100, jobs: 6, share: 0.06 },
  { bin: 6, maps: 200, jobs: 6, share: 0.06 },
  { bin: 7, maps: 400, jobs: 4, share: 0.04 },
  { bin: 8, maps: 800, jobs: 4, share: 0.04 },
  { bin: 9, maps: 4800, jobs: 4, share: 0.03 },
];

/** He et al., RTMR, Table III: workload I, reduces and deadline intervals for bins 1-6. */
export const WORKLOAD_I: ReadonlyArray<{
  bin: number;
  maps: number;
  reduces: [number, number];
  deadline: [number, number];
}> = [
  { bin: 1, maps: 1, reduces: [1, 5], deadline: [200, 300] },
  { bin: 2, maps: 2, reduces: [1, 5], deadline: [200, 300] },
  { bin: 3, maps: 10, reduces: [5, 10], deadline: [300, 400] },
  { bin: 4, maps: 50, reduces: [10, 20], deadline: [500, 800] },
  { bin: 5, maps: 100, reduces: [20, 30], deadline: [1000, 1500] },
  { bin: 6, maps: 200, reduces: [30, 30], deadline: [2000, 2500] },
];

/** He et al., RTMR, Table IV / He, dissertation, Table 5.7: workload II. */
export const WORKLOAD_II: ReadonlyArray<{
  bin: number;
  jobs: number;
  maps: [number, number];
  reduces: [number, number];
  deadline: [number, number];
}> = [
  { bin: 1, jobs: 9, maps: [1, 10], reduces: [1, 5], deadline: [200, 300] },
  { bin: 2, jobs: 24, maps: [10, 50], reduces: [5, 10], deadline: [300, 500] },
  { bin: 3, jobs: 25, maps: [50, 100], reduces: [15, 30], deadline: [1000, 1500] },
  { bin: 4, jobs: 18, maps: [100, 200], reduces: [25, 50], deadline: [1500, 2500] },
  { bin: 5, jobs: 13, maps: [200, 300], reduces: [35, 70], deadline: [2500, 3500] },
];

/** He, dissertation, Table 6.7: the EFH workload's reduces per bin. */
export const EFH_BINS: ReadonlyArray<{ bin: number; maps: number; jobs: number; reduces: [number, number] }> =
  [
    // 38 one-map jobs in Table 6.6; the dissertation's run had 87 jobs in all, so one fewer here.
    { bin: 1, maps: 1, jobs: 37, reduces: [1, 1] },
    { bin: 2, maps: 2, jobs: 16, reduces: [1, 2] },
    { bin: 3, maps: 10, jobs: 14, reduces: [5, 10] },
    { bin: 4, maps: 50, jobs: 8, reduces: [10, 20] },
    { bin: 5, maps: 100, jobs: 6, reduces: [20, 30] },
    { bin: 6, maps: 200, jobs: 6, reduces: [30, 30] },
  ];

/** Mean inter-arrival time of the Facebook submission schedule (He et al., RTMR, section V). */
export const MEAN_INTERARRIVAL_SECONDS = 14;

/** Loadgen's task costs: ours (the papers give none), ~19 s per 128 MB block on a fast node. */
export const LOADGEN_COST: TaskCostSpec = {
  mapFixedSeconds: 0,
  mapSecondsPerMB: 0.15,
  reduceFixedSeconds: 0,
  reduceSecondsPerMB: 0.3,
  shuffleRatio: 0.1,
  jitter: [0.6, 1.0],
};

/**
 * A typical map task's run time (seconds) for `cost` on a speed-1 slot with local data: one
 * 128 MB block at the middle of the jitter range. The RTMR paper (V) sets the feedback threshold
 * DeltaT "to be a typical map task execution time"; this is that figure for our cost model.
 */
export function typicalMapSeconds(cost: TaskCostSpec, blockMB = 128): number {
  return (cost.mapFixedSeconds + cost.mapSecondsPerMB * blockMB) * ((cost.jitter[0] + cost.jitter[1]) / 2);
}

function cls(partial: Partial<NodeClassSpec> & Pick<NodeClassSpec, 'name' | 'count'>): NodeClassSpec {
  return {
    mapSlots: 0,
    reduceSlots: 0,
    containers: 0,
    gpuContainers: 0,
    labels: [],
    speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
    idleWatts: 0,
    taskEnergyKWh: { cpu: 0, gpu: 0, gpuOnCpu: 0 },
    ...partial,
  };
}

/**
 * A cluster of `nodeClasses` with the papers' common settings unless `partial` says otherwise:
 * mr1 slots, 3 s heartbeats, a remote read 50 % slower, loadgen's costs, 128 MB blocks with 3
 * replicas and none placed up front, no failures, energy counted over the whole run.
 */
function clusterOf({
  nodeClasses,
  ...partial
}: Partial<ClusterSpec> & Pick<ClusterSpec, 'nodeClasses'>): ClusterSpec {
  return {
    version: 1,
    slotModel: 'mr1',
    heartbeatSeconds: 3,
    remoteReadPenalty: 0.5,
    gpuLabel: 'gpu',
    nodeClasses,
    costs: { cpu: LOADGEN_COST, gpu: LOADGEN_COST },
    hdfs: { blockMB: 128, replication: 3, blocks: 0 },
    failures: null,
    energyWindowSeconds: null,
    ...partial,
  };
}

/**
 * He et al., RTMR, Table I / He, dissertation, Table 5.4: 20 nodes with 2 dual-core 2.2 GHz Opteron-275 CPUs,
 * 4 map + 1 reduce slots; 10 nodes with 2 single-core 2.2 GHz Opteron-64 CPUs, 2 map + 1
 * reduce slots ("we make the number of map slots in a worker node equal to the number of CPU
 * cores ... one reduce slot per worker node", He et al., RTMR, V). Both types run their cores at the
 * same 2.2 GHz, so a slot is equally fast on either: the heterogeneity is in slots per node,
 * not in per-slot speed. In `unified`, each node's slots become one pool of containers (5 and 3).
 */
export function rtmrCluster(slotModel: SlotModel = 'mr1'): ClusterSpec {
  return clusterOf({
    slotModel,
    nodeClasses: [
      cls({
        name: 'opteron275',
        count: 20,
        mapSlots: 4,
        reduceSlots: 1,
        containers: 5,
        speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
      }),
      cls({
        name: 'opteron64',
        count: 10,
        mapSlots: 2,
        reduceSlots: 1,
        containers: 3,
        // Same 2.2 GHz clock as the Opteron-275 (Table I): same per-slot speed.
        speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
      }),
    ],
  });
}

/** He, dissertation, Table 4.3 and 4.4.1: 30 nodes, 2 map + 1 reduce slots, 100 blocks x 2 replicas. */
export function localityCluster(): ClusterSpec {
  return clusterOf({
    remoteReadPenalty: 1.0,
    nodeClasses: [cls({ name: 'opteron64', count: 30, mapSlots: 2, reduceSlots: 1, containers: 3 })],
    hdfs: { blockMB: 128, replication: 2, blocks: 100 },
  });
}

/**
 * MD simulation map times, derived from the dissertation's own measurements because it states none
 * (He, dissertation, 6.3.2 says only that 1,800 s "guarantees the job can finish"). The workload has
 * on average 2,409 / 2 MD maps (Table 6.7 bins, half the jobs MD). Three of the dissertation's
 * turnaround figures each involve one unknown:
 *  - IDEAL (Table 6.12, 16.73 h) runs every MD map on the most efficient container, the
 *    Geforce 210's (factor 1.52, Table 6.9), one at a time: 16.73 h / 1,204.5 maps = 50 s.
 *  - EFH w/o AE (Table 6.11, 4.84 h) runs MD maps only on the two GPU containers:
 *    1,204.5 / (4.84 h) = 1 / t_9800 + 1 / 50 s, so t_9800 = 20 s.
 *  - FIFO (Table 6.11, 4.54 h) spreads MD maps over all 52 containers, nearly all CPU:
 *    4.54 h x 52 / 1,204.5 = 706 s on a CPU core; we use 700 s.
 * These come from the turnaround times only, never from the energy figures under test.
 */
export const MD_MAP_SECONDS = Object.freeze({ cpu: 700, gpu9800gt: 20, gpu210: 50 });

/** The arithmetic of MD_MAP_SECONDS, from the dissertation's turnaround hours; kept to be checked. */
export function mdMapSecondsFromDissertation(): { cpu: number; gpu9800gt: number; gpu210: number } {
  const mdMaps = EFH_BINS_SEED_TOTAL_MAPS / 2;
  const gpu210 = (16.73 * 3600) / mdMaps;
  const gpu9800gt = 1 / (mdMaps / (4.84 * 3600) - 1 / gpu210);
  const cpu = (4.54 * 3600 * 52) / mdMaps;
  return { cpu, gpu9800gt, gpu210 };
}

/** Maps of the dissertation's 87-job EFH workload: Table 6.6 counts of bins 1-6 with one fewer one-map job. */
export const EFH_BINS_SEED_TOTAL_MAPS = 2409;

/** kWh per MD map on an EFH CPU server (He, dissertation, 6.3.2: 0.1446 - 0.1175). */
const EFH_MD_CPU_KWH = 0.0269;
/** kWh per loadgen map on an EFH CPU server: ours, the dissertation gives only ratios. */
const EFH_LOADGEN_CPU_KWH = 0.004;

/**
 * One of the EFH cluster's GPU servers (He, dissertation, Table 6.5): 2 containers, one of them for GPU
 * code, labelled `gpu`. An MD map takes `mdMapSeconds` as GPU code; CPU code on its 2.2 GHz
 * Opteron cores runs as on a CPU server. Each kind of task costs a CPU server's energy over this
 * server's efficiency factor for it.
 */
function efhGpuServer(
  name: string,
  mdMapSeconds: number,
  idleWatts: number,
  efficiency: { cpu: number; gpu: number; gpuOnCpu: number },
  md: { cpuSeconds: number; kWh: number },
): NodeClassSpec {
  return cls({
    name,
    count: 1,
    containers: 2,
    mapSlots: 2,
    reduceSlots: 1,
    gpuContainers: 1,
    labels: ['gpu'],
    speed: { cpu: 1, gpu: md.cpuSeconds / mdMapSeconds, gpuOnCpu: 1 },
    idleWatts,
    taskEnergyKWh: {
      cpu: EFH_LOADGEN_CPU_KWH / efficiency.cpu,
      gpu: md.kWh / efficiency.gpu,
      gpuOnCpu: md.kWh / efficiency.gpuOnCpu,
    },
  });
}

/**
 * He, dissertation, Table 6.5: 6 CPU servers (8 cores) and 2 GPU servers (2 cores; Geforce
 * 9800-gt and 210), YARN containers, GPU nodes labelled `gpu`. Idle power: 235 W for a
 * CPU server (seed, 6.3.2); the GPU servers' idle power and the per-task energies are
 * derived from Tables 6.8-6.10 (docs/simulator.md shows the arithmetic). Energy is
 * counted over the dissertation's 6.5 h window (6.3.3).
 */
export function efhCluster(options: { mdCpuSeconds?: number; mdMapKWh?: number } = {}): ClusterSpec {
  // An experiment may sweep the MD map's CPU time (GPU times stay) and its energy per map.
  const md = {
    cpuSeconds: options.mdCpuSeconds ?? MD_MAP_SECONDS.cpu,
    kWh: options.mdMapKWh ?? EFH_MD_CPU_KWH,
  };
  return clusterOf({
    slotModel: 'unified',
    nodeClasses: [
      cls({
        name: 'cpu',
        count: 6,
        containers: 8,
        mapSlots: 8,
        reduceSlots: 1,
        speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
        idleWatts: 235,
        taskEnergyKWh: { cpu: EFH_LOADGEN_CPU_KWH, gpu: md.kWh, gpuOnCpu: md.kWh },
      }),
      // Efficiency factors relative to the CPU server from Tables 6.9 / 6.10 (energy = 1 / factor).
      efhGpuServer('gpu-9800gt', MD_MAP_SECONDS.gpu9800gt, 78, { cpu: 1.04, gpu: 1.41, gpuOnCpu: 1.23 }, md),
      efhGpuServer('gpu-210', MD_MAP_SECONDS.gpu210, 68, { cpu: 1.05, gpu: 1.52, gpuOnCpu: 1.4 }, md),
    ],
    costs: {
      cpu: LOADGEN_COST,
      // MD simulation: compute-bound, input ~60 KB (6.3.1); a map on a CPU core: MD_MAP_SECONDS.
      gpu: {
        mapFixedSeconds: md.cpuSeconds,
        mapSecondsPerMB: 0,
        reduceFixedSeconds: 20,
        reduceSecondsPerMB: 0,
        shuffleRatio: 1,
        // Centred on 1 so MD_MAP_SECONDS (derived from measured turnarounds) is the mean (ours).
        jitter: [0.9, 1.1],
      },
    },
    hdfs: { blockMB: 128, replication: 3, blocks: 200 },
    energyWindowSeconds: 6.5 * 3600,
  });
}

function arrivals(rng: Rng, n: number, meanGapSeconds = MEAN_INTERARRIVAL_SECONDS): number[] {
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    out.push(t);
    t += rng.exponential(meanGapSeconds);
  }
  return out;
}

function job(
  id: string,
  arrival: number,
  deadline: number | null,
  maps: number,
  reduces: number,
  extra: Partial<TraceJob> = {},
): TraceJob {
  return {
    id,
    arrival,
    deadline,
    maps,
    reduces,
    inputBytes: maps * BLOCK,
    splits: null,
    type: 'cpu',
    user: 'default',
    queue: 'default',
    blocks: null,
    ...extra,
  };
}

/** The jobs of bins, one entry per job, in a seeded random submission order. */
function shuffledBins<T extends { jobs: number }>(rng: Rng, bins: readonly T[]): T[] {
  const list: T[] = [];
  for (const b of bins) for (let i = 0; i < b.jobs; i++) list.push(b);
  return rng.shuffle(list);
}

/** What a generator draws for one job: its deadline, maps and reduces, and any other field. */
type JobDraw = Pick<TraceJob, 'deadline' | 'maps' | 'reduces'> & Partial<TraceJob>;

/**
 * One job per entry of `order`, the i-th arriving at `at[i]` with id `prefix-001`, `prefix-002`,
 * ...; `draw` gives its figures (called in order of `order`, so a seeded generator draws the same).
 */
function numberedJobs<B>(
  prefix: string,
  order: readonly B[],
  at: readonly number[],
  draw: (b: B, i: number) => JobDraw,
): TraceJob[] {
  return order.map((b, i) => {
    const { deadline, maps, reduces, ...extra } = draw(b, i);
    return job(
      `${prefix}-${String(i + 1).padStart(3, '0')}`,
      at[i] as number,
      deadline,
      maps,
      reduces,
      extra,
    );
  });
}

/**
 * Jobs of workload I's bins 1 to `bins` (Table II: maps; Table III: reduces and deadlines, the
 * deadline passed through `deadline`), one per job of the bins in a seeded random submission
 * order, at most `count` of them, arriving `meanGapSeconds` apart on average; ids `prefix-001`, ...
 */
function workloadIJobs(
  rng: Rng,
  o: {
    bins: number;
    prefix: string;
    count?: number;
    meanGapSeconds?: number;
    deadline?: (tableSeconds: number) => number;
  },
): TraceJob[] {
  const bins = FACEBOOK_BINS.slice(0, o.bins).map((b) => ({
    ...b,
    cfg: WORKLOAD_I[b.bin - 1] as (typeof WORKLOAD_I)[number],
  }));
  const order = shuffledBins(rng, bins).slice(0, o.count);
  const at = arrivals(rng, order.length, o.meanGapSeconds);
  const deadline = o.deadline ?? ((d: number) => d);
  return numberedJobs(o.prefix, order, at, (b) => ({
    deadline: deadline(rng.int(...b.cfg.deadline)),
    maps: b.maps,
    reduces: rng.int(...b.cfg.reduces),
    user: `bin${b.bin}`,
  }));
}

/** He et al., RTMR, section V, workload I: bins 1-6 of Table II, reduces and deadlines of Table III. */
export function workloadI(seed: number): TraceJob[] {
  return workloadIJobs(mulberry32(seed).fork('workload-1'), { bins: 6, prefix: 'w1' });
}

/**
 * The shared-cluster experiment's deadline jobs (ours): workload I's bins 1-5 (Tables II-III:
 * maps and reduces; deadlines 0.3 times Table III's, tight enough that a wait for the guarantee
 * shows), 60 jobs arriving a minute apart on average, so that the real-time queue is idle
 * between bursts and another tenant borrows its guarantee then.
 */
export function sharedClusterWorkload(seed: number): TraceJob[] {
  return workloadIJobs(mulberry32(seed).fork('shared-cluster'), {
    bins: 5,
    prefix: 'sc',
    count: 60,
    meanGapSeconds: 60,
    deadline: (d) => Math.round(0.3 * d),
  });
}

/** He et al., RTMR, Table IV / He, dissertation, Table 5.7, workload II (maps, reduces, deadlines uniform in each bin's range). */
export function workloadII(seed: number): TraceJob[] {
  const rng = mulberry32(seed).fork('workload-2');
  const order = shuffledBins(rng, WORKLOAD_II);
  const at = arrivals(rng, order.length);
  return numberedJobs('w2', order, at, (b) => ({
    deadline: rng.int(...b.deadline),
    maps: rng.int(...b.maps),
    reduces: rng.int(...b.reduces),
    user: `bin${b.bin}`,
  }));
}

/**
 * He, dissertation, 4.4.1: the Facebook schedule (bins 1-6, exponential inter-arrivals, mean 14 s),
 * each map reading one of the cluster's 100 blocks, chosen uniformly. No deadlines.
 */
export function localityWorkload(seed: number, blocks = 100): TraceJob[] {
  const rng = mulberry32(seed).fork('locality');
  const order = shuffledBins(rng, FACEBOOK_BINS.slice(0, 6));
  const at = arrivals(rng, order.length);
  return numberedJobs('loc', order, at, (b) => {
    const cfg = WORKLOAD_I[b.bin - 1] as (typeof WORKLOAD_I)[number];
    const ids = Array.from({ length: b.maps }, () => `blk_${rng.int(0, blocks - 1)}`);
    return {
      deadline: null,
      maps: b.maps,
      reduces: rng.int(...cfg.reduces),
      blocks: ids,
      user: `bin${b.bin}`,
    };
  });
}

/**
 * He, dissertation, 6.3.1: 87 jobs (Table 6.7 bins), Poisson arrivals with mean 14 s, half loadgen
 * (CPU) and half MD simulation (GPU code; `gpuType` says whether those jobs may also run
 * on CPU nodes: 'adaptive', or only on GPU nodes: 'gpu'), block accesses Zipf with skew 1
 * over the cluster's blocks. MD input is about 60 KB a job.
 */
export function efhWorkload(
  seed: number,
  gpuType: 'gpu' | 'adaptive' = 'adaptive',
  blocks = 200,
): TraceJob[] {
  const rng = mulberry32(seed).fork('efh');
  const order = shuffledBins(rng, EFH_BINS);
  const at = arrivals(rng, order.length);
  // Exactly half and half (44 / 43), in a random order.
  const types = rng.shuffle(order.map((_, i) => (i % 2 === 0 ? 'cpu' : 'md')));
  const zipf = zipfSampler(blocks, 1, rng);
  return numberedJobs('efh', order, at, (b, i) => {
    const md = types[i] === 'md';
    const ids = Array.from({ length: b.maps }, () => `blk_${zipf() - 1}`);
    return {
      deadline: null,
      maps: b.maps,
      reduces: rng.int(...b.reduces),
      type: md ? gpuType : 'cpu',
      inputBytes: md ? 60 * 1024 : b.maps * BLOCK,
      blocks: ids,
      user: md ? 'md' : 'loadgen',
    };
  });
}

/**
 * A synthetic trace for the speed benchmark: `jobs` jobs with Facebook-like sizes (all nine
 * bins, by share), exponential arrivals sized so the cluster stays busy but not swamped.
 */
export function syntheticTrace(seed: number, jobs: number, meanInterarrival: number): TraceJob[] {
  const rng = mulberry32(seed).fork('synthetic');
  const cum: number[] = [];
  let s = 0;
  for (const b of FACEBOOK_BINS) cum.push((s += b.share));
  const out: TraceJob[] = [];
  let t = 0;
  for (let i = 0; i < jobs; i++) {
    const u = rng.next() * s;
    const bin =
      FACEBOOK_BINS[cum.findIndex((c) => u < c)] ?? (FACEBOOK_BINS[8] as (typeof FACEBOOK_BINS)[number]);
    const reduces = Math.max(1, Math.round(bin.maps / 10));
    out.push(job(`syn-${i + 1}`, t, bin.maps * 30 + 600, bin.maps, Math.min(reduces, 200)));
    t += rng.exponential(meanInterarrival);
  }
  return out;
}

/** A homogeneous cluster of `nodes` nodes for the speed benchmark. */
export function syntheticCluster(nodes: number, slotModel: SlotModel = 'mr1'): ClusterSpec {
  return clusterOf({
    slotModel,
    nodeClasses: [
      cls({
        name: 'worker',
        count: nodes,
        mapSlots: 4,
        reduceSlots: 2,
        containers: 6,
        idleWatts: 150,
        taskEnergyKWh: { cpu: 0.002, gpu: 0.002, gpuOnCpu: 0.002 },
      }),
    ],
  });
}
