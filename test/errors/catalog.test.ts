import { errorCatalog } from '../../src/errors/catalog';

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
