/**
 * The reading side of bench/xml-list.bench.ts, in a process of its own, so that its resident
 * memory is the read's alone: `node --require tsx/cjs bench/xml-list-child.ts ROOT URL FORMAT`.
 * It reads a small apps answer first (the code loaded and warmed), resets the process's peak
 * (VmHWM, through /proc/self/clear_refs), then reads the large one with the RM client of the
 * tree at ROOT, and prints one JSON line: apps read, time, RSS before, the peak during the read,
 * and the longest stretch the event loop did not turn.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [root, url, format] = process.argv.slice(2) as [string, string, 'json' | 'xml'];

interface Client {
  apps(q?: { queue?: string }): Promise<unknown[]>;
}

function memory(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function main(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the tree's client, chosen at run time
  const { HttpResourceManagerClient } = require(join(root, 'src', 'yarn', 'client')) as {
    HttpResourceManagerClient: new (o: Record<string, unknown>) => Client;
  };
  const client = new HttpResourceManagerClient({
    urls: [url],
    format,
    timeoutMs: 600_000,
    callBudgetMs: 600_000,
    maxResponseBytes: 256 * 1024 * 1024,
    maxAttempts: 1,
  });
  // Warm: the same code path on a small answer.
  for (let i = 0; i < 3; i++) await client.apps({ queue: 'warm' });
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 100));
  try {
    // Linux: "5" resets the peak resident set size (VmHWM) to the current one.
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // an older kernel: the peak then includes the start, which is lower anyway
  }
  const before = memory();
  let maxBlockMs = 0;
  let last = performance.now();
  const lag = setInterval(() => {
    const now = performance.now();
    maxBlockMs = Math.max(maxBlockMs, now - last - 5);
    last = now;
  }, 5);
  const started = performance.now();
  const apps = await client.apps();
  const ms = performance.now() - started;
  // A block that lasted to the end of the read is seen only here.
  maxBlockMs = Math.max(maxBlockMs, performance.now() - last - 5);
  clearInterval(lag);
  const after = memory();
  process.stdout.write(
    `${JSON.stringify({ apps: apps.length, ms, baseMb: before.rss, peakMb: after.peak, rssMb: after.rss, maxBlockMs })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
