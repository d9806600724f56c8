import fc from 'fast-check';
import { rtmr } from '../../../src/core/admission';
import {
  committedSlotSeconds,
  hasStarted,
  NO_PROGRESS,
  progressOf,
  remainingWork,
  runningSlots,
  runningTaskEnd,
  snapshotFromProgress,
  wholeWork,
  type JobProgress,
  type TaskProgress,
} from '../../../src/core/admission/common/progress';
import { taskEstimates, type Estimates } from '../../../src/core/estimates';
import type { DeadlineJob } from '../../../src/core/job';
import type { SlotModel } from '../../../src/core/slots/model';
import { job, modelArb } from './helpers';

/** eps^m = mapCostMax · split = 10 s for 10 MB splits; eps^r = reduceCostMax · eta · input / R. */
const EST10: Estimates = { eta: 1, mapCostMax: 1, reduceCostMax: 1 };
const mr1: SlotModel = { name: 'mr1', mapSlots: 2, reduceSlots: 1 };

const map = (state: TaskProgress['state'], start = -1): TaskProgress => ({ kind: 'map', state, start });
const reduce = (state: TaskProgress['state'], start = -1): TaskProgress => ({ kind: 'reduce', state, start });

describe('the work a running job still owes (worked examples)', () => {
  // M = 4 maps of 10 MB (eps^m = 10 s), R = 1 reduce of 40 MB (eps^r = 40 s).
  const j = job('a', { maps: 4, reduces: 1, inputSize: 40, deadline: 500 });

  it('module example: two maps done, one running for 4 s, one map and the reduce pending → 56 of 80', () => {
    const p = progressOf(
      j,
      [map('done', 90), map('done', 85), map('running', 96), map('pending'), reduce('pending')],
      100,
    );
    expect(p).toEqual({ mapsDone: 2, mapsRunning: [96], reducesDone: 0, reducesRunning: [], firstStart: 85 });
    expect(remainingWork(EST10, j, p, 100)).toEqual({ maps: 16, reduces: 40, total: 56 });
    expect(wholeWork(EST10, j)).toEqual({ maps: 40, reduces: 40, total: 80 });
  });

  it('a running task past its estimate owes up to its doubled estimate, never a negative figure', () => {
    const p = progressOf(
      j,
      [map('done', 0), map('done', 0), map('done', 0), map('done', 0), reduce('running', 10)],
      70,
    );
    // The reduce has run 60 s of its 40 s estimate: it is now expected to end at 10 + 80.
    expect(remainingWork(EST10, j, p, 70)).toEqual({ maps: 0, reduces: 20, total: 20 });
    // Past 80 s too: one more estimate from now.
    expect(remainingWork(EST10, j, p, 95).reduces).toBe(40);
  });

  it('runningTaskEnd: the doc example, the boundaries, and an estimate of 0 s ends now', () => {
    expect([4, 12, 25].map((now) => runningTaskEnd(10, 0, now))).toEqual([10, 20, 35]);
    expect(runningTaskEnd(10, 0, 10)).toBe(20);
    expect(runningTaskEnd(10, 0, 20)).toBe(30);
    expect(runningTaskEnd(0, 0, 7)).toBe(7);
  });

  it('a running task that starts after now (clock skew) or without a start owes its whole estimate', () => {
    const p = progressOf(j, [map('running', 130), map('running', -1), map('running', Number.NaN)], 100);
    expect(p.mapsRunning).toEqual([100, 100, 100]);
    expect(remainingWork(EST10, j, p, 100).maps).toBe(40);
  });

  it('more tasks reported than the ledger knows: counts are capped, the latest-started running tasks kept', () => {
    const two = job('b', { maps: 2, reduces: 1, inputSize: 20 });
    const p = progressOf(two, [map('done', 1), map('running', 5), map('running', 8), map('running', 3)], 10);
    expect(p).toMatchObject({ mapsDone: 1, mapsRunning: [8] });
    const all = progressOf(two, [map('done'), map('done'), map('done'), map('running', 9)], 10);
    expect(all).toMatchObject({ mapsDone: 2, mapsRunning: [] });
  });

  it('no task started: the whole job, and NO_PROGRESS', () => {
    expect(progressOf(j, [map('pending'), reduce('pending')], 100)).toEqual(NO_PROGRESS);
    expect(remainingWork(EST10, j, NO_PROGRESS, 100)).toEqual(wholeWork(EST10, j));
  });
});

