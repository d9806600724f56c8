/**
 * What the ledger holds, and the ledger's interface: the records are plain values, free of any
 * store's types, so that the loop, the enforcer and the API depend on this module alone.
 */

export type Decision = 'admitted' | 'rejected';
export type JobState =
  | 'rejected'
  | 'accepted' // admitted, not yet on the RM
  | 'submitted'
  | 'running'
  | 'finished'
  | 'failed'
  | 'killed'
  | 'lost' // its app vanished from the RM (an RM restarted without recovery)
  | 'expired' // a ticket whose app never appeared before it expired
  | 'cancelled'; // a ticket cancelled before its app appeared
/** Every state, in a job's order of life: what GET /api/v1/jobs?state= and the dashboard list. */
export const JOB_STATES = [
  'rejected',
  'accepted',
  'submitted',
  'running',
  'finished',
  'failed',
  'killed',
  'lost',
  'expired',
  'cancelled',
] as const satisfies readonly JobState[];
/**
 * The states a job ends in: it is followed no more, and once it has been closed longer than
 * ledger.retention.archiveAfterDays it may be archived (Ledger.archiveClosedJobs).
 */
export const CLOSED_JOB_STATES = [
  'rejected',
  'finished',
  'failed',
  'killed',
  'lost',
  'expired',
  'cancelled',
] as const satisfies readonly JobState[];
export type Outcome = 'met' | 'missed';
export type ActionStatus = 'pending' | 'done' | 'failed' | 'skipped';
/** The status a pending action is confirmed with. */
export type ActionEnd = Exclude<ActionStatus, 'pending'>;

/** What a job is, as submitted or discovered: shared by its ledger row and its API view. */
export interface JobIdentity {
  id: string;
  name: string;
  user: string;
  submitter: string;
  source: 'api' | 'discovered';
  jobType: string;
  maps: number;
  reduces: number;
  inputBytes: number;
}

export interface JobRecord extends JobIdentity {
  arrivalMs: number;
  deadlineMs: number;
  decision: Decision;
  reason: unknown;
  /** The admission's estimated finish: the promise made when the job was admitted, never changed. */
  estimatedFinishMs: number | null;
  /**
   * A running job's predicted finish: its lane's placement made again from its tasks' progress
   * (src/loop/lane-progress.ts), updated while it runs; null until its tasks were first read.
   */
  predictedFinishMs: number | null;
  earliestDeadlineMs: number | null;
  queue: string | null;
  label: string | null;
  priority: number | null;
  appId: string | null;
  state: JobState;
  outcome: Outcome | null;
  finishedMs: number | null;
  energyJoules: number | null;
  spec: unknown;
  createdMs: number;
  updatedMs: number;
}

export interface ActionRecord {
  id: number;
  jobId: string | null;
  kind: string;
  payload: unknown;
  status: ActionStatus;
  attempts: number;
  result: unknown;
  error: string | null;
  createdMs: number;
  updatedMs: number;
}

export interface DecisionRecord {
  id: number;
  jobId: string;
  atMs: number;
  policy: string;
  decision: string;
  detail: unknown;
}

export interface IdempotentAnswer {
  requestHash: string;
  jobId: string;
  status: number;
  response: unknown;
}

export type TicketStatus = 'waiting' | 'bound' | 'expired' | 'cancelled';

/** A ticket: a job admitted before its app exists, waiting for an app carrying its tag. */
export interface TicketRecord {
  jobId: string;
  status: TicketStatus;
  expiresMs: number;
  /** The first app it was bound to. */
  appId: string | null;
  /** What the client was told: tags and client arguments (the answer's `ticket`). */
  detail: unknown;
  /**
   * What the ticket's client (run) reported of itself, null when it reported nothing (a client
   * given the ticket's arguments by hand): its job is then judged on its first app.
   */
  client: TicketClient | null;
  createdMs: number;
  updatedMs: number;
}

