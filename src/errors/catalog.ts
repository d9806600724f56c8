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
  TicketNotWaitingError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './api-errors';
import { DashboardAssetsMissingError } from './dashboard-assets';
import { SimulationStalledError } from './simulation-stalled';
import { TraceInvalidError } from './trace-invalid';
import { LedgerFencedError } from './ledger-fenced';
import { LedgerReadOnlyError } from './ledger-read-only';
import { LedgerUnavailableError } from './ledger-unavailable';
import { OutboxActionInvalidError } from './outbox-action-invalid';

/**
 * Every error class of the project. The API's error middleware renders these;
 * test/errors/catalog.test.ts checks that codes are unique and statuses are valid. Each class
 * states its code and HTTP status once, as statics; add each new class here, one line each.
 */
type ErrorClass = (abstract new (...args: never[]) => SidecarError) & { code: string; httpStatus: number };

const classes: readonly ErrorClass[] = [
  ValidationError,
  RmRemoteError,
  RmHttpError,
  RmAuthError,
  RmTimeoutError,
  RmUnavailableError,
  RmMalformedResponseError,
  RmResponseTooLargeError,
  RmClientClosedError,
  UnauthorizedError,
  InvalidJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  NotFoundError,
  IdempotencyConflictError,
  TicketNotWaitingError,
  NotReadyError,
  EmulatedRmRejection,
  DashboardAssetsMissingError,
  MalformedRequestError,
  JsonTooDeepError,
  InternalError,
  SimulationStalledError,
  TraceInvalidError,
  LedgerFencedError,
  LedgerReadOnlyError,
  LedgerUnavailableError,
  OutboxActionInvalidError,
];

export const errorCatalog: ReadonlyArray<{ code: string; httpStatus: number; type: ErrorClass }> =
  classes.map((type) => ({ code: type.code, httpStatus: type.httpStatus, type }));
