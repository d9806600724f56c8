import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The shared ledger's store (PostgreSQL) could not be written in time: unreachable, slow, or
 * refusing connections. Retryable: what was written locally is kept and shipped once the store
 * answers again; the API answers 503 with Retry-After, the enforcer leaves its action pending.
 */
export class LedgerUnavailableError extends SidecarError {
  static override readonly code = 'LEDGER_UNAVAILABLE';
  static override readonly httpStatus = 503;
  readonly retryable = true;
  /** How long a client should wait before retrying, in seconds. */
  readonly retryAfterSeconds: number;

  constructor(
    message: string,
    details: { waitedMs: number; reason?: string; retryAfterSeconds?: number },
    options: SidecarErrorOptions = {},
  ) {
    super(message, { ...options, context: { ...options.context, ...details } });
    this.retryAfterSeconds = details.retryAfterSeconds ?? 1;
  }
}
