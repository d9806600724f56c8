import { z } from 'zod';
import { NodeFill, compareIds, fairOrder, fifoOrder, gpuLabelSchema, parseArgs } from '../common/helpers';
import type { FinishedJob, HeartbeatInput, HeartbeatResult, PlacementPolicy } from '../common/types';
import { placementEntry } from '../../policy-entry';

export const jobSizeArgsSchema = z.strictObject({
  /** alpha of eq. (5): how far one update moves a user's share towards its size-based target. */
  alpha: z.number().min(0).max(1).default(0.5),
  gpuLabel: gpuLabelSchema,
});
export type JobSizeArgs = z.output<typeof jobSizeArgsSchema>;

export interface UserStats {
  /** j: finished jobs in the current collection window. */
  readonly jobs: number;
  /** S_i: mean size of those jobs (ms of task time). */
  readonly meanMs: number;
  /** v_i: running sum of squared deviations (eq. 3); the variance is v_i / j. */
  readonly m2: number;
  /** SU_i: the user's slot share, a fraction of the cluster. */
  readonly share: number;
  /** Tier 2 scheme: FIFO among the user's jobs, or fair sharing among them. */
  readonly scheme: 'fifo' | 'fair';
}

export interface JobSizeState {
  readonly users: Readonly<Record<string, UserStats>>;
  readonly knownJobIds: readonly string[];
}

const NEW_USER: UserStats = { jobs: 0, meanMs: 0, m2: 0, share: 0, scheme: 'fifo' };

/** Coefficient of variation of a sample (population form, as eq. 4). NaN for fewer than two values or mean 0. */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length < 2) return NaN;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (mean === 0) return NaN;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
  return Math.sqrt(variance) / mean;
}

/** Eqs. (2)-(3): fold one finished job's size into a user's mean and squared-deviation sum. */
export function addJobSize(u: UserStats, sizeMs: number): UserStats {
  const j = u.jobs + 1;
  const m2 = u.m2 + (sizeMs - u.meanMs) ** 2 * ((j - 1) / j);
  return { ...u, jobs: j, meanMs: u.meanMs + (sizeMs - u.meanMs) / j, m2 };
}

/** Eq. (4): CV_i = sqrt(v_i / j) / S_i. */
export function userCv(u: UserStats): number {
  return u.jobs < 2 || u.meanMs === 0 ? NaN : Math.sqrt(u.m2 / u.jobs) / u.meanMs;
}

/**
 * Tier 1 (Madhumala and Ravichandra, job size, Algorithm 2, eq. 5) for the users with queued jobs. Eq. (5) as printed,
 * SU_i = SU_i (alpha U S_i / v_i + 1 - alpha), lost symbols in this copy, and read as a
 * product it does not settle: each update multiplies the shares by the same factors again,
 * so they run off to 0 and 1. We read it as the moving average it is evidently meant to be,
 * SU_i = (1 - alpha) SU_i + alpha target_i, with target_i = (1/S_i) / sum_k (1/S_k) the user's
 * normalised inverse mean size (U target_i is 1 for a user of average size, hence the U in
 * the printed form). This matches the job-size paper's worked statement (sizes 1:2 give slots 2:1) and
 * keeps equal users at equal shares. A user with no finished job yet counts with the mean
 * size of the others; shares are renormalised over the active users.
 */
export function updateShares(
  users: Readonly<Record<string, UserStats>>,
  active: readonly string[],
  alpha: number,
): Record<string, UserStats> {
  const U = active.length;
  const out: Record<string, UserStats> = { ...users };
  if (U === 0) return out;
  const known = active.filter((u) => (users[u]?.jobs ?? 0) > 0 && users[u].meanMs > 0);
  const fallbackSize = known.length > 0 ? known.reduce((a, u) => a + users[u].meanMs, 0) / known.length : 1;
  const size = (u: string) => (known.includes(u) ? users[u].meanMs : fallbackSize);
  const inv = active.reduce((a, u) => a + 1 / size(u), 0);
  const next = active.map((u) => {
    const cur = users[u]?.share || 1 / U;
    const target = 1 / size(u) / inv;
    return (1 - alpha) * cur + alpha * target;
  });
  const sum = next.reduce((a, b) => a + b, 0);
  active.forEach((u, i) => {
    out[u] = { ...(users[u] ?? NEW_USER), share: next[i] / sum };
  });
  return out;
}

