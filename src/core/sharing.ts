/**
 * A lane's guarantee on a shared cluster. The CapacityScheduler lends a queue's idle guarantee
 * to other queues and takes it back only by preemption; so of a lane's guaranteed containers,
 * some may be held by other tenants when a job arrives. This module says when each held one
 * comes back to the lane, from what the RM does (its preemption settings) and what the sidecar
 * has seen (the preemption delay it measured; other tenants' run times). Pure: the times are
 * seconds on the caller's clock, `now` given.
 */

/** How the guarantee of a lane is held, as the rejection reasons say it. */
export type SharingMode =
  /** Nobody holds any of the lane's guarantee: it is the admitted jobs' own. */
  | 'own'
  /** Other queues hold part of it; the RM's preemption takes it back after its waits. */
  | 'preemption'
  /** Other queues hold part of it and nothing takes it back: it returns as they release it. */
  | 'lent'
  /** Other queues hold part of it; whether preemption is on is not known (counted as lent). */
  | 'unknown';

/** The RM's preemption policy as it reclaims containers (ProportionalCapacityPreemptionPolicy). */
export interface PreemptionModel {
  /** Seconds between two runs of the policy (monitoring_interval). */
  monitoringIntervalSeconds: number;
  /** Seconds between asking an app to give a container back and killing it (max_wait_before_kill). */
  maxWaitBeforeKillSeconds: number;
  /** Share of what is over target the policy marks in one run (natural_termination_factor). */
  naturalTerminationFactor: number;
  /** Containers the policy may mark in one run (total_preemption_per_round of the partition). */
  perRoundContainers: number;
  /**
   * The longest delay measured between a job's submission and its first container while its
   * lane's guarantee was held by others (seconds); the model's times are pushed back to it.
   */
  measuredFirstReturnSeconds?: number;
}

/**
 * Seconds after now at which each of `held` containers comes back by preemption, ascending.
 * The policy runs every interval; in a run it marks `naturalTerminationFactor` of what is still
 * over target (at least one container, at most `perRoundContainers`), and marked containers
 * count as taken until they are killed `maxWaitBeforeKill` later, so the next batch is marked
 * only after that: batch k returns after k·(interval + wait). A measured first return later
 * than the model's first pushes every return back by the difference.
 */
export function preemptionReturns(held: number, m: PreemptionModel): number[] {
  const out: number[] = [];
  if (held <= 0) return out;
  const step = Math.max(0, m.monitoringIntervalSeconds) + Math.max(0, m.maxWaitBeforeKillSeconds);
  const factor = m.naturalTerminationFactor > 0 ? Math.min(1, m.naturalTerminationFactor) : 1;
  const perRound = Math.max(1, Math.floor(m.perRoundContainers));
  let remaining = Math.floor(held);
  let at = step;
  while (remaining > 0) {
    const take = Math.min(remaining, perRound, Math.max(1, Math.ceil(factor * remaining - 1e-9)));
    for (let i = 0; i < take; i++) out.push(at);
    remaining -= take;
    at += step;
  }
  const measured = m.measuredFirstReturnSeconds;
  if (measured !== undefined && Number.isFinite(measured) && measured > out[0]!) {
    const shift = measured - out[0]!;
    for (let i = 0; i < out.length; i++) out[i]! += shift;
  }
  return out;
}

/**
 * Seconds after now at which each of `held` containers comes back when nothing preempts: as
 * other tenants release theirs, the earliest first (a queue below its guarantee is served
 * first when a container frees). `releases`: seconds after now at which each of the other
 * tenants' containers in the partition is expected to end (Infinity: not known); a held
 * container with no known release in time is Infinity.
 */
export function releaseReturns(held: number, releases: readonly number[]): number[] {
  const n = Math.max(0, Math.floor(held));
  const sorted = releases.map((r) => (Number.isNaN(r) ? Infinity : Math.max(0, r))).sort((a, b) => a - b);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(sorted[i] ?? Infinity);
  return out;
}

