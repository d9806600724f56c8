/**
 * The tables and the plot of bench/rm-cost.bench.ts, from its blocks and samples (also kept in
 * bench/rm-cost-results.json, from which `npx tsx bench/rm-cost/report.ts [FILE]` draws the
 * plot again into docs/img/rm-cost.png).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../../src/sim/plot/render';
import { svgToPng } from '../../src/sim/png';
import { median, ROOT } from '../support';
import type { Block } from './cost';
import type { StartSample } from './start';

export interface RmCostResults {
  commit: string;
  startedAt: string;
  hadoop: string;
  pollIntervalMs: number;
  deadlineApps: number;
  blocks: Block[];
  /** The sidecar's requests by kind over its measured cycles, at each size. */
  endpointCounts?: EndpointCount[];
  starts: StartSample[];
}

/** How many requests of one kind the sidecar made over `cycles` cycles, with `apps` on the RM. */
export interface EndpointCount {
  apps: number;
  kind: string;
  requests: number;
  cycles: number;
}

const fmt = (x: number, digits = 1) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';

const spread = (xs: readonly number[], digits = 1) =>
  `${fmt(Math.min(...xs), digits)} – ${fmt(Math.max(...xs), digits)}`;

/** The reader every other is compared with: what a generic monitoring tool polls. */
export const UNFILTERED = 'GET /ws/v1/cluster/apps (unfiltered)';
export const SIDECAR = 'sidecar poll cycle';
/** The readers timing one kind of the sidecar's requests alone are named this, then the kind. */
export const ENDPOINT = 'endpoint: ';
const isEndpoint = (b: { reader: string }) => b.reader.startsWith(ENDPOINT);

export interface ReaderFigures {
  reader: string;
  apps: number;
  /** Median over the rounds of each block's RM CPU per read (ms). */
  medianMs: number;
  /** Every read's CPU over every block, summed and divided (a sidecar's includes its occasional capacity and full reads). */
  meanMs: number;
  perRound: number[];
  youngGcsPerRead: number;
  /** Median over the rounds of the RM's idle rate before the blocks (ms of CPU per s). */
  idleMsPerS: number;
  reads: number;
}

export function readerFigures(blocks: readonly Block[]): ReaderFigures[] {
  const keys = [...new Set(blocks.map((b) => `${b.apps}\u0000${b.reader}`))];
  return keys.map((k) => {
    const [apps, reader] = k.split('\u0000') as [string, string];
    const mine = blocks.filter((b) => b.reader === reader && b.apps === Number(apps));
    const reads = mine.reduce((n, b) => n + b.reads, 0);
    return {
      reader,
      apps: Number(apps),
      medianMs: median(mine.map((b) => b.cpuMsPerRead)),
      meanMs: mine.reduce((n, b) => n + b.cpuMsPerRead * b.reads, 0) / reads,
      perRound: mine.map((b) => b.cpuMsPerRead),
      youngGcsPerRead: mine.reduce((n, b) => n + b.youngGcs, 0) / reads,
      idleMsPerS: median(mine.map((b) => b.idleMsPerS)),
      reads,
    };
  });
}

/**
 * The cost table: one row per reader and cluster size, each read's RM CPU less the RM's idle
 * rate over the same wall time (the idle rate's median is shown beside it).
 */
export function costTable(blocks: readonly Block[], pollIntervalMs: number): string {
  const figures = readerFigures(blocks.filter((b) => !isEndpoint(b)));
  const lines = [
    '| apps | reader | RM CPU ms a read, less idle (median) | min – max over rounds | mean (all reads) | / unfiltered GET | share of one core every ' +
      `${pollIntervalMs / 1000} s | young GCs a read | RM idle, ms CPU a s |`,
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const f of figures) {
    const base = figures.find((g) => g.apps === f.apps && g.reader === UNFILTERED);
    const ratio = base ? f.medianMs / base.medianMs : NaN;
    const share = (f.meanMs / pollIntervalMs) * 100;
    lines.push(
      `| ${f.apps.toLocaleString('en-US')} | ${f.reader} | ${fmt(f.medianMs)} | ${spread(f.perRound)} | ${fmt(f.meanMs)} | ${fmt(ratio, 3)} | ${fmt(share, 2)} % | ${fmt(f.youngGcsPerRead, 2)} | ${fmt(f.idleMsPerS)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The sidecar's cycle by endpoint: each kind of request's count a cycle (from the recorder), its
 * RM CPU timed alone (median over its rounds, idle taken out), and their product, the kind's
 * share of a cycle.
 */
export function endpointTable(blocks: readonly Block[], counts: readonly EndpointCount[]): string {
  const figures = readerFigures(blocks.filter(isEndpoint));
  const lines = [
    '| apps | request | requests a cycle | RM CPU ms a request (median) | RM CPU ms a cycle |',
    '| ---: | --- | ---: | ---: | ---: |',
  ];
  for (const apps of [...new Set(counts.map((c) => c.apps))]) {
    const rows = counts
      .filter((c) => c.apps === apps)
      .map((c) => {
        const f = figures.find((g) => g.apps === apps && g.reader === `${ENDPOINT}${c.kind}`);
        const perCycle = c.requests / c.cycles;
        return { c, perCycle, ms: f?.medianMs ?? NaN, total: perCycle * (f?.medianMs ?? NaN) };
      })
      .sort((a, b) => b.total - a.total);
    for (const r of rows)
      lines.push(
        `| ${apps.toLocaleString('en-US')} | \`${r.c.kind}\` | ${fmt(r.perCycle, 3)} | ${fmt(r.ms)} | ${fmt(r.total, 2)} |`,
      );
    const sum = rows.reduce((n, r) => n + (Number.isFinite(r.total) ? r.total : 0), 0);
    lines.push(`| ${apps.toLocaleString('en-US')} | all | | | ${fmt(sum, 2)} |`);
  }
  return lines.join('\n');
}

