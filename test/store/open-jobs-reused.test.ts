import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SqliteLedger } from '../../src/store/ledger';
import { jobRecord } from './builders';

/**
 * openAdmittedJobsReused (the poll loop's read of the open jobs, decoded once per change) reads
 * exactly what openAdmittedJobs reads, after any mix of writes: this connection's, rolled-back
 * ones at the same clock reading, and another connection's.
 */
describe('ledger: open admitted jobs read again only when changed', () => {
  const states = ['rejected', 'accepted', 'submitted', 'running', 'finished'] as const;
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      admitted: fc.boolean(),
      state: fc.constantFrom(...states),
    }),
    fc.record({ kind: fc.constant('state' as const), at: fc.nat(), state: fc.constantFrom(...states) }),
    fc.record({ kind: fc.constant('spec' as const), at: fc.nat(), n: fc.nat(3) }),
    fc.record({ kind: fc.constant('rollback' as const), at: fc.nat(), n: fc.nat(3) }),
    fc.record({ kind: fc.constant('other' as const), at: fc.nat(), priority: fc.nat(9) }),
    fc.record({ kind: fc.constant('read' as const) }),
  );

  it('reads what openAdmittedJobs reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-open-'));
    let run = 0;
    try {
      fc.assert(
        fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
          const path = join(dir, `l${run++}.db`);
          // One clock reading for all: a row changed twice reads the same updated_ms.
          const ledger = SqliteLedger.open(path, { clock: () => 1_000 });
          const other = SqliteLedger.open(path, { clock: () => 1_000 });
          const ids: string[] = [];
          const pick = (at: number) => ids[at % ids.length]!;
          try {
            for (const o of ops) {
              if (o.kind === 'insert') {
                const id = `j${ids.length}`;
                ids.push(id);
                ledger.insertJob(
                  jobRecord(id, { decision: o.admitted ? 'admitted' : 'rejected', state: o.state }),
                );
              } else if (ids.length === 0 || o.kind === 'read') {
                // nothing to change
              } else if (o.kind === 'state') ledger.updateJob(pick(o.at), { state: o.state });
              else if (o.kind === 'spec') ledger.updateJob(pick(o.at), { spec: { n: o.n } });
              else if (o.kind === 'rollback') {
                try {
                  ledger.transaction(() => {
                    ledger.updateJob(pick(o.at), { spec: { rolledBack: o.n } });
                    expect(ledger.openAdmittedJobsReused()).toEqual(ledger.openAdmittedJobs());
                    throw new Error('roll back');
                  });
                } catch {
                  // rolled back
                }
              } else other.updateJob(pick(o.at), { priority: o.priority });
              expect(ledger.openAdmittedJobsReused()).toEqual(ledger.openAdmittedJobs());
            }
          } finally {
            ledger.close();
            other.close();
          }
        }),
        { numRuns: 100 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives records of its own on each call', () => {
    const ledger = SqliteLedger.open(':memory:');
    ledger.insertJob(jobRecord('a'));
    const first = ledger.openAdmittedJobsReused();
    first[0]!.state = 'finished';
    expect(ledger.openAdmittedJobsReused()[0]!.state).toBe('accepted');
    ledger.close();
  });
});
