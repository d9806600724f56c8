/**
 * The Ledger's table methods, written once for both stores: each runs its table module
 * (./tables) on the store's tables now, a write first asking the store whether it may write.
 * SqliteLedger's tables are its file's and it always may; PostgresLedger's are its working
 * copy's (replaced by a fresh load), and only its writer may, until a newer one fences it.
 */
import type { Tables } from './tables';
import type {
  ActionCount,
  ActionEnd,
  ActionRecord,
  DecisionRecord,
  IdempotentAnswer,
  JobAppRecord,
  JobCount,
  JobPatch,
  JobQuery,
  JobRecord,
  LedgerTables,
  NewJob,
  TicketClient,
  TicketRecord,
  TicketStatus,
  TrackedApp,
} from './types';

export abstract class TableLedger implements LedgerTables {
  /** The tables the store reads and writes now. */
  protected abstract get tables(): Tables;
  /** Throws when this ledger may not write (a follower's, a fenced writer's). */
  protected abstract assertWritable(): void;

  // --- jobs ---------------------------------------------------------------------------

  insertJob(job: NewJob): JobRecord {
    this.assertWritable();
    return this.tables.jobs.insertJob(job);
  }
  updateJob(id: string, patch: JobPatch): JobRecord {
    this.assertWritable();
    return this.tables.jobs.updateJob(id, patch);
  }
  getJob(id: string): JobRecord | undefined {
    return this.tables.jobs.getJob(id);
  }
  getJobByAppId(appId: string): JobRecord | undefined {
    return this.tables.jobs.getJobByAppId(appId);
  }
  listJobs(query?: JobQuery): { jobs: JobRecord[]; total: number } {
    return this.tables.jobs.listJobs(query);
  }
  openAdmittedJobs(): JobRecord[] {
    return this.tables.jobs.openAdmittedJobs();
  }
  openAdmittedJobsReused(): JobRecord[] {
    return this.tables.openJobs.openAdmittedJobsReused();
  }
  countOpenAdmittedJobs(): number {
    return this.tables.jobs.countOpenAdmittedJobs();
  }
  countJobs(): JobCount[] {
    return this.tables.jobs.countJobs();
  }
  admittedEnergyByLabel(): Array<{ label: string | null; joules: number }> {
    return this.tables.jobs.admittedEnergyByLabel();
  }

  // --- decisions ----------------------------------------------------------------------

  recordDecision(jobId: string, policy: string, decision: string, detail: unknown): number {
    this.assertWritable();
    return this.tables.decisions.recordDecision(jobId, policy, decision, detail);
  }
  decisionsOf(jobId: string): DecisionRecord[] {
    return this.tables.decisions.decisionsOf(jobId);
  }

  // --- actions (the outbox) -----------------------------------------------------------

  enqueueAction(jobId: string | null, kind: string, payload: unknown): ActionRecord {
    this.assertWritable();
    return this.tables.outbox.enqueueAction(jobId, kind, payload);
  }
  markActionAttempt(id: number): void {
    this.assertWritable();
    this.tables.outbox.markActionAttempt(id);
  }
  completeAction(id: number, status: ActionEnd, result?: unknown, error?: string): void {
    this.assertWritable();
    this.tables.outbox.completeAction(id, status, result, error);
  }
  updateActionPayload(id: number, payload: unknown): void {
    this.assertWritable();
    this.tables.outbox.updateActionPayload(id, payload);
  }
  noteActionError(id: number, error: string): void {
    this.assertWritable();
    this.tables.outbox.noteActionError(id, error);
  }
  getAction(id: number): ActionRecord | undefined {
    return this.tables.outbox.getAction(id);
  }
  pendingActions(): ActionRecord[] {
    return this.tables.outbox.pendingActions();
  }
  refusedSubmissions(): Array<{ job: JobRecord; error: string | null }> {
    return this.tables.outbox.refusedSubmissions();
  }
  pendingBacklog(): { pending: number; oldestMs: number | null } {
    return this.tables.outbox.pendingBacklog();
  }
  actionsOf(jobId: string): ActionRecord[] {
    return this.tables.outbox.actionsOf(jobId);
  }
  countActions(): ActionCount[] {
    return this.tables.outbox.countActions();
  }

  // --- idempotency keys ---------------------------------------------------------------

  findIdempotent(submitter: string, key: string): IdempotentAnswer | undefined {
    return this.tables.idempotency.findIdempotent(submitter, key);
  }
  saveIdempotent(submitter: string, key: string, answer: IdempotentAnswer, responseJson?: string): void {
    this.assertWritable();
    this.tables.idempotency.saveIdempotent(submitter, key, answer, responseJson);
  }

  // --- tickets ------------------------------------------------------------------------

  insertTicket(t: Pick<TicketRecord, 'jobId' | 'expiresMs' | 'detail'>): void {
    this.assertWritable();
    this.tables.tickets.insertTicket(t);
  }
  getTicket(jobId: string): TicketRecord | undefined {
    return this.tables.tickets.getTicket(jobId);
  }
  ticketsOf(jobIds: readonly string[]): Map<string, TicketRecord> {
    return this.tables.tickets.ticketsOf(jobIds);
  }
  endTicket(jobId: string, status: Exclude<TicketStatus, 'waiting'>, appId?: string | null): boolean {
    this.assertWritable();
    return this.tables.tickets.endTicket(jobId, status, appId);
  }
  expiredTickets(nowMs: number): TicketRecord[] {
    return this.tables.tickets.expiredTickets(nowMs);
  }
  reportClient(jobId: string, state: TicketClient['state'], exitCode: number | null, atMs: number): boolean {
    this.assertWritable();
    return this.tables.tickets.reportClient(jobId, state, exitCode, atMs);
  }

  // --- the apps of a job --------------------------------------------------------------

  trackJobApp(jobId: string, app: TrackedApp): JobAppRecord | undefined {
    this.assertWritable();
    return this.tables.apps.trackJobApp(jobId, app);
  }
  appsOf(jobId: string): JobAppRecord[] {
    return this.tables.apps.appsOf(jobId);
  }
  appsOfJobs(jobIds: readonly string[]): Map<string, JobAppRecord[]> {
    return this.tables.apps.appsOfJobs(jobIds);
  }
  jobOfApp(appId: string): JobRecord | undefined {
    return this.tables.apps.jobOfApp(appId);
  }
  jobsBetweenApps(): JobRecord[] {
    return this.tables.apps.jobsBetweenApps();
  }

  // --- small named values -------------------------------------------------------------

  getValue<T>(key: string): T | undefined {
    return this.tables.values.getValue<T>(key);
  }
  setValue(key: string, value: unknown): void {
    this.assertWritable();
    this.tables.values.setValue(key, value);
  }
  valuesWithPrefix<T>(prefix: string): Array<{ key: string; value: T }> {
    return this.tables.values.valuesWithPrefix<T>(prefix);
  }
  deleteValue(key: string): void {
    this.assertWritable();
    this.tables.values.deleteValue(key);
  }
}
