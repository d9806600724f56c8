import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * `simulate` from a production install: docker/Dockerfile prunes the devDependencies, so every
 * package the simulate command can load at run time (its source and everything it imports,
 * followed file by file) must be a regular dependency, and none of it may reach for a browser
 * (playwright-core). Type-only imports are left out: TypeScript erases them. Then the command
 * runs, with every devDependency refused to the sources (test/sim/plot-no-dev.cjs), and writes
 * its plots.
 */
const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean }>;
};

/** Module specifiers a TypeScript file loads at run time. */
function runtimeImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    const typeOnly = Boolean(m[2]) || /^\{\s*(type\s+[\w$]+\s*,?\s*)+\}$/.test(m[3]!.trim());
    if (!typeOnly) out.push(m[4]!);
  }
  for (const m of code.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push(m[1]!);
  for (const m of code.matchAll(/\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

function resolveLocal(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base])
    if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  throw new Error(`${relative(root, from)}: cannot resolve ${spec}`);
}

const packageName = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);

/** Every source file reached from `entry` and every package they load. */
function closure(entry: string): { files: string[]; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>(); // package -> first file that loads it
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) todo.push(resolveLocal(file, spec));
      else if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      else if (!packages.has(packageName(spec))) packages.set(packageName(spec), relative(root, file));
    }
  }
  return { files: [...files].map((f) => relative(root, f)).sort(), packages };
}

describe('simulate needs no devDependency', () => {
  const { files, packages } = closure(join(root, 'src', 'cli', 'simulate.ts'));

  it('follows the whole command: the report, the plots and the PNG renderer are reached', () => {
    for (const f of [
      'src/sim/report.ts',
      'src/sim/plot/render.ts',
      'src/sim/plot/specs.ts',
      'src/sim/png.ts',
    ])
      expect(files).toContain(f);
    for (const p of ['vega', 'vega-lite', '@resvg/resvg-js', 'commander']) expect(packages.has(p)).toBe(true);
  });

  it('loads no browser driver', () => {
    expect(packages.has('playwright-core')).toBe(false);
    expect(packages.has('playwright')).toBe(false);
  });

  it('loads only packages listed in dependencies, none of them dev-only in the lock file', () => {
    const notDeps = [...packages].filter(([p]) => !(p in pkg.dependencies)).map(([p, f]) => `${p} (${f})`);
    expect(notDeps).toEqual([]);
    for (const p of packages.keys()) {
      const entry = lock.packages[`node_modules/${p}`];
      expect({ p, present: entry !== undefined, dev: entry?.dev ?? false }).toEqual({
        p,
        present: true,
        dev: false,
      });
    }
  });

  it("keeps resvg's native binary for this platform out of the dev tree", () => {
    const natives = Object.entries(lock.packages).filter(([k]) =>
      k.startsWith('node_modules/@resvg/resvg-js-'),
    );
    expect(natives.length).toBeGreaterThan(5);
    for (const [, entry] of natives)
      expect({ optional: entry.optional, dev: entry.dev ?? false }).toEqual({ optional: true, dev: false });
  });

  it('reads imports as TypeScript writes them: type-only ones are erased, dynamic ones count', () => {
    expect(
      runtimeImports(
        [
          "import type { A } from 'types-only';",
          "import { type B, type C } from 'also-types';",
          "import { d, type E } from 'mixed';",
          "export { f } from './local';",
          '// import gone from "commented";',
          "const x = await import('dynamic');",
          "const y = require('required');",
          "import 'side-effect';",
        ].join('\n'),
      ).sort(),
    ).toEqual(['./local', 'dynamic', 'mixed', 'required', 'side-effect']);
  });
});

describe('simulate with the devDependencies refused', () => {
  const node = (code: string) =>
    spawnSync(
      process.execPath,
      ['--require', require.resolve('tsx/cjs'), '--require', join(__dirname, 'plot-no-dev.cjs'), '-e', code],
      { cwd: root, env: { ...process.env, YSS_ROOT: root }, encoding: 'utf8', timeout: 180_000 },
    );

  it('the guard does refuse a devDependency asked for by a source file', () => {
    const r = node(
      "const M = require('node:module'); const m = new M('x'); m.filename = require('node:path').join(process.cwd(), 'src', 'x.js');" +
        "try { M._resolveFilename('playwright-core', m); console.log('loaded') } catch (e) { console.log(e.message) }",
    );
    expect(r.stdout).toContain('devDependency playwright-core required by');
  });

  it('runs a cluster and trace and writes every plot as spec, SVG and PNG', () => {
    const out = mkdtempSync(join(tmpdir(), 'yss-sim-prod-'));
    try {
      const argv = [
        'node',
        'yarn-sched-sidecar',
        'simulate',
        '--cluster',
        'examples/cluster.yaml',
        '--trace',
        'examples/trace.jsonl',
        '--policies',
        'rtmr,fifo-all',
        '--out',
        out,
      ];
      const r = node(
        `require('./src/cli/main.ts').main(${JSON.stringify(argv)}).catch((e) => { console.error(e.message); process.exit(1); })`,
      );
      expect({ status: r.status, stderr: r.stderr.includes('devDependency') ? r.stderr : '' }).toEqual({
        status: 0,
        stderr: '',
      });
      const files = readdirSync(out);
      const plots = files.filter((f) => f.endsWith('.vl.json')).map((f) => f.slice(0, -'.vl.json'.length));
      expect(plots.sort()).toEqual(['energy', 'gantt-fifo-all', 'gantt-rtmr', 'locality', 'turnaround']);
      for (const p of plots) {
        expect(readFileSync(join(out, `${p}.svg`), 'utf8').startsWith('<svg')).toBe(true);
        expect(
          readFileSync(join(out, `${p}.png`))
            .subarray(1, 4)
            .toString('latin1'),
        ).toBe('PNG');
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});
