import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { View, parse } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { svgToPng } from '../png';

/**
 * Server-side rendering of the plots' Vega-Lite specs: vega-lite compiles a spec to Vega, and a
 * headless Vega View (renderer 'none') writes SVG, which needs neither a browser nor canvas.
 */

export interface Plot {
  /** File name without extension: NAME.vl.json, NAME.svg and NAME.png are written. */
  name: string;
  spec: TopLevelSpec;
}

/** The plot as SVG text; `spec` is left as it was (Vega tags the data rows it ingests, so it gets a copy). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
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
