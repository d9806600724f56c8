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
  /** Stable, machine-readable name, e.g. `RM_REMOTE_EXCEPTION`. */
  abstract readonly code: string;
  /** The HTTP status used when this error is rendered by the sidecar's API. */
  abstract readonly httpStatus: number;
  readonly context: Record<string, unknown>;

  constructor(message: string, options: SidecarErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.context = options.context ?? {};
  }

  toJSON(): { code: string; message: string; context: Record<string, unknown> } {
    return { code: this.code, message: this.message, context: this.context };
  }
}
