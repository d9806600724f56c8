/**
 * The earliest-deadline search's test for the RTMR policies (earliestTrials in
 * src/core/admission/rtmr/policy.ts) remembers, per insertion position, the new job's finish and
 * whether its successors all still meet their deadlines. It must answer exactly as Alg. 5.1
 * itself (an admit with no search) for every deadline tried, in any order, with any repeats: the
 * search it drives then takes the same steps and gives the same answer.
 */
import fc from 'fast-check';
import { rtmr, rtmrFifo } from '../../../src/core/admission';
import { earliestTrials } from '../../../src/core/admission/rtmr/policy';
import { freshWork, walkerBefore } from '../../../src/core/admission/rtmr/state';
import { EST, HEAVY, job, modelArb } from './helpers';

const queueArb = fc.array(
  fc.record({
    maps: fc.integer({ min: 1, max: 6 }),
    reduces: fc.integer({ min: 0, max: 5 }),
    split: fc.integer({ min: 1, max: 6 }),
    deadline: fc.integer({ min: 5, max: 120 }),
    gap: fc.integer({ min: 0, max: 15 }),
    heavy: fc.boolean(),
    start: fc.boolean(),
  }),
  { maxLength: 10 },
);

describe('earliestTrials', () => {
  it('answers every deadline as an admit without search does, in any order and with repeats', () => {
    let rejectedSome = 0;
    fc.assert(
      fc.property(
        modelArb,
        fc.constantFrom('edf', 'fifo'),
        fc.constantFrom('fast' as const, 'literal' as const),
        queueArb,
        fc.record({
          maps: fc.integer({ min: 1, max: 8 }),
          reduces: fc.integer({ min: 0, max: 4 }),
          split: fc.integer({ min: 1, max: 6 }),
          heavy: fc.boolean(),
        }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (model, order, engine, specs, x, deadlines, seedTail) => {
          const make = order === 'edf' ? rtmr : rtmrFifo;
          const p = make({ slotModel: model, estimates: EST, engine });
          let now = 0;
          let s = p.initialState(now);
          specs.forEach((q, i) => {
            now += q.gap;
            const r = p.admit(
              s,
              job(`q${i}`, {
                arrival: now,
                maps: q.maps,
                reduces: q.reduces,
                inputSize: q.split * q.maps,
                deadline: q.deadline,
                ...(q.heavy ? { workloadClass: 'heavy', estimates: HEAVY } : {}),
              }),
              now,
              { searchEarliest: false },
            );
            s = r.state;
            if (q.start && r.admitted) s = p.markStarted(s, `q${i}`);
          });
          const j = job('new', {
            arrival: now,
            maps: x.maps,
            reduces: x.reduces,
            inputSize: x.split * x.maps,
            ...(x.heavy ? { workloadClass: 'heavy', estimates: HEAVY } : {}),
          });
          const tail = seedTail
            ? walkerBefore(s, s.entries.length).place(freshWork(s.estimates, j, s.model), now).finish
            : undefined;
          const trials = earliestTrials(s, j, now, tail);
          // Each deadline twice: once on its own, once after the others have filled the memory.
          for (const D of [...deadlines, ...deadlines.slice().reverse()]) {
            const want = p.admit(s, { ...j, deadline: D }, now, { searchEarliest: false }).admitted;
            expect(trials(D)).toBe(want);
            if (!want) rejectedSome++;
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(rejectedSome).toBeGreaterThan(100);
  });

  it('a worked case: two queued jobs, the earliest deadline is at the head of the queue', () => {
    // Two queued jobs on 2 containers: q0 (deadline 20) and q1 (deadline 60), both 2 maps of 10 s.
    const p = rtmr({ slotModel: { name: 'unified', containers: 2 }, estimates: EST });
    let s = p.initialState(0);
    for (const [id, deadline] of [
      ['q0', 20],
      ['q1', 60],
    ] as const)
      s = p.admit(s, job(id, { maps: 2, reduces: 0, inputSize: 20, deadline }), 0, {
        searchEarliest: false,
      }).state;
    const j = job('new', { maps: 2, reduces: 0, inputSize: 20 });
    const r = p.admit(s, { ...j, deadline: 5 }, 0);
    expect(r.admitted).toBe(false);
    const d = !r.admitted ? r.earliestAdmissibleDeadline : null;
    // At the head (D < 20) it finishes at 10 and pushes q0 to 20 and q1 to 30, both in time: D = 10.
    expect(d).toBe(10);
    const trials = earliestTrials(s, j, 0);
    // D = 20 ties with q0 and goes behind it (finish 20); D = 1000 goes to the tail (finish 30).
    expect([5, 9, 10, 11, 19, 20, 21, 60, 61, 1000, 9, 10].map((D) => trials(D))).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
      true,
    ]);
  });
});
