import { dataOverlap, energyEfficiency, fitness, workloadOf } from '../../energy/fitness';
import type { EnergyProfile } from '../../energy/profile';
import { compareIds, relevantKinds } from '../common/helpers';
import type { ContainerKind, GrantedContainer, JobType, NodeView, PlacementJob } from '../common/types';

export interface EfhOptions {
  readonly profile: EnergyProfile;
  readonly gpuLabel: string;
  /** T: a job that has waited this long since submission joins the long-waiting queue. */
  readonly longWaitThresholdMs: number;
  /** With adaptive execution (Table 6.2) `adaptive` jobs may use CPU containers; without it (Table 6.3) they are GPU jobs. */
  readonly adaptiveExecution: boolean;
  /**
   * Which jobs adaptive execution lets onto CPU containers: `all` (Table 6.2 as written: an
   * adaptive job's relevant containers are every container, in both queues) or `long-waiting`
   * (only jobs in the long-waiting queue, as 6.3.3 describes its effect: "It allows some 'long
   * waiting' GPU jobs to run on a CPU node"; a regular adaptive job is ranked as a GPU job).
   */
  readonly aeScope?: 'all' | 'long-waiting';
}

/** The identical containers of one kind on one node: they share one fitness score for a job. */
export interface ContainerGroup {
  readonly node: NodeView;
  readonly kind: ContainerKind;
  readonly capacity: number;
  free: number;
}

/** A job's view of one container group: its fitness, efficiency, and optset share. */
interface Candidate {
  readonly group: ContainerGroup;
  readonly h: number;
  readonly ef: number;
  inOptset: number;
}

interface JobPlan {
  readonly job: PlacementJob;
  /** R_j: containers the job still asks for (pending tasks not yet covered by a grant). */
  want: number;
  /** Relevant container groups, best first. */
  readonly candidates: Candidate[];
  r: number;
}

export function containerGroups(nodes: readonly NodeView[]): ContainerGroup[] {
  const groups: ContainerGroup[] = [];
  for (const node of [...nodes].sort((a, b) => compareIds(a.nodeId, b.nodeId))) {
    for (const kind of ['gpu', 'cpu'] as const) {
      const free = Math.max(0, Math.floor(node.free[kind]));
      const capacity = Math.max(free, Math.floor(node.capacity?.[kind] ?? free));
      if (capacity > 0) groups.push({ node, kind, capacity, free });
    }
  }
  return groups;
}

export function effectiveKind(kind: JobType, adaptiveExecution: boolean): JobType {
  // Table 6.3: without adaptive execution a GPU-capable job is bound to the GPU label.
  return kind === 'adaptive' && !adaptiveExecution ? 'gpu' : kind;
}

/**
 * Relevant containers of `job` ranked by fitness h_ij = ef_ij * dop_ij, best first (Tables
 * 6.2/6.3 lines 1-5). Containers without an energy figure for the job's workload are not
 * candidates. Ties (frequent when dop is 0 on most nodes) go to the more efficient
 * container, then node id and kind, so the ranking is a total order.
 */
export function rankCandidates(
  job: PlacementJob,
  groups: readonly ContainerGroup[],
  opts: EfhOptions,
): Candidate[] {
  const workload = workloadOf(job, opts.profile);
  const kind = effectiveKind(job.kind, opts.adaptiveExecution);
  const out: Candidate[] = [];
  for (const group of groups) {
    if (!relevantKinds(kind, group.node, opts.gpuLabel).includes(group.kind)) continue;
    const ef = energyEfficiency(opts.profile, workload, group.node.nodeClass, group.kind);
    if (ef <= 0) continue;
    out.push({ group, ef, h: fitness(ef, dataOverlap(job.pendingTasks, group.node.nodeId)), inOptset: 0 });
  }
  return out.sort(
    (a, b) =>
      b.h - a.h ||
      b.ef - a.ef ||
      compareIds(a.group.node.nodeId, b.group.node.nodeId) ||
      compareIds(a.group.kind, b.group.kind),
  );
}

