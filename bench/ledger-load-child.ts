/**
 * A new instance loading a PostgreSQL ledger, in a process of its own (bench/retention.bench.ts):
 * `writer` takes the ledger over (the fence's epoch + 1) as an elected leader that never
 * followed does, `follower` opens it to follow and loads it once. With ARCHIVE_AFTER_DAYS (the
 * third argument; 0 for retention off) it leaves history in PostgreSQL as the sidecar does.
 * Prints one line of JSON: how long the open took (the fence and the load), the live jobs
 * loaded, the jobs counted (history and archive included), the process's memory then and its
 * peak RSS.
 */
import { openPostgresLedger } from '../src/store/postgres';

async function main(): Promise<void> {
  const [url, role, days] = process.argv.slice(2) as [string, 'writer' | 'follower', string];
  const archiveAfterDays = Number(days);
  const started = performance.now();
  const ledger = await openPostgresLedger(url, {
    writer: role === 'writer' ? 'now' : 'later',
    holder: 'bench',
    flushTimeoutMs: 60_000,
    ...(archiveAfterDays > 0 ? { archiveAfterMs: archiveAfterDays * 86_400_000 } : {}),
  });
  if (role === 'follower') await ledger.catchUp();
  const loadMs = performance.now() - started;
  const jobs = ledger.listJobs({ limit: 1 }).total;
  const counted = ledger.countJobs().reduce((n, c) => n + c.n, 0);
  const m = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({
      loadMs,
      jobs,
      counted,
      rssMB: m.rss / 2 ** 20,
      peakMB: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
      heapMB: m.heapUsed / 2 ** 20,
    })}\n`,
  );
  ledger.close();
  await ledger.closed;
}

void main();
