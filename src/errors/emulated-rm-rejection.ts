import { SidecarError, type SidecarErrorOptions } from './base';

/**
 * The emulated ResourceManager refuses a request the way the real one does: a status, and
 * either a RemoteException (`exception`, `javaClassName`) or a plain-text body (INDEX.md
 * sections 6 and 9). Raised by src/emulator and rendered there as the RM's answer; the
 * sidecar never sees this class, only the HTTP answer it becomes.
 */
export class EmulatedRmRejection extends SidecarError {
  static override readonly code = 'EMULATED_RM_REJECTION';
  /** The catalog's status; each instance carries the status the RM answers with. */
  static override readonly httpStatus = 400;
  override readonly httpStatus: number;
  /** RemoteException `exception`, or undefined for a plain-text answer. */
  readonly exception: string | undefined;
  readonly javaClassName: string | undefined;

  constructor(
    details: { status: number; message: string; exception?: string; javaClassName?: string },
    options: SidecarErrorOptions = {},
  ) {
    super(details.message, { ...options, context: { ...options.context, status: details.status } });
    this.httpStatus = details.status;
    this.exception = details.exception;
    this.javaClassName = details.javaClassName;
  }

  get plainText(): boolean {
    return this.exception === undefined;
  }
}

const JAVA_CLASS: Record<string, string> = {
  NotFoundException: 'org.apache.hadoop.yarn.webapp.NotFoundException',
  BadRequestException: 'org.apache.hadoop.yarn.webapp.BadRequestException',
  ForbiddenException: 'org.apache.hadoop.yarn.webapp.ForbiddenException',
  YarnException: 'org.apache.hadoop.yarn.exceptions.YarnException',
  IllegalArgumentException: 'java.lang.IllegalArgumentException',
};

/** A RemoteException answer, with the Java class the RM names for that exception. */
export function remoteRejection(status: number, exception: string, message: string): EmulatedRmRejection {
  return new EmulatedRmRejection({
    status,
    message,
    exception,
    javaClassName: JAVA_CLASS[exception] ?? `org.apache.hadoop.yarn.webapp.${exception}`,
  });
}

/** A plain-text answer (the RM's write endpoints answer some refusals this way). */
export function textRejection(status: number, message: string): EmulatedRmRejection {
  return new EmulatedRmRejection({ status, message });
}
