import { mulberry32 } from '../sim/rng';

/**
 * A synthetic history for the emulated JobHistory server (docs/emulator.md, "Synthetic
 * history"): `jobs` finished MapReduce jobs, job i made on demand from the seed and i alone, so
 * a history of 100,000 jobs costs no memory and every read of job i answers the same. Jobs are
 * recurring kinds (a name with a date, a user), submitted one after another at `meanGapSeconds`
 * apart on average, each running its maps in waves of `containers` from its set-up on, its
 * reduces after its maps, then committing; in a dense history the jobs have fewer maps, so that
 * they keep the cluster no more than `load` busy. Some are FAILED or KILLED (`failedShare`,
 * `killedShare`), and the oldest `deletedShare` are listed but answer 404 for their tasks and
 * counters, as a JobHistory server whose aggregated history was deleted does.
 */

export interface SyntheticHistoryOptions {
  readonly jobs: number;
  readonly seed: number;
  /** The first submission, epoch ms. */
  readonly startMs: number;
  readonly meanGapSeconds: number;
  /** Containers a job's tasks run in at once. */
  readonly containers: number;
  readonly failedShare: number;
  readonly killedShare: number;
  readonly deletedShare: number;
  /**
   * The share of `containers` the jobs keep busy on average, at most: a dense history (100,000
   * jobs in a week) has its jobs' maps scaled down to it, so that FIFO on the cluster could have
   * run them as they are recorded.
   */
  readonly load: number;
}

export const DEFAULT_SYNTHETIC_HISTORY: Omit<SyntheticHistoryOptions, 'jobs' | 'startMs'> = Object.freeze({
  seed: 1,
  meanGapSeconds: 6,
  // The default emulated cluster's CPU containers (4 nodes of 16).
  containers: 64,
  failedShare: 0.01,
  killedShare: 0.01,
  deletedShare: 0,
  load: 0.5,
});

/** The cluster timestamp of the synthetic jobs' ids (`job_<ts>_<n>`), apart from the emulated RM's own. */
export const SYNTHETIC_CLUSTER_TS = 1600000000000;

const KINDS = [
  { name: 'wordcount', maps: 8, reduces: 1, mapFixed: 6, mapPerMb: 0.12, reduceFixed: 8, reducePerMb: 0.02 },
  {
    name: 'etl-sessions',
    maps: 24,
    reduces: 4,
    mapFixed: 8,
    mapPerMb: 0.2,
    reduceFixed: 15,
    reducePerMb: 0.05,
  },
  { name: 'grep-logs', maps: 12, reduces: 1, mapFixed: 5, mapPerMb: 0.08, reduceFixed: 5, reducePerMb: 0.01 },
  { name: 'terasort', maps: 16, reduces: 2, mapFixed: 7, mapPerMb: 0.15, reduceFixed: 20, reducePerMb: 0.1 },
  { name: 'pi', maps: 4, reduces: 1, mapFixed: 12, mapPerMb: 0, reduceFixed: 4, reducePerMb: 0 },
  { name: 'teragen', maps: 6, reduces: 0, mapFixed: 10, mapPerMb: 0, reduceFixed: 0, reducePerMb: 0 },
  {
    name: 'report-hourly',
    maps: 3,
    reduces: 1,
    mapFixed: 4,
    mapPerMb: 0.1,
    reduceFixed: 6,
    reducePerMb: 0.02,
  },
  {
    name: 'index-build',
    maps: 40,
    reduces: 8,
    mapFixed: 9,
    mapPerMb: 0.25,
    reduceFixed: 30,
    reducePerMb: 0.08,
  },
] as const;
const USERS = ['alice', 'bob', 'etl', 'analytics'];
const MB = 1024 * 1024;

export interface SyntheticTask {
  readonly id: string;
  readonly type: 'MAP' | 'REDUCE';
  readonly startTime: number;
  readonly finishTime: number;
  readonly bytes: number;
}

export interface SyntheticJob {
  readonly id: string;
  readonly index: number;
  readonly name: string;
  readonly user: string;
  readonly queue: string;
  readonly state: 'SUCCEEDED' | 'FAILED' | 'KILLED';
  readonly submitTime: number;
  readonly startTime: number;
  readonly finishTime: number;
  readonly deleted: boolean;
  readonly tasks: readonly SyntheticTask[];
  readonly inputBytes: number;
  readonly shuffleBytes: number;
  readonly maps: number;
  readonly reduces: number;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** A kind's container-seconds for one job of `maps` maps of 80 MB (the mean split). */
function work(kind: (typeof KINDS)[number], maps: number): number {
  const mb = kind.mapPerMb > 0 ? 80 : 0;
  const reduce = kind.reduces > 0 ? kind.reduces * kind.reduceFixed + kind.reducePerMb * mb * maps : 0;
  return maps * (kind.mapFixed + kind.mapPerMb * mb) + reduce;
}

export class SyntheticHistory {
  /** Each job's maps times this (<= 1), to keep the cluster within `load` (see the option). */
  private readonly mapScale: number;

