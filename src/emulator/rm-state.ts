import { silentLogger, type Logger } from '../log';
import { Engine, type TaskRecord } from '../sim/engine';
import { MB } from '../sim/model';
import type { MapAssignment } from '../sim/policy-port';
import { placementPort as simPlacementPort } from '../sim/policies';
import type { SimTime } from './clock';
import { checkEmulatorConfig, type EmulatorConfig, type QueueConfig } from './config';
import { admitAllPort, capacityScheduler, type Hold, type JobPlacementInfo } from './ports';
import { AppAcl } from './state/acl';
import { amFailureAttempts, appView, diagnosticsOf, matchesFilter, type JobSnapshot } from './state/app-view';
import { AppWrites } from './state/app-writes';
import { checkAppId, pad4 } from './state/checks';
import { InputFiles } from './state/hdfs-input';
import { ReservationBook, type ReservationRecord, type ReservationSpec } from './state/reservations';
import { submitApp } from './state/submission';
import { ClusterTopology } from './state/topology';
import {
  FINAL,
  LIFETIME_DIAGNOSTICS,
  type AppQueryFilter,
  type AppRecord,
  type AppView,
  type InputFile,
  type NodeUsage,
  type Submission,
} from './state/types';
import type { SubmissionContext } from './submission-context';
import { remoteRejection } from '../errors/emulated-rm-rejection';

export * from './state/types';
export { parseDeadlineTag, RM_MAX_APPLICATION_TAGS, RM_MAX_TAG_LENGTH } from './state/checks';
export type {
  Allocation,
  ReservationRecord,
  ReservationRequestSpec,
  ReservationSpec,
} from './state/reservations';

/**
 * The ResourceManager's state over the simulator: applications and their ids, queues, priority
 * caps, lifetimes, reservations, and the simulated MapReduce job behind every application.
 *
 * Transport-free: the express layer (rm-routes/, jhs-app.ts) parses requests into these calls and
 * renders what they return; a refusal is an EmulatedRmRejection carrying the RM's status and
 * body kind (INDEX.md sections 6 and 9). Every call first brings the simulation up to the
 * current scaled time (`sync`), killing apps whose lifetime ran out on the way.
 *
 * This class is the one entry; each concern lives in state/: the cluster's nodes and queues
 * (topology.ts), submissions (submission.ts), how an app looks (app-view.ts), writes on apps
 * (app-writes.ts), ACLs (acl.ts), reservations (reservations.ts) and HDFS input (hdfs-input.ts).
 */
export class EmulatedRm {
  readonly config: EmulatorConfig;
  readonly time: SimTime;
  readonly engine: Engine;
  /** clusterTimestamp of every id this RM hands out. */
  readonly clusterTimestamp: number;
  private readonly apps = new Map<string, AppRecord>();
  private seq = 0;
  private readonly lifetimeHandled = new Set<string>();
  private readonly topology: ClusterTopology;
  private readonly reservations: ReservationBook;
  private readonly inputs: InputFiles;
  private readonly acl: AppAcl;
  private readonly writes: AppWrites;

  constructor(config: EmulatorConfig, time: SimTime, seed: number, log: Logger = silentLogger()) {
    const problems = checkEmulatorConfig(config);
    if (problems.length > 0) throw new RangeError(`emulator configuration: ${problems.join('; ')}`);
    this.config = config;
    this.time = time;
    this.clusterTimestamp = time.startEpochMs;
    this.engine = new Engine(config.cluster, {
      seed,
      admission: admitAllPort(),
      placement: this.scheduler(),
    });
    this.topology = new ClusterTopology(config, this.engine);
    this.reservations = new ReservationBook(this);
    this.inputs = new InputFiles(this.engine, log.child({ component: 'emulated-rm' }));
    this.acl = new AppAcl(config);
    this.writes = new AppWrites({
      config,
      engine: this.engine,
      time,
      acl: this.acl,
      mustApp: (id) => this.mustApp(id),
      view: (rec) => this.view(rec),
      queue: (name) => this.queue(name),
      rearmLifetime: (id) => this.lifetimeHandled.delete(id),
    });
  }

