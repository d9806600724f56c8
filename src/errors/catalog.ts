import type { SidecarError } from './base';
import { ValidationError } from './validation';

/**
 * Every error class of the project, by code. The API's error middleware renders these;
 * test/errors/catalog.test.ts checks that codes are unique and statuses are valid.
 * Add each new error class here, one line each.
 */
type ErrorClass = abstract new (...args: never[]) => SidecarError;

export const errorCatalog: ReadonlyArray<{ code: string; httpStatus: number; type: ErrorClass }> = [
  { code: 'VALIDATION_FAILED', httpStatus: 400, type: ValidationError },
];
