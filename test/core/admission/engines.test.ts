import fc from 'fast-check';
import { rtmr, rtmrFifo, vectorsAfter, type RtmrPolicy, type RtmrState } from '../../../src/core/admission';
import { CHECKPOINT_EVERY } from '../../../src/core/admission/rtmr/state';
import { literalPlace } from '../../../src/core/slots/literal';
import { RunLane } from '../../../src/core/slots/fast';
import type { DeadlineJob } from '../../../src/core/job';
import { EST, modelArb } from './helpers';

const RUNS = 300;

const opArb = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('admit' as const),
        dt: fc.integer({ min: 0, max: 10 }),
        maps: fc.integer({ min: 1, max: 12 }),
        reduces: fc.integer({ min: 1, max: 7 }),
        split: fc.double({ min: 0.1, max: 9, noNaN: true }),
        deadline: fc.integer({ min: 1, max: 120 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('start' as const), pick: fc.nat() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('complete' as const),
        pick: fc.nat(),
        dt: fc.integer({ min: 0, max: 10 }),
        frac: fc.double({ min: 0.1, max: 1, noNaN: true }),
      }),
    },
  ),
  { minLength: 1, maxLength: 25 },
);

function allVectors(s: RtmrState): number[][][] {
  return s.entries.map((_, i) => vectorsAfter(s, i).map((l) => Array.from(l)));
}

