import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The RM's answer could not be read as the expected shape: truncated or invalid JSON or XML,
 * an HTML page where JSON or XML was expected, or a required field missing or of the wrong type.
 * Raised instead of returning a half-parsed object.
 */
export class RmMalformedResponseError extends SidecarError {
  readonly code = 'RM_MALFORMED_RESPONSE';
  readonly httpStatus = 502;
  /** Where in the body the problem is (`nodes.node[1].id`), when known. */
  readonly fieldPath: string | undefined;

  constructor(
    message: string,
    details: { url?: string; fieldPath?: string; contentType?: string; excerpt?: string } = {},
    options: SidecarErrorOptions = {},
  ) {
    super(message, { ...options, context: { ...options.context, ...details } });
    this.fieldPath = details.fieldPath;
  }
}
