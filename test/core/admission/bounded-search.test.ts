/**
 * The searches of the admission core end, whatever the job: the earliest-deadline search is
 * bounded in calls and by a horizon, and yarn-greedy's plan by its span and a visit budget.
 * Each case here used to run for ever (or for many seconds) before the bounds.
 */
import fc from 'fast-check';
import { dc, rtmr } from '../../../src/core/admission';
import {
  DEADLINE_HORIZON_SECONDS,
  MAX_SEARCH_STEPS,
  searchEarliestDeadline,
} from '../../../src/core/admission/common/earliest';
import { createYarnGreedy } from '../../../src/core/admission/yarn-greedy';
import type { DeadlineJob } from '../../../src/core/job';

const estimates = { eta: 1, mapCostMax: 0.5, reduceCostMax: 0.5 };

function job(over: Partial<DeadlineJob> = {}): DeadlineJob {
  return { id: 'j', arrival: 0, deadline: 600, maps: 8, reduces: 1, inputSize: 1024, ...over };
}

/** Runs `f`, failing the test if it takes longer than `ms` of wall time. */
function within<T>(ms: number, f: () => T): T {
  const t = performance.now();
  const out = f();
  expect(performance.now() - t).toBeLessThan(ms);
  return out;
}

describe('searchEarliestDeadline', () => {
  it('finds the first admitted whole second (the worked example)', () => {
    const tried: number[] = [];
    const d = searchEarliestDeadline(
      (D) => {
        tried.push(D);
        return D >= 116;
      },
      { hint: 90, horizon: 1000 },
    );
    expect(d).toBe(116);
    expect(tried.slice(0, 2)).toEqual([90, 180]);
    expect(tried.length).toBeLessThanOrEqual(10);
  });

  it('gallops down from an admitted hint: a queue that admits only at its tail costs a few calls', () => {
    const tried: number[] = [];
    const d = searchEarliestDeadline(
      (D) => {
        tried.push(D);
        return D >= 4990;
      },
      { hint: 5000, horizon: 1_000_000 },
    );
    expect(d).toBe(4990);
    // 5000, 4999, 4997, 4993 admitted, 4985 refused, then (4985, 4993] bisected.
    expect(tried).toEqual([5000, 4999, 4997, 4993, 4985, 4989, 4991, 4990]);
    // The hint itself is the answer: one more call says so.
    const atHint: number[] = [];
    expect(searchEarliestDeadline((D) => (atHint.push(D), D >= 7000), { hint: 7000, horizon: 1e6 })).toBe(
      7000,
    );
    expect(atHint).toEqual([7000, 6999]);
  });

  it.each([
    ['a hint past 2^53', 1e24, 1e9],
    ['an infinite hint', Infinity, 1e9],
    ['a NaN hint', NaN, 1e9],
    ['a horizon past 2^53', 1, 1e30],
    ['an infinite horizon', 1, Infinity],
  ])('ends with %s', (_what, hint, horizon) => {
    let calls = 0;
    const never = searchEarliestDeadline(
      () => {
        calls++;
        return false;
      },
      { hint, horizon },
    );
    expect(never).toBeNull();
    expect(calls).toBeLessThanOrEqual(MAX_SEARCH_STEPS);
  });

  it('answers null ("none within") when not even the horizon is admitted, and never tries past it', () => {
    const tried: number[] = [];
    const d = searchEarliestDeadline(
      (D) => {
        tried.push(D);
        return D > 5000;
      },
      { hint: 10, horizon: 5000 },
    );
    expect(d).toBeNull();
    expect(Math.max(...tried)).toBe(5000);
  });

  it('always answers an admitted deadline within the horizon, the one before it refused, in bounded calls', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e20, noNaN: true }),
        fc.double({ min: -1e20, max: 1e20, noNaN: true }),
        fc.double({ min: 0, max: 1e25, noNaN: true }),
        (threshold, hint, horizon) => {
          let calls = 0;
          const d = searchEarliestDeadline(
            (D) => {
              calls++;
              return D >= threshold;
            },
            { hint, horizon },
          );
          expect(calls).toBeLessThanOrEqual(MAX_SEARCH_STEPS);
          const cap = Math.floor(Math.min(horizon, Number.MAX_SAFE_INTEGER));
          if (d === null) expect(Math.ceil(threshold) > cap || cap < 1).toBe(true);
          else {
            expect(d).toBeLessThanOrEqual(cap);
            expect(d).toBeGreaterThanOrEqual(threshold);
            // Whole seconds below 2^53: the answer is the first one admitted.
            if (d < 2 ** 52) expect(d - 1 < threshold).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('admission policies on huge jobs', () => {
  const slotModel = { name: 'unified' as const, containers: 8 };

  it.each([
    ['rtmr', rtmr({ slotModel, estimates })],
    ['dc', dc({ slotModel: { name: 'mr1', mapSlots: 8, reduceSlots: 4 } })],
  ])('%s rejects a job of 1e18 MB promptly, saying how far it searched', (_name, policy) => {
    const p = policy as ReturnType<typeof rtmr>;
    const r = within(2000, () => p.admit(p.initialState(0), job({ inputSize: 1e18 }), 0));
    expect(r.admitted).toBe(false);
    if (r.admitted) return;
    expect(r.earliestAdmissibleDeadline).toBeNull();
    expect(r.searchedUpTo).toBe(DEADLINE_HORIZON_SECONDS);
  });

  it('rtmr takes the horizon as a parameter and counts it from now', () => {
    const p = rtmr({ slotModel, estimates });
    // 8 maps of 64 s then a reduce of 512 s: 576 s in all; arrived 100 s before now.
    const late = job({ arrival: 0, deadline: 10, inputSize: 1024 });
    const r = p.admit(p.initialState(100), late, 100, { horizon: 300 });
    expect(!r.admitted && r.earliestAdmissibleDeadline).toBeNull();
    expect(!r.admitted && r.searchedUpTo).toBe(400);
    const found = p.admit(p.initialState(100), late, 100, { horizon: 3600 });
    expect(!found.admitted && found.earliestAdmissibleDeadline).toBe(676);
  });
});

describe('yarn-greedy on the epoch clock and on huge jobs', () => {
  const now = Date.UTC(2026, 10, 22, 8) / 1000;
  const policy = createYarnGreedy({ slotModel: { name: 'unified', containers: 8 }, estimates });

  it('plans from the current step: a job at an epoch time is decided in milliseconds, with a small plan', () => {
    const s = policy.initialState(now);
    const r = within(1000, () => policy.admit(s, job({ arrival: now, deadline: 3600 }), now));
    expect(r.admitted).toBe(true);
    if (!r.admitted) return;
    expect(r.state.plan[0]!.length).toBeLessThanOrEqual(3600);
    // Later admissions drop the steps already past.
    const later = policy.admit(r.state, job({ id: 'k', arrival: now + 600, deadline: 600 }), now + 600);
    expect(later.state.origin).toBe(now + 600);
  });

  it('plans no further than maxPlanSteps ahead: a far deadline is planned as if due then', () => {
    const small = createYarnGreedy({
      slotModel: { name: 'unified', containers: 8 },
      estimates,
      maxPlanSteps: 1000,
    });
    const r = small.admit(small.initialState(0), job({ deadline: DEADLINE_HORIZON_SECONDS }), 0);
    expect(r.admitted && r.estimatedFinish).toBe(1000);
  });

  it('gives up past its visit budget with plan-budget-exceeded, the state unchanged', () => {
    const tight = createYarnGreedy({
      slotModel: { name: 'unified', containers: 8 },
      estimates,
      maxStepVisits: 10_000,
    });
    const s = tight.initialState(now);
    const r = within(1000, () =>
      tight.admit(s, job({ arrival: now, deadline: 1e6, maps: 100_000, inputSize: 1e5 }), now),
    );
    expect(r.admitted).toBe(false);
    if (r.admitted) return;
    expect(r.reason.kind).toBe('plan-budget-exceeded');
    expect(r.state).toBe(s);
  });

  it('decides a million-map job of 1 PB within a second', () => {
    const s = policy.initialState(now);
    const r = within(1000, () =>
      policy.admit(
        s,
        job({ arrival: now, deadline: DEADLINE_HORIZON_SECONDS, maps: 1e6, inputSize: 2 ** 30 }),
        now,
      ),
    );
    expect(typeof r.admitted).toBe('boolean');
  });
});
