// Writes jobs and actions to a ledger as fast as it can, printing each id once its
// transaction has committed; the test kills this process with SIGKILL mid-stream.
// `group` as the second argument: through writeSoon, 16 writes in flight at a time, each id
// printed when its group commit resolved. `unsynced`: each write in a transactionUnsynced,
// committed without a sync of the file.
import { SqliteLedger } from '../../src/store/ledger';
import { jobRecord } from './builders';

const ledger = SqliteLedger.open(process.argv[2]!);
const write = (id: string) => () => {
  ledger.insertJob(jobRecord(id));
  ledger.enqueueAction(id, 'submit', { id });
};

async function grouped(): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < 100_000) {
      const id = `j${next++}`;
      await ledger.writeSoon(write(id));
      process.stdout.write(`${id}\n`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

if (process.argv[3] === 'group') {
  void grouped();
} else {
  const unsynced = process.argv[3] === 'unsynced';
  for (let i = 0; i < 100_000; i++) {
    const id = `j${i}`;
    if (unsynced) ledger.transactionUnsynced(write(id));
    else ledger.transaction(write(id));
    process.stdout.write(`${id}\n`);
  }
}
