import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The RM (or the JobHistory server, or WebHDFS) answered with a `RemoteException` body:
 * `{"RemoteException":{"exception","message","javaClassName"}}` or its XML form. The RM decided,
 * so this is never retried (INDEX.md section 6).
 */
export class RmRemoteError extends SidecarError {
  static override readonly code = 'RM_REMOTE_EXCEPTION';
  static override readonly httpStatus = 502;
  readonly status: number;
  readonly exception: string;
  readonly javaClassName: string;
  readonly remoteMessage: string;

  constructor(
    details: {
      status: number;
      exception: string;
      javaClassName: string;
      message: string;
      url: string;
      service?: string;
    },
    options: SidecarErrorOptions = {},
  ) {
    super(`${details.service ?? 'RM'} answered ${details.status} ${details.exception}: ${details.message}`, {
      ...options,
      context: { ...options.context, ...details },
    });
    this.status = details.status;
    this.exception = details.exception;
    this.javaClassName = details.javaClassName;
    this.remoteMessage = details.message;
  }
}
