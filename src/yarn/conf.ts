import { Node } from './coerce';
import type { Tree } from './format';

/**
 * The daemon's configuration servlet, `GET /conf?name=KEY` (Hadoop's ConfServlet, on every
 * daemon's web port beside /ws). JSON: `{"property":{"key","value","isFinal","resource"}}`;
 * XML: `<configuration><property><name/><value/>…</property></configuration>`. Without `name`
 * the JSON form is `{"properties":[…]}`; all three are read. Undefined when the key is absent.
 */
export const CONF_PATH = '/conf';

/** The RM caps every application priority at this (yarn-default.xml: 0). */
export const MAX_APP_PRIORITY_KEY = 'yarn.cluster.max-application-priority';

/**
 * The RM's preemption settings (yarn-default.xml and the CapacityScheduler's documentation):
 * the monitor that runs the preemption policy, and the policy's waits.
 */
export const PREEMPTION_KEYS = {
  enabled: 'yarn.resourcemanager.scheduler.monitor.enable',
  policies: 'yarn.resourcemanager.scheduler.monitor.policies',
  maxWaitBeforeKillMs: 'yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill',
  naturalTerminationFactor: 'yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor',
  monitoringIntervalMs: 'yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval',
  totalPreemptionPerRound: 'yarn.resourcemanager.monitor.capacity.preemption.total_preemption_per_round',
} as const;

/** Hadoop's defaults where a key is not set (preemption off; 15 s, 0.2, 3 s, 10 % a round). */
export const PREEMPTION_DEFAULTS = {
  enabled: false,
  maxWaitBeforeKillMs: 15_000,
  naturalTerminationFactor: 0.2,
  monitoringIntervalMs: 3_000,
  totalPreemptionPerRound: 0.1,
} as const;

/** What the RM says of preemption, each figure with Hadoop's default where the key is not set. */
export interface PreemptionSettings {
  /**
   * `rm`: read from the RM's /conf; `config`: as the sidecar's admission.sharing says (the
   * operator's word); `unknown`: the RM hides /conf, so nothing is known.
   */
  source: 'rm' | 'config' | 'unknown';
  /** The scheduling monitor runs (the preemption policy can take containers back). */
  enabled: boolean | undefined;
  policies: string | undefined;
  maxWaitBeforeKillMs: number | undefined;
  naturalTerminationFactor: number | undefined;
  monitoringIntervalMs: number | undefined;
  /** Share of the partition the policy may mark in one run. */
  totalPreemptionPerRound: number | undefined;
}

/** The settings from the raw values of PREEMPTION_KEYS (undefined: the key is not set). */
export function preemptionOf(raw: Partial<Record<keyof typeof PREEMPTION_KEYS, string>>): PreemptionSettings {
  const num = (v: string | undefined, dflt: number) => {
    const n = v === undefined ? NaN : Number(v.trim());
    return Number.isFinite(n) ? n : dflt;
  };
  const policies = raw.policies?.trim();
  return {
    source: 'rm',
    enabled:
      raw.enabled === undefined ? PREEMPTION_DEFAULTS.enabled : raw.enabled.trim().toLowerCase() === 'true',
    policies: policies === '' ? undefined : policies,
    maxWaitBeforeKillMs: num(raw.maxWaitBeforeKillMs, PREEMPTION_DEFAULTS.maxWaitBeforeKillMs),
    naturalTerminationFactor: num(raw.naturalTerminationFactor, PREEMPTION_DEFAULTS.naturalTerminationFactor),
    monitoringIntervalMs: num(raw.monitoringIntervalMs, PREEMPTION_DEFAULTS.monitoringIntervalMs),
    totalPreemptionPerRound: num(raw.totalPreemptionPerRound, PREEMPTION_DEFAULTS.totalPreemptionPerRound),
  };
}

export const UNKNOWN_PREEMPTION: PreemptionSettings = Object.freeze({
  source: 'unknown',
  enabled: undefined,
  policies: undefined,
  maxWaitBeforeKillMs: undefined,
  naturalTerminationFactor: undefined,
  monitoringIntervalMs: undefined,
  totalPreemptionPerRound: undefined,
});

export function mapConfValue(tree: Tree, key: string): string | undefined {
  const root = Node.root(tree);
  const candidates = [
    ...root.get('property').list(),
    ...root.get('properties').list(),
    ...root.get('configuration').get('property').list(),
  ];
  for (const p of candidates) {
    const name = p.get('key').present ? p.get('key') : p.get('name');
    if (name.present && name.str() === key) return p.get('value').optStr();
  }
  return undefined;
}
