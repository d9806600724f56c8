import { SidecarError } from './base';

/** The base of an error the API raises about a request: its code and HTTP status, nothing more. */
function apiError(code: string, httpStatus: number) {
  return class extends SidecarError {
    static override readonly code = code;
    static override readonly httpStatus = httpStatus;
  };
}

/** No bearer token, or one that matches no configured token. Nothing is recorded. */
export class UnauthorizedError extends apiError('UNAUTHORIZED', 401) {}

/** The request body is not valid JSON. */
export class InvalidJsonError extends apiError('INVALID_JSON', 400) {}

/** The request body is larger than server.maxBodyBytes. */
export class PayloadTooLargeError extends apiError('PAYLOAD_TOO_LARGE', 413) {}

/** Content-Type other than application/json on a write. */
export class UnsupportedMediaTypeError extends apiError('UNSUPPORTED_MEDIA_TYPE', 415) {}

/** A job, or a path, that does not exist. */
export class NotFoundError extends apiError('NOT_FOUND', 404) {}

/** The same Idempotency-Key was sent again with a different request body. */
export class IdempotencyConflictError extends apiError('IDEMPOTENCY_KEY_REUSED', 422) {}

/**
 * DELETE /api/v1/jobs/{id} on a job that is no waiting ticket: no ticket at all, or one already
 * bound to its app, expired or cancelled. Nothing changes.
 */
export class TicketNotWaitingError extends apiError('TICKET_NOT_WAITING', 409) {}

/** The sidecar cannot decide yet: it has not read the cluster from the RM even once. */
export class NotReadyError extends apiError('NOT_READY', 503) {}

/**
 * The request itself cannot be read: a malformed %-escape in the path, a body shorter or
 * longer than its Content-Length, a body cut off. Nothing is recorded.
 */
export class MalformedRequestError extends apiError('MALFORMED_REQUEST', 400) {}

/**
 * The JSON body nests arrays and objects deeper than the API reads (the deepest field of a
 * submission is a few levels down). Refused on the raw text, before anything parses or walks
 * it, so no depth can exhaust the stack.
 */
export class JsonTooDeepError extends apiError('JSON_TOO_DEEP', 400) {}

/**
 * Something failed that no request should make fail: a bug. The answer says only that; the
 * log has the component, the route and the stack.
 */
export class InternalError extends apiError('INTERNAL', 500) {}
