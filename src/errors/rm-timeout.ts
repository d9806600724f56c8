import { SidecarError, type SidecarErrorOptions } from './base';

/** A call to the RM got no complete answer within its timeout. */
export class RmTimeoutError extends SidecarError {
  readonly code = 'RM_TIMEOUT';
  readonly httpStatus = 504;
  readonly timeoutMs: number;

  constructor(
    details: { url: string; method: string; timeoutMs: number },
    options: SidecarErrorOptions = {},
  ) {
    super(`RM did not answer ${details.method} ${details.url} within ${details.timeoutMs} ms`, {
      ...options,
      context: { ...options.context, ...details },
    });
    this.timeoutMs = details.timeoutMs;
  }
}
