import fc from 'fast-check';
import { rtmr, rtmrFifo, vectorsAfter, type RtmrPolicy, type RtmrState } from '../../../src/core/admission';
import { literalPlace } from '../../../src/core/slots/literal';
import { applyDelta, waterFill } from '../../../src/core/slots/fast';
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
  it('waterFill + applyDelta equal the literal Alg. 5.2 loop on random sorted vectors', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 90 }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (vals, count, secs, now) => {
          const v = Float64Array.from(vals).sort();
          const lit = literalPlace(
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
            now,
          );
          const wf = waterFill(v, count, secs, now);
          const out = new Float64Array(v.length);
          applyDelta(v, wf.consumed, wf.added, out);
          expect(Array.from(out)).toEqual(Array.from(lit.lanes[0]!));
          if (count > 0) expect(Math.max(wf.last, now)).toBe(lit.mapEnd);
        },
      ),
      { numRuns: 1000 },
    );
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
