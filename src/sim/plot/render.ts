import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';

/**
 * Server-side rendering of the plots' Vega-Lite specs: vega-lite compiles a spec to Vega, and a
 * headless Vega View (renderer 'none') writes SVG, which needs neither a browser nor canvas.
 *
 * Vega, Vega-Lite and resvg are loaded at the first plot, not with this module: the CLI loads
 * every command's module, and a sidecar started with `start` draws no plot (the three hold about
 * 20 MB resident once loaded; test/cli/lazy-modules.test.ts).
 */

export interface Plot {
  /** File name without extension: NAME.vl.json, NAME.svg and NAME.png are written. */
  name: string;
  spec: TopLevelSpec;
}

/**
 * The plotting modules, required at the first call (`require`, not `import()`: the compiled CLI
 * is CommonJS, and a dynamic import would go through Node's ESM loader).
 */
function plotting(): {
  vega: typeof import('vega');
  vegaLite: typeof import('vega-lite');
  png: typeof import('../png');
} {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    vega: require('vega') as typeof import('vega'),
    vegaLite: require('vega-lite') as typeof import('vega-lite'),
    png: require('../png') as typeof import('../png'),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** The plot as SVG text; `spec` is left as it was (Vega tags the data rows it ingests, so it gets a copy). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { View, parse } = plotting().vega;
  const { compile } = plotting().vegaLite;
  const view = new View(parse(compile(structuredClone(spec)).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Writes each plot's spec (NAME.vl.json, to re-render or restyle it), its SVG and, unless
 * `png` is false, its PNG; returns the file names written, in that order.
 */
export async function writePlots(
  dir: string,
  plots: readonly Plot[],
  options: { png?: boolean } = {},
): Promise<string[]> {
  const { svgToPng } = plotting().png;
  const written: string[] = [];
  const put = (name: string, content: string | Buffer) => {
    writeFileSync(join(dir, name), content);
    written.push(name);
  };
  for (const { name, spec } of plots) {
    put(`${name}.vl.json`, JSON.stringify(spec, null, 2) + '\n');
    const svg = await renderSvg(spec);
    put(`${name}.svg`, svg);
    if (options.png !== false) put(`${name}.png`, svgToPng(svg));
  }
  return written;
}
