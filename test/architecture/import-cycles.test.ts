import * as path from 'node:path';
import { cycles, importGraph, SRC } from './graph';

describe('module boundaries', () => {
  const graph = importGraph();
  const rel = (p: string) => path.relative(SRC, p);

  it('has no import cycle in src, type-only imports included', () => {
    expect(cycles(graph).map((c) => c.map(rel))).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
  });

  it('keeps the API off the loop, and the core off everything but the core and src/errors', () => {
    const bad: string[] = [];
    for (const [from, deps] of graph) {
      for (const to of deps) {
        const [a, b] = [rel(from).split(path.sep)[0], rel(to).split(path.sep)[0]];
        if (a === 'api' && b === 'loop') bad.push(`${rel(from)} -> ${rel(to)}`);
        if (a === 'core' && b !== 'core' && b !== 'errors') bad.push(`${rel(from)} -> ${rel(to)}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
