import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * An answer longer than the configured limit (`rm.maxResponseBytes`): the read was stopped as
 * soon as the limit was passed (or at once, when the Content-Length said so), so no more than
 * the limit was ever held. An endless or huge body from the RM, the JobHistory server, WebHDFS or
 * a proxy in front of them. Not retried: the same request would get the same answer.
 */
export class RmResponseTooLargeError extends SidecarError {
  static override readonly code = 'RM_RESPONSE_TOO_LARGE';
  static override readonly httpStatus = 502;
  readonly limitBytes: number;

  constructor(
    details: {
      url: string;
      method: string;
      limitBytes: number;
      /** Bytes read before the read was stopped (the limit plus at most one chunk). */
      receivedBytes: number;
      /** The Content-Length the server announced, if any. */
      declaredBytes?: number;
      service?: string;
      /** The configuration key that sets the limit. */
      setting?: string;
    },
    options: SidecarErrorOptions = {},
  ) {
    const { service = 'RM', setting = 'rm.maxResponseBytes' } = details;
    const read =
      details.declaredBytes !== undefined && details.receivedBytes === 0
        ? `it announced ${details.declaredBytes} bytes; nothing was read`
        : `read stopped after ${details.receivedBytes} bytes`;
    super(
      `${service} answer to ${details.method} ${details.url} is larger than the limit of ${details.limitBytes} bytes (${setting}): ${read}`,
      { ...options, context: { ...options.context, ...details, service, setting } },
    );
    this.limitBytes = details.limitBytes;
  }
}
