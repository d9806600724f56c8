import { SidecarError, type SidecarErrorOptions } from './base';

/** What is wrong with an answer, for a reader or a test to tell the cases apart. */
export type MalformedReason =
  'syntax' | 'truncated' | 'empty' | 'html' | 'content-type' | 'doctype' | 'too-deep' | 'shape';

/**
 * The RM's answer could not be read as the expected shape: truncated or invalid JSON or XML,
 * an HTML page or another Content-Type where JSON or XML was expected, XML with a DOCTYPE or
 * entity declarations (refused unread: the RM never sends them, an entity bomb does), or a
 * required field missing or of the wrong type. Raised instead of returning a half-parsed object.
 */
export class RmMalformedResponseError extends SidecarError {
  static override readonly code = 'RM_MALFORMED_RESPONSE';
  static override readonly httpStatus = 502;
  /** Where in the body the problem is (`nodes.node[1].id`), when known. */
  readonly fieldPath: string | undefined;
  /** What is wrong with the answer; `shape` (a field missing or mistyped) unless told. */
  readonly reason: MalformedReason;

  constructor(
    message: string,
    details: {
      url?: string;
      fieldPath?: string;
      contentType?: string;
      excerpt?: string;
      reason?: MalformedReason;
    } = {},
    options: SidecarErrorOptions = {},
  ) {
    super(message, { ...options, context: { ...options.context, ...details } });
    this.fieldPath = details.fieldPath;
    this.reason = details.reason ?? 'shape';
  }
}
