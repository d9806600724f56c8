/**
 * The ledger's tables, one module per concern, on one SQLite connection (a SqlRunner): what
 * both stores read and write, the SQLite ledger on its file, the PostgreSQL ledger on its
 * working copy. TableLedger (../table-ledger.ts) is the Ledger's face on them.
 */
import { ArchiveTables } from './archive';
import { DecisionTable } from './decisions';
import { IdempotencyTable } from './idempotency';
import { JobAppTable } from './job-apps';
import { JobTable } from './jobs';
import { OpenJobs } from './open-jobs';
import { Outbox } from './outbox';
import type { SqlRunner } from './sql';
import { TicketTable } from './tickets';
import { ValueTable } from './values';

export class Tables {
  readonly jobs: JobTable;
  readonly openJobs: OpenJobs;
  readonly decisions: DecisionTable;
  readonly outbox: Outbox;
  readonly idempotency: IdempotencyTable;
  readonly tickets: TicketTable;
  readonly apps: JobAppTable;
  readonly values: ValueTable;
  readonly archive: ArchiveTables;

  constructor(run: SqlRunner, transaction: <T>(fn: () => T) => T) {
    this.jobs = new JobTable(run);
    this.openJobs = new OpenJobs(run, this.jobs);
    this.decisions = new DecisionTable(run);
    this.outbox = new Outbox(run);
    this.idempotency = new IdempotencyTable(run);
    this.tickets = new TicketTable(run);
    this.apps = new JobAppTable(run);
    this.values = new ValueTable(run);
    this.archive = new ArchiveTables(run, transaction);
  }
}
