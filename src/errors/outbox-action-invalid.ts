import { SidecarError, type SidecarErrorOptions } from './base';
import { ValidationError, type ValidationIssue } from './validation';

/**
 * An outbox row that does not decode: its kind is not an action kind, or its payload is not the
 * shape its kind's decoder reads (src/enforce/outbox.ts). Names the action's id and kind and each
 * field at fault. The enforcer never sends such a row: it marks it failed, with this message, the
 * first time it reads it, so it is neither retried nor in the way of the actions after it.
 */
export class OutboxActionInvalidError extends SidecarError {
  static override readonly code = 'OUTBOX_ACTION_INVALID';
  static override readonly httpStatus = 500;
  readonly actionId: number;
  readonly kind: string;
  readonly issues: readonly ValidationIssue[];

  constructor(
    actionId: number,
    kind: string,
    issues: readonly ValidationIssue[],
    options: SidecarErrorOptions = {},
  ) {
    super(`outbox action ${actionId} (${kind}) cannot be read: ${ValidationError.describe(issues)}`, {
      ...options,
      context: { ...options.context, actionId, kind, issues },
    });
    this.actionId = actionId;
    this.kind = kind;
    this.issues = issues;
  }
}
