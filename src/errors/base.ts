/**
 * The root of every error this project raises on purpose.
 *
 * Each subclass has a stable `code` (what a program matches on), an HTTP status for the
 * cases where it reaches the API, and the context a reader needs to act on it. Subclasses
 * live one per file under src/errors/ and are listed in catalog.ts, which a test walks.
 */
export interface SidecarErrorOptions {
  cause?: unknown;
  context?: Record<string, unknown>;
}

export abstract class SidecarError extends Error {
  /**
   * Each class states its code and status once, as statics (`static override readonly code =
   * 'RM_TIMEOUT'`): the catalog reads them from the class, every instance copies them.
   */
  static readonly code: string;
  static readonly httpStatus: number;
  /** Stable, machine-readable name, e.g. `RM_REMOTE_EXCEPTION`. */
  readonly code: string;
  /** The HTTP status used when this error is rendered by the sidecar's API. */
  readonly httpStatus: number;
  readonly context: Record<string, unknown>;

  constructor(message: string, options: SidecarErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const type = new.target as unknown as { code: string; httpStatus: number };
    this.name = new.target.name;
    this.code = type.code;
    this.httpStatus = type.httpStatus;
    this.context = options.context ?? {};
  }

  toJSON(): { code: string; message: string; context: Record<string, unknown> } {
    return { code: this.code, message: this.message, context: this.context };
  }
}
