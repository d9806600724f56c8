/**
 * When a running task is expected to end. Within its estimate: start + eps. Past it (an
 * overrun: its class's estimates were too low), at twice its estimate; past that too, one more
 * estimate from now. The task so keeps holding its slot in the vectors instead of freeing it at
 * once, and a task reported running for years (a stale report) holds it for one estimate only:
 *
 *   eps = 10 s, started at 0: at now = 4 it ends at 10; at now = 12 at 20; at now = 25 at 35.
 *
 * A task whose actual time is up to 2x its estimate is then never underestimated once it
 * overran (docs/estimates.md, "Overruns"). An estimate of 0 s ends now.
 */
export function runningTaskEnd(eps: number, start: number, now: number): number {
  if (start + eps > now) return start + eps;
  if (start + 2 * eps > now) return start + 2 * eps;
  return now + eps;
}
