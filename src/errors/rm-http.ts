import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The RM answered an error status with no RemoteException body: a plain-text refusal such as
 * `App in FINISHED state cannot be moved.` (INDEX.md section 6), Jersey's own 404 page, a bare 500.
 * Carries the status and the body text, trimmed.
 */
export class RmHttpError extends SidecarError {
  static override readonly code = 'RM_HTTP_ERROR';
  static override readonly httpStatus = 502;
  readonly status: number;
  readonly text: string;

  constructor(
    details: { status: number; text: string; url: string; service?: string },
    options: SidecarErrorOptions = {},
  ) {
    super(
      `${details.service ?? 'RM'} answered ${details.status}${details.text ? `: ${details.text}` : ' with no body'}`,
      {
        ...options,
        context: { ...options.context, ...details },
      },
    );
    this.status = details.status;
    this.text = details.text;
  }
}
