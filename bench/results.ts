/**
 * Machine-readable bench results: every bench calls `recordResult` for each figure it wants
 * kept, and `npm run bench` (bench/run.ts) writes all of them to bench/results.json after the
 * run, beside the tables the benches print.
 *
 *   import { recordResult } from './results';
 *   recordResult({ name: 'admission 1000x20000 admit', unit: 'ms', median: 0.2, p99: 1.1, ratio: 950 });
 *
 * `ratio`: the baseline's figure over this one (how many times better), where the bench has a
 * baseline (the literal engine, the previous code path); null otherwise. `rssMB` defaults to
 * the process's resident set size when the row is recorded.
 */
import { writeFileSync } from 'node:fs';

export interface BenchResult {
  readonly name: string;
  readonly unit: string;
  readonly median: number;
  readonly p99: number;
  readonly ratio: number | null;
  readonly rssMB: number;
}

const rows: BenchResult[] = [];

export function recordResult(row: {
  name: string;
  unit: string;
  median: number;
  p99: number;
  ratio?: number | null;
  rssMB?: number;
}): void {
  const rssMB = row.rssMB ?? Math.round((process.memoryUsage().rss / 2 ** 20) * 10) / 10;
  rows.push({
    name: row.name,
    unit: row.unit,
    median: row.median,
    p99: row.p99,
    ratio: row.ratio ?? null,
    rssMB,
  });
}

/** Everything recorded so far in this process, in order. */
export function recordedResults(): readonly BenchResult[] {
  return rows;
}

/** Writes the recorded rows as a JSON array (bench/run.ts calls it once at the end). */
export function writeResults(path: string): void {
  writeFileSync(path, `${JSON.stringify(rows, null, 2)}\n`);
}

/** p-th percentile (nearest rank) of a sample. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
