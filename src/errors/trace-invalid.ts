import type { SidecarErrorOptions } from './base';
import { ValidationError, type ValidationIssue } from './validation';

/**
 * A trace file the simulator cannot replay as it stands: each issue names the file, the line
 * (for a multi-line JSON object, the line it starts on) and the field. `badRecords` counts the
 * records (jobs, lines) at fault; only the first `MAX_TRACE_ISSUES` issues are kept, so a huge
 * file of bad lines does not fill memory. `simulate --skip-bad` goes on without such records
 * and reports how many it skipped instead of raising this.
 */
export class TraceInvalidError extends ValidationError {
  static override readonly code: string = 'TRACE_INVALID';
  static override readonly httpStatus = 400;
  readonly format: string;
  readonly badRecords: number;

  constructor(
    details: { format: string; badRecords: number; issues: readonly ValidationIssue[] },
    options: SidecarErrorOptions = {},
  ) {
    super(details.issues, {
      ...options,
      context: { ...options.context, format: details.format, badRecords: details.badRecords },
    });
    this.format = details.format;
    this.badRecords = details.badRecords;
  }
}

/** How many issues a trace error keeps (the count of bad records goes on). */
export const MAX_TRACE_ISSUES = 100;
