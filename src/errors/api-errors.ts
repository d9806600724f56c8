import { SidecarError } from './base';

/** No bearer token, or one that matches no configured token. Nothing is recorded. */
export class UnauthorizedError extends SidecarError {
  readonly code = 'UNAUTHORIZED';
  readonly httpStatus = 401;
}

/** The request body is not valid JSON. */
export class InvalidJsonError extends SidecarError {
  readonly code = 'INVALID_JSON';
  readonly httpStatus = 400;
}

/** The request body is larger than server.maxBodyBytes. */
export class PayloadTooLargeError extends SidecarError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  readonly httpStatus = 413;
}

/** Content-Type other than application/json on a write. */
export class UnsupportedMediaTypeError extends SidecarError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  readonly httpStatus = 415;
}

/** A job, or a path, that does not exist. */
export class NotFoundError extends SidecarError {
  readonly code = 'NOT_FOUND';
  readonly httpStatus = 404;
}

/** The same Idempotency-Key was sent again with a different request body. */
export class IdempotencyConflictError extends SidecarError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  readonly httpStatus = 422;
}

/** The sidecar cannot decide yet: it has not read the cluster from the RM even once. */
export class NotReadyError extends SidecarError {
  readonly code = 'NOT_READY';
  readonly httpStatus = 503;
}

/**
 * The request itself cannot be read: a malformed %-escape in the path, a body shorter or
 * longer than its Content-Length, a body cut off. Nothing is recorded.
 */
export class MalformedRequestError extends SidecarError {
  readonly code = 'MALFORMED_REQUEST';
  readonly httpStatus = 400;
}

/**
 * The JSON body nests arrays and objects deeper than the API reads (the deepest field of a
 * submission is a few levels down). Refused on the raw text, before anything parses or walks
 * it, so no depth can exhaust the stack.
 */
export class JsonTooDeepError extends SidecarError {
  readonly code = 'JSON_TOO_DEEP';
  readonly httpStatus = 400;
}

/**
 * Something failed that no request should make fail: a bug. The answer says only that; the
 * log has the component, the route and the stack.
 */
export class InternalError extends SidecarError {
  readonly code = 'INTERNAL';
  readonly httpStatus = 500;
}
