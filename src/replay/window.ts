import { ValidationError } from '../errors/validation';
import { durationSeconds } from './workload';

/** The window of a replay: `--since` (a duration before now) or `--from` and `--to` (docs/replay.md). */

/** A time: ISO-8601, or epoch milliseconds. */
export function parseTime(v: string, name: string): number {
  const n = /^\d+$/.test(v.trim()) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(n))
    throw new ValidationError([{ path: name, message: `must be an ISO-8601 time or epoch ms, got "${v}"` }]);
  return n;
}

/** The window [from, to] of the options, `now` for --since (a ValidationError names what is wrong). */
export function windowOf(
  o: {
    readonly since?: string | undefined;
    readonly from?: string | undefined;
    readonly to?: string | undefined;
  },
  nowMs: number,
): { fromMs: number; toMs: number } {
  if (o.since !== undefined && (o.from !== undefined || o.to !== undefined))
    throw new ValidationError([{ path: '--since', message: 'give --since, or --from (and --to), not both' }]);
  if (o.from !== undefined) {
    const fromMs = parseTime(o.from, '--from');
    const toMs = o.to === undefined ? nowMs : parseTime(o.to, '--to');
    if (toMs <= fromMs)
      throw new ValidationError([
        {
          path: '--to',
          message: `must be after --from (${new Date(fromMs).toISOString()}), got ${new Date(toMs).toISOString()}`,
        },
      ]);
    return { fromMs, toMs };
  }
  if (o.to !== undefined) throw new ValidationError([{ path: '--to', message: '--to needs --from' }]);
  const s = durationSeconds(o.since ?? '7d');
  if (s === undefined)
    throw new ValidationError([
      { path: '--since', message: `must be a duration such as 7d, 12h or 90m, got "${o.since}"` },
    ]);
  return { fromMs: nowMs - s * 1000, toMs: nowMs };
}
