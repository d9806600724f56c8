import { EmulatedRmRejection, remoteRejection, textRejection } from '../errors/emulated-rm-rejection';
import { silentLogger, type Logger } from '../log';
import { Engine, type EngineSnapshot, type TaskRecord } from '../sim/engine';
import { MB, type JobType, type TraceJob } from '../sim/model';
import type { MapAssignment } from '../sim/policy-port';
import { formatExpiryTime, isRmExpiryFormat, parseExpiryTime } from '../yarn/expiry';
import { queueLeaf } from '../yarn/ids';
import type { SimTime } from './clock';
import { aclAllows, checkEmulatorConfig, type EmulatorConfig, type QueueConfig } from './config';
import { undeclaredThrowable } from './http';
import type { SubmissionContext } from './submission-context';
import { placementPort as simPlacementPort } from '../sim/policies';
import { admitAllPort, capacityScheduler, nodePartition, type Hold, type JobPlacementInfo } from './ports';

/**
 * The ResourceManager's state over the simulator: applications and their ids, queues, priority
 * caps, lifetimes, reservations, and the simulated MapReduce job behind every application.
 *
 * Transport-free: the express layer (rm-app.ts, jhs-app.ts) parses requests into these calls and
 * renders what they return; a refusal is an EmulatedRmRejection carrying the RM's status and
 * body kind (INDEX.md sections 6 and 9). Every call first brings the simulation up to the
 * current scaled time (`sync`), killing apps whose lifetime ran out on the way.
 */

export type AppState =
  'NEW' | 'NEW_SAVING' | 'SUBMITTED' | 'ACCEPTED' | 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';
export const APP_STATES: readonly AppState[] = [
  'NEW',
  'NEW_SAVING',
  'SUBMITTED',
  'ACCEPTED',
  'RUNNING',
  'FINISHED',
  'FAILED',
  'KILLED',
];
const FINAL: ReadonlySet<string> = new Set(['FINISHED', 'FAILED', 'KILLED']);

/**
 * The RM's own state of an app (RMAppState), which `GET /apps/{id}/state` and the answer to a
 * kill speak, though the app report never shows it: FINISHING while the AM has unregistered
 * and its container is still to end (the report says FINISHED already), KILLING while a kill
 * waits for the attempt, FINAL_SAVING while the end is stored (measured on 3.4.3).
 */
export type RmAppState = AppState | 'FINAL_SAVING' | 'FINISHING' | 'KILLING';

/**
 * RMAppState's for which the end is stored: a kill changes nothing (ClientRMService answers
 * it done, 200 with this state) and a move is refused.
 */
const FINAL_STORED: ReadonlySet<string> = new Set(['FINISHING', 'FINISHED', 'FAILED', 'KILLED']);

/**
 * Simulated seconds an app is FINISHING after its last task: the MapReduce AM has unregistered
 * and its container has yet to exit and be reported by its NodeManager. 6 to 7 seconds on a
 * real RM 3.4.3 with SleepJobs.
 */
export const FINISHING_SECONDS = 6;

/**
 * Simulated seconds one attempt of an AM that exits at once lasts: on a real RM 3.4.3 an app
 * with an empty AM command failed its 2 attempts in about a second.
 */
export const AM_ATTEMPT_SECONDS = 0.5;

/** The RM's diagnostics when the lifetime monitor kills an app (RMAppLifetimeMonitor). */
export const LIFETIME_DIAGNOSTICS =
  'Application is killed by ResourceManager as it has exceeded the lifetime period.';

export interface AppRecord {
  id: string;
  seq: number;
  name: string;
  user: string;
  /** Leaf queue name (the name as given for a queue that does not exist). */
  queue: string;
  /** False when the submission named a queue the scheduler does not have. */
  queueKnown: boolean;
  priority: number;
  applicationType: string;
  /** Lower-cased and de-duplicated, as YARN stores them. */
  tags: string[];
  appNodeLabelExpression: string;
  /** The AM's label expression: the one given, else the app's (as the RM reports it). */
  amNodeLabelExpression: string;
  /** The partition its containers run in ('' = default). */
  partition: string;
  /** The submission context as received (submission-context.ts). */
  context: SubmissionContext;
  /** An unmanaged AM: the app waits in ACCEPTED for an AM the emulator never runs. */
  unmanaged: boolean;
  /**
   * The AM exits at once (no command): its attempts, each AM_ATTEMPT_SECONDS from the app's
   * submission on, and the app FAILED after the last. `localLimit` is the submission's
   * max-app-attempts when it is below the RM's global limit.
   */
  amFailure: { attempts: number; globalLimit: number; localLimit: number | undefined } | null;
  submittedSeconds: number;
  jobType: JobType;
  maps: number;
  reduces: number;
  inputBytes: number;
  deadlineEpochMs: number | null;
  lifetimeExpiryMs: number | null;
  /** Simulated second the app was killed (by a PUT or its lifetime). */
  killedSeconds: number | null;
  /**
   * When the app FAILS: at once for an unknown queue, after its attempts for an AM that exits
   * (the app is FAILED from this simulated second on).
   */
  failedSeconds: number | null;
  diagnostics: string[];
  reservationId: string | null;
  amResource: { memoryMB: number; vcores: number };
  inEngine: boolean;
}

/** POST /apps as the express layer read it: the context, and who sent it. */
export interface Submission {
  context: SubmissionContext;
  /** The authenticated user; undefined for an anonymous call (`defaultUser`). */
  user: string | undefined;
}

export interface ReservationRequestSpec {
  memoryMB: number;
  vcores: number;
  numContainers: number;
  minConcurrency: number;
  durationMs: number;
}

export interface ReservationSpec {
  arrival: number;
  deadline: number;
  name: string;
  priority: number | undefined;
  recurrenceExpression: string | undefined;
  interpreter: number;
  requests: ReservationRequestSpec[];
}

export interface Allocation {
  startTime: number;
  endTime: number;
  containers: number;
  memoryMB: number;
  vcores: number;
}

export interface ReservationRecord {
  id: string;
  queue: string;
  user: string;
  acceptanceTime: number;
  definition: ReservationSpec;
  allocations: Allocation[];
}

/** What the express layer needs for an answer about one app. */
export interface AppView {
  rec: AppRecord;
  /** YarnApplicationState, as the app report and the apps list show it. */
  state: AppState;
  /** RMAppState, as `GET /apps/{id}/state` says it (FINISHING for a while after FINISHED). */
  rmState: RmAppState;
  finalStatus: 'UNDEFINED' | 'SUCCEEDED' | 'FAILED' | 'KILLED';
  startedTime: number;
  finishedTime: number;
  elapsedTime: number;
  progress: number;
  runningContainers: number;
  pendingMaps: number;
  mapsDone: number;
  reducesDone: number;
  /** Simulated seconds the job first ran a task, or null. */
  launchedSeconds: number | null;
}

