import { remoteRejection, textRejection } from '../errors/emulated-rm-rejection';
import { silentLogger, type Logger } from '../log';
import { Engine, type EngineSnapshot, type TaskRecord } from '../sim/engine';
import { MB, type JobType, type TraceJob } from '../sim/model';
import type { MapAssignment } from '../sim/policy-port';
import { formatExpiryTime, isRmExpiryFormat, parseExpiryTime } from '../yarn/expiry';
import { queueLeaf } from '../yarn/ids';
import type { SimTime } from './clock';
import { checkEmulatorConfig, type EmulatorConfig, type QueueConfig } from './config';
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

/** The RM's diagnostics when the lifetime monitor kills an app (RMAppLifetimeMonitor). */
export const LIFETIME_DIAGNOSTICS =
  'Application is killed by ResourceManager as it has exceeded the lifetime period.';

export interface AppRecord {
  id: string;
  seq: number;
  name: string;
  user: string;
  /** Leaf queue name. */
  queue: string;
  priority: number;
  applicationType: string;
  /** Lower-cased and de-duplicated, as YARN stores them. */
  tags: string[];
  appNodeLabelExpression: string;
  amNodeLabelExpression: string;
  /** The partition its containers run in ('' = default). */
  partition: string;
  submittedSeconds: number;
  jobType: JobType;
  maps: number;
  reduces: number;
  inputBytes: number;
  deadlineEpochMs: number | null;
  lifetimeExpiryMs: number | null;
  /** Simulated second the app was killed (by a PUT or its lifetime). */
  killedSeconds: number | null;
  /** Set when the RM refused the app after accepting the submission (unknown queue). */
  failedSeconds: number | null;
  diagnostics: string[];
  reservationId: string | null;
  amResource: { memoryMB: number; vcores: number };
  inEngine: boolean;
}

