import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * No RM could be reached, or none of the configured addresses is the active RM: connection
 * refused, unknown host, TLS failure, or every address answering as a standby.
 */
export class RmUnavailableError extends SidecarError {
  static override readonly code = 'RM_UNAVAILABLE';
  static override readonly httpStatus = 503;
  readonly addresses: readonly string[];
  /** True when a write reached the server before the connection failed: it may have been applied. */
  readonly outcomeUnknown: boolean;
  /**
   * True when every address answered and none is ACTIVE (standbys, or redirects going round):
   * the RMs are up, none leads. An unreachable address among them leaves this false.
   */
  readonly noActiveRm: boolean;

  constructor(
    message: string,
    details: {
      addresses: readonly string[];
      reason?: string;
      outcomeUnknown?: boolean;
      noActiveRm?: boolean;
    },
    options: SidecarErrorOptions = {},
  ) {
    super(message, { ...options, context: { ...options.context, ...details } });
    this.addresses = details.addresses;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
    this.noActiveRm = details.noActiveRm ?? false;
  }
}
