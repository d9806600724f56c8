import * as fs from 'node:fs';
import * as path from 'node:path';
import { NotReadyError } from '../../src/errors/api-errors';
import { SidecarError } from '../../src/errors/base';
import { errorCatalog } from '../../src/errors/catalog';
import { ValidationError } from '../../src/errors/validation';

describe('error catalog', () => {
  it('has unique codes, valid statuses, and classes that agree with their entries', () => {
    const codes = errorCatalog.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const entry of errorCatalog) {
      expect(entry.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.httpStatus).toBeGreaterThanOrEqual(400);
      expect(entry.httpStatus).toBeLessThan(600);
      expect(typeof entry.type).toBe('function');
    }
  });
});

describe('ValidationError', () => {
  it('names every field at fault, with file and line where given', () => {
    const err = new ValidationError([
      { path: 'job.deadline', message: 'must be positive' },
      { path: 'maps', message: 'must be an integer', file: 'trace.jsonl', line: 3 },
    ]);
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.paths).toEqual(['job.deadline', 'maps']);
    expect(err.message).toBe('job.deadline: must be positive; trace.jsonl:3: maps: must be an integer');
  });
});

describe('the catalog is the one list', () => {
  it('holds every error class exported from src/errors, and each instance carries its class code and status', () => {
    const dir = path.resolve(__dirname, '../../src/errors');
    const exported = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'catalog.ts')
      .flatMap((f) => Object.values(jest.requireActual<Record<string, unknown>>(path.join(dir, f))))
      .filter(
        (v): v is typeof SidecarError => typeof v === 'function' && v.prototype instanceof SidecarError,
      );
    expect(exported.map((c) => c.name).sort()).toEqual(errorCatalog.map((e) => e.type.name).sort());
    const err = new NotReadyError('not yet');
    expect([err.code, err.httpStatus, err.name]).toEqual(['NOT_READY', 503, 'NotReadyError']);
  });
});
