import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * A call got no complete answer in time: headers and the whole body, counted on the wall clock,
 * so a server that drips its answer a byte at a time cannot stretch it. `setting` names the limit
 * that ran out: one attempt's (`rm.timeoutMs`) or the whole call's, retries and failover included
 * (`rm.callBudgetMs`).
 */
export class RmTimeoutError extends SidecarError {
  static override readonly code = 'RM_TIMEOUT';
  static override readonly httpStatus = 504;
  readonly timeoutMs: number;

  constructor(
    details: { url: string; method: string; timeoutMs: number; setting?: string; service?: string },
    options: SidecarErrorOptions = {},
  ) {
    const limit = details.setting === undefined ? '' : ` (${details.setting})`;
    super(
      `${details.service ?? 'RM'} did not answer ${details.method} ${details.url} within ${details.timeoutMs} ms${limit}`,
      { ...options, context: { ...options.context, ...details } },
    );
    this.timeoutMs = details.timeoutMs;
  }
}
