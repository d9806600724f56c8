import type { SidecarMetrics } from '../metrics';
import type { SidecarConfig } from '../config/schema';
import { hostPartitionsOf, type HostPartitions } from '../core/placement/common/locality';
import { SidecarError } from '../errors/base';
import { redactText, type Logger } from '../log';
import type { Ledger } from '../store/types';
import type { ResourceManagerApi } from '../yarn/api';
import type { ClusterInfo, ClusterMetrics, NodeReport, SchedulerInfo } from '../yarn/model';
import { AppReader, type AppCounts, type AppsRead, type Followed } from './app-reads';
import type { PreemptionSettings } from '../yarn/conf';
import { PreemptionDelays, resolvePreemption, sharingModeOf, type SharingInputs } from './sharing';
import { isQueue, TenantRunTimes } from './tenants';
import { buildCapacityView, type CapacityView } from './snapshot';

export const CAPACITY_KEY = 'capacity';

/** Cluster metrics that change when the nodes or their sizes do (not with the load on them). */
const NODE_METRICS = [
  'totalMB',
  'totalVirtualCores',
  'totalNodes',
  'activeNodes',
  'lostNodes',
  'unhealthyNodes',
  'decommissioningNodes',
  'decommissionedNodes',
  'rebootedNodes',
  'shutdownNodes',
] as const satisfies ReadonlyArray<keyof ClusterMetrics>;

const nodeSignature = (m: ClusterMetrics) => NODE_METRICS.map((k) => m[k] ?? '').join(',');