describe('running tasks as slot availability', () => {
  it('mr1: maps hold map slots, reduces reduce slots, until max(now, start + eps)', () => {
    expect(runningSlots(mr1, 100, [104, 90], [130])).toEqual([[100, 104], [130]]);
  });

  it('unified: one lane for both; more tasks than containers keep the latest ends', () => {
    expect(runningSlots({ name: 'unified', containers: 2 }, 10, [12, 15], [30])).toEqual([[15, 30]]);
    expect(runningSlots({ name: 'unified', containers: 3 }, 10, [], [])).toEqual([[10, 10, 10]]);
  });
});

describe('a lane rebuilt from progress', () => {
  const p = rtmr({ slotModel: mr1, estimates: EST10 });
  const a = job('a', { maps: 4, reduces: 1, inputSize: 40, arrival: 0, deadline: 500 });
  const b = job('b', { maps: 1, reduces: 1, inputSize: 10, arrival: 50, deadline: 300 });

  it('worked example: the started job goes first and finishes 20 s earlier than rebuilt whole', () => {
    const progress = progressOf(
      a,
      [map('done', 80), map('done', 80), map('running', 96), map('pending'), reduce('pending')],
      100,
    );
    const snap = snapshotFromProgress(mr1, EST10, 100, [{ job: b }, { job: a, progress }]);
    expect(snap.slots).toEqual([[100, 106], [100]]);
    expect(snap.queue.map((q) => (q.job as DeadlineJob).id)).toEqual(['a', 'b']);
    const s = p.fromSnapshot(snap);
    // a: its pending map on the slot free at 100 → 110; e^m = 110; reduce 40 s → 150.
    expect(s.entries.map((e) => [e.job.id, e.started, e.finish])).toEqual([
      ['a', true, 150],
      ['b', false, 160],
    ]);
    // Running map 6 s + pending map 10 + reduce 40 (a) + map 10 + reduce 10 (b).
    expect(committedSlotSeconds(s, 100)).toBe(76);

    const whole = p.fromSnapshot(snapshotFromProgress(mr1, EST10, 100, [{ job: b }, { job: a }]));
    expect(committedSlotSeconds(whole, 100)).toBe(80 + 20);
    // Whole, EDF puts b (deadline 350) before a (500): a's 4 maps end at 130 (b's map holds a slot to 110).
    expect(whole.entries.map((e) => [e.job.id, e.finish])).toEqual([
      ['b', 120],
      ['a', 170],
    ]);
  });

  it('started jobs keep the order their first task started in', () => {
    const c = job('c', { maps: 2, reduces: 1, inputSize: 20, deadline: 100 });
    const snap = snapshotFromProgress(mr1, EST10, 100, [
      { job: c, progress: progressOf(c, [map('running', 95)], 100) },
      { job: a, progress: progressOf(a, [map('done', 60)], 100) },
    ]);
    expect(snap.queue.map((q) => (q.job as DeadlineJob).id)).toEqual(['a', 'c']);
  });
});

/** A job and a random progress of its tasks at `now`. */
const scenarioArb = fc
  .record({
    maps: fc.integer({ min: 1, max: 8 }),
    reduces: fc.integer({ min: 1, max: 4 }),
    split: fc.integer({ min: 1, max: 20 }),
    now: fc.integer({ min: 0, max: 200 }),
    tasks: fc.array(
      fc.record({
        kind: fc.constantFrom('map' as const, 'reduce' as const),
        state: fc.constantFrom('done' as const, 'running' as const, 'pending' as const),
        start: fc.oneof(fc.integer({ min: -1, max: 260 }), fc.constant(Number.NaN)),
      }),
      { maxLength: 16 },
    ),
  })
  .map((s) => ({
    job: job('j', {
      maps: s.maps,
      reduces: s.reduces,
      inputSize: s.split * s.maps,
      deadline: 1000,
    }) as DeadlineJob,
    now: s.now,
    tasks: s.tasks as TaskProgress[],
  }));