  /** The CapacityScheduler over the configured placement policy, bound to this RM's state. */
  private scheduler() {
    const orderKeys = new Map<string, number>();
    const inner = simPlacementPort(
      this.config.placementPolicy,
      (this.config.placementArgs ?? {}) as Record<string, unknown>,
      this.config.cluster,
      {
        nodeId: (i) => this.engine.nodeId(i),
        orderKeyMs: (job) => orderKeys.get(job.id) ?? job.spec.arrival * 1000,
      },
    );
    const bindings = {
      nodeId: (i: number) => this.engine.nodeId(i),
      job: (id: string) => this.placementInfo(id),
      partitionContainers: (p: string) => this.partitionContainers(p),
      guaranteedContainers: (q: string, p: string) => this.topology.queueContainers(q, p, 'capacity'),
      maxContainers: (q: string, p: string) => this.topology.queueContainers(q, p, 'max'),
      holds: (p: string, now: number) => this.holds(p, now),
      started: (nodeId: string, as: readonly MapAssignment[]) => this.topology.noteStarted(nodeId, as),
    };
    return capacityScheduler(inner, orderKeys, () => bindings);
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
      if (!FINAL.has(this.view(next).state)) this.writes.killNow(next, LIFETIME_DIAGNOSTICS);
    }
    this.engine.advanceTo(target);
    this.topology.countEndedGpuTasks();
  }

  epoch(seconds: number): number {
    return this.time.toEpochMs(seconds);
  }

  // ------------------------------------------------------------------ HDFS input

  /** InputFiles.place: a file's blocks on the simulated nodes, by node index. */
  placeInputFile(
    path: string,
    blocks: ReadonlyArray<{ bytes: number; nodes: readonly number[] }>,
  ): InputFile {
    return this.inputs.place(path, blocks);
  }

  /** The files a path names: the file itself, or every file under a directory; in path order. */
  inputFilesUnder(path: string): InputFile[] {
    return this.inputs.under(path);
  }

  // ------------------------------------------------------------------ cluster and queues

  queue(name: string): QueueConfig | undefined {
    return this.topology.queue(name);
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
    return this.topology.partitionContainers(partition);
  }

  /** Reservations holding containers of a partition at simulated second `now`. */
  holds(partition: string, now: number): ReadonlyMap<string, Hold> {
    return this.reservations.holds(partition, now);
  }

  /** Percent of a partition a queue is guaranteed (capacity) or may use at most. */
  queueShare(q: QueueConfig, partition: string, which: 'capacity' | 'max'): number {
    return this.topology.queueShare(q, partition, which);
  }

  nodeUsage(): NodeUsage[] {
    return this.topology.nodeUsage();
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
    return this.topology.labels();
  }

  /** The largest container a node can hold: its whole memory and vcores. */
  maximumAllocation(): { memoryMB: number; vcores: number } {
    return this.topology.maximumAllocation();
  }

  // ------------------------------------------------------------------ apps: reads

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

  private snapshotJobs(): Map<string, JobSnapshot> {
    return new Map(this.engine.snapshot().jobs.map((j) => [j.id, j]));
  }

  /** The app as the RM reports it now. */
  view(rec: AppRecord, jobs?: Map<string, JobSnapshot>): AppView {
    return appView(rec, (jobs ?? this.snapshotJobs()).get(rec.id), this.engine.now, this.time);
  }

  /** Every app, in id order, with its current view. */
  allViews(): AppView[] {
    const jobs = this.snapshotJobs();
    return [...this.apps.values()].sort((a, b) => a.seq - b.seq).map((r) => this.view(r, jobs));
  }

  queryApps(f: AppQueryFilter): AppView[] {
    const out: AppView[] = [];
    for (const v of this.allViews()) {
      if (!matchesFilter(v, f)) continue;
      out.push(v);
      if (f.limit !== undefined && out.length >= f.limit) break;
    }
    return out;
  }

  /** The app's diagnostics as the RM reports them; `rmBase` is the RM's web address. */
  diagnosticsOf(rec: AppRecord, rmBase: string): string {
    return diagnosticsOf(rec, this.view(rec).state, rmBase);
  }

  /** The attempts of an app whose AM exits at once, as far as they have gone. */
  amFailureAttempts(rec: AppRecord): Array<{ n: number; start: number; end: number; over: boolean }> {
    return amFailureAttempts(rec, this.engine.now);
  }

  // ------------------------------------------------------------------ apps: writes

  newApplication(): string {
    return `application_${this.clusterTimestamp}_${pad4(++this.seq)}`;
  }

  /** POST /apps (state/submission.ts). */
  submit(s: Submission): AppRecord {
    return submitApp(
      {
        config: this.config,
        engine: this.engine,
        time: this.time,
        apps: this.apps,
        hasReservation: (id) => this.reservations.has(id),
        queue: (name) => this.queue(name),
        labels: () => this.labels(),
        maySubmit: (queue, user) => this.acl.maySubmit(queue, user),
        resolveInput: (appId, paths) => this.inputs.resolve(appId, paths),
      },
      s,
    );
  }

  /** PUT /apps/{id}/state (AppWrites.kill). */
  kill(...args: Parameters<AppWrites['kill']>): ReturnType<AppWrites['kill']> {
    return this.writes.kill(...args);
  }

  /** PUT /apps/{id}/queue (AppWrites.move): the queue after the call, as a full path. */
  move(appId: string, target: string | undefined, caller?: string): string {
    return this.writes.move(appId, target, caller);
  }

  /** PUT /apps/{id}/priority (AppWrites.setPriority): the priority after the call. */
  setPriority(appId: string, priority: number, caller?: string): number {
    return this.writes.setPriority(appId, priority, caller);
  }

  /** PUT /apps/{id}/timeout (AppWrites.setLifetime). */
  setLifetime(...args: Parameters<AppWrites['setLifetime']>): AppRecord {
    return this.writes.setLifetime(...args);
  }

  /** The LIFETIME timeout as the RM reports it: UNLIMITED / -1 when none is set. */
  timeoutOf(rec: AppRecord): { type: string; expiryTime: string; remainingTimeInSeconds: number } {
    return this.writes.timeoutOf(rec);
  }

  // ------------------------------------------------------------------ reservations

  newReservation(): string {
    return this.reservations.newReservation();
  }

  submitReservation(...args: Parameters<ReservationBook['submit']>): void {
    this.reservations.submit(...args);
  }

  updateReservation(id: string | undefined, d: ReservationSpec): void {
    this.reservations.update(id, d);
  }

  deleteReservation(id: string | undefined): void {
    this.reservations.delete(id);
  }

  listReservations(...args: Parameters<ReservationBook['list']>): ReservationRecord[] {
    return this.reservations.list(...args);
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