/** A ticket's client as it last reported itself (PUT /api/v1/jobs/{id}/client). */
export interface TicketClient {
  state: 'running' | 'exited';
  /** Its exit code, once exited (128 + n for a signal n). */
  exitCode: number | null;
  /** When it last reported (its first report of `exited` is kept). */
  seenMs: number;
}

/** One app of a job, as the reconciler last tracked it (a ticket's client may run several). */
export interface JobAppRecord {
  jobId: string;
  appId: string;
  /** 1 for the job's first app (its appId), then in the order they were bound. */
  ordinal: number;
  /** The RM's state (NEW ... RUNNING, FINISHED, FAILED, KILLED). */
  state: string;
  finalStatus: string | null;
  queue: string | null;
  startedMs: number | null;
  finishedMs: number | null;
  createdMs: number;
  updatedMs: number;
}

/** What the reconciler tracks of an app (JobAppRecord without the job's and the ledger's fields). */
export type TrackedApp = Pick<
  JobAppRecord,
  'appId' | 'state' | 'finalStatus' | 'queue' | 'startedMs' | 'finishedMs'
>;

export interface JobQuery {
  decision?: Decision;
  state?: JobState;
  queue?: string;
  user?: string;
  limit?: number;
  offset?: number;
}

/** Job counts by decision, state and outcome (the metrics' gauges). */
export interface JobCount {
  decision: Decision;
  state: JobState;
  outcome: Outcome | null;
  n: number;
}

/** Action counts by kind and status. */
export interface ActionCount {
  kind: string;
  status: ActionStatus;
  n: number;
}

/** An archived job as a page of the archive lists it: its row, when it was moved, its ticket and apps. */
export interface ArchivedJob {
  job: JobRecord;
  /**
   * When it was moved; null for a job past the cutoff that a PostgreSQL ledger's load left in
   * the live tables and that is not moved yet (PostgresLedgerOptions.archiveAfterMs).
   */
  archivedMs: number | null;
  ticket: TicketRecord | undefined;
  apps: JobAppRecord[];
}

/** One archived job with everything recorded of it. */
export interface ArchivedJobDetail extends ArchivedJob {
  decisions: DecisionRecord[];
  actions: ActionRecord[];
}

/** What one batch of archiving (or of deleting from the archive) moved, table by table. */
export interface ArchiveBatch {
  /** The jobs moved (or deleted), in no particular order. */
  jobIds: string[];
  /** Rows per table: jobs, decisions, actions, idempotency, tickets, job_apps. */
  rows: Record<string, number>;
}

/**
 * The fields a job's row is written with; the ledger stamps createdMs and updatedMs. A new job
 * has no predicted finish yet unless one is given.
 */
export type NewJob = Omit<JobRecord, 'createdMs' | 'updatedMs' | 'predictedFinishMs'> & {
  predictedFinishMs?: number | null;
};
/** What an update may change: any field but the id and the stamps. */
export type JobPatch = Partial<Omit<JobRecord, 'id' | 'createdMs' | 'updatedMs'>>;

/**
 * The sidecar's ledger, as the loop, the enforcer and the API use it: every job decided on,
 * every decision with its reason, every RM write as an outbox row recorded before the call and
 * confirmed after it, idempotent answers, tickets and small named values (LedgerTables), and
 * the commit and the archive around them. SqliteLedger (src/store/ledger.ts) implements it on a file; PostgresLedger (src/store/postgres.ts) on a
 * PostgreSQL database shared by several sidecars, through an in-memory working copy.
 *
 * Synchronous: every method answers at once, and the loop relies on it (a decision and its rows
 * land in one `transaction` with no await in between). A store on another process ships the
 * changes after they are made; `flush` is the barrier to await before anything outside the
 * ledger (an RM call, an API answer) depends on them being durable.
 */
