import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * A call got no complete answer in time, on the wall clock, so a server that drips its answer a
 * byte at a time cannot stretch it. `setting` names the limit that ran out: the time to the
 * answer's first byte (`rm.firstByteTimeoutMs`), one attempt's (`rm.timeoutMs`) or the whole
 * call's, retries and failover included (`rm.callBudgetMs`). The message says whether any byte
 * of the answer had come: "no first byte" is a server that took the connection and said nothing.
 */
export class RmTimeoutError extends SidecarError {
  static override readonly code = 'RM_TIMEOUT';
  static override readonly httpStatus = 504;
  readonly timeoutMs: number;
  /** Whether the first byte of an answer had come (undefined: not known). */
  readonly firstByte: boolean | undefined;

  constructor(
    details: {
      url: string;
      method: string;
      timeoutMs: number;
      setting?: string;
      service?: string;
      /** Whether the first byte of the answer had come. */
      firstByte?: boolean;
      /** Bytes of the answer's body read by then. */
      receivedBytes?: number;
    },
    options: SidecarErrorOptions = {},
  ) {
    const limit = details.setting === undefined ? '' : ` (${details.setting})`;
    const progress =
      details.firstByte === false
        ? ': no first byte'
        : details.receivedBytes !== undefined && details.receivedBytes > 0
          ? `: ${details.receivedBytes} bytes of the answer had come`
          : '';
    super(
      `${details.service ?? 'RM'} did not answer ${details.method} ${details.url} within ${details.timeoutMs} ms${limit}${progress}`,
      { ...options, context: { ...options.context, ...details } },
    );
    this.timeoutMs = details.timeoutMs;
    this.firstByte = details.firstByte;
  }
}
