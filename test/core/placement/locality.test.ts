import { createDelay, DEFAULT_MAX_DELAY_MS } from '../../../src/core/placement/delay';
import { createFairDelay } from '../../../src/core/placement/fair-delay';
import { createFairMatchmaking } from '../../../src/core/placement/fair-matchmaking';
import { createFifo } from '../../../src/core/placement/fifo';
import { createMatchmaking } from '../../../src/core/placement/matchmaking';
import { ValidationError } from '../../../src/errors/validation';
import { heartbeats, job, node, withoutTasks } from './builders';

const taskIds = (r: { assignments: readonly { taskId: string }[] }) => r.assignments.map((a) => a.taskId);

describe('fifo (He, dissertation, section 4.1)', () => {
  const fifo = createFifo();

  it("gives the node the first job's local tasks while slots are free", () => {
    const j1 = job('j1', [['n1'], ['n2'], ['n1']]);
    const r = fifo.onHeartbeat({}, { node: node('n1', { cpu: 2 }), jobs: [j1], nowMs: 0 });
    expect(taskIds(r)).toEqual(['j1-m0', 'j1-m2']);
    expect(r.assignments.every((a) => a.local)).toBe(true);
  });

  it('assigns exactly one non-local task per heartbeat once the first job has no local task, however many slots are free', () => {
    const j1 = job('j1', [['n2'], ['n3'], ['n4'], ['n5']]);
    const r = fifo.onHeartbeat({}, { node: node('n1', { cpu: 4 }), jobs: [j1], nowMs: 0 });
    expect(r.assignments).toEqual([
      { jobId: 'j1', taskId: 'j1-m0', nodeId: 'n1', containerKind: 'cpu', local: false },
    ]);
  });

  it('local tasks first, then the single non-local one', () => {
    const j1 = job('j1', [['n2'], ['n1'], ['n3']]);
    const r = fifo.onHeartbeat({}, { node: node('n1', { cpu: 3 }), jobs: [j1], nowMs: 0 });
    expect(r.assignments.map((a) => [a.taskId, a.local])).toEqual([
      ['j1-m1', true],
      ['j1-m0', false],
    ]);
  });

  it("keeps strict FIFO order: a later job's local task waits while the first job has tasks", () => {
    const j1 = job('j1', [['n2'], ['n3']], { arrivalMs: 0 });
    const j2 = job('j2', [['n1']], { arrivalMs: 5 });
    const r = fifo.onHeartbeat({}, { node: node('n1', { cpu: 2 }), jobs: [j2, j1], nowMs: 10 });
    expect(taskIds(r)).toEqual(['j1-m0']);
  });

  it('passes over a GPU-only job on a node without GPU containers', () => {
    const g = job('g', [['n1']], { kind: 'gpu', arrivalMs: 0 });
    const c = job('c', [['n1']], { arrivalMs: 1 });
    const r = fifo.onHeartbeat({}, { node: node('n1', { cpu: 1 }), jobs: [g, c], nowMs: 0 });
    expect(taskIds(r)).toEqual(['c-m0']);
  });
});

