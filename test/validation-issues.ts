import { ValidationError, type ValidationIssue } from '../src/errors/validation';

/** The issues of the ValidationError `fn` throws; any other outcome fails the test. */
export function issuesOf(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.issues.map((i) => ({ ...i }));
    throw err;
  }
  throw new Error('expected a ValidationError');
}

/** The same issues as `path: message` lines. */
export function issueLines(fn: () => unknown): string[] {
  return issuesOf(fn).map((i) => `${i.path}: ${i.message}`);
}
