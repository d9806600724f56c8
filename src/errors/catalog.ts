import type { SidecarError } from './base';
import { ValidationError } from './validation';
import { RmRemoteError } from './rm-remote';
import { RmHttpError } from './rm-http';
import { RmAuthError } from './rm-auth';
import { RmTimeoutError } from './rm-timeout';
import { RmUnavailableError } from './rm-unavailable';
import { RmMalformedResponseError } from './rm-malformed';
import { RmResponseTooLargeError } from './rm-response-too-large';
import { RmClientClosedError } from './rm-client-closed';
import { EmulatedRmRejection } from './emulated-rm-rejection';
import {
  IdempotencyConflictError,
  InternalError,
  InvalidJsonError,
  JsonTooDeepError,
  MalformedRequestError,
  NotFoundError,
  NotReadyError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './api-errors';
import { DashboardAssetsMissingError } from './dashboard-assets';
import { SimulationStalledError } from './simulation-stalled';

/**
 * Every error class of the project, by code. The API's error middleware renders these;
 * test/errors/catalog.test.ts checks that codes are unique and statuses are valid.
 * Add each new error class here, one line each.
 */
type ErrorClass = abstract new (...args: never[]) => SidecarError;

export const errorCatalog: ReadonlyArray<{ code: string; httpStatus: number; type: ErrorClass }> = [
  { code: 'VALIDATION_FAILED', httpStatus: 400, type: ValidationError },
  { code: 'RM_REMOTE_EXCEPTION', httpStatus: 502, type: RmRemoteError },
  { code: 'RM_HTTP_ERROR', httpStatus: 502, type: RmHttpError },
  { code: 'RM_AUTH_REQUIRED', httpStatus: 502, type: RmAuthError },
  { code: 'RM_TIMEOUT', httpStatus: 504, type: RmTimeoutError },
  { code: 'RM_UNAVAILABLE', httpStatus: 503, type: RmUnavailableError },
  { code: 'RM_MALFORMED_RESPONSE', httpStatus: 502, type: RmMalformedResponseError },
  { code: 'RM_RESPONSE_TOO_LARGE', httpStatus: 502, type: RmResponseTooLargeError },
  { code: 'RM_CLIENT_CLOSED', httpStatus: 503, type: RmClientClosedError },
  { code: 'UNAUTHORIZED', httpStatus: 401, type: UnauthorizedError },
  { code: 'INVALID_JSON', httpStatus: 400, type: InvalidJsonError },
  { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413, type: PayloadTooLargeError },
  { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415, type: UnsupportedMediaTypeError },
  { code: 'NOT_FOUND', httpStatus: 404, type: NotFoundError },
  { code: 'IDEMPOTENCY_KEY_REUSED', httpStatus: 422, type: IdempotencyConflictError },
  { code: 'NOT_READY', httpStatus: 503, type: NotReadyError },
  { code: 'EMULATED_RM_REJECTION', httpStatus: 400, type: EmulatedRmRejection },
  { code: 'DASHBOARD_ASSETS_MISSING', httpStatus: 500, type: DashboardAssetsMissingError },
  { code: 'MALFORMED_REQUEST', httpStatus: 400, type: MalformedRequestError },
  { code: 'JSON_TOO_DEEP', httpStatus: 400, type: JsonTooDeepError },
  { code: 'INTERNAL', httpStatus: 500, type: InternalError },
  { code: 'SIMULATION_STALLED', httpStatus: 500, type: SimulationStalledError },
];
