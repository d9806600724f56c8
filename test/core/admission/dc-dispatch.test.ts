import fc from 'fast-check';
import {
  dcNextTask,
  dcPlan,
  dcReduceSlots,
  type DcDispatchJob,
  type DcOptions,
} from '../../../src/core/admission';
import type { DeadlineJob } from '../../../src/core/job';

/**
 * DC's task assignment (Kc and Anyanwu, DC, III.B): each job in deadline order gets slots up to its
 * minimum task count; a slot no job below its minimum can use stays idle.
 */
const options: DcOptions = {
  slotModel: { name: 'mr1', mapSlots: 4, reduceSlots: 4 },
  filterRatio: 1,
  mapCost: 1,
  reduceCost: 1,
  transferCost: 0,
};

const job = (id: string, over: Partial<DeadlineJob> = {}): DeadlineJob => ({
  id,
  arrival: 0,
  deadline: 100,
  maps: 8,
  reduces: 4,
  inputSize: 100,
  ...over,
});

const view = (id: string, over: Partial<DcDispatchJob> = {}): DcDispatchJob => ({
  id,
  pendingMaps: 8,
  runningMaps: 0,
  pendingReduces: 4,
  runningReduces: 0,
  mapsDone: false,
  mapSlots: 1,
  reduceSlots: 4,
  ...over,
});

/** Fills `free` slots of `lane` one at a time, as the engine does, and counts each job's tasks. */
function fill(lane: 'map' | 'reduce' | 'container', queue: DcDispatchJob[], free: number) {
  const q = queue.map((j) => ({ ...j }));
  const given: string[] = [];
  for (let s = 0; s < free; s++) {
    const c = dcNextTask(lane, q);
    if (!c) break;
    const j = q.find((x) => x.id === c.jobId)!;
    if (c.kind === 'map') {
      j.pendingMaps--;
      j.runningMaps++;
    } else {
      j.pendingReduces--;
      j.runningReduces++;
    }
    given.push(`${c.jobId}:${c.kind}`);
  }
  return given;
}

