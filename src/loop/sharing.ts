import type { SidecarConfig } from '../config/schema';
import { laneHolds, NO_HOLDS, type LaneHolds, type PreemptionModel, type SharingMode } from '../core/sharing';
import { PREEMPTION_DEFAULTS, UNKNOWN_PREEMPTION, type PreemptionSettings } from '../yarn/conf';
import type { CapacityView } from './snapshot';

/**
 * What the lanes need to count a guarantee other queues hold (core/sharing.ts): the RM's
 * preemption as the sidecar takes it, the preemption delay it measured, and when the other
 * tenants' containers are expected to end.
 */
export interface SharingInputs {
  preemption: PreemptionSettings;
  /** The longest delay measured from an app's start to its first container while held (s). */
  measuredFirstReturnSeconds?: number;
  /** Per partition, the epoch seconds at which each of the other tenants' containers ends. */
  releases?: Readonly<Record<string, readonly number[]>>;
}

/** admission.sharing.preemption: the RM's word (`rm`), or the operator's (`on`, `off`). */
export function resolvePreemption(
  config: SidecarConfig['admission']['sharing'],
  fromRm: PreemptionSettings | undefined,
): PreemptionSettings {
  if (config.preemption === 'rm' && fromRm !== undefined) return fromRm;
  if (config.preemption === 'rm') return UNKNOWN_PREEMPTION;
  return {
    source: 'config',
    enabled: config.preemption === 'on',
    policies: undefined,
    maxWaitBeforeKillMs: config.maxWaitBeforeKillMs,
    naturalTerminationFactor: config.naturalTerminationFactor,
    monitoringIntervalMs: config.monitoringIntervalMs,
    totalPreemptionPerRound: config.totalPreemptionPerRound,
  };
}

export function sharingModeOf(p: PreemptionSettings): Exclude<SharingMode, 'own'> {
  return p.enabled === true ? 'preemption' : p.enabled === false ? 'lent' : 'unknown';
}

/** The preemption policy's waits in seconds (Hadoop's defaults for any not known). */
export function preemptionModel(
  p: PreemptionSettings,
  partitionContainers: number,
  measuredFirstReturnSeconds?: number,
): PreemptionModel {
  const perRound = p.totalPreemptionPerRound ?? PREEMPTION_DEFAULTS.totalPreemptionPerRound;
  return {
    monitoringIntervalSeconds: (p.monitoringIntervalMs ?? PREEMPTION_DEFAULTS.monitoringIntervalMs) / 1000,
    maxWaitBeforeKillSeconds: (p.maxWaitBeforeKillMs ?? PREEMPTION_DEFAULTS.maxWaitBeforeKillMs) / 1000,
    naturalTerminationFactor: p.naturalTerminationFactor ?? PREEMPTION_DEFAULTS.naturalTerminationFactor,
    perRoundContainers: Math.max(1, Math.floor(perRound * partitionContainers)),
    ...(measuredFirstReturnSeconds === undefined ? {} : { measuredFirstReturnSeconds }),
  };
}

/**
 * The holds on one lane (a queue's guarantee in one partition) from the last capacity read:
 * what of it the partition has no free container for, and when each of those returns.
 */
export function holdsOf(
  view: CapacityView,
  queue: string,
  label: string,
  guaranteed: number,
  inputs: SharingInputs | undefined,
  nowS: number,
): LaneHolds {
  if (inputs === undefined || view.free === undefined) return { ...NO_HOLDS, guaranteed };
  const q = view.queues.find((x) => x.name === queue);
  const used = q?.used?.[label];
  const free = view.free[label];
  if (used === undefined || free === undefined) return { ...NO_HOLDS, guaranteed };
  // A free container another queue's apps ask for is theirs at the next node heartbeat, long
  // before a job admitted now has its app on the RM: it counts as held, not free.
  const othersAsk = view.queues.reduce((a, x) => a + (x === q ? 0 : (x.pending?.[label] ?? 0)), 0);
  return laneHolds({
    guaranteed,
    used,
    free: Math.max(0, free - othersAsk),
    mode: sharingModeOf(inputs.preemption),
    preemption: preemptionModel(
      inputs.preemption,
      view.total?.[label] ?? guaranteed,
      inputs.measuredFirstReturnSeconds,
    ),
    releases: (inputs.releases?.[label] ?? []).map((t) => t - nowS),
  });
}

/** The ledger value the measured preemption delays are kept in (they survive a restart). */
export const PREEMPTION_DELAYS_KEY = 'sharing.preemptionDelays';
/**
 * The CapacityScheduler's diagnostics of an app it holds back for its queue's AM limit ("Queue's
 * AM resource limit exceeded", measured on 3.4.3), and of one whose user's AM limit is reached.
 */
const AM_LIMIT = /AM resource limit exceeded|User's AM resource limit exceeded/i;
/** Delays kept: the estimate takes the longest of the last this many. */
const DELAYS_KEPT = 20;

export interface DelaySample {
  appId: string;
  seconds: number;
}

/**
 * The preemption delay as measured on this RM: for an app of a lane whose guarantee other
 * queues held (preemption on) when it started, the time from its start to its AM's container
 * (the RM's startedTime to launchTime): the first container preemption had to free. The
 * longest of the last DELAYS_KEPT is the measured first return the lanes' model is pushed back to.
 */
export class PreemptionDelays {
  private samples: DelaySample[];
  private readonly seen = new Set<string>();

  constructor(
    private readonly store: {
      getValue<T>(key: string): T | undefined;
      setValue(key: string, value: unknown): void;
    },
  ) {
    const kept = store.getValue<DelaySample[]>(PREEMPTION_DELAYS_KEY);
    this.samples = Array.isArray(kept) ? kept.filter((s) => Number.isFinite(s?.seconds)) : [];
    for (const s of this.samples) this.seen.add(s.appId);
  }

  /** The longest delay kept, in seconds; undefined before any was measured. */
  get longest(): number | undefined {
    return this.samples.length === 0 ? undefined : Math.max(...this.samples.map((s) => s.seconds));
  }

  get all(): readonly DelaySample[] {
    return this.samples;
  }

  /** An app not to sample (again). The set is bounded: past 10,000 it starts over. */
  private mark(id: string): void {
    this.seen.add(id);
    if (this.seen.size > 10_000) {
      this.seen.clear();
      for (const s of this.samples) this.seen.add(s.appId);
    }
  }

  /**
   * Takes one sample per app whose AM container was launched while `held(app)` says its lane's
   * guarantee was held with preemption on; true when a sample was added (and kept). An app seen
   * waiting for its queue's AM limit (the CapacityScheduler's diagnostics while it is ACCEPTED)
   * is not sampled: that wait is the queue's own, not preemption's.
   */
  observe<
    A extends { id: string; state?: string; diagnostics?: string; startedTime: number; launchTime?: number },
  >(apps: readonly A[], held: (app: A) => boolean): boolean {
    let added = false;
    for (const a of apps) {
      if (this.seen.has(a.id)) continue;
      if (a.state === 'ACCEPTED' && AM_LIMIT.test(a.diagnostics ?? '')) this.mark(a.id);
      if (a.launchTime === undefined || a.launchTime <= 0 || a.startedTime <= 0) continue;
      this.mark(a.id);
      if (!held(a)) continue;
      this.samples.push({ appId: a.id, seconds: Math.max(0, (a.launchTime - a.startedTime) / 1000) });
      added = true;
    }
    if (!added) return false;
    this.samples = this.samples.slice(-DELAYS_KEPT);
    this.store.setValue(PREEMPTION_DELAYS_KEY, this.samples);
    return true;
  }
}