describe('delay scheduling (He, dissertation, section 4.2)', () => {
  const D = 3000;
  const delay = createDelay({ maxDelayMs: D });

  it('skips a job without a local task, then launches its non-local tasks once it has waited D', () => {
    const j1 = job('j1', [['n9'], ['n9'], ['n9']]);
    const n1 = node('n1', { cpu: 2 });
    const { results, state } = heartbeats(delay, [
      { node: n1, jobs: [j1], nowMs: 1000 }, // first skip: the timer starts at 1000
      { node: n1, jobs: [j1], nowMs: 1000 + D - 1 }, // skipped D - 1 ms: still waits
      { node: n1, jobs: [j1], nowMs: 1000 + D }, // skipped D: launches, several in one heartbeat
    ]);
    expect(results[0].assignments).toEqual([]);
    expect(results[0].state.skippedSinceMs).toEqual({ j1: 1000 });
    expect(results[1].assignments).toEqual([]);
    expect(taskIds(results[2])).toEqual(['j1-m0', 'j1-m1']);
    expect(results[2].assignments.every((a) => !a.local)).toBe(true);
    expect(state.skippedSinceMs).toEqual({ j1: 1000 });
  });

  it("relaxes job order: a later job's local task runs while the first job is skipped", () => {
    const j1 = job('j1', [['n9']], { arrivalMs: 0 });
    const j2 = job('j2', [['n1']], { arrivalMs: 1 });
    const r = delay.onHeartbeat(delay.initialState(), {
      node: node('n1', { cpu: 1 }),
      jobs: [j1, j2],
      nowMs: 0,
    });
    expect(taskIds(r)).toEqual(['j2-m0']);
    expect(r.state.skippedSinceMs).toEqual({ j1: 0 });
  });

  it("clears a job's timer when it launches a local task", () => {
    const j1 = job('j1', [['n1'], ['n9']]);
    const r = delay.onHeartbeat(
      { skippedSinceMs: { j1: 0 } },
      { node: node('n1', { cpu: 1 }), jobs: [j1], nowMs: 10 },
    );
    expect(taskIds(r)).toEqual(['j1-m0']);
    expect(r.state.skippedSinceMs).toEqual({});
  });

  it('defaults D to 1.5 heartbeat intervals of 3 s and rejects a negative D', () => {
    expect(DEFAULT_MAX_DELAY_MS).toBe(4500);
    expect(() => createDelay({ maxDelayMs: -1 })).toThrow(ValidationError);
    expect(() => createDelay({ maxDelayMs: -1 })).toThrow(/placement\.args\.maxDelayMs/);
    expect(() => createDelay({ delay: 3 })).toThrow(/placement\.args/);
  });

  it('fair-delay serves the job with fewest running tasks first', () => {
    const j1 = job('j1', [['n1'], ['n1']], { arrivalMs: 0, runningTasks: 5 });
    const j2 = job('j2', [['n1'], ['n1']], { arrivalMs: 1, runningTasks: 0 });
    const r = createFairDelay().onHeartbeat(
      { skippedSinceMs: {} },
      { node: node('n1', { cpu: 3 }), jobs: [j1, j2], nowMs: 0 },
    );
    expect(taskIds(r)).toEqual(['j2-m0', 'j2-m1', 'j1-m0']);
  });
});

describe("delay scheduling, Hadoop 1's wait rule (waitRule: hadoop1)", () => {
  const D = 3000;
  const delay = createDelay({ maxDelayMs: D, waitRule: 'hadoop1' });
  const n1 = node('n1', { cpu: 1 });
  const n2 = node('n2', { cpu: 1 });

  it('counts the wait only over heartbeats after one the job was skipped at, and resets it on every launch', () => {
    const j1 = job('j1', [['n9'], ['n9'], ['n9']]);
    const { results } = heartbeats(delay, [
      { node: n1, jobs: [j1], nowMs: 1000 }, // skipped: nothing counted yet (no earlier heartbeat)
      { node: n2, jobs: [j1], nowMs: 2500 }, // +1500 ms: skipped again
      { node: n1, jobs: [j1], nowMs: 4000 }, // +1500 ms: waited 3000 = D, launches non-local
    ]);
    expect(results[0].assignments).toEqual([]);
    expect(results[0].state.waitedMs).toEqual({});
    expect(results[0].state.skippedLast).toEqual(['j1']);
    expect(results[1].assignments).toEqual([]);
    expect(results[1].state.waitedMs).toEqual({ j1: 1500 });
    expect(taskIds(results[2])).toEqual(['j1-m0']);
    expect(results[2].assignments[0]!.local).toBe(false);
    // The launch resets the wait; its non-local level lets the next heartbeat launch at once.
    expect(results[2].state).toMatchObject({ waitedMs: { j1: 0 }, skippedLast: [], nonLocal: ['j1'] });
    const next = delay.onHeartbeat(results[2].state, {
      node: n2,
      jobs: [withoutTasks(j1, ['j1-m0'])],
      nowMs: 4100,
    });
    expect(taskIds(next)).toEqual(['j1-m1']);
  });

  it('does not count a heartbeat at which the job was not visited (a job ahead took the slot)', () => {
    const j1 = job('j1', [['n1'], ['n1']], { arrivalMs: 0 });
    const j2 = job('j2', [['n9']], { arrivalMs: 1 });
    const { results } = heartbeats(delay, [
      { node: n2, jobs: [j1, j2], nowMs: 0 }, // both skipped on n2
      { node: n1, jobs: [j1, j2], nowMs: 5000 }, // j1 launches locally; j2 never visited
      { node: n1, jobs: [j1, j2], nowMs: 9000 }, // j1 again (the builder's jobs keep their tasks)
    ]);
    expect(results[0].state.skippedLast).toEqual(['j1', 'j2']);
    expect(taskIds(results[1])).toEqual(['j1-m0']);
    // j2 was skipped at 0: 5000 ms counted at the heartbeat of 5000; not skipped then, so 9000 adds nothing.
    expect(results[1].state.waitedMs).toMatchObject({ j2: 5000 });
    expect(results[1].state.skippedLast).toEqual([]);
    expect(results[2].state.waitedMs).toMatchObject({ j2: 5000 });
  });

  it('a local launch puts the job back to waiting for locality', () => {
    const j1 = job('j1', [['n1'], ['n9'], ['n9']]);
    const r = delay.onHeartbeat(
      { skippedSinceMs: {}, nonLocal: ['j1'], waitedMs: { j1: 0 }, skippedLast: [], lastHeartbeatMs: 0 },
      { node: n1, jobs: [j1], nowMs: 10 },
    );
    expect(taskIds(r)).toEqual(['j1-m0']);
    expect(r.state.nonLocal).toEqual([]);
    expect(() => createDelay({ waitRule: 'sometimes' })).toThrow(/placement\.args\.waitRule/);
  });
});

