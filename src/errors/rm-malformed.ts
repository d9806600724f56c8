import { SidecarError, type SidecarErrorOptions } from './base';

/** What is wrong with an answer, for a reader or a test to tell the cases apart. */
export type MalformedReason =
  | 'syntax'
  | 'truncated'
  | 'empty'
  | 'html'
  | 'content-type'
  | 'doctype'
  | 'too-deep'
  | 'encoding'
  | 'http'
  | 'shape';

interface MalformedDetails {
  url?: string;
  fieldPath?: string;
  contentType?: string;
  excerpt?: string;
  reason?: MalformedReason;
}

/**
 * The RM's answer could not be read as the expected shape: truncated or invalid JSON or XML,
 * nested too deeply, not UTF-8, an HTML page or another Content-Type where JSON or XML was
 * expected, XML with a DOCTYPE or entity declarations (refused unread: the RM never sends them,
 * an entity bomb does), an answer that is not HTTP, or a required field missing or of the wrong
 * type. Raised instead of returning a half-parsed object. The message names the answer's URL
 * when it is known.
 */
export class RmMalformedResponseError extends SidecarError {
  static override readonly code = 'RM_MALFORMED_RESPONSE';
  static override readonly httpStatus = 502;
  /** Where in the body the problem is (`nodes.node[1].id`), when known. */
  readonly fieldPath: string | undefined;
  /** What is wrong with the answer; `shape` (a field missing or mistyped) unless told. */
  readonly reason: MalformedReason;
  /** The message without the URL, as it was first made. */
  readonly what: string;

  constructor(message: string, details: MalformedDetails = {}, options: SidecarErrorOptions = {}) {
    super(details.url === undefined ? message : `${message} (from ${details.url})`, {
      ...options,
      context: { ...options.context, ...details },
    });
    this.what = message;
    this.fieldPath = details.fieldPath;
    this.reason = details.reason ?? 'shape';
  }

  /** This error about the answer from `url` (a copy naming it), unless it names one already. */
  at(url: string): RmMalformedResponseError {
    if (this.context.url !== undefined) return this;
    return new RmMalformedResponseError(
      this.what,
      { ...(this.context as MalformedDetails), url, reason: this.reason },
      { cause: this },
    );
  }
}