export interface Ledger extends LedgerTables {
  /**
   * Runs `fn` in one transaction: all of its writes land, or none. Writes queued by writeSoon
   * land in the same commit, before `fn`'s; should `fn` throw, only its own writes roll back.
   */
  transaction<T>(fn: () => T): T;
  /**
   * `transaction` for rows derived from others that the store may lose to a power cut or a crash
   * of the machine, never to a crash of the sidecar's process: the dashboard's samples. SQLite
   * commits it without syncing its file (the next synced commit makes it durable), so a quiet
   * cycle, whose only write is its sample, waits for no disk. With writes queued by writeSoon,
   * or inside another transaction, it is that transaction.
   */
  transactionUnsynced<T>(fn: () => T): T;
  /**
   * Group commit: `fn`'s writes share one commit with the others queued before the next turn of
   * the event loop; resolves once they are durable, rejects with `fn`'s own error (its writes
   * rolled back, the others' kept). `fn` only reads and writes the ledger, nothing else: should
   * another write of its group fail, the group runs again and `fn` with it.
   */
  writeSoon(fn: () => void): Promise<void>;
  /**
   * The durability barrier: resolves once every write made so far is durable (SQLite: committed
   * and its write-ahead log synced; PostgreSQL: shipped and committed there). Rejects with LedgerUnavailableError
   * (retryable: the writes are kept and shipped later) when the store does not answer in time,
   * or LedgerFencedError when a newer writer holds the ledger (the writes are lost to it).
   * Await it after a write and before any effect outside the ledger that depends on it.
   */
  flush(): Promise<void>;
  /** Commits what writeSoon queued, then closes. */
  close(): void;

  /**
   * The archive (ledger.retention), the one part of the ledger that is not synchronous: closed
   * jobs moved out of the live tables, which nothing loads at start and no method of LedgerTables reads.
   *
   * archiveClosedJobs moves, in one transaction, up to `limit` jobs closed (CLOSED_JOB_STATES)
   * and last written before `closedBeforeMs`, none with a pending action or a waiting ticket,
   * with their decisions, actions, idempotent answers, tickets and apps; the totals countJobs
   * reads stay as they were. Resolves once the batch is durable. Writer only (a follower's or a
   * fenced ledger's rejects as a write does); outside a transaction.
   */
  archiveClosedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch>;
  /**
   * Deletes from the archive, in one transaction, up to `limit` archived jobs last written
   * before `closedBeforeMs`, with their rows (their totals stay counted). Writer only.
   */
  deleteArchivedJobs(o: { closedBeforeMs: number; limit: number }): Promise<ArchiveBatch>;
  /** The archived jobs, newest first (then by id), a page at a time, with the total matching. */
  listArchivedJobs(query?: JobQuery): Promise<{ jobs: ArchivedJob[]; total: number }>;
  /** One archived job with its decisions and actions; undefined when the archive has none. */
  getArchivedJob(id: string): Promise<ArchivedJobDetail | undefined>;
}

/**
 * The Ledger's tables: a job's rows, its decisions, the outbox, idempotent answers, tickets, a
 * job's apps and small named values (src/store/tables, a module per concern). Synchronous, as
 * the Ledger; TableLedger (src/store/table-ledger.ts) implements them once for both stores.
 */
export interface LedgerTables {
  insertJob(job: NewJob): JobRecord;
  /** Throws when there is no job `id`. */
  updateJob(id: string, patch: JobPatch): JobRecord;
  getJob(id: string): JobRecord | undefined;
  getJobByAppId(appId: string): JobRecord | undefined;
  /** The live jobs (none archived), newest first, a page at a time, with the total matching. */
  listJobs(query?: JobQuery): { jobs: JobRecord[]; total: number };
  /** Admitted jobs not yet ended, by deadline: the queue admission state is rebuilt from. */
  openAdmittedJobs(): JobRecord[];
  /**
   * The same jobs as openAdmittedJobs, each row decoded again only when it changed: for the
   * poll loop, which reads them every cycle. The records' JSON values (spec, reason) are shared
   * between calls: read them, never change them in place.
   */
  openAdmittedJobsReused(): JobRecord[];
  countOpenAdmittedJobs(): number;
  /** Every job ever decided, archived and deleted ones included, by decision, state and outcome. */
  countJobs(): JobCount[];
  /** The energy of the admitted jobs (those that recorded one, archived ones too), by partition label. */
  admittedEnergyByLabel(): Array<{ label: string | null; joules: number }>;