describe('(a) fast and literal implementations agree on every decision and every vector', () => {
  const literalFill = (v: Float64Array, count: number, secs: number, release: number) =>
    literalPlace(
      { name: 'unified', containers: v.length },
      [v],
      {
        pendingMaps: count,
        mapSeconds: secs,
        mapsBusyUntil: -Infinity,
        pendingReduces: 0,
        reduceSeconds: 0,
        reducesBusyUntil: -Infinity,
      },
      release,
    );
  // Slot times with many ties (runs) as well as arbitrary doubles; zero-length tasks included.
  const timeArb = fc.oneof(fc.integer({ min: 0, max: 6 }), fc.double({ min: 0, max: 100, noNaN: true }));
  const secsArb = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 4 }),
    fc.double({ min: 0, max: 20, noNaN: true }),
  );
  const fillArb = fc.record({
    count: fc.integer({ min: 0, max: 90 }),
    secs: secsArb,
    release: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.double({ min: 0, max: 100, noNaN: true })),
  });

  it('run-length water-filling equals the literal Alg. 5.2 loop, fill after fill, on random sorted vectors', () => {
    fc.assert(
      fc.property(
        fc.array(timeArb, { minLength: 1, maxLength: 40 }),
        fc.array(fillArb, { minLength: 1, maxLength: 6 }),
        (vals, fills) => {
          let dense: Float64Array = Float64Array.from(vals).sort();
          const lane = RunLane.fromSorted(dense);
          for (const f of fills) {
            const before = lane.clone();
            const lit = literalFill(dense, f.count, f.secs, f.release);
            const r = lane.fill(f.count, f.secs, f.release);
            const after = lane.toSorted();
            // The vector, bit for bit, and the last value written (e^m of line 6).
            expect(Array.from(after)).toEqual(Array.from(lit.lanes[0]!));
            if (f.count > 0) expect(Math.max(r.last, f.release)).toBe(lit.mapEnd);
            else expect(r.last).toBe(-Infinity);
            // `raised` is false exactly when the vector is unchanged.
            expect(r.raised).toBe(!Array.from(after).every((x, i) => x === dense[i]));
            // The recorded step replays to the same vector: drop the consumed smallest, add the batch.
            expect(r.total).toBe(r.consumed);
            expect(r.consumed).toBeLessThanOrEqual(Math.min(f.count, dense.length));
            expect(r.consumed > 0).toBe(f.count > 0);
            before.drop(r.consumed);
            before.push(r);
            expect(Array.from(before.toSorted())).toEqual(Array.from(after));
            // The incremental fingerprint is that of the multiset, however it is split in batches.
            expect(lane.fingerprint()).toBe(RunLane.fromSorted(after).fingerprint());
            expect(lane.sameAs(RunLane.fromSorted(after))).toBe(true);
            expect(lane.min()).toBe(after[0]);
            dense = lit.lanes[0]!;
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('sameAs tells apart lanes that differ in one slot, and in how a tie is split', () => {
    const a = RunLane.fromSorted([0, 1, 1, 2]);
    expect(a.sameAs(RunLane.fromSorted([0, 1, 1, 2]))).toBe(true);
    expect(a.sameAs(RunLane.fromSorted([0, 1, 2, 2]))).toBe(false);
    expect(a.sameAs(RunLane.fromSorted([0, 1, 1, 3]))).toBe(false);
    // Same multiset reached through different batches.
    const b = RunLane.fromSorted([0, 0, 0, 2]);
    b.fill(2, 1, 0); // two slots 0 -> 1
    expect(b.batches()).toBe(2);
    expect(b.sameAs(a)).toBe(true);
    expect(Array.from(b.toSorted())).toEqual([0, 1, 1, 2]);
  });

  for (const order of ['edf', 'fifo'] as const) {
    it(`same decisions, reasons, finishes and vectors over random operation sequences (${order})`, () => {
      fc.assert(
        fc.property(modelArb, opArb, (model, ops) => {
          const make = (engine: 'fast' | 'literal'): RtmrPolicy =>
            (order === 'edf' ? rtmr : rtmrFifo)({
              slotModel: model,
              estimates: EST,
              engine,
              feedbackThresholdSeconds: 1,
            });
          const pf = make('fast');
          const pl = make('literal');
          let sf = pf.initialState(0);
          let sl = pl.initialState(0);
          let now = 0;
          let n = 0;
          for (const op of ops) {
            if (op.kind === 'admit') {
              now += op.dt;
              const j: DeadlineJob = {
                id: `j${n++}`,
                arrival: now,
                deadline: op.deadline,
                maps: op.maps,
                reduces: op.reduces,
                inputSize: op.split * op.maps,
              };
              const rf = pf.admit(sf, j, now);
              const rl = pl.admit(sl, j, now);
              expect({ ...rf, state: undefined }).toEqual({ ...rl, state: undefined });
              sf = rf.state;
              sl = rl.state;
            } else if (sf.entries.length > 0) {
              const e = sf.entries[op.pick % sf.entries.length]!;
              if (op.kind === 'start') {
                sf = pf.markStarted(sf, e.job.id);
                sl = pl.markStarted(sl, e.job.id);
              } else {
                now += op.dt;
                const fin = Math.max(now, e.job.arrival + (e.finish - e.job.arrival) * op.frac);
                now = fin;
                const actuals = {
                  mapFinishTimes: Array.from({ length: e.job.maps }, (_, k) => fin - (k % 3)),
                  reduceFinishTimes: Array.from({ length: e.job.reduces }, () => fin),
                  finishedAt: fin,
                };
                sf = pf.complete(sf, e.job.id, actuals, now);
                sl = pl.complete(sl, e.job.id, actuals, now);
              }
            }
            expect(sf.entries.map((e) => [e.job.id, e.finish, e.mapEnd, e.started])).toEqual(
              sl.entries.map((e) => [e.job.id, e.finish, e.mapEnd, e.started]),
            );
            expect(allVectors(sf)).toEqual(allVectors(sl));
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('(a) on long queues: checkpoints, many batches, departures and feedback walks', () => {
  // Queues longer than CHECKPOINT_EVERY, so the fast engine memoises checkpoints, reuses them
  // across states after insertions, and replays records from them; jobs leave (records folded
  // into their successors) and complete (SATU, then a walk that may stop on unchanged vectors).
  const longOps = fc.array(
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('admit' as const),
          dt: fc.integer({ min: 0, max: 3 }),
          maps: fc.integer({ min: 1, max: 30 }),
          reduces: fc.integer({ min: 1, max: 12 }),
          split: fc.oneof(fc.constant(2), fc.constant(3), fc.double({ min: 0.5, max: 6, noNaN: true })),
          deadline: fc.integer({ min: 20, max: 4000 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('start' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), pick: fc.nat() }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('complete' as const),
          pick: fc.nat(),
          frac: fc.double({ min: 0.2, max: 1, noNaN: true }),
        }),
      },
    ),
    { minLength: 60, maxLength: 140 },
  );
  const bigModel = fc.oneof(
    fc.record({
      name: fc.constant('mr1' as const),
      mapSlots: fc.integer({ min: 3, max: 24 }),
      reduceSlots: fc.integer({ min: 2, max: 10 }),
    }),
    fc.record({ name: fc.constant('unified' as const), containers: fc.integer({ min: 4, max: 40 }) }),
  );

  it('same decisions, finishes and vectors as the literal engine', () => {
    let longest = 0;
    fc.assert(
      fc.property(bigModel, longOps, (model, ops) => {
        const make = (engine: 'fast' | 'literal'): RtmrPolicy =>
          rtmr({ slotModel: model, estimates: EST, engine, feedbackThresholdSeconds: 2 });
        const pf = make('fast');
        const pl = make('literal');
        let sf = pf.initialState(0);
        let sl = pl.initialState(0);
        let now = 0;
        let n = 0;
        for (const op of ops) {
          if (op.kind === 'admit') {
            now += op.dt;
            const j: DeadlineJob = {
              id: `j${n++}`,
              arrival: now,
              deadline: op.deadline,
              maps: op.maps,
              reduces: op.reduces,
              inputSize: op.split * op.maps,
            };
            const rf = pf.admit(sf, j, now, { searchEarliest: false });
            const rl = pl.admit(sl, j, now, { searchEarliest: false });
            expect({ ...rf, state: undefined }).toEqual({ ...rl, state: undefined });
            sf = rf.state;
            sl = rl.state;
          } else if (sf.entries.length > 0) {
            const e = sf.entries[op.pick % sf.entries.length]!;
            if (op.kind === 'start') {
              sf = pf.markStarted(sf, e.job.id);
              sl = pl.markStarted(sl, e.job.id);
            } else if (op.kind === 'leave') {
              sf = pf.leave(sf, e.job.id, now);
              sl = pl.leave(sl, e.job.id, now);
            } else {
              const fin = Math.max(now, e.job.arrival + (e.finish - e.job.arrival) * op.frac);
              now = fin;
              const actuals = {
                mapFinishTimes: Array.from({ length: e.job.maps }, (_, k) => fin - (k % 4)),
                reduceFinishTimes: Array.from({ length: e.job.reduces }, () => fin),
                finishedAt: fin,
              };
              sf = pf.complete(sf, e.job.id, actuals, now);
              sl = pl.complete(sl, e.job.id, actuals, now);
            }
          }
          longest = Math.max(longest, sf.entries.length);
          expect(sf.entries.map((e) => [e.job.id, e.finish, e.mapEnd])).toEqual(
            sl.entries.map((e) => [e.job.id, e.finish, e.mapEnd]),
          );
        }
        expect(allVectors(sf)).toEqual(allVectors(sl));
      }),
      { numRuns: 25 },
    );
    // The generator does build queues long enough to need checkpoints.
    expect(longest).toBeGreaterThan(2 * CHECKPOINT_EVERY);
  });
});