export interface AppQueryFilter {
  states?: string[];
  finalStatus?: string;
  user?: string;
  queue?: string;
  limit?: number;
  startedTimeBegin?: number;
  startedTimeEnd?: number;
  finishedTimeBegin?: number;
  finishedTimeEnd?: number;
  applicationTypes?: string[];
  applicationTags?: string[];
  name?: string;
}

/** A file of the emulated HDFS that a simulated job may read: its blocks, by engine block id. */
export interface InputFile {
  readonly path: string;
  readonly blocks: ReadonlyArray<{ readonly id: string; readonly bytes: number }>;
}

/** `/a//b/` -> `/a/b`: the form input files are kept and looked up in. */
function normalisePath(path: string): string {
  return `/${path.split('/').filter(Boolean).join('/')}`;
}

export interface NodeUsage {
  id: string;
  host: string;
  className: string;
  labels: string[];
  alive: boolean;
  containers: number;
  usedContainers: number;
  gpus: number;
  usedGpus: number;
}

const pad4 = (n: number) => String(n).padStart(4, '0');

function positiveInt(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * A deadline tag's value. Tags arrive lower-cased (YARN lower-cases every tag), so
 * `2030-01-01t10:00:00z` must read as 2030-01-01T10:00:00Z.
 */
export function parseDeadlineTag(value: string): number | undefined {
  const text = value.toUpperCase();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/.test(text))
    return undefined;
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : undefined;
}

export class EmulatedRm {
  readonly config: EmulatorConfig;
  readonly time: SimTime;
  readonly engine: Engine;
  /** clusterTimestamp of every id this RM hands out. */
  readonly clusterTimestamp: number;
  private readonly apps = new Map<string, AppRecord>();
  private readonly reservations = new Map<string, ReservationRecord>();
  private readonly issuedReservations = new Set<string>();
  private seq = 0;
  private reservationSeq = 0;
  private readonly queues: Map<string, QueueConfig>;
  private readonly gpuStarted = new Map<string, number>();
  private readonly gpuEnded = new Map<string, number>();
  private tasksSeen = 0;
  private readonly lifetimeHandled = new Set<string>();
  private readonly nodeHosts: string[] = [];
  /** Partition of each node, by the engine's node index. */
  private readonly nodePartitions: string[] = [];
  private readonly nodeClassOf = new Map<string, { containers: number; gpus: number }>();
  /** The HDFS files jobs can read, by lower-cased path (tags arrive lower-cased). */
  private readonly inputFiles = new Map<string, InputFile>();
  private readonly log: Logger;

  constructor(config: EmulatorConfig, time: SimTime, seed: number, log: Logger = silentLogger()) {
    this.log = log.child({ component: 'emulated-rm' });
    const problems = checkEmulatorConfig(config);
    if (problems.length > 0) throw new RangeError(`emulator configuration: ${problems.join('; ')}`);
    this.config = config;
    this.time = time;
    this.clusterTimestamp = time.startEpochMs;
    this.queues = new Map(config.queues.map((q) => [q.name, q]));
    const orderKeys = new Map<string, number>();
    const inner = simPlacementPort(
      config.placementPolicy,
      (config.placementArgs ?? {}) as Record<string, unknown>,
      config.cluster,
      {
        nodeId: (i) => this.engine.nodeId(i),
        orderKeyMs: (job) => orderKeys.get(job.id) ?? job.spec.arrival * 1000,
      },
    );
    const bindings = {
      nodeId: (i: number) => this.engine.nodeId(i),
      job: (id: string) => this.placementInfo(id),
      partitionContainers: (p: string) => this.partitionContainers(p),
      guaranteedContainers: (q: string, p: string) => this.queueContainers(q, p, 'capacity'),
      maxContainers: (q: string, p: string) => this.queueContainers(q, p, 'max'),
      holds: (p: string, now: number) => this.holds(p, now),
      started: (nodeId: string, as: readonly MapAssignment[]) => this.noteStarted(nodeId, as),
    };
    const port = capacityScheduler(inner, orderKeys, () => bindings);
    this.engine = new Engine(config.cluster, { seed, admission: admitAllPort(), placement: port });
    const unified = config.cluster.slotModel === 'unified';
    for (const cls of config.cluster.nodeClasses) {
      for (let i = 0; i < cls.count; i++) {
        this.nodeClassOf.set(`${cls.name}-${i + 1}`, {
          containers: unified ? cls.containers : cls.mapSlots + cls.reduceSlots,
          gpus: cls.gpuContainers,
        });
        // The engine numbers nodes in this same order (class by class).
        this.nodePartitions.push(nodePartition(cls.labels));
      }
    }
    for (let i = 0; i < this.engine.nodeCount; i++) this.nodeHosts.push(this.engine.nodeId(i));
  }

  // ------------------------------------------------------------------ time

  /**
   * Bring the simulation to the current scaled time. Lifetimes are processed in expiry order,
   * each at its own simulated instant, so an app killed at its lifetime stops exactly there.
   */
  sync(): void {
    const target = Math.max(this.engine.now, this.time.seconds());
    for (;;) {
      let next: AppRecord | undefined;
      for (const rec of this.apps.values()) {
        if (rec.lifetimeExpiryMs === null || this.lifetimeHandled.has(rec.id)) continue;
        if (rec.killedSeconds !== null || rec.failedSeconds !== null) continue;
        if (!next || rec.lifetimeExpiryMs < next.lifetimeExpiryMs!) next = rec;
      }
      if (!next) break;
      const at = Math.max(this.engine.now, this.time.fromEpochMs(next.lifetimeExpiryMs!));
      if (at > target) break;
      this.engine.advanceTo(at);
      this.lifetimeHandled.add(next.id);
      // An app that finished before its lifetime has nothing left to kill.
      if (!this.isFinal(next)) this.killNow(next, LIFETIME_DIAGNOSTICS);
    }
    this.engine.advanceTo(target);
    this.countEndedGpuTasks();
  }

  private countEndedGpuTasks(): void {
    const records = this.engine.taskRecords();
    for (; this.tasksSeen < records.length; this.tasksSeen++) {
      const t = records[this.tasksSeen]!;
      if (t.container === 'gpu') this.gpuEnded.set(t.node, (this.gpuEnded.get(t.node) ?? 0) + 1);
    }
  }

  private noteStarted(nodeId: string, assignments: readonly MapAssignment[]): void {
    const gpus = assignments.filter((a) => a.containerKind === 'gpu').length;
    if (gpus > 0) this.gpuStarted.set(nodeId, (this.gpuStarted.get(nodeId) ?? 0) + gpus);
  }

  epoch(seconds: number): number {
    return this.time.toEpochMs(seconds);
  }

  // ------------------------------------------------------------------ HDFS input

