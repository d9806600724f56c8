import fc from 'fast-check';
import { rtmr, rtmrFifo, rtmrNoFeedback } from '../../../src/core/admission';
import { replay } from '../../../src/core/admission/replay';
import { EST, modelArb, workloadArb } from './helpers';

const RUNS = 400;

describe('(b) the guarantee: admitted jobs meet their deadlines when tasks take at most their estimates', () => {
  const variants = [
    [
      'rtmr (EDF, feedback)',
      (m: never) => rtmr({ slotModel: m, estimates: EST, feedbackThresholdSeconds: 0 }),
    ],
    ['rtmr-no-feedback', (m: never) => rtmrNoFeedback({ slotModel: m, estimates: EST })],
    ['rtmr-fifo', (m: never) => rtmrFifo({ slotModel: m, estimates: EST, feedbackThresholdSeconds: 0 })],
  ] as const;
  for (const [name, make] of variants) {
    for (const modelName of ['mr1', 'unified'] as const) {
      it(`${name} on ${modelName}`, () => {
        fc.assert(
          fc.property(
            modelArb.filter((m) => m.name === modelName),
            workloadArb(8),
            (model, { jobs }) => {
              const policy = make(model as never);
              const r = replay(policy, policy.initialState(0), model, jobs);
              expect(r.misses).toEqual([]);
            },
          ),
          { numRuns: RUNS },
        );
      });
    }
  }
});
