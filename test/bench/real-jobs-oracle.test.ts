/**
 * The hindsight bound of the real-jobs streams (bench/real-jobs/oracle.ts): the most jobs any
 * one-at-a-time schedule finishes on time, checked on small cases by hand and against every
 * order of every subset for random small streams.
 */
import fc from 'fast-check';
import { maxOnTimeOneAtATime, ORACLE_MAX_JOBS, type OracleJob } from '../../bench/real-jobs/oracle';
import { hindsightOnTime, type JobRecord } from '../../bench/real-jobs/report';

const job = (releaseS: number, processS: number, deadlineS: number): OracleJob => ({
  releaseS,
  processS,
  deadlineS,
});

/** Every order of every subset: the definition, for a handful of jobs. */
function bruteForce(jobs: readonly OracleJob[]): number {
  let best = 0;
  const visit = (used: boolean[], end: number, count: number) => {
    best = Math.max(best, count);
    jobs.forEach((j, i) => {
      if (used[i]) return;
      const done = Math.max(end, j.releaseS) + j.processS;
      if (done > j.deadlineS) return;
      used[i] = true;
      visit(used, done, count + 1);
      used[i] = false;
    });
  };
  visit(
    jobs.map(() => false),
    -Infinity,
    0,
  );
  return best;
}

/** Checks a witness order: every job in it ends by its deadline, run one after another. */
function onTimeInOrder(jobs: readonly OracleJob[], order: readonly number[]): boolean {
  let end = -Infinity;
  return order.every((i) => {
    end = Math.max(end, jobs[i]!.releaseS) + jobs[i]!.processS;
    return end <= jobs[i]!.deadlineS;
  });
}

describe('maxOnTimeOneAtATime', () => {
  it('keeps two of three equal jobs that all arrive at once and fit only two in their window', () => {
    const jobs = [job(0, 10, 10), job(0, 10, 20), job(0, 10, 20)];
    const answer = maxOnTimeOneAtATime(jobs);
    expect(answer.onTime).toBe(2);
    expect(onTimeInOrder(jobs, answer.order)).toBe(true);
  });

  it('waits for a short urgent job rather than start a long one that would block it', () => {
    // Starting the long job at 0 makes the urgent one (1..6) late; waiting keeps both.
    const jobs = [job(0, 10, 100), job(1, 5, 6)];
    expect(maxOnTimeOneAtATime(jobs)).toEqual({ onTime: 2, order: [1, 0] });
  });

  it('drops the one long job to keep three short ones (fewest jobs dropped, not least work)', () => {
    const jobs = [job(0, 30, 30), job(0, 10, 12), job(5, 10, 25), job(10, 10, 35)];
    const answer = maxOnTimeOneAtATime(jobs);
    expect(answer.onTime).toBe(3);
    expect(answer.order).not.toContain(0);
  });

  it('never counts a job that cannot fit its window even alone', () => {
    expect(maxOnTimeOneAtATime([job(0, 20, 13), job(5, 5, 100)])).toEqual({ onTime: 1, order: [1] });
    expect(maxOnTimeOneAtATime([])).toEqual({ onTime: 0, order: [] });
  });

  it('equals every order of every subset on random streams of up to 7 jobs', () => {
    const arb = fc.array(
      fc
        .tuple(
          fc.integer({ min: 0, max: 60 }),
          fc.integer({ min: 1, max: 30 }),
          fc.integer({ min: 0, max: 80 }),
        )
        .map(([r, p, slack]) => job(r, p, r + slack)),
      { maxLength: 7 },
    );
    fc.assert(
      fc.property(arb, (jobs) => {
        const answer = maxOnTimeOneAtATime(jobs);
        expect(answer.onTime).toBe(bruteForce(jobs));
        expect(new Set(answer.order).size).toBe(answer.order.length);
        expect(onTimeInOrder(jobs, answer.order)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a stream too large for the exact search, and a figure that is not a number', () => {
    const many = Array.from({ length: ORACLE_MAX_JOBS + 1 }, (_, i) => job(i, 1, 1000));
    expect(() => maxOnTimeOneAtATime(many)).toThrow(
      `the exact on-time search takes at most ${ORACLE_MAX_JOBS} jobs that fit alone, not ${ORACLE_MAX_JOBS + 1}`,
    );
    expect(() => maxOnTimeOneAtATime([job(0, NaN, 5)])).toThrow(
      'job 0: processS is not a finite number (NaN)',
    );
    expect(() => maxOnTimeOneAtATime([job(0, 1, 5), job(0, -1, 5)])).toThrow(
      'job 1: processS is negative (-1)',
    );
  });
});

describe('hindsightOnTime', () => {
  const record = (seq: number, arrivalS: number | null, loneSeconds: number, deadlineSeconds: number) =>
    ({
      phase: 'dense',
      seq,
      kind: 'wordcount',
      arrivalMs: arrivalS === null ? null : 1_000_000 + arrivalS * 1000,
      loneSeconds,
      deadlineSeconds,
      decision: 'rejected',
    }) as unknown as JobRecord;

  it("counts from the sidecar's arrivals and the kinds' lone durations", () => {
    // 3 jobs of 20 s arriving 5 s apart with 25 s deadlines: only 1 fits; the fourth has no
    // arrival (no answer) and is left out.
    const jobs = [record(1, 0, 20, 25), record(2, 5, 20, 25), record(3, 10, 20, 25), record(4, null, 1, 100)];
    expect(hindsightOnTime(jobs)).toBe(1);
    // With 45 s deadlines, two fit: 0..20 and 20..40 (due by 50); the third would end at 60 (due by 55).
    expect(hindsightOnTime(jobs.map((j) => ({ ...j, deadlineSeconds: 45 })))).toBe(2);
  });

  it('is null with no arrival, or more jobs than the exact search takes', () => {
    expect(hindsightOnTime([record(1, null, 10, 20)])).toBeNull();
    const many = Array.from({ length: ORACLE_MAX_JOBS + 1 }, (_, i) => record(i, i, 1, 1000));
    expect(hindsightOnTime(many)).toBeNull();
  });
});