export interface LevelIResult {
  readonly grants: GrantedContainer[];
  readonly longWaiting: string[];
}

/**
 * EFH level I, the application scheduler (He, dissertation, Tables 6.2 and 6.3). Takes free containers
 * out of `groups` (mutated) and returns the grants and the next long-waiting queue.
 */
export function levelI(
  jobs: readonly PlacementJob[],
  groups: ContainerGroup[],
  previousLongWaiting: readonly string[],
  nowMs: number,
  opts: EfhOptions,
): LevelIResult {
  const wanting = jobs
    .map((job) => ({ job, want: job.pendingTasks.length - (job.grantedContainers?.length ?? 0) }))
    .filter((w) => w.want > 0);

  // Lines 17-19: a job that has waited T since submission moves to the long-waiting queue and
  // stays there until it has all it asked for (it then leaves the queue altogether).
  const present = new Set(wanting.map((w) => w.job.jobId));
  const longWaiting = previousLongWaiting.filter((id) => present.has(id));
  const lw = new Set(longWaiting);
  for (const w of [...wanting].sort(byArrival)) {
    if (!lw.has(w.job.jobId) && nowMs - w.job.arrivalMs >= opts.longWaitThresholdMs) {
      longWaiting.push(w.job.jobId);
      lw.add(w.job.jobId);
    }
  }

  const plans: JobPlan[] = [];
  for (const { job, want } of wanting) {
    const adaptiveExecution =
      opts.adaptiveExecution && (opts.aeScope !== 'long-waiting' || lw.has(job.jobId));
    const candidates = rankCandidates(job, groups, { ...opts, adaptiveExecution });
    // Lines 5-6: optset_j = the first R_j relevant containers of the whole cluster, busy or free.
    let left = want;
    for (const c of candidates) {
      c.inOptset = Math.min(c.group.capacity, left);
      left -= c.inOptset;
      if (left === 0) break;
    }
    // Lines 8-16: r_j = (currently available containers in optset_j) / R_j.
    const available = candidates.reduce((n, c) => n + Math.min(c.inOptset, c.group.free), 0);
    plans.push({ job, want, candidates, r: available / want });
  }

  // Line 20: each queue in non-increasing r_j (ties: FIFO).
  const byRank = (a: JobPlan, b: JobPlan) => b.r - a.r || byArrival(a, b);
  const longQueue = plans.filter((p) => lw.has(p.job.jobId)).sort(byRank);
  const regularQueue = plans.filter((p) => !lw.has(p.job.jobId)).sort(byRank);
  const grants: GrantedContainer[] = [];

  // Lines 21-28: a long-waiting job takes its best R_j available relevant containers, or all
  // there are when fewer are free.
  for (const p of longQueue) take(p, p.want, grants);
  // Line 29: the regular queue is served only when no long-waiting job still wants containers.
  if (longQueue.every((p) => p.want === 0)) {
    for (const p of regularQueue) {
      // Lines 31-36: a regular job is served only if all R_j fit now; otherwise stop.
      if (freeFor(p) < p.want) break;
      take(p, p.want, grants);
    }
  }
  const stillLong = longWaiting.filter((id) => plans.some((p) => p.job.jobId === id && p.want > 0));
  return { grants, longWaiting: stillLong };
}

function freeFor(p: JobPlan): number {
  return p.candidates.reduce((n, c) => n + c.group.free, 0);
}

function take(p: JobPlan, count: number, grants: GrantedContainer[]): void {
  for (const c of p.candidates) {
    while (count > 0 && c.group.free > 0) {
      grants.push({ jobId: p.job.jobId, nodeId: c.group.node.nodeId, containerKind: c.group.kind });
      c.group.free -= 1;
      p.want -= 1;
      count -= 1;
    }
    if (count === 0) return;
  }
}

function byArrival(a: { readonly job: PlacementJob }, b: { readonly job: PlacementJob }): number {
  return a.job.arrivalMs - b.job.arrivalMs || compareIds(a.job.jobId, b.job.jobId);
}