const arms = (samples: readonly StartSample[]) => [...new Set(samples.map((s) => s.arm))];

/** Time to start: per arm, medians and spreads, and the difference from the plain client's. */
export function startTable(samples: readonly StartSample[]): string {
  const plain = samples.filter((s) => s.arm === 'plain');
  const lines = [
    '| submitted by | jobs | RM accepted it, ms (median, min – max) | RUNNING, ms | first task, ms | RUNNING − plain (medians) | first task − plain | RUNNING − plain, same round (median, min – max) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const arm of arms(samples)) {
    const mine = samples.filter((s) => s.arm === arm);
    const col = (f: (s: StartSample) => number) =>
      `${fmt(median(mine.map(f)), 0)} (${spread(mine.map(f), 0)})`;
    const minus = (f: (s: StartSample) => number) =>
      plain.length === 0 || arm === 'plain' ? '—' : `${fmt(median(mine.map(f)) - median(plain.map(f)), 0)}`;
    // Each job against the plain client's of the same round (the arms ran one after the other).
    const paired = mine.flatMap((s) => {
      const p = plain.find((x) => x.round === s.round);
      return p === undefined ? [] : [s.runningMs - p.runningMs];
    });
    const pairedCol =
      arm === 'plain' || paired.length === 0 ? '—' : `${fmt(median(paired), 0)} (${spread(paired, 0)})`;
    lines.push(
      `| ${arm} | ${mine.length} | ${col((s) => s.acceptedMs)} | ${col((s) => s.runningMs)} | ${col((s) => s.firstTaskMs)} | ${minus((s) => s.runningMs)} | ${minus((s) => s.firstTaskMs)} | ${pairedCol} |`,
    );
  }
  return lines.join('\n');
}

/**
 * What `run` adds, split: admission (its command's start to the sidecar's decision: the CLI
 * starting and the request), ticket (the decision to the client's running report: the answer,
 * and the report `run` sends before it starts the client), client start (the report to the RM
 * accepting the app, less the plain client's own time from its start to that), binding (the RM
 * accepting the app to the sidecar binding the ticket to it; off the app's path to RUNNING).
 */
export function splitTable(samples: readonly StartSample[]): string {
  const plainAccepted = median(samples.filter((s) => s.arm === 'plain').map((s) => s.acceptedMs));
  const lines = [
    '| submitted by | admission, ms | ticket, ms | client start, ms | binding, ms (after the RM accepted the app) |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const arm of arms(samples)) {
    const mine = samples.filter(
      (s) => s.arm === arm && s.admittedMs !== null && s.clientReportedMs !== null && s.boundMs !== null,
    );
    if (mine.length === 0) continue;
    const col = (f: (s: StartSample) => number) =>
      `${fmt(median(mine.map(f)), 0)} (${spread(mine.map(f), 0)})`;
    lines.push(
      `| ${arm} | ${col((s) => s.admittedMs!)} | ${col((s) => s.clientReportedMs! - s.admittedMs!)} | ${col((s) => s.acceptedMs - s.clientReportedMs! - plainAccepted)} | ${col((s) => s.boundMs! - s.acceptedMs)} |`,
    );
  }
  return lines.join('\n');
}

/** The plot: RM CPU a read against the apps on the RM, one line per reader (log scales). */
export function costSpec(blocks: readonly Block[]): TopLevelSpec {
  const values = readerFigures(blocks.filter((b) => !isEndpoint(b))).map((f) => ({
    apps: f.apps,
    reader: f.reader,
    ms: f.medianMs,
  }));
  const sizes = [...new Set(values.map((v) => v.apps))].sort((a, b) => a - b);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: "The RM's CPU for one read of its apps (real Hadoop RM; medians over the rounds)",
    width: 560,
    height: 320,
    config: { font: 'DejaVu Sans' },
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'apps',
        type: 'quantitative',
        scale: { type: 'log' },
        axis: { values: sizes },
        title: 'apps on the RM (500 of them deadline apps the sidecar follows)',
      },
      y: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'ms of RM CPU per read' },
      color: {
        field: 'reader',
        type: 'nominal',
        title: null,
        legend: { orient: 'bottom', columns: 2, labelLimit: 400 },
      },
    },
  };
}

export async function writePlot(
  blocks: readonly Block[],
  file = join(ROOT, 'docs/img/rm-cost.png'),
): Promise<string> {
  const spec = costSpec(blocks);
  const svg = await renderSvg(spec);
  writeFileSync(file, svgToPng(svg));
  return file;
}

async function main(): Promise<void> {
  const file = process.argv[2] ?? join(ROOT, 'bench/rm-cost-results.json');
  const results = JSON.parse(readFileSync(file, 'utf8')) as RmCostResults;
  console.log(costTable(results.blocks, results.pollIntervalMs));
  if (results.endpointCounts !== undefined)
    console.log(`\n${endpointTable(results.blocks, results.endpointCounts)}`);
  if (results.starts.length > 0)
    console.log(`\n${startTable(results.starts)}\n\n${splitTable(results.starts)}`);
  console.log(`\nwritten ${await writePlot(results.blocks)}`);
}

if (require.main === module) void main();
