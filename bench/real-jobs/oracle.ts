/**
 * How many jobs of a stream could any admission have kept, knowing everything in advance?
 *
 * The realtime lane of the honest cluster holds one MapReduce job at a time (its AM and one task
 * on the machine's cores), so the stream is a one-machine schedule: each job arrives at its
 * release time, runs for its lone duration, and counts if it ends by its deadline. The most
 * jobs on time over every order and every choice of jobs (1|r_j|ΣU_j in scheduling notation)
 * bounds what an online admission controller can admit without a miss on that lane: it decides
 * at each arrival and knows neither the future arrivals nor the real durations.
 *
 * The problem is NP-hard with release times, so this is exact only for small streams: a
 * dynamic program over the subsets of jobs that can be on time at all, keeping for each subset
 * the earliest time at which all of it can be finished on time in some order. Appending a job
 * to the subset's best sequence is enough: a sequence that ends earlier never ends any later
 * job later. 2^n states of 9 bytes each: 24 jobs take 151 MB.
 */

export interface OracleJob {
  /** When the job arrives (its deadline counts from here), seconds from any common origin. */
  releaseS: number;
  /** How long it runs alone. */
  processS: number;
  /** Its absolute deadline, on the same origin as releaseS. */
  deadlineS: number;
}

export interface OracleAnswer {
  /** The most jobs any one-at-a-time schedule finishes by their deadlines. */
  onTime: number;
  /** One schedule that does: indexes into the jobs given, in the order they run. */
  order: number[];
}

/** The largest stream the exact search takes (jobs that can be on time alone). */
export const ORACLE_MAX_JOBS = 24;

/**
 * The most jobs on time in any one-at-a-time schedule, with one schedule that reaches it.
 * Throws a RangeError naming the count when more than ORACLE_MAX_JOBS jobs could each be on
 * time alone, and a TypeError naming the job when a figure is not a finite number or a
 * duration is negative.
 */
export function maxOnTimeOneAtATime(jobs: readonly OracleJob[]): OracleAnswer {
  jobs.forEach(checkJob);
  // A job that cannot finish in time even alone and at once is never on time.
  const candidates = jobs.flatMap((j, i) => (j.releaseS + j.processS <= j.deadlineS ? [i] : []));
  const n = candidates.length;
  if (n > ORACLE_MAX_JOBS)
    throw new RangeError(
      `the exact on-time search takes at most ${ORACLE_MAX_JOBS} jobs that fit alone, not ${n}`,
    );
  const size = 1 << n;
  const finish = new Float64Array(size).fill(Infinity);
  const last = new Int8Array(size).fill(-1);
  finish[0] = -Infinity;
  let best = 0;
  for (let set = 0; set < size; set++) {
    const end = finish[set]!;
    if (end === Infinity) continue;
    if (popcount(set) > popcount(best)) best = set;
    for (let k = 0; k < n; k++) {
      const bit = 1 << k;
      if (set & bit) continue;
      const job = jobs[candidates[k]!]!;
      const done = Math.max(end, job.releaseS) + job.processS;
      const next = set | bit;
      if (done <= job.deadlineS && done < finish[next]!) {
        finish[next] = done;
        last[next] = k;
      }
    }
  }
  const order: number[] = [];
  for (let set = best; set !== 0; set &= ~(1 << last[set]!)) order.unshift(candidates[last[set]!]!);
  return { onTime: order.length, order };
}

function checkJob(j: OracleJob, i: number): void {
  for (const key of ['releaseS', 'processS', 'deadlineS'] as const)
    if (!Number.isFinite(j[key])) throw new TypeError(`job ${i}: ${key} is not a finite number (${j[key]})`);
  if (j.processS < 0) throw new TypeError(`job ${i}: processS is negative (${j.processS})`);
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
}
