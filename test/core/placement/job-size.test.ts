import {
  addJobSize,
  coefficientOfVariation,
  createJobSize,
  updateShares,
  userCv,
  type UserStats,
} from '../../../src/core/placement/job-size';
import { job, node } from './builders';

const stats = (sizes: number[], share = 0.5): UserStats =>
  sizes.reduce((u, s) => addJobSize(u, s), { jobs: 0, meanMs: 0, m2: 0, share, scheme: 'fifo' } as UserStats);

describe('job-size two-tier scheduler (Madhumala and Ravichandra, job size)', () => {
  it('eqs. (2)-(4): running mean, squared deviations and CV agree with the direct formulas', () => {
    const u = stats([10, 20, 60]);
    expect(u.meanMs).toBeCloseTo(30, 12);
    expect(userCv(u)).toBeCloseTo(coefficientOfVariation([10, 20, 60]), 12);
  });

  it('tier 1: a user whose jobs are half the size converges to twice the share (sizes 1:2, slots 2:1)', () => {
    let users: Record<string, UserStats> = { small: stats([100, 100]), large: stats([200, 200]) };
    for (let i = 0; i < 30; i++) users = updateShares(users, ['large', 'small'], 0.5);
    expect(users.small.share / users.large.share).toBeCloseTo(2, 6);
    expect(users.small.share + users.large.share).toBeCloseTo(1, 12);
    // Equal sizes stay at equal shares.
    const eq = updateShares({ a: stats([5]), b: stats([5]) }, ['a', 'b'], 0.5);
    expect([eq.a.share, eq.b.share]).toEqual([0.5, 0.5]);
  });

  it("tier 2: fair sharing among a user's jobs when both CVs exceed 1, FIFO when both are below", () => {
    const policy = createJobSize();
    const jobs = [
      job('a', [[], []], { user: 'u', arrivalMs: 0, runningTasks: 4, totalTasks: 100 }),
      job('b', [[]], { user: 'u', arrivalMs: 1, totalTasks: 1 }),
      job('c', [[]], { user: 'u', arrivalMs: 2, totalTasks: 1 }),
      job('d', [[]], { user: 'u', arrivalMs: 3, totalTasks: 1 }),
    ];
    let state = policy.initialState();
    for (const s of [1, 1, 1, 1, 200])
      state = policy.onJobFinished!(state, { jobId: 'x', user: 'u', taskMs: [s] });
    expect(userCv(state.users.u)).toBeGreaterThan(1);
    const fair = policy.onHeartbeat(state, { node: node('n1', { cpu: 1 }), jobs, nowMs: 0 });
    expect(fair.state.users.u.scheme).toBe('fair');
    expect(fair.assignments.map((a) => a.jobId)).toEqual(['b']); // fewest running tasks, not the oldest job

    let calm = policy.initialState();
    for (const s of [10, 11, 9]) calm = policy.onJobFinished!(calm, { jobId: 'x', user: 'u', taskMs: [s] });
    const even = jobs.map((j) => ({ ...j, totalTasks: 2 }));
    const fifo = policy.onHeartbeat(calm, { node: node('n1', { cpu: 1 }), jobs: even, nowMs: 0 });
    expect(fifo.state.users.u.scheme).toBe('fifo');
    expect(fifo.assignments.map((a) => a.jobId)).toEqual(['a']);
  });

  it('gives free slots to the user furthest below its share', () => {
    const policy = createJobSize();
    const jobs = [
      job('a', [[], []], { user: 'u1', arrivalMs: 0, runningTasks: 3 }),
      job('b', [[], []], { user: 'u2', arrivalMs: 1, runningTasks: 1 }),
    ];
    const r = policy.onHeartbeat(policy.initialState(), { node: node('n1', { cpu: 3 }), jobs, nowMs: 0 });
    // Equal shares: u2 (1 running) gets slots until it reaches u1's 3, then they alternate from u1 (name order).
    expect(r.assignments.map((a) => a.jobId)).toEqual(['b', 'b', 'a']);
  });
});