  /**
   * Places a file's blocks in the simulated cluster (block i on `blocks[i].nodes`, by node
   * index), so a job that reads the file runs its maps where HDFS keeps the data. Each block
   * is the engine block `${path}#${i}`; the engine refuses one placed before.
   */
  placeInputFile(
    path: string,
    blocks: ReadonlyArray<{ bytes: number; nodes: readonly number[] }>,
  ): InputFile {
    const p = normalisePath(path);
    const key = p.toLowerCase();
    if (this.inputFiles.has(key)) throw new RangeError(`HDFS file ${p} is already placed`);
    const placed = blocks.map((b, i) => {
      const id = `${p}#${i}`;
      this.engine.placeBlock(id, b.nodes);
      return { id, bytes: b.bytes };
    });
    const file: InputFile = { path: p, blocks: placed };
    this.inputFiles.set(key, file);
    return file;
  }

  /** The files a path names: the file itself, or every file under a directory; in path order. */
  inputFilesUnder(path: string): InputFile[] {
    const p = normalisePath(path).toLowerCase();
    const prefix = p === '/' ? '/' : `${p}/`;
    return [...this.inputFiles.entries()]
      .filter(([key]) => key === p || key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, f]) => f);
  }

  // ------------------------------------------------------------------ lookups

  queue(name: string): QueueConfig | undefined {
    return this.queues.get(queueLeaf(name));
  }

  get queueConfigs(): readonly QueueConfig[] {
    return this.config.queues;
  }

  private placementInfo(id: string): JobPlacementInfo | undefined {
    const rec = this.apps.get(id);
    return rec
      ? { partition: rec.partition, queue: rec.queue, user: rec.user, reservationId: rec.reservationId }
      : undefined;
  }

  /** Containers of a partition on live nodes. */
  partitionContainers(partition: string): number {
    let n = 0;
    for (let i = 0; i < this.nodeHosts.length; i++) {
      if (this.nodePartitions[i] !== partition || !this.engine.nodeAlive(i)) continue;
      n += this.nodeClassOf.get(this.nodeHosts[i]!)!.containers;
    }
    return n;
  }

  /**
   * Reservations holding containers of a partition at simulated second `now`: the containers
   * of their allocations whose window [startTime, endTime) contains it. Reservations are
   * planned in the default partition only (see plan).
   */
  holds(partition: string, now: number): ReadonlyMap<string, Hold> {
    const out = new Map<string, Hold>();
    if (partition !== '' || this.reservations.size === 0) return out;
    const t = this.epoch(now);
    for (const r of this.reservations.values()) {
      let containers = 0;
      for (const a of r.allocations) if (a.startTime <= t && t < a.endTime) containers += a.containers;
      if (containers > 0) out.set(r.id, { containers, queue: r.queue });
    }
    return out;
  }

  /** Percent of a partition a queue is guaranteed (capacity) or may use at most. */
  queueShare(q: QueueConfig, partition: string, which: 'capacity' | 'max'): number {
    if (partition === '') return which === 'capacity' ? q.capacity : q.maxCapacity;
    if (!q.accessibleNodeLabels.includes(partition)) return 0;
    // Per-label maximum capacity is not configurable here: a queue may use all of a partition it can reach.
    return which === 'capacity' ? (q.labelCapacity[partition] ?? 0) : 100;
  }

  /**
   * Containers a queue is guaranteed (capacity) or may hold at most (max) in a partition. The
   * guarantee is fractional (40% of 32 is 12.8): the queue ordering compares shares, not counts.
   */
  private queueContainers(queue: string, partition: string, which: 'capacity' | 'max'): number {
    const q = this.queues.get(queue);
    if (!q) return 0;
    const exact = (this.partitionContainers(partition) * this.queueShare(q, partition, which)) / 100;
    return which === 'max' ? Math.floor(exact + 1e-9) : exact;
  }

  mustApp(appId: string): AppRecord {
    checkAppId(appId);
    const rec = this.apps.get(appId);
    if (!rec) {
      // The RM's message for an unknown app id (RMWebServices.getRMAppForAppId).
      throw remoteRejection(404, 'NotFoundException', `java.lang.Exception: app with id: ${appId} not found`);
    }
    return rec;
  }

  /** The submission context an app was submitted with, as received. */
  submissionOf(appId: string): SubmissionContext | undefined {
    return this.apps.get(appId)?.context;
  }

  /** The caller as the RM names it in its refusals: the user, or the static web user. */
  private callerName(caller: string | undefined): string {
    return caller && caller !== '' ? caller : this.config.defaultUser;
  }

  /**
   * MODIFY_APP with `yarn.acl.enable`: the owner or an admin (`yarn.admin.acl`). The refusal is
   * the web services' 403 text entity, `Unauthorized attempt to <what> by remote user <u>`.
   */
  private checkModify(rec: AppRecord, caller: string | undefined, what: string): void {
    if (!this.config.aclEnabled) return;
    const user = this.callerName(caller);
    if (user === rec.user || aclAllows(this.config.adminAcl, user)) return;
    throw textRejection(403, `Unauthorized attempt to ${what} by remote user ${user}`);
  }

  /** SUBMIT_APPLICATIONS on a queue with `yarn.acl.enable`. */
  private maySubmit(queue: QueueConfig, user: string): boolean {
    return !this.config.aclEnabled || aclAllows(queue.submitAcl ?? '*', user);
  }

  private snapshotJobs(): Map<string, EngineSnapshot['jobs'][number]> {
    return new Map(this.engine.snapshot().jobs.map((j) => [j.id, j]));
  }

  private isFinal(rec: AppRecord): boolean {
    return FINAL.has(this.view(rec).state);
  }

  /** The app as the RM reports it now. */
  view(rec: AppRecord, jobs?: Map<string, EngineSnapshot['jobs'][number]>): AppView {
    const v = this.reportView(rec, jobs);
    // The AM has unregistered (the report says FINISHED) and its container still runs.
    const finishing =
      v.state === 'FINISHED' &&
      this.engine.now < this.time.fromEpochMs(v.finishedTime) + FINISHING_SECONDS - 1e-9;
    return { ...v, rmState: finishing ? 'FINISHING' : v.state };
  }

  private reportView(
    rec: AppRecord,
    jobs?: Map<string, EngineSnapshot['jobs'][number]>,
  ): Omit<AppView, 'rmState'> {
    const job = (jobs ?? this.snapshotJobs()).get(rec.id);
    const startedTime = this.epoch(rec.submittedSeconds);
    const nowMs = this.time.nowEpochMs();
    const base = {
      rec,
      startedTime,
      runningContainers: 0,
      pendingMaps: job ? job.mapsPending : rec.inEngine ? rec.maps : 0,
      mapsDone: job?.mapsDone ?? 0,
      reducesDone: job?.reducesDone ?? 0,
      launchedSeconds: null as number | null,
    };
    const totalTasks = rec.maps + rec.reduces;
    const progress = job ? (100 * (job.mapsDone + job.reducesDone)) / Math.max(1, totalTasks) : 0;
    const failed = rec.failedSeconds !== null && rec.failedSeconds <= this.engine.now + 1e-9;
    if (rec.killedSeconds !== null && !(failed && rec.failedSeconds! < rec.killedSeconds)) {
      const finishedTime = this.epoch(rec.killedSeconds);
      return {
        ...base,
        state: 'KILLED',
        finalStatus: 'KILLED',
        finishedTime,
        elapsedTime: finishedTime - startedTime,
        progress: 100,
      };
    }
    if (failed) {
      const finishedTime = this.epoch(rec.failedSeconds!);
      return {
        ...base,
        state: 'FAILED',
        finalStatus: 'FAILED',
        finishedTime,
        elapsedTime: finishedTime - startedTime,
        // 0.0 as the RM reports an app whose AM never ran.
        progress: 0,
      };
    }
    if (rec.unmanaged || rec.amFailure) {
      // Waiting for an AM to register: an unmanaged one, or a failing one between attempts.
      return {
        ...base,
        state: 'ACCEPTED',
        finalStatus: 'UNDEFINED',
        finishedTime: 0,
        elapsedTime: nowMs - startedTime,
        progress: 0,
      };
    }
    if (!job)
      return {
        ...base,
        state: 'NEW',
        finalStatus: 'UNDEFINED',
        finishedTime: 0,
        elapsedTime: nowMs - startedTime,
        progress: 0,
      };
    const running = job.mapsRunning + job.reducesRunning;
    switch (job.status) {
      case 'waiting':
        return {
          ...base,
          state: 'SUBMITTED',
          finalStatus: 'UNDEFINED',
          finishedTime: 0,
          elapsedTime: nowMs - startedTime,
          progress: 0,
        };
      case 'admitted':
        return {
          ...base,
          state: 'ACCEPTED',
          finalStatus: 'UNDEFINED',
          finishedTime: 0,
          elapsedTime: nowMs - startedTime,
          progress,
        };
      case 'running':
        return {
          ...base,
          state: 'RUNNING',
          finalStatus: 'UNDEFINED',
          finishedTime: 0,
          elapsedTime: nowMs - startedTime,
          progress,
          runningContainers: running,
        };
      case 'finished': {
        const finishedTime = this.epoch(job.finish!);
        return {
          ...base,
          state: 'FINISHED',
          finalStatus: 'SUCCEEDED',
          finishedTime,
          elapsedTime: finishedTime - startedTime,
          progress: 100,
        };
      }
      case 'rejected':
      case 'killed': {
        const finishedTime = this.epoch(job.finish ?? this.engine.now);
        return {
          ...base,
          state: 'KILLED',
          finalStatus: 'KILLED',
          finishedTime,
          elapsedTime: finishedTime - startedTime,
          progress,
        };
      }
    }
  }

  /** Every app, in id order, with its current view. */
  allViews(): AppView[] {
    const jobs = this.snapshotJobs();
    return [...this.apps.values()].sort((a, b) => a.seq - b.seq).map((r) => this.view(r, jobs));
  }

  queryApps(f: AppQueryFilter): AppView[] {
    const states = f.states?.map((s) => s.toUpperCase());
    const types = f.applicationTypes?.map((t) => t.toUpperCase());
    const tags = f.applicationTags?.map((t) => t.toLowerCase());
    const out: AppView[] = [];
    for (const v of this.allViews()) {
      if (states && states.length > 0 && !states.includes(v.state)) continue;
      if (f.finalStatus && v.finalStatus !== f.finalStatus.toUpperCase()) continue;
      if (f.user && v.rec.user !== f.user) continue;
      // The app's current queue, finished apps included, by leaf or full path (measured on
      // 3.4.3, where INDEX.md row 4 expected unfinished apps only).
      if (f.queue && (!v.rec.queueKnown || v.rec.queue !== queueLeaf(f.queue))) continue;
      if (f.startedTimeBegin !== undefined && v.startedTime < f.startedTimeBegin) continue;
      if (f.startedTimeEnd !== undefined && v.startedTime > f.startedTimeEnd) continue;
      if (f.finishedTimeBegin !== undefined && v.finishedTime < f.finishedTimeBegin) continue;
      if (f.finishedTimeEnd !== undefined && v.finishedTime > f.finishedTimeEnd) continue;
      if (types && types.length > 0 && !types.includes(v.rec.applicationType.toUpperCase())) continue;
      if (tags && tags.length > 0 && !tags.some((t) => v.rec.tags.includes(t))) continue;
      if (f.name && v.rec.name !== f.name) continue;
      out.push(v);
      if (f.limit !== undefined && out.length >= f.limit) break;
    }
    return out;
  }

  // ------------------------------------------------------------------ nodes

  nodeUsage(): NodeUsage[] {
    return this.engine.snapshot().nodes.map((n) => {
      const shape = this.nodeClassOf.get(n.id)!;
      const usedGpus = (this.gpuStarted.get(n.id) ?? 0) - (this.gpuEnded.get(n.id) ?? 0);
      return {
        id: `${n.id}:45454`,
        host: n.id,
        className: n.className,
        labels: n.labels,
        alive: n.alive,
        containers: shape.containers,
        usedContainers: n.runningTasks,
        gpus: shape.gpus,
        usedGpus,
      };
    });
  }

  /** Containers apps of a queue hold now in a partition. */
  queueUsage(): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>();
    for (const v of this.allViews()) {
      if (v.runningContainers === 0) continue;
      const byPart = out.get(v.rec.queue) ?? new Map<string, number>();
      byPart.set(v.rec.partition, (byPart.get(v.rec.partition) ?? 0) + v.runningContainers);
      out.set(v.rec.queue, byPart);
    }
    return out;
  }

  labels(): string[] {
    return [
      ...new Set(this.config.cluster.nodeClasses.filter((c) => c.count > 0).flatMap((c) => c.labels)),
    ].sort();
  }

  // ------------------------------------------------------------------ writes: apps

  newApplication(): string {
    return `application_${this.clusterTimestamp}_${pad4(++this.seq)}`;
  }

  /** The largest container a node can hold: its whole memory and vcores. */
  maximumAllocation(): { memoryMB: number; vcores: number } {
    const most = Math.max(...[...this.nodeClassOf.values()].map((c) => c.containers));
    return { memoryMB: most * this.config.containerMemoryMB, vcores: most * this.config.containerVcores };
  }

  /**
   * POST /apps (INDEX.md 9.4), as a real RM 3.4.3 answered it. Refusals the RM makes at once
   * are thrown (400 BadRequestException, the app not created): an id that does not parse, too
   * many or too long tags, a label the queue may not use or the cluster does not have, a queue
   * the user may not submit to (`aclEnabled`). An id already submitted is accepted again and
   * changes nothing. The app is then created:
   * - an unknown queue: FAILED at once (the scheduler rejects it after the 202);
   * - an unmanaged AM: ACCEPTED until killed (its AM would register over RPC);
   * - no AM command (missing or blank): the AM exits at once, each attempt fails, and the app
   *   is FAILED after min(max-app-attempts, amMaxAttempts) attempts;
   * - otherwise the simulated MapReduce job its tags describe runs.
   * Priority: absent is -1, as the web services pass it; above the cap, the cap.
   */
  submit(s: Submission): AppRecord {
    const c = s.context;
    const id = c.applicationId;
    if (id === undefined || !/^application_\d+_\d+$/.test(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Could not parse application id ${id ?? ''}`,
      );
    }
    // ClientRMService: "This is an earlier submitted application": accepted, nothing changes.
    const earlier = this.apps.get(id);
    if (earlier) return earlier;
    if (c.reservationId !== undefined && c.reservationId !== '' && !this.reservations.has(c.reservationId)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${c.reservationId} not found`,
      );
    }
    const user = s.user && s.user !== '' ? s.user : this.config.defaultUser;
    const diagnostics: string[] = [];
    // YARN stores tags lower-cased and as a set (ApplicationSubmissionContextPBImpl.setApplicationTags),
    // reported in sorted order (measured on 3.4.3). The RM checks the set it was given, before
    // lower-casing: `A` and `a` count as two there, one once stored.
    checkApplicationTags([...new Set(c.applicationTags.filter((t) => t.trim() !== ''))]);
    const tags = [
      ...new Set(c.applicationTags.map((t) => t.trim().toLowerCase()).filter((t) => t !== '')),
    ].sort();
    const tag = (key: string): string | undefined =>
      tags.find((t) => t.startsWith(`${key}:`))?.slice(key.length + 1);
    const sized = (key: string, dflt: number, min: number): number => {
      const raw = tag(key);
      if (raw === undefined) return dflt;
      const n = key === 'reduces' && raw === '0' ? 0 : positiveInt(raw);
      if (n === undefined || n < min) {
        diagnostics.push(`emulator: tag ${key}:${raw} is not a whole number >= ${min}; ${dflt} used`);
        return dflt;
      }
      return n;
    };
    let maps = sized('maps', this.config.defaultJob.maps, 1);
    const reduces = sized('reduces', this.config.defaultJob.reduces, 0);
    let inputBytes = sized(
      'input-bytes',
      tag('maps') !== undefined
        ? Math.round((this.config.defaultJob.inputBytes / this.config.defaultJob.maps) * maps)
        : this.config.defaultJob.inputBytes,
      1,
    );
    // `input:PATH` tags (one per path, as the sidecar writes them): the files' blocks become
    // the map inputs, one map per block unless `maps:` says otherwise, and their bytes the input.
    const input = this.resolveInput(
      id,
      tags.filter((t) => t.startsWith('input:')).map((t) => t.slice('input:'.length)),
    );
    if (input && tag('maps') === undefined) maps = input.blocks.length;
    if (input) inputBytes = input.bytes;
    const rawType = tag('type');
    let jobType: JobType = 'cpu';
    if (rawType === 'gpu' || rawType === 'adaptive' || rawType === 'cpu') jobType = rawType;
    else if (rawType !== undefined)
      diagnostics.push(`emulator: tag type:${rawType} is not cpu, gpu or adaptive; cpu used`);
    let deadlineEpochMs: number | null = null;
    const rawDeadline = tag('deadline');
    if (rawDeadline !== undefined) {
      const d = parseDeadlineTag(rawDeadline);
      if (d === undefined)
        diagnostics.push(`emulator: tag deadline:${rawDeadline} is not an ISO-8601 instant; ignored`);
      else deadlineEpochMs = d;
    }

    const queueName = queueLeaf(c.queue && c.queue !== '' ? c.queue : 'default');
    const queue = this.queues.get(queueName);
    const gpuLabel = this.config.cluster.gpuLabel;
    const given = c.appNodeLabelExpression?.trim();
    let partition = given !== undefined && given !== '' ? given : (queue?.defaultNodeLabelExpression ?? '');
    // A GPU job that names no partition asks for the GPU one: it has no other place to run.
    if (partition === '' && (given === undefined || given === '') && jobType === 'gpu') partition = gpuLabel;
    const amGiven = c.amContainerNodeLabelExpression?.trim();
    const amLabel = amGiven !== undefined && amGiven !== '' ? amGiven : partition;
    // The queue's permission first, then the cluster's labels (measured on 3.4.3: a label
    // unknown to both is refused for the queue when the queue restricts its labels).
    for (const label of new Set([partition, amLabel])) {
      if (label === '') continue;
      if (queue && !queue.accessibleNodeLabels.includes(label)) {
        // SchedulerUtils' message when a queue cannot reach the label.
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: Invalid resource request, queue=${queue.name} doesn't have permission to access all labels in resource request. labelExpression of resource request=${label}. Queue labels=${queue.accessibleNodeLabels.join(',')}`,
        );
      }
      if (!this.labels().includes(label)) {
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: Invalid label resource request, cluster do not contain , label= ${label}`,
        );
      }
    }
    if (jobType === 'gpu' && partition !== gpuLabel) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: a type:gpu application needs the ${gpuLabel} partition, not ${partition === '' ? 'the default partition' : partition}`,
      );
    }
    if (queue && !this.maySubmit(queue, user)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: org.apache.hadoop.security.AccessControlException: User ${user} does not have permission to submit ${id} to queue ${queue.name}`,
      );
    }

    const now = this.engine.now;
    const command = c.amContainerSpec.command;
    const amExits = !c.unmanagedAM && (command === undefined || command.trim() === '');
    const globalLimit = this.config.amMaxAttempts;
    const local = c.maxAppAttempts !== undefined && c.maxAppAttempts > 0 ? c.maxAppAttempts : undefined;
    const rec: AppRecord = {
      id,
      seq: Number(id.slice(id.lastIndexOf('_') + 1)),
      name: c.applicationName ?? '',
      user,
      queue: queue ? queueName : (c.queue ?? queueName),
      queueKnown: queue !== undefined,
      priority: c.priority === undefined ? -1 : Math.min(c.priority, this.config.maxApplicationPriority),
      applicationType: c.applicationType ?? '',
      tags,
      appNodeLabelExpression: c.appNodeLabelExpression ?? '',
      amNodeLabelExpression: amLabel,
      partition,
      context: c,
      unmanaged: c.unmanagedAM,
      amFailure: amExits
        ? {
            attempts: Math.min(local ?? globalLimit, globalLimit),
            globalLimit,
            localLimit: local !== undefined && local < globalLimit ? local : undefined,
          }
        : null,
      submittedSeconds: now,
      jobType,
      maps,
      reduces,
      inputBytes,
      deadlineEpochMs,
      lifetimeExpiryMs: null,
      killedSeconds: null,
      failedSeconds: null,
      diagnostics,
      reservationId: c.reservationId && c.reservationId !== '' ? c.reservationId : null,
      amResource: c.resource ?? { memoryMB: 1024, vcores: 1 },
      inEngine: false,
    };
    this.apps.set(id, rec);
    if (!queue) {
      rec.failedSeconds = now;
      rec.diagnostics.push(`Application ${id} submitted by user ${rec.user} to unknown queue: ${rec.queue}`);
      return rec;
    }
    if (rec.amFailure) {
      rec.failedSeconds = now + rec.amFailure.attempts * AM_ATTEMPT_SECONDS;
      return rec;
    }
    if (rec.unmanaged) return rec;
    const job: TraceJob = {
      id,
      // SUBMITTED until the scheduler takes it at its next instant; ACCEPTED from then on.
      arrival: now + 1e-3,
      deadline: deadlineEpochMs === null ? null : Math.max(0, this.time.fromEpochMs(deadlineEpochMs) - now),
      maps,
      reduces,
      inputBytes,
      // Map i reads block i (the blocks over again when maps outnumber them); a split is its
      // block's bytes when there is one map per block.
      splits: input && maps === input.blocks.length ? input.blocks.map((b) => b.bytes) : null,
      type: jobType,
      user: rec.user,
      queue: queueName,
      blocks: input
        ? Array.from({ length: maps }, (_, i) => input.blocks[i % input.blocks.length]!.id)
        : null,
    };
    this.engine.submit(job);
    if (rec.priority !== 0) this.engine.setPriority(id, rec.priority);
    rec.inEngine = true;
    return rec;
  }

  /**
   * The app's diagnostics as the RM reports them. `rmBase` is the RM's web address, which the
   * failure of an AM that exits names (the app page to look at; measured on 3.4.3).
   */
  diagnosticsOf(rec: AppRecord, rmBase: string): string {
    const state = this.view(rec).state;
    if (rec.amFailure && state === 'FAILED') {
      const f = rec.amFailure;
      const limits =
        f.localLimit !== undefined
          ? ` (global limit =${f.globalLimit}; local limit is =${f.localLimit})`
          : '';
      const attempt = `appattempt_${rec.id.slice('application_'.length)}_${String(f.attempts).padStart(6, '0')}`;
      return [
        ...rec.diagnostics,
        `Application ${rec.id} failed ${f.attempts} times${limits} due to AM Container for ${attempt} exited with  exitCode: 0\n` +
          `Failing this attempt.Diagnostics: For more detailed output, check the application tracking page: ${rmBase}/cluster/app/${rec.id} Then click on links to logs of each attempt.\n` +
          '. Failing the application.',
      ].join('\n');
    }
    if ((rec.amFailure || rec.unmanaged) && state === 'ACCEPTED')
      return [
        ...rec.diagnostics,
        'AM container is launched, waiting for AM container to Register with RM',
      ].join('\n');
    return rec.diagnostics.join('\n');
  }

  /**
   * The attempts of an app whose AM exits at once, as far as they have gone: simulated start
   * and end seconds, and whether each is over.
   */
  amFailureAttempts(rec: AppRecord): Array<{ n: number; start: number; end: number; over: boolean }> {
    if (!rec.amFailure) return [];
    const now = this.engine.now;
    const stop = rec.killedSeconds ?? Number.POSITIVE_INFINITY;
    const out: Array<{ n: number; start: number; end: number; over: boolean }> = [];
    for (let n = 1; n <= rec.amFailure.attempts; n++) {
      const start = rec.submittedSeconds + (n - 1) * AM_ATTEMPT_SECONDS;
      if (start > now + 1e-9 || start >= stop) break;
      const end = Math.min(start + AM_ATTEMPT_SECONDS, stop);
      out.push({ n, start, end, over: end <= now + 1e-9 });
    }
    return out;
  }

  /**
   * The blocks and bytes of the files an app's input tags name, or undefined when none names
   * a placed file with data (the app then runs on blocks of its own, as without the tags).
   */
  private resolveInput(
    appId: string,
    paths: readonly string[],
  ): { blocks: InputFile['blocks']; bytes: number } | undefined {
    const blocks: Array<InputFile['blocks'][number]> = [];
    const seen = new Set<string>();
    for (const path of paths) {
      const files = this.inputFilesUnder(path);
      if (files.length === 0) this.log.debug('input path is not an emulated HDFS file', { app: appId, path });
      for (const f of files) {
        if (seen.has(f.path)) continue;
        seen.add(f.path);
        blocks.push(...f.blocks);
      }
    }
    if (blocks.length === 0) return undefined;
    return { blocks, bytes: blocks.reduce((a, b) => a + b.bytes, 0) };
  }

  /**
   * PUT /apps/{id}/state, as RMWebServices and ClientRMService do it (measured on 3.4.3): the
   * target compared with the RMAppState (200 when equal); an app whose end is stored answers
   * 200 and that state (FINISHING included); an unmanaged AM's kill is answered done at once,
   * 200 with the state read before the kill is handled; any other kill 202, with the state
   * the app is in while the kill runs: KILLING once it has an attempt (ACCEPTED, RUNNING),
   * FINAL_SAVING before (KILLED at once from NEW). The kill itself is over at once here (a
   * few ms on a real RM), so a read or a repeated PUT says KILLED.
   */
  kill(
    appId: string,
    target: string,
    diagnostics: string | undefined,
    caller?: string,
  ): { status: 200 | 202; state: string } {
    const rec = this.mustApp(appId);
    const before = this.view(rec).rmState;
    if (before === target) return { status: 200, state: before };
    if (target !== 'KILLED') {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Only 'KILLED' is allowed as a target state.`,
      );
    }
    this.checkModify(rec, caller, `kill appid ${appId}`);
    if (FINAL_STORED.has(before)) return { status: 200, state: before };
    // ClientRMService.forceKillApplication's message.
    const by = `Application ${appId} was killed by user ${this.callerName(caller)}`;
    this.killNow(rec, diagnostics === undefined ? by : `${by} with diagnostic message: ${diagnostics}`);
    if (rec.unmanaged) return { status: 200, state: before };
    // RMAppImpl's transitions on KILL: an attempt to kill first, the end to store, or nothing.
    const during =
      before === 'ACCEPTED' || before === 'RUNNING'
        ? 'KILLING'
        : before === 'NEW'
          ? 'KILLED'
          : 'FINAL_SAVING';
    return { status: 202, state: during };
  }

  private killNow(rec: AppRecord, diagnostics: string): void {
    if (rec.inEngine) this.engine.kill(rec.id);
    rec.killedSeconds = this.engine.now;
    rec.diagnostics.push(diagnostics);
  }

  /**
   * PUT /apps/{id}/queue: the queue after the call, as a full path (INDEX.md 9.1). As measured
   * on 3.4.3: with `aclEnabled`, a caller who may not modify the app, or may not submit to the
   * target (a queue that does not exist included), is refused 403; a final app is 400 (text);
   * without ACLs, a target that does not exist or is not a leaf, or cannot hold the app's
   * label, is the scheduler's YarnException: 503 UndeclaredThrowableException, no message.
   */
  move(appId: string, target: string | undefined, caller?: string): string {
    const rec = this.mustApp(appId);
    const leaf = target === undefined ? undefined : queueLeaf(target);
    // The same queue (leaf or full path): nothing to do, 200.
    if (
      leaf !== undefined &&
      rec.queueKnown &&
      leaf === rec.queue &&
      (target === leaf || target === `root.${leaf}`)
    )
      return `root.${rec.queue}`;
    const what = `move appid ${appId}`;
    this.checkModify(rec, caller, what);
    const queue = leaf === undefined || target === 'root' ? undefined : this.queues.get(leaf);
    if (this.config.aclEnabled && (!queue || !this.maySubmit(queue, this.callerName(caller))))
      throw textRejection(403, `Unauthorized attempt to ${what} by remote user ${this.callerName(caller)}`);
    // ClientRMService's test, on the RMAppState: FINISHING is refused too.
    const state = this.view(rec).rmState;
    if (FINAL_STORED.has(state)) throw textRejection(400, `App in ${state} state cannot be moved.`);
    if (!queue) throw undeclaredThrowable();
    if (rec.partition !== '' && !queue.accessibleNodeLabels.includes(rec.partition))
      throw undeclaredThrowable();
    if (queue.name !== rec.queue) {
      rec.queue = queue.name;
      if (rec.inEngine) this.engine.moveToQueue(appId, queue.name);
    }
    return `root.${rec.queue}`;
  }

  /**
   * PUT /apps/{id}/priority, as measured on 3.4.3: capped at yarn.cluster.max-application-priority
   * (INDEX.md 9.2), not bounded below; a final app keeps its priority and answers it (200);
   * an app not yet accepted is the web services' 400 text.
   */
  setPriority(appId: string, priority: number, caller?: string): number {
    const rec = this.mustApp(appId);
    if (priority === rec.priority) return priority;
    this.checkModify(rec, caller, `change priority of appid ${appId}`);
    const state = this.view(rec).state;
    if (FINAL.has(state)) return rec.priority;
    if (!['SUBMITTED', 'ACCEPTED', 'RUNNING'].includes(state)) {
      throw textRejection(400, `Application in ${state} state cannot be update priority.`);
    }
    const capped = Math.min(priority, this.config.maxApplicationPriority);
    if (capped !== rec.priority) {
      rec.priority = capped;
      if (rec.inEngine) this.engine.setPriority(appId, capped);
    }
    return rec.priority;
  }

  /**
   * PUT /apps/{id}/timeout (INDEX.md 9.3), as measured on 3.4.3: no type, or one that is not
   * LIFETIME, is the 400 text `Timeout type or ExpiryTime is null.`; a final app answers its
   * timeout unchanged (200) whatever the expiry; an expiry that is not
   * `yyyy-MM-dd'T'HH:mm:ss.SSSZ` (a missing one reads `UNLIMITED`) is 503
   * DateTimeParseException; one not in the future is 503 UndeclaredThrowableException.
   */
  setLifetime(
    appId: string,
    type: string | undefined,
    expiryTime: string | undefined,
    caller?: string,
  ): AppRecord {
    const rec = this.mustApp(appId);
    if (type !== 'LIFETIME') throw textRejection(400, 'Timeout type or ExpiryTime is null.');
    this.checkModify(rec, caller, `change timeout of app ${appId}`);
    if (FINAL.has(this.view(rec).state)) return rec;
    const text = expiryTime ?? 'UNLIMITED';
    if (!isRmExpiryFormat(text)) {
      // java.time's DateTimeParseException, through the exception mapper.
      throw new EmulatedRmRejection({
        status: 503,
        exception: 'DateTimeParseException',
        javaClassName: 'java.time.format.DateTimeParseException',
        message: `Text '${text}' could not be parsed at index ${parseFailureIndex(text)}`,
      });
    }
    const expiry = parseExpiryTime(text)!;
    if (expiry <= this.time.nowEpochMs()) throw undeclaredThrowable();
    rec.lifetimeExpiryMs = expiry;
    this.lifetimeHandled.delete(rec.id);
    return rec;
  }

  /** The LIFETIME timeout as the RM reports it: UNLIMITED / -1 when none is set. */
  timeoutOf(rec: AppRecord): { type: string; expiryTime: string; remainingTimeInSeconds: number } {
    if (rec.lifetimeExpiryMs === null)
      return { type: 'LIFETIME', expiryTime: 'UNLIMITED', remainingTimeInSeconds: -1 };
    const remaining = Math.max(0, Math.floor((rec.lifetimeExpiryMs - this.time.nowEpochMs()) / 1000));
    return {
      type: 'LIFETIME',
      expiryTime: formatExpiryTime(rec.lifetimeExpiryMs),
      remainingTimeInSeconds: remaining,
    };
  }

  // ------------------------------------------------------------------ reservations

  newReservation(): string {
    const id = `reservation_${this.clusterTimestamp}_${pad4(++this.reservationSeq)}`;
    this.issuedReservations.add(id);
    return id;
  }

  /** Containers one request needs, counting each container in slots of the configured size. */
  private slotsPerContainer(r: ReservationRequestSpec): number {
    return Math.max(
      1,
      Math.ceil(r.memoryMB / this.config.containerMemoryMB),
      Math.ceil(r.vcores / this.config.containerVcores),
    );
  }

  private checkDefinition(d: ReservationSpec): void {
    const bad = (m: string) => remoteRejection(400, 'BadRequestException', `java.lang.Exception: ${m}`);
    if (!(d.deadline > d.arrival))
      throw bad(
        `The specified deadline: ${d.deadline} is the same or prior to the specified arrival: ${d.arrival}`,
      );
    if (d.requests.length === 0) throw bad('No resources have been specified to reserve');
    for (const r of d.requests) {
      if (!(r.durationMs > 0) || !(r.numContainers > 0))
        throw bad('each reservation request needs a positive duration and num-containers');
      if (r.durationMs > d.deadline - d.arrival) {
        throw bad(
          `The time difference (${d.deadline - d.arrival}) between arrival (${d.arrival}) and deadline (${d.deadline}) must be greater or equal to the minimum resource duration (${r.durationMs})`,
        );
      }
    }
  }

  /**
   * Plan a reservation: each request gets the earliest start in [arrival, deadline − duration]
   * where the queue's reserved containers, with it, stay within the queue's guaranteed share
   * of the default partition at every instant (ORDER and ORDER_NO_GAP: after the previous
   * request). The plan is refused (400) when a request fits nowhere.
   */
  private plan(queue: QueueConfig, d: ReservationSpec, exclude: string | undefined): Allocation[] {
    const capacity = Math.floor((this.partitionContainers('') * queue.capacity) / 100 + 1e-9);
    const others = [...this.reservations.values()]
      .filter((r) => r.queue === queue.name && r.id !== exclude)
      .flatMap((r) => r.allocations);
    const placed: Allocation[] = [];
    let earliest = d.arrival;
    for (const r of d.requests) {
      const need = this.slotsPerContainer(r) * r.numContainers;
      const all = [...others, ...placed];
      const usedAt = (t: number) =>
        all.filter((a) => a.startTime <= t && t < a.endTime).reduce((s, a) => s + a.containers, 0);
      const fits = (start: number) => {
        const end = start + r.durationMs;
        const points = [start, ...all.map((a) => a.startTime).filter((t) => t > start && t < end)];
        return points.every((t) => usedAt(t) + need <= capacity);
      };
      const candidates = [earliest, ...all.map((a) => a.endTime).filter((t) => t > earliest)].sort(
        (a, b) => a - b,
      );
      const start = candidates.find((t) => t + r.durationMs <= d.deadline && fits(t));
      if (start === undefined) {
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: org.apache.hadoop.yarn.server.resourcemanager.reservation.exceptions.PlanningException: The planning algorithm could not find a valid allocation for your request (${need} containers for ${r.durationMs} ms in queue ${queue.name}, capacity ${capacity})`,
        );
      }
      placed.push({
        startTime: start,
        endTime: start + r.durationMs,
        containers: need,
        memoryMB: r.memoryMB * r.numContainers,
        vcores: r.vcores * r.numContainers,
      });
      if (d.interpreter >= 2) earliest = start + r.durationMs;
    }
    return placed.sort((a, b) => a.startTime - b.startTime);
  }

  private reservableQueue(name: string | undefined): QueueConfig {
    const q = name ? this.queue(name) : undefined;
    if (!q)
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: The specified queue: ${name ?? ''} is not managed by reservation system. Please try again with a valid reservable queue.`,
      );
    if (!q.reservable) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: The specified queue: ${q.name} is not managed by reservation system. Please try again with a valid reservable queue.`,
      );
    }
    return q;
  }

  submitReservation(
    id: string | undefined,
    queueName: string | undefined,
    d: ReservationSpec,
    user: string | undefined,
  ): void {
    if (!id || !this.issuedReservations.has(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation id ${id ?? ''} was not handed out by new-reservation on this RM`,
      );
    }
    const queue = this.reservableQueue(queueName);
    this.checkDefinition(d);
    const existing = this.reservations.get(id);
    if (existing) {
      // ReservationSystem.md: the same id with the same definition is accepted once; another definition is an error.
      if (JSON.stringify(existing.definition) === JSON.stringify(d) && existing.queue === queue.name) return;
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${id} already exists with a different definition`,
      );
    }
    const allocations = this.plan(queue, d, undefined);
    this.reservations.set(id, {
      id,
      queue: queue.name,
      user: user && user !== '' ? user : this.config.defaultUser,
      acceptanceTime: this.time.nowEpochMs(),
      definition: d,
      allocations,
    });
  }

  updateReservation(id: string | undefined, d: ReservationSpec): void {
    const rec = id ? this.reservations.get(id) : undefined;
    if (!rec)
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${id ?? ''} not found`,
      );
    this.checkDefinition(d);
    rec.allocations = this.plan(this.queues.get(rec.queue)!, d, rec.id);
    rec.definition = d;
  }

  deleteReservation(id: string | undefined): void {
    if (!id || !this.reservations.delete(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${id ?? ''} not found`,
      );
    }
  }

  listReservations(q: {
    queue: string;
    reservationId?: string;
    startTime: number;
    endTime: number;
  }): ReservationRecord[] {
    const leaf = queueLeaf(q.queue);
    return [...this.reservations.values()].filter((r) => {
      if (r.queue !== leaf) return false;
      if (q.reservationId !== undefined) return r.id === q.reservationId;
      return r.definition.arrival <= q.endTime && r.definition.deadline >= q.startTime;
    });
  }

  // ------------------------------------------------------------------ JobHistory

  /** The finished (or killed) MapReduce job behind an app, by job id; undefined while it runs. */
  historyJob(jobId: string): { rec: AppRecord; view: AppView } | undefined {
    const m = /^job_(\d+)_(\d+)$/.exec(jobId);
    if (!m) return undefined;
    const rec = this.apps.get(`application_${m[1]}_${m[2]}`);
    if (!rec || !rec.inEngine) return undefined;
    const view = this.view(rec);
    return FINAL.has(view.state) ? { rec, view } : undefined;
  }

  historyJobs(): Array<{ rec: AppRecord; view: AppView }> {
    return this.allViews()
      .filter((v) => v.rec.inEngine && FINAL.has(v.state))
      .map((view) => ({ rec: view.rec, view }));
  }

  /** Every attempt of the job's tasks, completed or lost, in the order they ended. */
  taskRecordsOf(appId: string): TaskRecord[] {
    return this.engine.taskRecords().filter((t) => t.job === appId);
  }

  /** The input split of map i in MB (for a worst-case check). */
  splitMB(rec: AppRecord): number {
    return rec.inputBytes / rec.maps / MB;
  }
}

/**
 * ApplicationId.fromString's refusals, as the web services answer them (400 BadRequestException
 * wrapping the IllegalArgumentException; measured on 3.4.3).
 */
function checkAppId(appId: string): void {
  const bad = (m: string) =>
    remoteRejection(400, 'BadRequestException', `java.lang.IllegalArgumentException: ${m}`);
  if (!appId.startsWith('application_'))
    throw bad(
      `Invalid ApplicationId prefix: ${appId}. The valid ApplicationId should start with prefix application`,
    );
  if (!/^application_\d+_\d+$/.test(appId)) throw bad(`Invalid ApplicationId: ${appId}`);
}

/** Where java.time would stop parsing `yyyy-MM-dd'T'HH:mm:ss.SSSZ` in this text. */
function parseFailureIndex(text: string): number {
  const pattern = 'dddd-dd-ddTdd:dd:dd.ddd';
  for (let i = 0; i < pattern.length; i++) {
    const c = text[i];
    const p = pattern[i]!;
    if (c === undefined) return i;
    if (p === 'd' ? !/\d/.test(c) : c !== p) return i;
  }
  return pattern.length;
}

/** YarnConfiguration.APPLICATION_MAX_TAGS and APPLICATION_MAX_TAG_LENGTH. */
export const RM_MAX_APPLICATION_TAGS = 10;
export const RM_MAX_TAG_LENGTH = 100;

/**
 * The RM's own check of an app's tags (ApplicationSubmissionContextPBImpl.checkTags): at most
 * 10, each at most 100 printable ASCII characters. Its IllegalArgumentException reaches the REST
 * answer as the submission's 400 BadRequestException, its text wrapped twice (measured on 3.4.3:
 * `java.lang.Exception: java.lang.IllegalArgumentException: Too many applicationTags, …`).
 */
function checkApplicationTags(tags: readonly string[]): void {
  const illegal = (m: string) =>
    remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: java.lang.IllegalArgumentException: ${m}`,
    );
  if (tags.length > RM_MAX_APPLICATION_TAGS)
    throw illegal(`Too many applicationTags, a maximum of only ${RM_MAX_APPLICATION_TAGS} are allowed!`);
  for (const t of tags) {
    if (t.length > RM_MAX_TAG_LENGTH)
      throw illegal(`Tag ${t} is too long, maximum allowed length of a tag is ${RM_MAX_TAG_LENGTH}`);
    if (!/^[\x20-\x7e]*$/.test(t)) throw illegal(`A tag can only have ASCII characters! Invalid tag - ${t}`);
  }
}