describe('matchmaking (He, dissertation, section 4.3, Algorithms 1-2)', () => {
  const mm = createMatchmaking();

  it('marker sequence: first miss marks and assigns nothing, second miss assigns exactly one non-local task, a new job clears markers', () => {
    const j1 = job('j1', [['n9'], ['n9'], ['n9'], ['n9']], { arrivalMs: 0 });
    const n1 = node('n1', { cpu: 3 });
    const first = mm.onHeartbeat(mm.initialState(), { node: n1, jobs: [j1], nowMs: 0 });
    expect(first.assignments).toEqual([]);
    expect(first.state.markers).toEqual({ n1: 0 });

    const second = mm.onHeartbeat(first.state, { node: n1, jobs: [j1], nowMs: 3000 });
    expect(second.assignments).toEqual([
      { jobId: 'j1', taskId: 'j1-m0', nodeId: 'n1', containerKind: 'cpu', local: false },
    ]);
    expect(second.state.markers).toEqual({ n1: 0 });

    // A new job arrives (Algorithm 2): all markers are cleared, so the next miss assigns nothing again.
    const j2 = job('j2', [['n8']], { arrivalMs: 4000 });
    const j1Left = withoutTasks(j1, ['j1-m0']);
    const third = mm.onHeartbeat(second.state, { node: n1, jobs: [j1Left, j2], nowMs: 6000 });
    expect(third.assignments).toEqual([]);
    expect(third.state.markers).toEqual({ n1: 0 });
    const fourth = mm.onHeartbeat(third.state, { node: n1, jobs: [j1Left, j2], nowMs: 9000 });
    expect(fourth.assignments.map((a) => [a.taskId, a.local])).toEqual([['j1-m1', false]]);
  });

  it('looks through all jobs for a local task and counts the marker up on each hit', () => {
    const j1 = job('j1', [['n9']], { arrivalMs: 0 });
    const j2 = job('j2', [['n1'], ['n1']], { arrivalMs: 1 });
    const r = mm.onHeartbeat(
      { markers: { n1: 0 }, knownJobIds: ['j1', 'j2'] },
      { node: node('n1', { cpu: 2 }), jobs: [j1, j2], nowMs: 0 },
    );
    expect(taskIds(r)).toEqual(['j2-m0', 'j2-m1']);
    expect(r.state.markers).toEqual({ n1: 2 });
  });

  it('after local hits, a miss within the same heartbeat marks the node (first miss in a row) and stops', () => {
    const j1 = job('j1', [['n1'], ['n9'], ['n9']]);
    const r = mm.onHeartbeat(
      { markers: {}, knownJobIds: ['j1'] },
      { node: node('n1', { cpu: 3 }), jobs: [j1], nowMs: 0 },
    );
    expect(taskIds(r)).toEqual(['j1-m0']);
    expect(r.state.markers).toEqual({ n1: 0 });
  });

  it('fair-matchmaking picks local tasks in fair-share order', () => {
    const j1 = job('j1', [['n1']], { arrivalMs: 0, runningTasks: 3 });
    const j2 = job('j2', [['n1']], { arrivalMs: 1, runningTasks: 1 });
    const r = createFairMatchmaking().onHeartbeat(
      { markers: {}, knownJobIds: ['j1', 'j2'] },
      { node: node('n1', { cpu: 1 }), jobs: [j1, j2], nowMs: 0 },
    );
    expect(taskIds(r)).toEqual(['j2-m0']);
  });
});
