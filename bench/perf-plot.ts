/**
 * `tsx bench/perf-plot.ts [ROWS.json ...]`: the plot of docs/performance.md, poll cycle time
 * against cluster size, from the poll bench's rows (bench/results.json by default, or files of
 * rows as pollRows returns them). One line per tree (the base commit, this one) and per RM (with
 * filters, ignoring them), and beside them JSON.parse of the bytes this tree fetched and the
 * floor (the same reads fetched with node:http and parsed, nothing else). A point
 * whose cycles fetched more than rm.maxResponseBytes (128 MiB) is left out: every poll of it
 * failed (the answer was refused as too large), so it measures nothing.
 * Writes docs/img/perf-cycle.png with src/sim/plot's Vega-Lite rendering.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../src/sim/plot/render';
import { svgToPng } from '../src/sim/png';
import { ROOT } from './support';

interface Row {
  name: string;
  median: number;
}

const ROW =
  /^poll (\d+)k apps (\d+) nodes, RM (with|ignoring) filters: (cycle|JSON\.parse of the bytes fetched|floor: its reads by node:http \+ JSON\.parse only) \((base \w+|this)/;

const MAX_RESPONSE_MB = 128;

export function points(rows: readonly Row[]) {
  const out: Array<{ apps: number; series: string; ms: number }> = [];
  // What each tree fetched per cycle, from its JSON.parse row: `(this, 2.16 MB)`.
  const fetchedMb = new Map<string, number>();
  for (const r of rows) {
    const m = ROW.exec(r.name);
    const mb = /, ([\d.]+) MB\)/.exec(r.name);
    if (m && mb) fetchedMb.set(`${m[1]} ${m[3]} ${m[5]}`, Number(mb[1]));
  }
  for (const r of rows) {
    const m = ROW.exec(r.name);
    if (!m) continue;
    const [, k, , rm, what, tree] = m;
    if (what !== 'cycle' && tree !== 'this') continue;
    if ((fetchedMb.get(`${k} ${rm} ${tree}`) ?? 0) > MAX_RESPONSE_MB) continue;
    const rmName = rm === 'with' ? 'RM with filters' : 'RM ignoring filters';
    const series =
      what === 'cycle'
        ? `${tree === 'this' ? 'this tree' : tree}, ${rmName}`
        : what.startsWith('floor')
          ? `floor (same reads, bare), ${rmName}`
          : `JSON.parse of its bytes, ${rmName}`;
    out.push({ apps: Number(k) * 1000, series, ms: r.median });
  }
  return out;
}

export function spec(data: ReturnType<typeof points>): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Steady poll cycle vs cluster size (500 deadline apps; medians)',
    width: 560,
    height: 320,
    config: { font: 'DejaVu Sans' },
    data: { values: data },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'apps',
        type: 'quantitative',
        scale: { type: 'log', domain: [1000, 50000] },
        axis: { values: [1000, 2000, 5000, 10000, 20000, 50000] },
        title: 'apps on the cluster (nodes: apps / 2, 10,000 at 50k)',
      },
      y: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'ms per cycle' },
      color: {
        field: 'series',
        type: 'nominal',
        title: null,
        legend: { orient: 'bottom', columns: 2, labelLimit: 400 },
      },
    },
  };
}

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  const rows = (files.length > 0 ? files : [join(ROOT, 'bench/results.json')]).flatMap((f) => {
    const parsed = JSON.parse(readFileSync(f, 'utf8')) as Row[] | { results: Row[] };
    return Array.isArray(parsed) ? parsed : parsed.results;
  });
  const svg = await renderSvg(spec(points(rows)));
  writeFileSync(join(ROOT, 'docs/img/perf-cycle.png'), svgToPng(svg));
}

if (require.main === module) void main();
