import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * An answer past one of its limits: its bytes (`rm.responseLimits.<endpoint>.maxBytes`, or
 * `rm.maxResponseBytes` for an endpoint without a limit of its own), its items for a list
 * (`…maxItems`), or one item of a list past the fixed limit of one item. The read was stopped as
 * soon as the limit was passed (or at once, when the Content-Length said so), so no more than the
 * limit was ever held. An endless or huge body from the RM, the JobHistory server, WebHDFS or a
 * proxy in front of them. Not retried: the same request would get the same answer.
 */
export class RmResponseTooLargeError extends SidecarError {
  static override readonly code = 'RM_RESPONSE_TOO_LARGE';
  static override readonly httpStatus = 502;
  /** The limit passed: bytes, or items when `limitItems` is set. */
  readonly limitBytes: number;
  readonly limitItems: number | undefined;

  constructor(
    details: {
      url: string;
      method: string;
      /** The limit of bytes (of one item, with `oneItem`). */
      limitBytes: number;
      /** Bytes read before the read was stopped (the limit plus at most one chunk). */
      receivedBytes: number;
      /** The Content-Length the server announced, if any. */
      declaredBytes?: number;
      /** A list past its limit of items: the limit (the read stopped at the item after it). */
      limitItems?: number;
      /** One item of a list larger than the limit of one item. */
      oneItem?: boolean;
      /** The endpoint whose limit it is (`apps`, `info`, …), when it has one. */
      endpoint?: string;
      service?: string;
      /** The configuration key that sets the limit. */
      setting?: string;
    },
    options: SidecarErrorOptions = {},
  ) {
    const { service = 'RM', setting = 'rm.maxResponseBytes' } = details;
    const answer = `${service} answer to ${details.method} ${details.url}`;
    let message: string;
    if (details.limitItems !== undefined) {
      message = `${answer} has more items than the limit of ${details.limitItems} (${setting}): read stopped at item ${details.limitItems + 1}, after ${details.receivedBytes} bytes`;
    } else if (details.oneItem) {
      message = `${answer} has an item larger than the limit of ${details.limitBytes} bytes for one item (${setting}): read stopped after ${details.receivedBytes} bytes`;
    } else {
      const read =
        details.declaredBytes !== undefined && details.receivedBytes === 0
          ? `it announced ${details.declaredBytes} bytes; nothing was read`
          : `read stopped after ${details.receivedBytes} bytes`;
      message = `${answer} is larger than the limit of ${details.limitBytes} bytes (${setting}): ${read}`;
    }
    super(message, { ...options, context: { ...options.context, ...details, service, setting } });
    this.limitBytes = details.limitBytes;
    this.limitItems = details.limitItems;
  }
}
