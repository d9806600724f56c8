// Archives every closed job of a ledger, a batch at a time, as fast as it can, printing each
// batch's job ids once the batch is durable; the test kills this process with SIGKILL between
// or in the middle of batches. Arguments: `sqlite FILE` or `postgres URL`, then the batch size,
// then (PostgreSQL) archiveAfterMs: jobs closed longer ago stay in PostgreSQL at the load, and are
// archived from there.
import { SqliteLedger } from '../../src/store/ledger';
import { openPostgresLedger } from '../../src/store/postgres';
import type { Ledger } from '../../src/store/types';

async function main(): Promise<void> {
  const [store, where, limit, archiveAfterMs] = process.argv.slice(2) as [string, string, string, string?];
  const ledger: Ledger =
    store === 'sqlite'
      ? SqliteLedger.open(where)
      : await openPostgresLedger(where, {
          writer: 'now',
          holder: 'child',
          ...(archiveAfterMs === undefined ? {} : { archiveAfterMs: Number(archiveAfterMs) }),
        });
  for (;;) {
    const batch = await ledger.archiveClosedJobs({ closedBeforeMs: Date.now(), limit: Number(limit) });
    if (batch.jobIds.length === 0) break;
    process.stdout.write(`${batch.jobIds.join(' ')}\n`);
  }
  process.stdout.write('done\n');
  // Killed here at the latest.
  setInterval(() => undefined, 1_000);
}

void main();
