/**
 * Every number of the configuration has a range, and every name or path outside `rm` a length
 * limit: the schema is walked, so a key added without one fails here, naming it.
 */
import type { z } from 'zod';
import { buildConfig } from '../../src/config/load';
import { configSchema } from '../../src/config/schema';

type Def = { type: string; [key: string]: unknown };
type Walked = { path: string; schema: z.ZodType };

function walk(schema: z.ZodType, path: string, out: Walked[]): Walked[] {
  const def = (schema as unknown as { def: Def }).def;
  switch (def.type) {
    case 'default':
    case 'optional':
      return walk(def.innerType as z.ZodType, path, out);
    case 'object':
      for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>))
        walk(v, `${path}.${k}`, out);
      return out;
    case 'record':
      walk(def.keyType as z.ZodType, `${path}.<key>`, out);
      return walk(def.valueType as z.ZodType, `${path}.<value>`, out);
    case 'array':
      return walk(def.element as z.ZodType, `${path}[]`, out);
    default:
      out.push({ path: path.slice(1), schema });
      return out;
  }
}

const leaves = walk(configSchema, '', []);

describe('configuration bounds', () => {
  it('gives every number a finite minimum and maximum', () => {
    const numbers = leaves.filter((l) => (l.schema as unknown as { def: Def }).def.type === 'number');
    expect(numbers.length).toBeGreaterThan(15);
    const open = numbers
      .filter((l) => {
        const n = l.schema as unknown as { minValue: number | null; maxValue: number | null };
        return !Number.isFinite(n.minValue) || !Number.isFinite(n.maxValue);
      })
      .map((l) => l.path);
    expect(open).toEqual([]);
  });

  it('gives every name and path outside rm a length limit', () => {
    const open = leaves
      .filter((l) => !l.path.startsWith('rm.'))
      .filter((l) => (l.schema as unknown as { def: Def }).def.type === 'string')
      .filter((l) => !Number.isFinite((l.schema as unknown as { maxLength: number | null }).maxLength))
      .map((l) => l.path);
    expect(open).toEqual([]);
  });

  it.each([
    [
      'a container of 1 TiB and 1 MiB',
      { admission: { containerMemoryMb: 1_048_577 } },
      'admission.containerMemoryMb',
    ],
    [
      'a million seconds per MB',
      { admission: { initialEstimates: { mapSecondsPerMb: 1e6 } } },
      'admission.initialEstimates.mapSecondsPerMb',
    ],
    [
      'a billion writes per cycle',
      { enforcement: { maxWritesPerCycle: 1e9 } },
      'enforcement.maxWritesPerCycle',
    ],
    ['a body of 1 TiB', { server: { maxBodyBytes: 2 ** 40 } }, 'server.maxBodyBytes'],
    [
      'a token of 5000 characters',
      { auth: { tokens: [{ name: 'a', token: 'x'.repeat(5000) }] } },
      'auth.tokens.0.token',
    ],
    [
      'a token with spaces',
      { auth: { tokens: [{ name: 'a', token: 'has spaces in it, 16+' }] } },
      'auth.tokens.0.token',
    ],
  ])('refuses %s at start, naming the key', (_what, raw, path) => {
    expect(() => buildConfig(raw)).toThrow(
      expect.objectContaining({ paths: expect.arrayContaining([path]) }),
    );
  });
});