/** How many of a lane's guaranteed containers other tenants hold, from one read of the RM. */
export function heldContainers(a: {
  /** The lane's guaranteed containers. */
  guaranteed: number;
  /** Containers the lane's queue uses now in the partition. */
  used: number;
  /** Containers free now in the partition (the queue can take them at once). */
  free: number;
}): number {
  const idle = Math.max(0, Math.floor(a.guaranteed) - Math.max(0, Math.floor(a.used)));
  return Math.max(0, idle - Math.max(0, Math.floor(a.free)));
}

/** Where a lane's guarantee stands: how it is held and when each held container returns. */
export interface LaneHolds {
  mode: SharingMode;
  /** Guaranteed containers of the lane. */
  guaranteed: number;
  /** Of them, held by other queues now. */
  held: number;
  /** Seconds after now at which each held container returns, ascending; Infinity: never known. */
  returns: number[];
}

export const NO_HOLDS: LaneHolds = Object.freeze({ mode: 'own', guaranteed: 0, held: 0, returns: [] });

/**
 * The holds of one lane. With preemption, the held containers return by the preemption model;
 * without (lent, or not known), as the other tenants release theirs.
 */
export function laneHolds(a: {
  guaranteed: number;
  used: number;
  free: number;
  /** Whether preemption takes the guarantee back (lent and unknown: it does not). */
  mode: Exclude<SharingMode, 'own'>;
  preemption: PreemptionModel;
  /** The other tenants' containers' expected ends in the partition (releaseReturns). */
  releases: readonly number[];
}): LaneHolds {
  const held = heldContainers(a);
  if (held === 0) return { mode: 'own', guaranteed: a.guaranteed, held: 0, returns: [] };
  const returns =
    a.mode === 'preemption' ? preemptionReturns(held, a.preemption) : releaseReturns(held, a.releases);
  return { mode: a.mode, guaranteed: a.guaranteed, held, returns };
}

/** Held containers that never return as far as is known (they shrink the lane). */
export function lostContainers(h: LaneHolds): number {
  return h.returns.filter((r) => !Number.isFinite(r)).length;
}

/**
 * A signature of the holds that changes when a rebuild would: the mode, the count, and each
 * return rounded to `quantumSeconds` on the absolute clock (a lane is not rebuilt every poll
 * only because time moved on).
 */
export function holdsSignature(h: LaneHolds, now: number, quantumSeconds: number): string {
  const q = Math.max(1e-9, quantumSeconds);
  const at = h.returns.map((r) => (Number.isFinite(r) ? Math.ceil((now + r) / q) : 'inf'));
  return `${h.mode}:${h.held}:${at.join(',')}`;
}

/** One line for a rejection: what of the guarantee other queues hold, and how it comes back. */
export function describeHolds(h: LaneHolds): string | undefined {
  if (h.held === 0) return undefined;
  const lost = lostContainers(h);
  const finite = h.returns.filter((r) => Number.isFinite(r));
  const span =
    finite.length === 0
      ? ''
      : finite[0] === finite[finite.length - 1]
        ? ` in ${Math.round(finite[0]!)} s`
        : ` in ${Math.round(finite[0]!)}–${Math.round(finite[finite.length - 1]!)} s`;
  const of = `${h.held} of ${h.guaranteed} guaranteed containers are held by other queues`;
  if (h.mode === 'preemption') return `${of}; preemption takes them back${span}`;
  const why =
    h.mode === 'lent'
      ? 'guarantee lent to other queues, preemption off'
      : 'guarantee lent to other queues, preemption not known to be on';
  const back =
    lost === h.held
      ? 'none has a known release'
      : `${h.held - lost} return as their apps end${span}${lost > 0 ? `, ${lost} with no known release` : ''}`;
  return `${why}: ${of}; ${back}`;
}
