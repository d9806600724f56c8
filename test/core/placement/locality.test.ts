import { createDelay, DEFAULT_MAX_DELAY_MS } from '../../../src/core/placement/delay';
import { createFairDelay } from '../../../src/core/placement/fair-delay';
import { createFairMatchmaking } from '../../../src/core/placement/fair-matchmaking';
import { createFifo } from '../../../src/core/placement/fifo';
import { createMatchmaking } from '../../../src/core/placement/matchmaking';
import { ValidationError } from '../../../src/errors/validation';
import { heartbeats, job, node, withoutTasks } from './builders';

const taskIds = (r: { assignments: readonly { taskId: string }[] }) => r.assignments.map((a) => a.taskId);

describe('fifo (seed 004 section 4.1)', () => {
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

describe('delay scheduling (seed 004 section 4.2)', () => {
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

describe('matchmaking (seed 004 section 4.3, Algorithms 1-2)', () => {
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