export interface Submission {
  applicationId: string | undefined;
  name: string;
  queue: string | undefined;
  priority: number | undefined;
  applicationType: string | undefined;
  tags: string[];
  appNodeLabelExpression: string | undefined;
  amNodeLabelExpression: string | undefined;
  amResource: { memoryMB: number; vcores: number };
  reservationId: string | undefined;
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
  state: AppState;
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
  private readonly issued = new Set<string>();
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
    const rec = this.apps.get(appId);
    if (!rec) {
      // The RM's message for an unknown app id (RMWebServices.getRMAppForAppId).
      throw remoteRejection(404, 'NotFoundException', `java.lang.Exception: app with id: ${appId} not found`);
    }
    return rec;
  }

  private snapshotJobs(): Map<string, EngineSnapshot['jobs'][number]> {
    return new Map(this.engine.snapshot().jobs.map((j) => [j.id, j]));
  }

  private isFinal(rec: AppRecord): boolean {
    return FINAL.has(this.view(rec).state);
  }

  /** The app as the RM reports it now. */
  view(rec: AppRecord, jobs?: Map<string, EngineSnapshot['jobs'][number]>): AppView {
    const job = (jobs ?? this.snapshotJobs()).get(rec.id);
    const startedTime = this.epoch(rec.submittedSeconds);
    const nowMs = this.time.nowEpochMs();
    const base = {
      rec,
      startedTime,
      runningContainers: 0,
      pendingMaps: job ? job.mapsPending : rec.maps,
      mapsDone: job?.mapsDone ?? 0,
      reducesDone: job?.reducesDone ?? 0,
      launchedSeconds: null as number | null,
    };
    const totalTasks = rec.maps + rec.reduces;
    const progress = job ? (100 * (job.mapsDone + job.reducesDone)) / Math.max(1, totalTasks) : 0;
    if (rec.failedSeconds !== null) {
      const finishedTime = this.epoch(rec.failedSeconds);
      return {
        ...base,
        state: 'FAILED',
        finalStatus: 'FAILED',
        finishedTime,
        elapsedTime: finishedTime - startedTime,
        progress: 100,
      };
    }
    if (rec.killedSeconds !== null) {
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
      // INDEX.md row 4: `queue` matches only unfinished apps currently in that queue.
      if (f.queue && (FINAL.has(v.state) || v.rec.queue !== queueLeaf(f.queue))) continue;
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
    const id = `application_${this.clusterTimestamp}_${pad4(++this.seq)}`;
    this.issued.add(id);
    return id;
  }

  /** The largest container a node can hold: its whole memory and vcores. */
  maximumAllocation(): { memoryMB: number; vcores: number } {
    const most = Math.max(...[...this.nodeClassOf.values()].map((c) => c.containers));
    return { memoryMB: most * this.config.containerMemoryMB, vcores: most * this.config.containerVcores };
  }

  /**
   * POST /apps (INDEX.md 9.4). Refusals the RM makes at once are thrown (400); an unknown queue
   * is accepted and the app then FAILS, as the RM's scheduler rejects it after the 202.
   */
  submit(s: Submission): AppRecord {
    const id = s.applicationId;
    if (!id)
      throw remoteRejection(400, 'BadRequestException', 'java.lang.Exception: application-id is missing');
    if (!this.issued.has(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: ${id} was not handed out by new-application on this RM`,
      );
    }
    if (this.apps.has(id)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Application with id ${id} is already present! Cannot add a duplicate!`,
      );
    }
    if (s.reservationId !== undefined && s.reservationId !== '' && !this.reservations.has(s.reservationId)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Reservation ${s.reservationId} not found`,
      );
    }
    const diagnostics: string[] = [];
    // YARN stores tags lower-cased and as a set (ApplicationSubmissionContextPBImpl.setApplicationTags).
    // The RM checks the set it was given, before lower-casing (setApplicationTags): `A` and `a`
    // count as two there, one once stored.
    checkApplicationTags([...new Set(s.tags.filter((t) => t.trim() !== ''))]);
    const tags = [...new Set(s.tags.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
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

    const queueName = queueLeaf(s.queue && s.queue !== '' ? s.queue : 'default');
    const queue = this.queues.get(queueName);
    const gpuLabel = this.config.cluster.gpuLabel;
    const given = s.appNodeLabelExpression?.trim();
    let partition = given !== undefined && given !== '' ? given : (queue?.defaultNodeLabelExpression ?? '');
    // A GPU job that names no partition asks for the GPU one: it has no other place to run.
    if (partition === '' && (given === undefined || given === '') && jobType === 'gpu') partition = gpuLabel;
    if (partition !== '' && !this.labels().includes(partition)) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Invalid label resource request, cluster do not contain , label= ${partition}`,
      );
    }
    if (queue && partition !== '' && !queue.accessibleNodeLabels.includes(partition)) {
      // SchedulerUtils' message when a queue cannot reach the label.
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Invalid resource request, queue=${queue.name} doesn't have permission to access all labels in resource request. labelExpression of resource request=${partition}. Queue labels=${queue.accessibleNodeLabels.join(',')}`,
      );
    }
    if (jobType === 'gpu' && partition !== gpuLabel) {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: a type:gpu application needs the ${gpuLabel} partition, not ${partition === '' ? 'the default partition' : partition}`,
      );
    }

    const now = this.engine.now;
    const rec: AppRecord = {
      id,
      seq: Number(id.slice(id.lastIndexOf('_') + 1)),
      name: s.name,
      user: s.user && s.user !== '' ? s.user : this.config.defaultUser,
      queue: queueName,
      priority: Math.max(0, Math.min(s.priority ?? 0, this.config.maxApplicationPriority)),
      applicationType: s.applicationType && s.applicationType !== '' ? s.applicationType : 'YARN',
      tags,
      appNodeLabelExpression: s.appNodeLabelExpression ?? '',
      amNodeLabelExpression: s.amNodeLabelExpression ?? '',
      partition,
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
      reservationId: s.reservationId && s.reservationId !== '' ? s.reservationId : null,
      amResource: s.amResource,
      inEngine: false,
    };
    this.apps.set(id, rec);
    if (!queue) {
      rec.failedSeconds = now;
      rec.diagnostics.push(`Application ${id} submitted by user ${rec.user} to unknown queue: ${queueName}`);
      return rec;
    }
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

  /** PUT /apps/{id}/state: 202 while the kill runs, 200 with the final state once over. */
  kill(appId: string, target: string, diagnostics: string | undefined): { status: 200 | 202; state: string } {
    const rec = this.mustApp(appId);
    if (target.toUpperCase() !== 'KILLED') {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Only 'KILLED' is allowed as a target state.`,
      );
    }
    const before = this.view(rec).state;
    if (FINAL.has(before)) return { status: 200, state: before };
    this.killNow(rec, diagnostics ?? `Application killed by user.`);
    return { status: 202, state: before };
  }

  private killNow(rec: AppRecord, diagnostics: string): void {
    if (rec.inEngine) this.engine.kill(rec.id);
    rec.killedSeconds = this.engine.now;
    rec.diagnostics.push(diagnostics);
  }

  /** PUT /apps/{id}/queue: the queue after the call, as a full path (INDEX.md 9.1). */
  move(appId: string, target: string): string {
    const rec = this.mustApp(appId);
    const state = this.view(rec).state;
    if (FINAL.has(state)) throw textRejection(400, `App in ${state} state cannot be moved.`);
    const leaf = queueLeaf(target);
    const queue = this.queues.get(leaf);
    if (!queue) {
      throw remoteRejection(
        503,
        'YarnException',
        `org.apache.hadoop.yarn.exceptions.YarnException: Failed to move application ${appId} to queue ${target}: queue does not exist`,
      );
    }
    if (rec.partition !== '' && !queue.accessibleNodeLabels.includes(rec.partition)) {
      throw remoteRejection(
        503,
        'YarnException',
        `org.apache.hadoop.yarn.exceptions.YarnException: Failed to move application ${appId} to queue ${target}: the queue cannot access label ${rec.partition}`,
      );
    }
    if (leaf !== rec.queue) {
      rec.queue = leaf;
      if (rec.inEngine) this.engine.moveToQueue(appId, leaf);
    }
    return `root.${rec.queue}`;
  }

  /** PUT /apps/{id}/priority: capped at yarn.cluster.max-application-priority (INDEX.md 9.2). */
  setPriority(appId: string, priority: number): number {
    const rec = this.mustApp(appId);
    const state = this.view(rec).state;
    if (!['SUBMITTED', 'ACCEPTED', 'RUNNING', 'NEW', 'NEW_SAVING'].includes(state)) {
      throw textRejection(400, `Application in ${state} state cannot be update priority.`);
    }
    const capped = Math.max(0, Math.min(priority, this.config.maxApplicationPriority));
    if (capped !== rec.priority) {
      rec.priority = capped;
      if (rec.inEngine) this.engine.setPriority(appId, capped);
    }
    return rec.priority;
  }

  /** PUT /apps/{id}/timeout (INDEX.md 9.3): only LIFETIME, `yyyy-MM-dd'T'HH:mm:ss.SSSZ`. */
  setLifetime(appId: string, type: string | undefined, expiryTime: string | undefined): AppRecord {
    const rec = this.mustApp(appId);
    if (!type || !expiryTime) throw textRejection(400, 'Timeout type or ExpiryTime is null.');
    if (type !== 'LIFETIME') {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.IllegalArgumentException: No enum constant org.apache.hadoop.yarn.api.records.ApplicationTimeoutType.${type}`,
      );
    }
    if (!isRmExpiryFormat(expiryTime)) {
      // java.time's DateTimeParseException text, as the RM passes it on.
      throw textRejection(
        400,
        `Text '${expiryTime}' could not be parsed at index ${parseFailureIndex(expiryTime)}`,
      );
    }
    const expiry = parseExpiryTime(expiryTime)!;
    const state = this.view(rec).state;
    if (FINAL.has(state)) {
      throw textRejection(
        400,
        `Application ${appId} is in final state ${state}; its timeout cannot be updated.`,
      );
    }
    const nowMs = this.time.nowEpochMs();
    if (expiry <= nowMs) {
      throw textRejection(
        400,
        `Expire time is less than current time, current-time=${nowMs} expire-time=${expiry}`,
      );
    }
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
 * answer as a 400 RemoteException (the web services' generic exception handler).
 */
function checkApplicationTags(tags: readonly string[]): void {
  const illegal = (m: string) => remoteRejection(400, 'IllegalArgumentException', m);
  if (tags.length > RM_MAX_APPLICATION_TAGS)
    throw illegal(`Too many applicationTags, a maximum of only ${RM_MAX_APPLICATION_TAGS} are allowed!`);
  for (const t of tags) {
    if (t.length > RM_MAX_TAG_LENGTH)
      throw illegal(`Tag ${t} is too long, maximum allowed length of a tag is ${RM_MAX_TAG_LENGTH}`);
    if (!/^[\x20-\x7e]*$/.test(t)) throw illegal(`A tag can only have ASCII characters! Invalid tag - ${t}`);
  }
}
