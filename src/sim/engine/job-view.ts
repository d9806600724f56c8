import type { TraceJob } from '../model';
import type { IndexedJobView } from '../policy-port';
import { localPendingOn, pendingArrayOf, pendingMapAt, replicasAt, type JobRt } from './job-state';

/**
 * The live view of a job that policies read. A class rather than an object literal of
 * getters per job: every view then shares one shape, and the placement adapter reads these
 * on every heartbeat.
 */
export class EngineJobView implements IndexedJobView {
  readonly index: number;
  readonly spec: TraceJob;

  constructor(
    private readonly job: JobRt,
    private readonly replication: number,
  ) {
    this.index = job.index;
    this.spec = job.spec;
  }

  get id(): string {
    return this.spec.id;
  }
  get absDeadline(): number | null {
    return this.job.absDeadline;
  }
  get admittedAt(): number {
    return this.job.admittedAt;
  }
  get priority(): number {
    return this.job.priority;
  }
  get queue(): string {
    return this.job.queue;
  }
  get pendingMaps(): readonly number[] {
    return pendingArrayOf(this.job);
  }
  get pendingMapCount(): number {
    return this.job.pendingCount;
  }
  pendingMapAt(i: number): number {
    return pendingMapAt(this.job, i);
  }
  get runningMaps(): number {
    return this.job.runningMaps;
  }
  get finishedMaps(): number {
    return this.job.finishedMaps;
  }
  get pendingReduces(): number {
    return this.job.pendingReduces;
  }
  get runningReduces(): number {
    return this.job.runningReduces;
  }
  get finishedReduces(): number {
    return this.job.finishedReduces;
  }
  get mapsDone(): boolean {
    return this.job.finishedMaps === this.spec.maps;
  }
  get version(): number {
    return this.job.version;
  }
  mapBlock(i: number): string {
    const blocks = this.job.blocks;
    return blocks ? (blocks[i] as string) : `${this.spec.id}/blk_${i}`;
  }
  mapReplicas(i: number): readonly number[] {
    return replicasAt(this.job, i, this.replication);
  }
  pendingMapsOn(node: number): readonly number[] {
    return localPendingOn(this.job, node);
  }
}
