import type { ValidationIssue } from '../../errors/validation';
import type { TraceJob } from '../model';

/**
 * What reading one record of a trace (a job object, a line) gives: its jobs, or the problems
 * that keep it out, each naming the field. The reader adds the file and the line.
 */
export type RecordResult =
  | { ok: true; jobs: TraceJob[]; skip?: false }
  | { ok: false; problems: Array<{ path: string; message: string }> }
  /** A record that holds no job by design (SLS's topology object). */
  | { ok: true; jobs: []; skip: true };

export function problem(path: string, message: string): RecordResult {
  return { ok: false, problems: [{ path, message }] };
}

export function located(
  problems: ReadonlyArray<{ path: string; message: string }>,
  file: string,
  line: number,
): ValidationIssue[] {
  return problems.map((p) => ({ ...p, file, line }));
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Problems = Array<{ path: string; message: string }>;

/** A finite number, or undefined when the key is absent; a wrong type is reported as `path`. */
export function optionalNumber(
  v: Record<string, unknown>,
  key: string,
  path: string,
  problems: Problems,
): number | undefined {
  return optional(v[key], 'a number', path, problems, (x) => {
    if (typeof x === 'number' && Number.isFinite(x)) return x;
    // SLS reads numbers through Jackson, which takes "1000" for 1000 too.
    if (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x))) return Number(x);
    return undefined;
  });
}

export function optionalString(
  v: Record<string, unknown>,
  key: string,
  path: string,
  problems: Problems,
): string | undefined {
  return optional(v[key], 'a string', path, problems, (x) => (typeof x === 'string' ? x : undefined));
}

/** `read(x)` for a present value; one that reads as undefined is reported as not `what`. */
function optional<T>(
  x: unknown,
  what: string,
  path: string,
  problems: Problems,
  read: (x: unknown) => T | undefined,
): T | undefined {
  if (x === undefined || x === null) return undefined;
  const value = read(x);
  if (value === undefined) problems.push({ path, message: `must be ${what}, got ${JSON.stringify(x)}` });
  return value;
}
