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

/** A finite number, or undefined when the key is absent; a wrong type is reported as `path`. */
export function optionalNumber(
  v: Record<string, unknown>,
  key: string,
  path: string,
  problems: Array<{ path: string; message: string }>,
): number | undefined {
  const x = v[key];
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  // SLS reads numbers through Jackson, which takes "1000" for 1000 too.
  if (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x))) return Number(x);
  problems.push({ path, message: `must be a number, got ${JSON.stringify(x)}` });
  return undefined;
}

export function optionalString(
  v: Record<string, unknown>,
  key: string,
  path: string,
  problems: Array<{ path: string; message: string }>,
): string | undefined {
  const x = v[key];
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'string') return x;
  problems.push({ path, message: `must be a string, got ${JSON.stringify(x)}` });
  return undefined;
}