  /** Records a decision on a job; returns its id. */
  recordDecision(jobId: string, policy: string, decision: string, detail: unknown): number;
  decisionsOf(jobId: string): DecisionRecord[];

  /** Records an RM write before it is made (the outbox). */
  enqueueAction(jobId: string | null, kind: string, payload: unknown): ActionRecord;
  /** Counts an attempt just before the call goes out. */
  markActionAttempt(id: number): void;
  /** Confirms a pending write (throws when it is not pending). */
  completeAction(id: number, status: ActionEnd, result?: unknown, error?: string): void;
  /** Keeps what an action learned before its write (a reservation id it was handed). */
  updateActionPayload(id: number, payload: unknown): void;
  /** Records a failed attempt, leaving the action pending. */
  noteActionError(id: number, error: string): void;
  getAction(id: number): ActionRecord | undefined;
  /** Pending actions in the order they were recorded. */
  pendingActions(): ActionRecord[];
  /** Admitted jobs whose submission the RM refused for good, with the refusal. */
  refusedSubmissions(): Array<{ job: JobRecord; error: string | null }>;
  pendingBacklog(): { pending: number; oldestMs: number | null };
  actionsOf(jobId: string): ActionRecord[];
  countActions(): ActionCount[];

  findIdempotent(submitter: string, key: string): IdempotentAnswer | undefined;
  /** `responseJson`, when given, is JSON.stringify(answer.response), stored as it is. */
  saveIdempotent(submitter: string, key: string, answer: IdempotentAnswer, responseJson?: string): void;

  insertTicket(t: Pick<TicketRecord, 'jobId' | 'expiresMs' | 'detail'>): void;
  getTicket(jobId: string): TicketRecord | undefined;
  /** The tickets of the given jobs, by job id. */
  ticketsOf(jobIds: readonly string[]): Map<string, TicketRecord>;
  /** Ends a waiting ticket; false when it was not waiting any more. */
  endTicket(jobId: string, status: Exclude<TicketStatus, 'waiting'>, appId?: string | null): boolean;
  /** Waiting tickets whose expiry is at or before `nowMs`. */
  expiredTickets(nowMs: number): TicketRecord[];
  /**
   * What a ticket's client reported of itself: running (again: a heartbeat), or exited with its
   * code. An exit is kept once reported (a later report changes nothing); false when the job
   * has no ticket or its client had already exited.
   */
  reportClient(jobId: string, state: TicketClient['state'], exitCode: number | null, atMs: number): boolean;

  /**
   * Records one app of a job as tracked now: a new app takes the next ordinal. Returns the row
   * as it was before (undefined for a new app).
   */
  trackJobApp(jobId: string, app: TrackedApp): JobAppRecord | undefined;
  /** A job's apps, first bound first. */
  appsOf(jobId: string): JobAppRecord[];
  /** The apps of the given jobs, by job id (one query for a page of jobs). */
  appsOfJobs(jobIds: readonly string[]): Map<string, JobAppRecord[]>;
  /** The job an app was bound to as one of its apps (job_apps), first or later. */
  jobOfApp(appId: string): JobRecord | undefined;
  /**
   * Admitted open jobs of a ticket whose client reported itself, with at least one app and every
   * app ended: jobs between apps, waiting for their client's next app or its exit.
   */
  jobsBetweenApps(): JobRecord[];

  /** A small named value (learned estimates, controller state), as JSON. */
  getValue<T>(key: string): T | undefined;
  setValue(key: string, value: unknown): void;
  /** The named values whose key starts with `prefix` (not empty), in the order of their keys. */
  valuesWithPrefix<T>(prefix: string): Array<{ key: string; value: T }>;
  deleteValue(key: string): void;
}
