import type { SidecarMetrics } from '../api/metrics';
import type { SidecarConfig } from '../config/schema';
import { hostPartitionsOf, type HostPartitions } from '../core/placement/locality';
import { SidecarError } from '../errors/base';
import { redactText, type Logger } from '../log';
import type { Ledger } from '../store/types';
import type { ResourceManagerApi } from '../yarn/api';
import type { AppReport, ClusterInfo } from '../yarn/model';
import { buildCapacityView, type CapacityView } from './snapshot';

export const CAPACITY_KEY = 'capacity';

/**
 * Observe, the pipeline's first stage: one poll of the RM (cluster info, nodes, scheduler,
 * apps) into what the other stages read: the capacity per queue and partition, the node
 * partitions (for dop), the apps. A failed poll keeps the last capacity seen and says why.
 */
export class ClusterObservation {
  capacity: CapacityView | undefined;
  clusterInfo: ClusterInfo | undefined;
  /** Host name to label partition of each RUNNING node, from the last RM poll (for dop). */
  hostPartitions: HostPartitions | undefined;
  lastPollOkMs: number | undefined;
  lastPollError: string | undefined;
  /** The typed error behind lastPollError, to say what kind of failure it is. */
  lastPollFailure: unknown;

  constructor(
    private readonly deps: {
      config: SidecarConfig;
      rm: ResourceManagerApi;
      ledger: Ledger;
      metrics: SidecarMetrics;
      log: Logger;
      now: () => number;
    },
  ) {
    // Decide at once after a restart, even with the RM down: the last capacity seen is kept.
    this.capacity = deps.ledger.getValue<CapacityView>(CAPACITY_KEY);
  }

  get pollOk(): boolean {
    return this.lastPollError === undefined;
  }

  knownQueue(name: string): boolean {
    return this.capacity?.queues.some((q) => q.name === name || q.path === name) ?? false;
  }

  /**
   * admission.queueDefaults for a queue as a submission names it: its own entry (by the name
   * given, the queue's short name, or its path), else `*`, else none.
   */
  queueDefault(name: string): { key: string; deadlineSeconds: number } | undefined {
    const defaults = this.deps.config.admission.queueDefaults;
    const q = this.capacity?.queues.find((x) => x.name === name || x.path === name);
    for (const key of [name, q?.name, q?.path, '*']) {
      if (key !== undefined && Object.hasOwn(defaults, key)) return { key, ...defaults[key]! };
    }
    return undefined;
  }

  /**
   * Polls the RM; `apply` sizes the lanes to the capacity seen, before the poll counts as good.
   * The apps it lists, or undefined when the poll failed (logged, and kept for /readyz).
   */
  async poll(apply: (view: CapacityView) => void): Promise<AppReport[] | undefined> {
    const { rm, metrics, ledger, config } = this.deps;
    try {
      const [info, nodes, scheduler, appList] = await Promise.all([
        rm.clusterInfo(),
        rm.nodes(),
        rm.scheduler(),
        rm.apps({ deSelects: ['resourceRequests'] }),
      ]);
      this.clusterInfo = info;
      this.hostPartitions = hostPartitionsOf(nodes.filter((n) => n.state === 'RUNNING'));
      const view = buildCapacityView(nodes, scheduler, {
        memoryMb: config.admission.containerMemoryMb,
        vcores: config.admission.containerVcores,
      });
      this.capacity = view;
      apply(view);
      ledger.setValue(CAPACITY_KEY, view);
      this.lastPollOkMs = this.deps.now();
      this.lastPollError = undefined;
      this.lastPollFailure = undefined;
      metrics.rmUp.set(1);
      return appList;
    } catch (err) {
      // Shown by /readyz: an RM address in the message may carry user:password.
      this.lastPollError = redactText(err instanceof Error ? err.message : String(err));
      this.lastPollFailure = err;
      metrics.rmUp.set(0);
      this.deps.log.warn('poll failed', {
        code: err instanceof SidecarError ? err.code : undefined,
        error: this.lastPollError,
      });
      return undefined;
    }
  }
}
