import { compareIds } from '../common/helpers';
import { validateSlottedJobs, type FlowTimeResult, type SlottedJob } from './srpt';

export interface AsrptOptions {
  /** Preemptive: reduce work runs on any number of machines and can move; otherwise each reduce task holds one machine to the end. */
  readonly preemptive: boolean;
}

/** Machines given to each job in one slot. */
export interface AsrptSlot {
  readonly maps: Readonly<Record<string, number>>;
  readonly reduces: Readonly<Record<string, number>>;
}

interface JobRun {
  readonly job: SlottedJob;
  mapsLeft: number;
  /** Slot in which the last map finished; reduces may start the slot after. */
  mapsDoneSlot: number | undefined;
  /** Remaining work of each reduce task not yet started (non-preemptive) or of all reduce work (preemptive, one entry). */
  unstarted: number[];
  /** Non-preemptive reduce tasks holding a machine: their remaining work. */
  running: number[];
  /** Virtual SRPT: remaining total and map work. */
  srptLeft: number;
  srptMapsLeft: number;
}

/**
 * ASRPT (Zheng et al., ASRPT, Algorithm 1), run slot by slot to the end of the given jobs. Returns the
 * total flow time and each job's finishing slot, plus the per-slot machine assignments.
 *
 * Each slot: run SRPT virtually, ignoring the map-reduce dependency, and note how many
 * machines it gives each job's map work (S(i).MapLoad; within a job SRPT does map work first,
 * so ASRPT's maps finish no later than SRPT's). Then, with d = N machines (line 3): keep the
 * running non-preemptive reduces (lines 4-7); give each job, in non-decreasing available
 * workload, its SRPT map load (lines 8-26); then reduce work of jobs whose maps finished in an
 * earlier slot (lines 27-39); then any remaining map tasks (lines 40-52).
 */
export function simulateAsrpt(
  jobs: readonly SlottedJob[],
  machines: number,
  opts: AsrptOptions,
): FlowTimeResult & { slots: AsrptSlot[] } {
  validateSlottedJobs(jobs, machines);
  const byArrival = [...jobs].sort((a, b) => a.arrivalSlot - b.arrivalSlot || compareIds(a.jobId, b.jobId));
  const active: JobRun[] = [];
  const finishSlot: Record<string, number> = {};
  const slots: AsrptSlot[] = [];
  let total = 0;
  let next = 0;
  let t = byArrival.length > 0 ? byArrival[0].arrivalSlot : 0;

  while (next < byArrival.length || active.length > 0) {
    if (active.length === 0 && byArrival[next].arrivalSlot > t) {
      for (let s = t; s < byArrival[next].arrivalSlot; s++) slots.push({ maps: {}, reduces: {} });
      t = byArrival[next].arrivalSlot;
    }
    while (next < byArrival.length && byArrival[next].arrivalSlot <= t)
      active.push(jobRun(byArrival[next++], t, opts.preemptive));
    const slot = asrptSlot(active, srptMapLoad(active, machines), machines, t, opts.preemptive);

    // End of slot: maps given are done; each running reduce does one unit.
    for (const r of active) {
      if (!opts.preemptive) {
        r.running = r.running.map((w) => w - 1).filter((w) => w > 0);
      }
      if (r.mapsLeft === 0 && r.mapsDoneSlot === undefined) r.mapsDoneSlot = t;
    }
    slots.push(slot);
    for (let i = active.length - 1; i >= 0; i--) {
      const r = active[i];
      if (r.mapsLeft === 0 && reduceLeft(r) === 0) {
        finishSlot[r.job.jobId] = t;
        total += t - r.job.arrivalSlot + 1;
        active.splice(i, 1);
      }
    }
    t += 1;
  }
  return { totalFlowTime: total, finishSlot, slots };
}

function reduceLeft(r: JobRun): number {
  return r.unstarted.reduce((a, b) => a + b, 0) + r.running.reduce((a, b) => a + b, 0);
}

/** A job arrived at slot `t`, as ASRPT and its virtual SRPT schedule track it. */
function jobRun(job: SlottedJob, t: number, preemptive: boolean): JobRun {
  const reduceWork = job.reduces.reduce((a, b) => a + b, 0);
  return {
    job,
    mapsLeft: job.maps,
    mapsDoneSlot: job.maps === 0 ? t - 1 : undefined,
    unstarted: preemptive ? (reduceWork > 0 ? [reduceWork] : []) : [...job.reduces],
    running: [],
    srptLeft: job.maps + reduceWork,
    srptMapsLeft: job.maps,
  };
}

/** Line 1: the virtual SRPT schedule for this slot, as the machines it gives each job's maps. */
function srptMapLoad(active: readonly JobRun[], machines: number): Map<string, number> {
  const mapLoad = new Map<string, number>();
  let v = machines;
  for (const r of [...active].filter((r) => r.srptLeft > 0).sort(bySrpt)) {
    if (v === 0) break;
    const give = Math.min(v, r.srptLeft);
    const m = Math.min(give, r.srptMapsLeft);
    if (m > 0) mapLoad.set(r.job.jobId, m);
    r.srptMapsLeft -= m;
    r.srptLeft -= give;
    v -= give;
  }
  return mapLoad;
}

/** Lines 2-52: the slot's machines given to the jobs' maps and reduces. */
function asrptSlot(
  active: readonly JobRun[],
  mapLoad: ReadonlyMap<string, number>,
  machines: number,
  t: number,
  preemptive: boolean,
): AsrptSlot {
  // Line 2: order by available workload (maps not yet done count with all reduce work).
  const available = (r: JobRun) => (r.mapsLeft > 0 ? r.mapsLeft + reduceLeft(r) : reduceLeft(r));
  const list = [...active].sort(
    (a, b) =>
      available(a) - available(b) ||
      a.job.arrivalSlot - b.job.arrivalSlot ||
      compareIds(a.job.jobId, b.job.jobId),
  );
  let d = machines - active.reduce((n, r) => n + r.running.length, 0); // lines 3-7
  const maps: Record<string, number> = {};
  const reduces: Record<string, number> = {};
  const giveMaps = (r: JobRun, n: number) => {
    if (n <= 0) return;
    maps[r.job.jobId] = (maps[r.job.jobId] ?? 0) + n;
    r.mapsLeft -= n;
    d -= n;
  };
  for (const r of list) {
    const load = mapLoad.get(r.job.jobId) ?? 0; // lines 8-26
    if (load > 0 && r.mapsLeft > 0) giveMaps(r, Math.min(load, r.mapsLeft, d));
  }
  for (const r of list) {
    if (d === 0) break; // lines 36-38
    if (r.mapsDoneSlot === undefined || r.mapsDoneSlot >= t || r.unstarted.length === 0) continue; // lines 27-28
    if (preemptive) {
      const n = Math.min(r.unstarted[0], d);
      r.unstarted[0] -= n;
      if (r.unstarted[0] === 0) r.unstarted.shift();
      reduces[r.job.jobId] = n;
      d -= n;
    } else {
      const n = Math.min(r.unstarted.length, d);
      r.running.push(...r.unstarted.splice(0, n));
      reduces[r.job.jobId] = n;
      d -= n;
    }
  }
  for (const r of list) {
    if (d === 0) break; // lines 49-51
    if (r.mapsLeft > 0) giveMaps(r, Math.min(r.mapsLeft, d)); // lines 40-48
  }
  return { maps, reduces };
}

function bySrpt(a: JobRun, b: JobRun): number {
  return (
    a.srptLeft - b.srptLeft || a.job.arrivalSlot - b.job.arrivalSlot || compareIds(a.job.jobId, b.job.jobId)
  );
}
