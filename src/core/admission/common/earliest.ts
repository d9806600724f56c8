import { JOB_LIMITS } from '../../limits';

/**
 * How far ahead the earliest-deadline search looks by default (seconds): the deadline horizon
 * the API holds deadlines to (366 days).
 */
export const DEADLINE_HORIZON_SECONDS = JOB_LIMITS.deadlineHorizonSeconds;

/**
 * Most calls of `admits` one search makes: a doubling phase and a bisection over whole seconds
 * up to the horizon each take at most log2(horizon) + 1 calls (< 64 for any horizon a double
 * holds exactly), so this bound is never the one that stops a search of a sane horizon.
 */
export const MAX_SEARCH_STEPS = 128;

export interface EarliestSearch {
  /** A deadline the caller believes is admitted (RTMR: the finish at the tail of the queue). */
  hint: number;
  /** The latest relative deadline tried; past it the answer is null ("none within"). */
  horizon: number;
}

/**
 * The earliest relative deadline D (whole seconds, at most `horizon`) that `admits` accepts,
 * searched over the same admission test the policy runs; null when not even `horizon` is
 * admitted. The search keeps a refused `lo` and an admitted `hi` and closes the gap between
 * them, so by construction the answer D is admitted and D - 1 is not:
 *  - a refused hint doubles until a deadline is admitted; the last refused one is `lo`;
 *  - an admitted hint gallops down (hint - 1, hint - 2, hint - 4, ...) until one is refused:
 *    an overloaded queue admits a newcomer only at its tail, where the hint already is, so the
 *    answer is found in a few calls instead of a bisection from 0;
 *  - then bisection of (lo, hi].
 * Admission is monotone in D for FIFO order, and the answer is then the least admitted D.
 * Under EDF a later deadline can move the job behind others, so a smaller admitted D below a
 * refused one is possible in principle; the answer is then admitted but not necessarily the
 * global minimum.
 *
 * Bounded whatever the input: the horizon is clamped to whole seconds a double counts exactly
 * (2^53, where (lo + hi) / 2 would stop making progress), and `admits` is called at most
 * MAX_SEARCH_STEPS times. Worked example: hint 90, horizon 1000, admitted from 116 on: tries 90
 * (no), 180 (yes), then bisects (90, 180] to 116 in 7 more calls.
 */
export function searchEarliestDeadline(
  admits: (deadline: number) => boolean,
  { hint, horizon }: EarliestSearch,
): number | null {
  const cap = Math.floor(Math.min(Number.isFinite(horizon) ? horizon : 0, Number.MAX_SAFE_INTEGER));
  if (cap < 1) return null;
  let steps = 0;
  const tryD = (d: number): boolean => {
    steps++;
    return admits(d);
  };
  let hi = Math.min(cap, Math.max(1, Math.ceil(Number.isFinite(hint) ? hint : 1)));
  let lo = 0;
  if (tryD(hi)) {
    // Gallop down from the admitted hint.
    for (let step = 1; hi - lo > 1 && steps < MAX_SEARCH_STEPS; step *= 2) {
      const d = Math.max(lo + 1, hi - step);
      if (tryD(d)) hi = d;
      else {
        lo = d;
        break;
      }
    }
  } else {
    for (;;) {
      if (hi >= cap || steps >= MAX_SEARCH_STEPS) return null;
      lo = hi;
      hi = Math.min(cap, hi * 2);
      if (tryD(hi)) break;
    }
  }
  while (hi - lo > 1 && steps < MAX_SEARCH_STEPS) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (tryD(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
