import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The server answered 401: it wants an authenticated user. With Hadoop's simple authentication
 * (`hadoop.http.authentication.type=simple`, anonymous not allowed) every call, reads too, needs
 * `user.name`; the sidecar sends `rm.user` as that. Never retried: the same call gets the same
 * answer until the configuration changes.
 */
export class RmAuthError extends SidecarError {
  static override readonly code = 'RM_AUTH_REQUIRED';
  static override readonly httpStatus = 502;
  readonly status = 401;
  /** The user sent as `user.name`, or undefined when the call was anonymous. */
  readonly user: string | undefined;

  constructor(
    details: { url: string; user: string | undefined; text: string; service?: string },
    options: SidecarErrorOptions = {},
  ) {
    const service = details.service ?? 'RM';
    const as = details.user === undefined ? 'an anonymous call' : `user.name=${details.user}`;
    const fix =
      details.user === undefined
        ? 'set rm.user (YSS_RM_USER) to a user the cluster accepts; with simple authentication it is sent as user.name'
        : `check that the cluster accepts user '${details.user}' (Kerberos/SPNEGO is not supported)`;
    super(`${service} refused ${as} with 401 (authentication required): ${fix}`, {
      ...options,
      context: { ...options.context, url: details.url, user: details.user ?? null, text: details.text },
    });
    this.user = details.user;
  }
}