const estimatesArb: fc.Arbitrary<Estimates> = fc.record({
  eta: fc.double({ min: 0.1, max: 2, noNaN: true }),
  mapCostMax: fc.double({ min: 0, max: 3, noNaN: true }),
  reduceCostMax: fc.double({ min: 0, max: 3, noNaN: true }),
});

describe('properties', () => {
  it('the remaining work is never more than the whole job plus one estimate per overrunning task, and equals it when no task has started', () => {
    fc.assert(
      fc.property(scenarioArb, estimatesArb, ({ job: j, now, tasks }, est) => {
        const p = progressOf(j, tasks, now);
        const rest = remainingWork(est, j, p, now);
        const whole = wholeWork(est, j);
        // A task past its estimate owes at most its estimate again (runningTaskEnd).
        const t = taskEstimates(est, j);
        const overrun = (starts: readonly number[], eps: number) =>
          starts.reduce((a, s) => a + (now - s >= eps ? eps : 0), 0);
        expect(rest.maps).toBeLessThanOrEqual(whole.maps + overrun(p.mapsRunning, t.mapSeconds) + 1e-9);
        expect(rest.reduces).toBeLessThanOrEqual(
          whole.reduces + overrun(p.reducesRunning, t.reduceSeconds) + 1e-9,
        );
        expect(rest.total).toBeGreaterThanOrEqual(0);
        // The counts always fit the job (the snapshot would refuse them otherwise).
        expect(p.mapsDone + p.mapsRunning.length).toBeLessThanOrEqual(j.maps);
        expect(p.reducesDone + p.reducesRunning.length).toBeLessThanOrEqual(j.reduces);
        if (!tasks.some((t) => t.state !== 'pending')) expect(rest).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('a state rebuilt from progress holds exactly the jobs’ remaining work when the running tasks fit, never more than whole', () => {
    fc.assert(
      fc.property(
        modelArb,
        fc.array(scenarioArb, { minLength: 1, maxLength: 4 }),
        estimatesArb,
        (model, scenarios, est) => {
          const now = scenarios[0]!.now;
          const jobs = scenarios.map((s, i) => {
            const j = { ...s.job, id: `j${i}` };
            return { job: j, progress: progressOf(j, s.tasks, now) as JobProgress };
          });
          const policy = rtmr({ slotModel: model, estimates: est });
          const rebuilt = policy.fromSnapshot(snapshotFromProgress(model, est, now, jobs));
          const whole = policy.fromSnapshot(
            snapshotFromProgress(
              model,
              est,
              now,
              jobs.map(({ job: j }) => ({ job: j })),
            ),
          );
          const wholeSum = jobs.reduce((a, { job: j }) => a + wholeWork(est, j).total, 0);
          const restSum = jobs.reduce(
            (a, { job: j, progress }) => a + remainingWork(est, j, progress, now).total,
            0,
          );
          const tol = 1e-6 * Math.max(1, wholeSum);
          expect(committedSlotSeconds(whole, now)).toBeCloseTo(wholeSum, 6);
          expect(committedSlotSeconds(rebuilt, now)).toBeLessThanOrEqual(restSum + tol);
          const running = jobs.reduce(
            (a, { progress }) => [
              a[0]! + progress.mapsRunning.length,
              a[1]! + progress.reducesRunning.length,
            ],
            [0, 0],
          );
          const fits =
            model.name === 'mr1'
              ? running[0]! <= model.mapSlots && running[1]! <= model.reduceSlots
              : running[0]! + running[1]! <= model.containers;
          if (fits) expect(Math.abs(committedSlotSeconds(rebuilt, now) - restSum)).toBeLessThanOrEqual(tol);
          // With no task started anywhere, the rebuild is the whole-work one, finish for finish.
          if (jobs.every(({ progress }) => !hasStarted(progress)))
            rebuilt.entries.forEach((e, i) => expect(e.finish).toBeCloseTo(whole.entries[i]!.finish, 6));
        },
      ),
      { numRuns: 200 },
    );
  });
});
