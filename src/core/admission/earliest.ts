/**
 * The earliest relative deadline D (whole seconds) that `admits` accepts, searched over the same
 * admission test the policy runs. `hint` is a deadline the caller believes is admitted (for
 * RTMR: the finish if the job went to the tail of the queue). Binary search between an
 * infeasible 0 and the first admitted upper bound, so by construction the answer D is admitted
 * and D - 1 is not. Admission is monotone in D for FIFO order; under EDF a later deadline can
 * move the job behind others, so a smaller admitted D below a refused one is possible in
 * principle; the answer is then admitted but not necessarily the global minimum.
 */
export function searchEarliestDeadline(
  admits: (deadline: number) => boolean,
  hint: number,
  cap = 1e9,
): number | null {
  let hi = Math.max(1, Math.ceil(Number.isFinite(hint) ? hint : 1));
  while (!admits(hi)) {
    if (hi >= cap) return null;
    hi = Math.min(cap, hi * 2);
  }
  let lo = 0;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (admits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
