// Writes jobs and actions to a ledger as fast as it can, printing each id once its
// transaction has committed; the test kills this process with SIGKILL mid-stream.
import { Ledger } from '../../src/store/ledger';
import { jobRecord } from './builders';

const ledger = Ledger.open(process.argv[2]!);
for (let i = 0; i < 100_000; i++) {
  const id = `j${i}`;
  ledger.transaction(() => {
    ledger.insertJob(jobRecord(id));
    ledger.enqueueAction(id, 'submit', { id });
  });
  process.stdout.write(`${id}\n`);
}