/**
 * Observe, the pipeline's first stage: one poll of the RM into what the other stages read: the
 * capacity per queue and partition, the node partitions (for dop), the apps. A failed poll
 * keeps the last capacity seen and says why.
 *
 * Each cycle reads the cluster metrics (small) and the apps the sidecar needs (app-reads.ts,
 * told the metrics' counts of apps). The nodes, the scheduler (5,000 nodes are megabytes) and
 * the cluster info (the RM's version and HA state, shown by the API) are read when the
 * metrics' node counts or total resources changed, and every `loop.capacityReadEvery` cycles
 * otherwise: what the metrics do not show (a node's label changed, queues reconfigured, the
 * used share of a partition) is at most that many cycles old. The capacity view is written to
 * the ledger only when it changed.
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
  /** The RM's preemption settings from its /conf, read with the scheduler (admission.sharing). */
  preemptionFromRm: PreemptionSettings | undefined;
  /** The preemption delays measured on this RM (kept in the ledger). */
  readonly delays: PreemptionDelays;
  /** Other tenants' run times, learned from their ended apps (kept in the ledger). */
  readonly tenants: TenantRunTimes;
  /** Per partition, when the other tenants' running containers end (epoch s), as last read. */
  private releases: Record<string, number[]> | undefined;
  /** When ended apps were last read (epoch ms): the next read asks for those ended since. */
  private endedReadMs: number | undefined;
  private readonly apps: AppReader;
  /** The capacity view as last written to the ledger (JSON), to write only a changed one. */
  private written: string | undefined;
  private nodeMetrics: string | undefined;
  private sinceCapacityRead = 0;

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
    this.written = this.capacity === undefined ? undefined : JSON.stringify(this.capacity);
    this.apps = new AppReader({
      rm: deps.rm,
      log: deps.log,
      fullEvery: deps.config.loop.fullReadEvery,
      followedEvery: deps.config.loop.followedReadEvery,
      now: deps.now,
    });
    this.delays = new PreemptionDelays(deps.ledger);
    this.tenants = new TenantRunTimes(deps.ledger);
  }

  /** What the lanes count a guarantee other queues hold with (admission.sharing). */
  sharingInputs(): SharingInputs {
    return {
      preemption: resolvePreemption(this.deps.config.admission.sharing, this.preemptionFromRm),
      measuredFirstReturnSeconds: this.delays.longest,
      ...(this.releases === undefined ? {} : { releases: this.releases }),
    };
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
   * The apps read (those of `followed` and the new ones, or all: app-reads.ts), or undefined
   * when the poll failed (logged, and kept for /readyz).
   */
  async poll(
    apply: (view: CapacityView, sharing: SharingInputs) => void,
    followed: readonly Followed[],
  ): Promise<AppsRead | undefined> {
    const { rm, metrics } = this.deps;
    try {
      // The metrics first: their counts of apps say which reads of apps this cycle needs.
      const clusterMetrics = await rm.clusterMetrics();
      const [, read] = await Promise.all([
        this.readCapacity(apply, clusterMetrics),
        this.apps.read(followed, appCountsOf(clusterMetrics)),
      ]);
      this.lastPollOkMs = this.deps.now();
      this.lastPollError = undefined;
      this.lastPollFailure = undefined;
      metrics.rmUp.set(1);
      return read;
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

  /** The RM's preemption settings, when admission.sharing asks for the RM's word. */
  private async readPreemption(): Promise<void> {
    const { rm, config } = this.deps;
    if (!config.admission.sharing.otherQueues || config.admission.sharing.preemption !== 'rm') return;
    if (rm.preemption === undefined) return;
    this.preemptionFromRm = await rm.preemption();
  }

  /**
   * Other tenants' apps, with a capacity read: those ended since the last read (their run times
   * are learned), and, while preemption is not on and some queue's guarantee is held, the
   * running ones (when each is expected to release its containers). A failure leaves the last
   * figures and is logged: it never fails the poll.
   */
  private async readTenants(view: CapacityView): Promise<void> {
    const { rm, config, log } = this.deps;
    const sharing = config.admission.sharing;
    if (!sharing.otherQueues) return;
    const own = isQueue(config.yarn.realtimeQueue);
    const nowMs = this.deps.now();
    const deSelects = ['resourceRequests', 'timeouts', 'resourceInfo'];
    try {
      const since = this.endedReadMs ?? nowMs - 24 * 3600_000;
      const ended = await rm.apps({
        states: ['FINISHED', 'FAILED', 'KILLED'],
        finishedTimeBegin: since,
        deSelects,
      });
      this.endedReadMs = nowMs;
      this.tenants.learn(ended, own);
      const lent = sharingModeOf(this.sharingInputs().preemption) !== 'preemption';
      if (!lent || !anyHeld(view)) {
        this.releases = undefined;
        return;
      }
      const running = await rm.apps({ states: ['RUNNING'], deSelects });
      this.releases = this.tenants.releases(
        running,
        own,
        { memoryMb: config.admission.containerMemoryMb, vcores: config.admission.containerVcores },
        nowMs / 1000,
      );
    } catch (err) {
      log.warn('reading other tenants’ apps failed', {
        error: redactText(err instanceof Error ? err.message : String(err)),
      });
    }
  }

  /**
   * Nodes and scheduler when due (see the class comment): the capacity view, applied and kept.
   * The cluster info (the RM's version and HA state, for the API's views) is read with them.
   */
  private async readCapacity(
    apply: (view: CapacityView, sharing: SharingInputs) => void,
    clusterMetrics: ClusterMetrics,
  ): Promise<void> {
    const { rm, ledger, config } = this.deps;
    const due =
      this.hostPartitions === undefined || ++this.sinceCapacityRead >= config.loop.capacityReadEvery;
    let nodes: NodeReport[];
    let scheduler: SchedulerInfo;
    if (!due && nodeSignature(clusterMetrics) === this.nodeMetrics) {
      if (this.capacity) apply(this.capacity, this.sharingInputs());
      return;
    }
    [nodes, scheduler, this.clusterInfo] = await Promise.all([
      rm.nodes(),
      rm.scheduler(),
      rm.clusterInfo(),
      due ? this.readPreemption() : undefined,
    ]);
    const signature = nodeSignature(clusterMetrics);
    this.hostPartitions = hostPartitionsOf(nodes.filter((n) => n.state === 'RUNNING'));
    const view = buildCapacityView(
      nodes,
      scheduler,
      { memoryMb: config.admission.containerMemoryMb, vcores: config.admission.containerVcores },
      config.admission,
    );
    this.capacity = view;
    await this.readTenants(view);
    apply(view, this.sharingInputs());
    const json = JSON.stringify(view);
    if (json !== this.written) {
      ledger.setValue(CAPACITY_KEY, view);
      this.written = json;
    }
    this.nodeMetrics = signature;
    this.sinceCapacityRead = 0;
  }
}

/** What the cluster metrics count of apps: submitted, and ended (finished, failed or killed). */
export function appCountsOf(m: ClusterMetrics): AppCounts {
  return { submitted: m.appsSubmitted, ended: m.appsCompleted + m.appsFailed + m.appsKilled };
}

/** Some queue's guarantee in some partition is held by others: more unused than free. */
function anyHeld(view: CapacityView): boolean {
  return view.queues.some((q) =>
    Object.entries(q.containers).some(
      ([label, guaranteed]) =>
        guaranteed - (q.used?.[label] ?? guaranteed) > (view.free?.[label] ?? Infinity),
    ),
  );
}
