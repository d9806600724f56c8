import { KEEPS_ARRIVING_BYTES_PER_SECOND } from './limits';

/** The limit of one attempt that stopped it, or the call's budget (close() is known otherwise). */
export type AttemptLimit = 'first-byte' | 'attempt' | 'call';

/**
 * The wall-clock limits of one attempt (transport.ts): its first byte within
 * `firstByteTimeoutMs`, the whole answer within `timeoutMs` or later, while the last second
 * brought KEEPS_ARRIVING_BYTES_PER_SECOND or more, and the call's own budget (`call`). Whichever
 * runs out aborts `signal`. dispose() clears every timer.
 */
export class AttemptTimers {
  private readonly controller = new AbortController();
  /** Which of the attempt's own limits stopped it. */
  private ranOut: 'first-byte' | 'attempt' | undefined;
  /** Whether the first byte of the answer (headers included) has arrived. */
  firstByte = false;
  /** Bytes of the body received so far, after decompression. */
  received = 0;
  private mark: { at: number; bytes: number };
  private readonly firstByteTimer: NodeJS.Timeout;
  private readonly markTimer: NodeJS.Timeout | undefined;
  private attemptTimer: NodeJS.Timeout;

  constructor(
    limits: { firstByteTimeoutMs: number; timeoutMs: number },
    private readonly call: AbortSignal,
  ) {
    this.firstByteTimer = setTimeout(() => {
      if (this.firstByte) return;
      this.ranOut = 'first-byte';
      this.stop();
    }, limits.firstByteTimeoutMs);
    // Past timeoutMs the attempt goes on while the last second brought enough of the answer.
    const timeoutMs = limits.timeoutMs;
    this.mark = { at: performance.now(), bytes: 0 };
    this.markTimer =
      timeoutMs > 1000
        ? setTimeout(() => (this.mark = { at: performance.now(), bytes: this.received }), timeoutMs - 1000)
        : undefined;
    this.attemptTimer = setTimeout(this.check, timeoutMs);
    call.addEventListener('abort', this.stop, { once: true });
    if (call.aborted) this.stop();
  }

  /** Aborted when a limit runs out (or the call's budget, or close()). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  readonly stop = (): void => this.controller.abort();

  readonly sawFirstByte = (): void => {
    this.firstByte = true;
    clearTimeout(this.firstByteTimer);
  };

  /** The limit that stopped an aborted attempt. */
  limitHit(): AttemptLimit {
    return this.call.aborted && this.ranOut === undefined ? 'call' : (this.ranOut ?? 'attempt');
  }

  dispose(): void {
    clearTimeout(this.firstByteTimer);
    clearTimeout(this.markTimer);
    clearTimeout(this.attemptTimer);
    this.call.removeEventListener('abort', this.stop);
  }

  private readonly check = (): void => {
    const at = performance.now();
    const rate = ((this.received - this.mark.bytes) * 1000) / Math.max(1, at - this.mark.at);
    if (this.firstByte && rate >= KEEPS_ARRIVING_BYTES_PER_SECOND) {
      this.mark = { at, bytes: this.received };
      this.attemptTimer = setTimeout(this.check, 1000);
      return;
    }
    this.ranOut = 'attempt';
    this.stop();
  };
}
