import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The shared ledger (PostgreSQL) is held by a newer writer: another sidecar took it over with a
 * higher epoch. This instance's writes after that were refused and never reach the shared store;
 * it must stop writing (and acting on the RM) at once.
 */
export class LedgerFencedError extends SidecarError {
  static override readonly code = 'LEDGER_FENCED';
  static override readonly httpStatus = 503;
  /** The epoch this instance wrote with. */
  readonly epoch: number;
  /** The epoch found in the store, when it was read (a newer writer's). */
  readonly currentEpoch: number | null;

  constructor(
    message: string,
    details: { epoch: number; currentEpoch?: number | null; holder?: string | null },
    options: SidecarErrorOptions = {},
  ) {
    super(message, { ...options, context: { ...options.context, ...details } });
    this.epoch = details.epoch;
    this.currentEpoch = details.currentEpoch ?? null;
  }
}
