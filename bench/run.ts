/**
 * `npm run bench [-- NAME...]`: runs every bench/*.bench.ts (or those whose file name
 * contains one of the NAMEs) one after another and prints what each measured, then writes the
 * rows the benches recorded (bench/results.ts) to bench/results.json. A bench in ONLY_WHEN_NAMED
 * (a real cluster, tens of minutes: real-jobs, retention) runs only when its name is given.
 * Each bench file exports `default async function (): Promise<void>`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { recordedResults, writeResults } from './results';

/**
 * Benches that start a real cluster or run for tens of minutes (replay at 100,000 jobs,
 * retention's ledgers of a million jobs): only when named.
 */
const ONLY_WHEN_NAMED = ['real-jobs.bench.ts', 'rm-cost.bench.ts', 'replay.bench.ts', 'retention.bench.ts'];

async function run(): Promise<void> {
  const filters = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) =>
      filters.length === 0 ? !ONLY_WHEN_NAMED.includes(f) : filters.some((name) => f.includes(name)),
    )
    .sort();
  if (files.length === 0) {
    console.error(`no benchmark matches ${filters.join(', ')}`);
    process.exitCode = 2;
    return;
  }
  for (const file of files) {
    console.log(`\n=== ${file} ===`);
    const mod = (await import(join(__dirname, file))) as { default: () => Promise<void> };
    await mod.default();
  }
  const out = join(__dirname, 'results.json');
  writeResults(out);
  console.log(`\n${recordedResults().length} result rows written to bench/results.json`);
}

void run();
