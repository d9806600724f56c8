import type { z } from 'zod';
import { SidecarError, type SidecarErrorOptions } from './base';

export interface ValidationIssue {
  /** Where the problem is, as a dotted path (`job.deadline`, `nodeClasses[2].power.idleWatts`). */
  path: string;
  message: string;
  /** For file inputs: the file and 1-based line the problem is on. */
  file?: string;
  line?: number;
  /** For a value read from the environment: the variable it came from (instead of a file). */
  env?: string;
}

/**
 * Bad input: a job, a configuration, a trace line. Carries every problem found, each with
 * the path of the field it concerns, so one answer tells the user all that is wrong.
 */
export class ValidationError extends SidecarError {
  static override readonly code: string = 'VALIDATION_FAILED';
  static override readonly httpStatus = 400;
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[], options: SidecarErrorOptions = {}) {
    super(ValidationError.describe(issues), { ...options, context: { ...options.context, issues } });
    this.issues = issues;
  }

  static describe(issues: readonly ValidationIssue[]): string {
    return issues
      .map((i) => {
        const where = i.env
          ? `environment variable ${i.env}: `
          : i.file
            ? `${i.file}${i.line !== undefined ? `:${i.line}` : ''}: `
            : '';
        return `${where}${i.path}: ${i.message}`;
      })
      .join('; ');
  }

  /** Names of the fields at fault, e.g. for a test that checks a field is named. */
  get paths(): string[] {
    return this.issues.map((i) => i.path);
  }
}

/**
 * Runs checks that throw ValidationError and gathers their issues instead of stopping at the
 * first: `collect(f)` answers f's value, or undefined with f's issues added to `issues`.
 */
export function issueCollector(issues: ValidationIssue[]): <T>(f: () => T) => T | undefined {
  return (f) => {
    try {
      return f();
    } catch (e) {
      if (e instanceof ValidationError) issues.push(...e.issues);
      else throw e;
      return undefined;
    }
  };
}

/**
 * A zod error's issues as ValidationIssues: each path dotted under `prefix` (or `whole` when the
 * issue is about the value itself), and unknown keys named as `unknown <noun>(s) a, b`.
 */
export function zodIssues(
  error: z.ZodError,
  options: { noun: 'field' | 'key'; whole?: string; prefix?: string; file?: string },
): ValidationIssue[] {
  return error.issues.map((i) => {
    const parts = [...(options.prefix === undefined ? [] : [options.prefix]), ...i.path.map(String)];
    return {
      path: parts.length ? parts.join('.') : (options.whole ?? '(root)'),
      message: i.code === 'unrecognized_keys' ? `unknown ${options.noun}(s) ${i.keys.join(', ')}` : i.message,
      ...('file' in options ? { file: options.file } : {}),
    };
  });
}