  constructor(readonly o: SyntheticHistoryOptions) {
    if (!(Number.isInteger(o.jobs) && o.jobs >= 0)) throw new RangeError('jobs must be a whole number >= 0');
    if (!(o.meanGapSeconds > 0)) throw new RangeError('meanGapSeconds must be > 0');
    const meanWork = KINDS.reduce((w, k) => w + work(k, k.maps), 0) / KINDS.length;
    this.mapScale = Math.min(1, (o.load * o.containers * o.meanGapSeconds) / meanWork);
  }

  /** Job i's submission (ms): strictly increasing in i. */
  submitMs(i: number): number {
    const gapMs = this.o.meanGapSeconds * 1000;
    return this.o.startMs + Math.floor((i + 0.9 * mulberry32((this.o.seed * 7919 + i) >>> 0).next()) * gapMs);
  }

  /** Job i's start (its AM's): a second after its submission, so increasing in i too. */
  startMs(i: number): number {
    return this.submitMs(i) + 1000;
  }

  /** The job of id `job_<ts>_<n>`, or undefined when it is none of these. */
  byId(jobId: string): SyntheticJob | undefined {
    const m = /^job_(\d+)_(\d+)$/.exec(jobId);
    if (!m || Number(m[1]) !== SYNTHETIC_CLUSTER_TS) return undefined;
    const i = Number(m[2]) - 1;
    return i >= 0 && i < this.o.jobs ? this.job(i) : undefined;
  }

  /** The indices [lo, hi) of the jobs whose start is in [beginMs, endMs] (binary search). */
  startedIn(beginMs: number | undefined, endMs: number | undefined): [number, number] {
    const first = (t: number, strict: boolean) => {
      let lo = 0;
      let hi = this.o.jobs;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const s = this.startMs(mid);
        if (strict ? s > t : s >= t) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    return [
      beginMs === undefined ? 0 : first(beginMs, false),
      endMs === undefined ? this.o.jobs : first(endMs, true),
    ];
  }

  job(i: number): SyntheticJob {
    const rng = mulberry32((this.o.seed * 104729 + i * 2654435761) >>> 0);
    const kind = KINDS[rng.int(0, KINDS.length - 1)]!;
    const user = USERS[(i + kind.name.length) % USERS.length]!;
    const submitTime = this.submitMs(i);
    const startTime = this.startMs(i);
    const day = new Date(submitTime).toISOString().slice(0, 10);
    const r = rng.next();
    const state =
      r < this.o.failedShare
        ? 'FAILED'
        : r < this.o.failedShare + this.o.killedShare
          ? 'KILLED'
          : 'SUCCEEDED';
    const maps = Math.max(1, Math.round(kind.maps * this.mapScale * rng.uniform(0.5, 1.5)));
    const reduces = kind.reduces;
    const mbPerMap = kind.mapPerMb > 0 ? rng.uniform(32, 128) : 0;
    const id = `job_${SYNTHETIC_CLUSTER_TS}_${pad(i + 1, 4)}`;
    const suffix = id.slice('job_'.length);
    const tasks: SyntheticTask[] = [];
    const setupMs = Math.round(rng.uniform(3000, 8000));
    const free: number[] = new Array<number>(this.o.containers).fill(submitTime + setupMs);
    const run = (type: 'MAP' | 'REDUCE', k: number, seconds: number, bytes: number, notBefore: number) => {
      // The container free soonest.
      let c = 0;
      for (let x = 1; x < free.length; x++) if ((free[x] as number) < (free[c] as number)) c = x;
      const startT = Math.max(free[c] as number, notBefore) + Math.round(rng.uniform(0, 1000));
      const finishT = startT + Math.round(seconds * 1000);
      free[c] = finishT;
      tasks.push({
        id: `task_${suffix}_${type === 'MAP' ? 'm' : 'r'}_${pad(k, 6)}`,
        type,
        startTime: startT,
        finishTime: finishT,
        bytes,
      });
      return finishT;
    };
    let mapsEnd = submitTime + setupMs;
    const ran = state === 'SUCCEEDED' ? maps : Math.floor(maps / 2);
    for (let k = 0; k < ran; k++) {
      const seconds = (kind.mapFixed + kind.mapPerMb * mbPerMap) * rng.uniform(0.8, 1.25);
      mapsEnd = Math.max(mapsEnd, run('MAP', k, seconds, Math.round(mbPerMap * MB), 0));
    }
    const inputMb = mbPerMap * maps;
    let last = mapsEnd;
    if (state === 'SUCCEEDED')
      for (let k = 0; k < reduces; k++) {
        const seconds = (kind.reduceFixed + (kind.reducePerMb * inputMb) / reduces) * rng.uniform(0.8, 1.25);
        last = Math.max(last, run('REDUCE', k, seconds, 0, mapsEnd));
      }
    const finishTime = last + Math.round(rng.uniform(1000, 3000));
    return {
      id,
      index: i,
      name: `${kind.name} ${day}`,
      user,
      queue: 'default',
      state,
      submitTime,
      startTime,
      finishTime,
      deleted: i < Math.floor(this.o.deletedShare * this.o.jobs),
      tasks,
      inputBytes: Math.round(inputMb * MB),
      shuffleBytes: Math.round(inputMb * MB * 0.3 * (reduces > 0 ? 1 : 0)),
      maps,
      reduces: state === 'SUCCEEDED' ? reduces : 0,
    };
  }
}
