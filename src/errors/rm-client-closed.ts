import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The client was closed (the sidecar is shutting down): a call in flight was aborted, or a new
 * one refused. A write aborted in flight may have reached the server (`outcomeUnknown`): the
 * ledger keeps it pending and it is checked against the RM before it is ever sent again.
 */
export class RmClientClosedError extends SidecarError {
  static override readonly code = 'RM_CLIENT_CLOSED';
  static override readonly httpStatus = 503;
  readonly outcomeUnknown: boolean;

  constructor(
    details: { url: string; method: string; inFlight: boolean; service?: string },
    options: SidecarErrorOptions = {},
  ) {
    const service = details.service ?? 'RM';
    super(
      `${details.method} ${details.url}: the ${service} client is closed (the sidecar is stopping)${details.inFlight ? '; the call in flight was aborted' : ''}`,
      { ...options, context: { ...options.context, ...details, service } },
    );
    this.outcomeUnknown = details.inFlight && details.method !== 'GET';
  }
}
