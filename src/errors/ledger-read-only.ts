import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * A write on a ledger that is not the writer: this sidecar follows the leader's ledger and
 * serves reads; writes go to the leader. Nothing was written.
 */
export class LedgerReadOnlyError extends SidecarError {
  static override readonly code = 'NOT_LEADER';
  static override readonly httpStatus = 503;

  constructor(
    message = 'this sidecar is not the leader: it serves reads only',
    options: SidecarErrorOptions = {},
  ) {
    super(message, options);
  }
}
