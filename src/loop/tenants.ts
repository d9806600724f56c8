import type { AppReport } from '../yarn/model';
import { sameQueue } from '../yarn/ids';
import type { ContainerSize } from './snapshot';

/**
 * Other tenants' run times, as the sidecar has seen their apps end: what lets a guarantee lent
 * with preemption off come back (core/sharing.ts, releaseReturns). An app of another queue is
 * known by its queue, name and user (a recurring job: the nightly ETL, the hourly report); its
 * run time is the longest of the last RUNS_KEPT of that key seen to end. A running app of a
 * known key is expected to release its containers at its start plus that run time; one of an
 * unknown key, or already running longer than any of its key's runs, has no known release.
 */

/** The ledger value the run times are kept in (they survive a restart). */
export const TENANT_RUN_TIMES_KEY = 'sharing.tenantRunTimes';
const RUNS_KEPT = 5;
/** Keys kept, the least recently seen dropped first. */
const KEYS_KEPT = 2_000;

const ENDED = new Set(['FINISHED', 'FAILED', 'KILLED']);

export const tenantKey = (a: Pick<AppReport, 'queue' | 'name' | 'user'>): string =>
  `${a.queue}|${a.name}|${a.user}`;

export class TenantRunTimes {
  /** Key to the run times (seconds) of its last apps seen to end; insertion order is recency. */
  private runs: Map<string, number[]>;
  private readonly seen = new Set<string>();

  constructor(
    private readonly store: {
      getValue<T>(key: string): T | undefined;
      setValue(key: string, value: unknown): void;
    },
  ) {
    const kept = store.getValue<Array<[string, number[]]>>(TENANT_RUN_TIMES_KEY);
    this.runs = new Map(
      Array.isArray(kept)
        ? kept.filter(
            (e): e is [string, number[]] =>
              Array.isArray(e) &&
              typeof e[0] === 'string' &&
              Array.isArray(e[1]) &&
              e[1].every(Number.isFinite),
          )
        : [],
    );
  }

  /** The longest run time seen of a key, in seconds; undefined when none ended yet. */
  runTime(key: string): number | undefined {
    const r = this.runs.get(key);
    return r === undefined || r.length === 0 ? undefined : Math.max(...r);
  }

  get size(): number {
    return this.runs.size;
  }

  /** Learns from ended apps of other queues (each app once); true when anything was learned. */
  learn(apps: readonly AppReport[], own: (queue: string) => boolean): boolean {
    let learned = false;
    for (const a of apps) {
      if (!ENDED.has(a.state) || own(a.queue) || this.seen.has(a.id)) continue;
      if (!(a.startedTime > 0) || !(a.finishedTime >= a.startedTime)) continue;
      this.seen.add(a.id);
      if (this.seen.size > 20_000) this.seen.clear();
      const key = tenantKey(a);
      const runs = this.runs.get(key) ?? [];
      this.runs.delete(key);
      this.runs.set(key, [...runs, (a.finishedTime - a.startedTime) / 1000].slice(-RUNS_KEPT));
      while (this.runs.size > KEYS_KEPT) this.runs.delete(this.runs.keys().next().value!);
      learned = true;
    }
    if (learned) this.store.setValue(TENANT_RUN_TIMES_KEY, [...this.runs]);
    return learned;
  }

  /**
   * Per partition, the epoch seconds at which each of the other tenants' running containers is
   * expected to end (counted in task containers of `size`), for the apps with a known release.
   */
  releases(
    apps: readonly AppReport[],
    own: (queue: string) => boolean,
    size: ContainerSize,
    nowS: number,
  ): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const a of apps) {
      if (a.state !== 'RUNNING' || own(a.queue) || !(a.startedTime > 0)) continue;
      const runTime = this.runTime(tenantKey(a));
      if (runTime === undefined) continue;
      const end = a.startedTime / 1000 + runTime;
      if (end < nowS) continue; // running longer than any run seen: no known release
      const containers = Math.min(
        a.runningContainers,
        Math.max(
          1,
          Math.min(Math.floor(a.allocatedMB / size.memoryMb), Math.floor(a.allocatedVCores / size.vcores)),
        ),
      );
      const label = a.appNodeLabelExpression ?? '';
      const list = (out[label] ??= []);
      for (let i = 0; i < containers; i++) list.push(end);
    }
    return out;
  }
}

/** A queue predicate for the real-time queue as configured (by name or path). */
export const isQueue =
  (name: string) =>
  (queue: string): boolean =>
    sameQueue(queue, name);