/**
 * The job-size based two-tier scheduler (Madhumala and Ravichandra, job size). Tier 1 divides slots among users by
 * share SU_i, re-tuned whenever a job arrives; a heartbeat's free slots go to the user
 * furthest below its share (running / SU_i smallest). Tier 2 (Algorithm 3) picks that user's
 * job: in submission order while the CV of its finished jobs' sizes and of its current jobs'
 * sizes are both below 1, fair sharing among its jobs when both are above 1, and otherwise
 * keeps the scheme it had; a change of scheme starts a new collection window. Current job
 * sizes are estimated as task count times the user's mean task time, so CV* is the CV of
 * the jobs' task counts. The job-size paper ignores locality; we still prefer a local task of the job.
 */
export function createJobSize(rawArgs: unknown = {}): PlacementPolicy<JobSizeState> {
  const args = parseArgs(jobSizeArgsSchema, rawArgs, 'placement.args');
  const userOf = (j: { user?: string }) => j.user ?? '';
  return {
    name: 'job-size',
    initialState: () => ({ users: {}, knownJobIds: [] }),

    onJobFinished(state: JobSizeState, job: FinishedJob): JobSizeState {
      const u = userOf(job);
      const size = job.taskMs.reduce((a, b) => a + b, 0); // s_ij: total task time of the job
      return { ...state, users: { ...state.users, [u]: addJobSize(state.users[u] ?? NEW_USER, size) } };
    },

    onHeartbeat(state: JobSizeState, input: HeartbeatInput): HeartbeatResult<JobSizeState> {
      const known = new Set(state.knownJobIds);
      const active = [...new Set(input.jobs.map(userOf))].sort(compareIds);
      let users: Record<string, UserStats> = { ...state.users };
      if (input.jobs.some((j) => !known.has(j.jobId))) {
        users = updateShares(users, active, args.alpha); // Algorithm 1 step 1b
        for (const u of active) {
          // Algorithm 3: tune the user's tier-2 scheme from CV (finished) and CV* (current jobs).
          const cur = users[u];
          const cvStar = coefficientOfVariation(
            input.jobs.filter((j) => userOf(j) === u).map((j) => j.totalTasks ?? j.pendingTasks.length),
          );
          const cv = userCv(cur);
          const scheme = cvStar < 1 && cv < 1 ? 'fifo' : cvStar > 1 && cv > 1 ? 'fair' : cur.scheme;
          users[u] = scheme === cur.scheme ? cur : { ...NEW_USER, share: cur.share, scheme };
        }
      }

      const fill = new NodeFill(input.node, args.gpuLabel);
      const running = new Map<string, number>();
      for (const j of input.jobs) running.set(userOf(j), (running.get(userOf(j)) ?? 0) + j.runningTasks);

      while (fill.free.total > 0) {
        const deficit = (u: string) =>
          (running.get(u) ?? 0) / Math.max(users[u]?.share || 1 / Math.max(active.length, 1), 1e-9);
        const candidates = active.filter((u) => input.jobs.some((j) => userOf(j) === u && fill.usable(j)));
        if (candidates.length === 0) break;
        const user = candidates.sort((a, b) => deficit(a) - deficit(b) || compareIds(a, b))[0];
        const mine = input.jobs.filter((j) => userOf(j) === user && fill.usable(j));
        const job = (
          users[user]?.scheme === 'fair' ? fairOrder(mine, fill.tally.perJob) : fifoOrder(mine)
        )[0];
        fill.giveNext(job, fill.kindFor(job)!);
        running.set(user, (running.get(user) ?? 0) + 1);
      }
      return {
        assignments: fill.assignments,
        state: { users, knownJobIds: input.jobs.map((j) => j.jobId) },
      };
    },
  };
}

/** Its name in configuration and the simulator, and its registry entry (src/core/registry.ts). */
export const name = 'job-size';
export const entry = placementEntry(
  'job-size based two-tier scheduler (Madhumala and Ravichandra, job size)',
  (a) => createJobSize(a),
);
