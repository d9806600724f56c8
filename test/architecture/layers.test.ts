import * as path from 'node:path';
import { cycles, importGraph, SRC } from './graph';

/**
 * The folders of src and the folders each may import, stated once: the layers point one way.
 * A file of src/<a> may import src/<b> only when b is listed under a (a folder always imports
 * itself). `log` is src/log.ts and `entry` src/index.ts, the package's entry point. The rule is
 * itself checked to be a layering (no cycle among the folders it allows), so a new arrow that
 * climbs back up cannot be allowed by adding it here without this test failing.
 *
 * From the bottom: the errors and the log; the pure core; what talks to the world below the
 * sidecar's logic (the RM client, the ledger, the configuration, the metrics); the domain's
 * records and views (model); the outbox's enforcer; the loop; what drives the core apart from
 * the loop (simulator, emulator, replay); the HTTP API; the process's wiring (service); the
 * commands; the entry point.
 */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  errors: [],
  log: ['errors'],
  core: ['errors'],
  ha: ['log', 'errors'],
  metrics: [],
  store: ['log', 'errors'],
  yarn: ['log', 'errors', 'core'],
  config: ['errors', 'core', 'yarn'],
  model: ['errors', 'core', 'store', 'yarn'],
  enforce: ['log', 'errors', 'metrics', 'store', 'yarn'],
  loop: ['log', 'errors', 'config', 'core', 'enforce', 'metrics', 'model', 'store', 'yarn'],
  sim: ['errors', 'core'],
  emulator: ['log', 'errors', 'sim', 'yarn'],
  replay: ['log', 'errors', 'config', 'core', 'loop', 'metrics', 'sim', 'store', 'yarn'],
  dashboard: ['errors', 'store'],
  api: ['log', 'errors', 'core', 'metrics', 'model', 'replay', 'store', 'yarn'],
  service: [
    'log',
    'errors',
    'api',
    'config',
    'core',
    'ha',
    'loop',
    'metrics',
    'model',
    'replay',
    'store',
    'yarn',
  ],
  cli: [
    'log',
    'errors',
    'config',
    'core',
    'dashboard',
    'emulator',
    'loop',
    'replay',
    'service',
    'sim',
    'yarn',
  ],
  entry: ['errors', 'config', 'core', 'emulator', 'service', 'yarn'],
};

/** The layer of a file of src: its first folder, or `log` / `entry` for the two files at the top. */
export function layerOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts.length > 1) return parts[0]!;
  if (parts[0] === 'index.ts') return 'entry';
  return parts[0]!.replace(/\.ts$/, '');
}

/** Every import of src that the rule does not allow, as "from -> to". */
export function violations(
  graph: Map<string, string[]>,
  allowed: Readonly<Record<string, readonly string[]>>,
): string[] {
  const bad: string[] = [];
  for (const [from, deps] of graph) {
    const a = layerOf(from);
    for (const to of deps) {
      const b = layerOf(to);
      if (a !== b && !(allowed[a] ?? []).includes(b))
        bad.push(`${path.relative(SRC, from)} -> ${path.relative(SRC, to)} (${a} -> ${b})`);
    }
  }
  return bad.sort();
}

describe('layers that point one way', () => {
  const graph = importGraph();

  it('names every folder of src in the rule', () => {
    const layers = new Set([...graph.keys()].map(layerOf));
    expect([...layers].filter((l) => !(l in ALLOWED)).sort()).toEqual([]);
  });

  it('is a layering: no cycle among the folders the rule allows', () => {
    const g = new Map(Object.entries(ALLOWED).map(([k, v]) => [k, [...v]]));
    expect(cycles(g)).toEqual([]);
  });

  it('imports only what the rule allows', () => {
    expect(violations(graph, ALLOWED)).toEqual([]);
  });

  it('reports an import that climbs back up (the check itself works)', () => {
    const loopFile = path.join(SRC, 'loop', 'x.ts');
    const apiFile = path.join(SRC, 'api', 'y.ts');
    const g = new Map([
      [loopFile, [apiFile]],
      [apiFile, []],
    ]);
    expect(violations(g, ALLOWED)).toEqual(['loop/x.ts -> api/y.ts (loop -> api)']);
  });
});
