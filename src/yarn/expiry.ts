/**
 * The lifetime timeout's `expiryTime` (INDEX.md 9.3). The RM parses it with
 * `DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ")`, which takes milliseconds and a
 * `±HHMM` offset with no colon, and rejects the doc's own `+05:30`. So we always send
 * `2016-12-05T22:51:00.104+0530`-style text, and accept `+05:30`, `+0530` and `Z` when reading.
 */

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, '0');
}

/**
 * Format epoch ms as the RM expects. `offsetMinutes` is the zone offset east of UTC (330 for
 * +0530); the instant is the same whatever the offset.
 */
export function formatExpiryTime(epochMs: number, offsetMinutes = 0): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`expiry time must be finite, got ${epochMs}`);
  if (!Number.isInteger(offsetMinutes) || Math.abs(offsetMinutes) > 18 * 60) {
    throw new RangeError(`offset must be whole minutes within ±18h, got ${offsetMinutes}`);
  }
  const local = new Date(epochMs + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const off = Math.abs(offsetMinutes);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `.${pad(local.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(off / 60))}${pad(off % 60)}`
  );
}

const EXPIRY = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:?\d{2})$/;

/** Parse an `expiryTime`: epoch ms, or null for `UNLIMITED` (no timeout set). */
export function parseExpiryTime(text: string): number | null {
  if (text === 'UNLIMITED') return null;
  const m = EXPIRY.exec(text.trim());
  if (!m) throw new RangeError(`not an RM expiry time: ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, ms, zone] = m;
  const base = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, ms ? +ms.padEnd(3, '0') : 0);
  if (zone === 'Z') return base;
  const digits = zone!.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  const offsetMin = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  return base - offsetMin * 60_000;
}

/** Whether the RM's java.time parser would accept this text (ms present, `±HHMM`, no `Z`). */
export function isRmExpiryFormat(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$/.test(text);
}