describe('DC dispatcher (Kc and Anyanwu, DC, III.B, Algorithm 1)', () => {
  it('worked example: a job with n_m^min = 2 gets 2 of 4 map slots, the next job the other 2', () => {
    // A: delta = 100, D = 100, R = 4, unit costs 1: S_r^max = 100 - 100*1/4 = 75,
    //    n_m^min = ceil(100*1 / (75 - 0)) = 2.
    // B: delta = 100, D = 120: S_r^max = 120 - 25 = 95, n_m^min = ceil(100 / 95) = 2.
    const a = dcPlan(options, job('a'));
    const b = dcPlan(options, job('b', { deadline: 120 }));
    expect(a).toEqual({ reduceStart: 75, mapSlotsNeeded: 2 });
    expect(b).toEqual({ reduceStart: 95, mapSlotsNeeded: 2 });
    const queue = [view('a', { mapSlots: 2 }), view('b', { mapSlots: 2 })];
    expect(fill('map', queue, 4)).toEqual(['a:map', 'a:map', 'b:map', 'b:map']);
  });

  it('a slot beyond every job minimum stays idle (not work-conserving)', () => {
    // C: D = 300: S_r^max = 275, n_m^min = ceil(100 / 275) = 1.
    expect(dcPlan(options, job('c', { deadline: 300 })).mapSlotsNeeded).toBe(1);
    const queue = [view('a', { mapSlots: 2 }), view('c', { mapSlots: 1 })];
    expect(fill('map', queue, 5)).toEqual(['a:map', 'a:map', 'c:map']);
    // A job already at its minimum is skipped, the next one below it served.
    expect(dcNextTask('map', [view('a', { mapSlots: 2, runningMaps: 2 }), view('c')])).toEqual({
      jobId: 'c',
      kind: 'map',
    });
  });

  it('reduces only after all maps are done, and at most n_r^min of them', () => {
    const inMaps = view('a', { pendingMaps: 0, runningMaps: 1, mapsDone: false });
    expect(dcNextTask('reduce', [inMaps])).toBeNull();
    const done = view('a', { pendingMaps: 0, mapsDone: true, reduceSlots: 2 });
    expect(fill('reduce', [done, view('b', { pendingMaps: 0, mapsDone: true, reduceSlots: 1 })], 4)).toEqual([
      'a:reduce',
      'a:reduce',
      'b:reduce',
    ]);
    // A map slot never takes a reduce, a reduce slot never a map.
    expect(dcNextTask('map', [done])).toBeNull();
    expect(dcNextTask('reduce', [view('a', { mapSlots: 2 })])).toBeNull();
  });

  it('one pool (unified): each job gets containers for the stage it is in, up to its minimum', () => {
    const queue = [
      view('a', { pendingMaps: 0, mapsDone: true, reduceSlots: 2 }),
      view('b', { mapSlots: 3 }),
      view('c', { mapSlots: 1 }),
    ];
    expect(fill('container', queue, 8)).toEqual(['a:reduce', 'a:reduce', 'b:map', 'b:map', 'b:map', 'c:map']);
  });

  it('n_r^min once the maps are done (Kc and Anyanwu, DC, III.A): worked examples', () => {
    // f*delta*c_r = 100; A + D = 100.
    // Maps done at S_r^max = 75: 100 / 25 = 4 = R.
    expect(dcReduceSlots(options, job('a'), 75)).toBe(4);
    // Done early, at 50: ceil(100 / 50) = 2 reduces suffice.
    expect(dcReduceSlots(options, job('a'), 50)).toBe(2);
    // At 0: ceil(100 / 100) = 1.
    expect(dcReduceSlots(options, job('a'), 0)).toBe(1);
    // Late (after S_r^max) or past the deadline: all R, never more.
    expect(dcReduceSlots(options, job('a'), 90)).toBe(4);
    expect(dcReduceSlots(options, job('a'), 120)).toBe(4);
    // A transfer cost c_d takes f*delta*c_d off the time left: 100 - 50 - 100*0.1 = 40, ceil(100/40) = 3.
    expect(dcReduceSlots({ ...options, transferCost: 0.1 }, job('a'), 50)).toBe(3);
  });

  it('property: the dispatcher never exceeds a job minimum, serves jobs in queue order, and idles only when every job has its minimum', () => {
    const jobArb = fc.record({
      pendingMaps: fc.integer({ min: 0, max: 6 }),
      runningMaps: fc.integer({ min: 0, max: 4 }),
      pendingReduces: fc.integer({ min: 0, max: 4 }),
      runningReduces: fc.integer({ min: 0, max: 3 }),
      mapsDone: fc.boolean(),
      mapSlots: fc.integer({ min: 1, max: 4 }),
      reduceSlots: fc.integer({ min: 1, max: 4 }),
    });
    fc.assert(
      fc.property(
        fc.array(jobArb, { maxLength: 6 }),
        fc.constantFrom('map' as const, 'reduce' as const, 'container' as const),
        fc.integer({ min: 0, max: 12 }),
        (raw, lane, free) => {
          const queue = raw.map((r, i) => ({ id: `j${i}`, ...r }));
          const q = queue.map((j) => ({ ...j }));
          let lastIndex = -1;
          for (let s = 0; s < free; s++) {
            const c = dcNextTask(lane, q);
            const mapOk = (j: DcDispatchJob) =>
              lane !== 'reduce' && j.pendingMaps > 0 && j.runningMaps < j.mapSlots;
            const redOk = (j: DcDispatchJob) =>
              lane !== 'map' && j.mapsDone && j.pendingReduces > 0 && j.runningReduces < j.reduceSlots;
            if (!c) {
              expect(q.some((j) => mapOk(j) || redOk(j))).toBe(false);
              break;
            }
            const i = q.findIndex((j) => j.id === c.jobId);
            const j = q[i]!;
            // The first job in queue order that can take a task gets it.
            expect(q.slice(0, i).some((x) => mapOk(x) || redOk(x))).toBe(false);
            expect(i).toBeGreaterThanOrEqual(lastIndex);
            lastIndex = i;
            if (c.kind === 'map') {
              expect(mapOk(j)).toBe(true);
              j.pendingMaps--;
              j.runningMaps++;
            } else {
              expect(redOk(j)).toBe(true);
              j.pendingReduces--;
              j.runningReduces++;
            }
          }
          for (let k = 0; k < q.length; k++) {
            const before = queue[k]!;
            const after = q[k]!;
            if (after.runningMaps > before.runningMaps)
              expect(after.runningMaps).toBeLessThanOrEqual(after.mapSlots);
            if (after.runningReduces > before.runningReduces)
              expect(after.runningReduces).toBeLessThanOrEqual(after.reduceSlots);
          }
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });
});
