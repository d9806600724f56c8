import { RmAuthError } from '../../src/errors/rm-auth';
import { RmRemoteError } from '../../src/errors/rm-remote';
import type { ResourceManagerApi } from '../../src/yarn/api';
import type { AppReport, NodeReport, QueueInfo, SchedulerInfo } from '../../src/yarn/model';
import type { PreemptionSettings } from '../../src/yarn/conf';
import type { AppSubmission } from '../../src/yarn/submission';

/** A small in-memory RM for the sidecar's unit tests: nodes, three queues, apps it can finish. */
export class FakeRm {
  apps = new Map<string, AppReport>();
  writes: string[] = [];
  down = false;
  /** yarn.cluster.max-application-priority: a write above it is set to it, as the RM does. */
  priorityCap = 10;
  /** What GET /conf answers for the cap; undefined: the RM does not say. */
  confCap: number | undefined = undefined;
  /** Refuse every write with 401, as an RM with simple authentication does without user.name. */
  refuseWrites = false;
  /** The next N priority writes fail as a real RM's do before the app's attempt exists (503 NPE). */
  priorityRefusals = 0;
  /** Submissions still to refuse for good (400, as an RM does a submission it will never take). */
  submitRefusals = 0;
  /** Every submission as the RM received it. */
  submissions: AppSubmission[] = [];
  /**
   * Containers (2 GB, 1 vcore) of every CPU node the `default` queue holds: another tenant
   * borrowing the real-time queue's idle guarantee (each node holds 4).
   */
  tenantPerCpuNode = 0;
  /** What each node advertises: 8 GB and 4 vcores (4 containers of 2 GB). */
  nodeMemoryMb = 8192;
  nodeVcores = 4;
  /** What the RM's /conf says of preemption; undefined: this RM has no /conf reader. */
  preemptionSettings: PreemptionSettings | undefined = undefined;
  private seq = 0;

  constructor(
    /** Nodes the RM reports; change them to change every queue's capacity. */
    public cpuNodes = 4,
    private readonly gpuNodes = 1,
  ) {}

  node(id: string, labels: string[]): NodeReport {
    const r = (memoryMB: number, vcores: number) => ({ memoryMB, vcores, extra: {} });
    const k = labels.length === 0 ? this.tenantPerCpuNode : 0;
    return {
      id,
      host: id,
      rack: '/default-rack',
      state: 'RUNNING',
      httpAddress: `${id}:8042`,
      nodeLabels: labels,
      numContainers: 0,
      lastHealthUpdate: 0,
      healthReport: '',
      version: '3.3.6',
      total: r(this.nodeMemoryMb, this.nodeVcores),
      // Only the tenant's containers (queue(): every other queue's absoluteUsedCapacity is 0).
      used: r(2048 * k, k),
      available: r(this.nodeMemoryMb - 2048 * k, this.nodeVcores - k),
    };
  }

  queue(name: string, abs: number, gpuAbs: number, usedAbs = 0): QueueInfo {
    return {
      name,
      path: `root.${name}`,
      kind: 'leaf',
      state: 'RUNNING',
      capacity: abs,
      absoluteCapacity: abs,
      maxCapacity: 100,
      absoluteMaxCapacity: 100,
      usedCapacity: abs > 0 ? (usedAbs * 100) / abs : 0,
      absoluteUsedCapacity: usedAbs,
      numApplications: 0,
      accessibleNodeLabels: gpuAbs > 0 ? ['gpu'] : [],
      defaultNodeLabelExpression: undefined,
      partitions: [
        {
          partition: '',
          capacity: abs,
          usedCapacity: abs > 0 ? (usedAbs * 100) / abs : 0,
          maxCapacity: 100,
          absoluteCapacity: abs,
          absoluteUsedCapacity: usedAbs,
          absoluteMaxCapacity: 100,
        },
        ...(gpuAbs > 0
          ? [
              {
                partition: 'gpu',
                capacity: gpuAbs,
                usedCapacity: 0,
                maxCapacity: 100,
                absoluteCapacity: gpuAbs,
                absoluteUsedCapacity: 0,
                absoluteMaxCapacity: 100,
              },
            ]
          : []),
      ],
      resourcesUsed: undefined,
      children: [],
    };
  }

  private check(): void {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'RM_UNAVAILABLE' });
  }

  private checkWrite(): void {
    this.check();
    if (this.refuseWrites) {
      this.writes.push('refused');
      throw new RmAuthError({
        url: 'http://rm/ws/v1/cluster',
        user: undefined,
        text: 'Authentication required',
      });
    }
  }

  /** An RM restarted without recovery: every app is forgotten. */
  forgetApps(): void {
    this.apps.clear();
  }

  private notFound(id: string): never {
    throw new RmRemoteError({
      status: 404,
      exception: 'NotFoundException',
      javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException',
      message: `app with id: ${id} not found`,
      url: `http://rm/ws/v1/cluster/apps/${id}`,
    });
  }

  /** Ends an app as the RM would report it. */
  finish(appId: string, finishedTime: number, state: 'FINISHED' | 'KILLED' = 'FINISHED'): void {
    const app = this.apps.get(appId)!;
    this.apps.set(appId, {
      ...app,
      state,
      finalStatus: state === 'FINISHED' ? 'SUCCEEDED' : 'KILLED',
      finishedTime,
    });
  }

  /** The app running, started at `startedTime` when given (its AM's container granted). */
  run(appId: string, startedTime?: number): void {
    const app = this.apps.get(appId)!;
    this.apps.set(appId, { ...app, state: 'RUNNING', ...(startedTime === undefined ? {} : { startedTime }) });
  }

  /** An app submitted straight to YARN, not through the sidecar. */
  external(tags: string[], queue = 'default', startedTime = 0): string {
    const id = `application_9_${String(++this.seq).padStart(4, '0')}`;
    this.apps.set(id, this.report(id, { name: 'external', queue, tags, priority: 0 }, startedTime));
    return id;
  }

  private report(
    id: string,
    s: { name: string; queue: string; tags: string[]; priority: number; label?: string },
    startedTime: number,
  ): AppReport {
    return {
      id,
      name: s.name,
      user: 'alice',
      queue: `root.${s.queue}`,
      state: 'ACCEPTED',
      finalStatus: 'UNDEFINED',
      progress: 0,
      applicationType: 'MAPREDUCE',
      applicationTags: s.tags.map((t) => t.toLowerCase()),
      priority: s.priority,
      startedTime,
      finishedTime: 0,
      elapsedTime: 0,
      allocatedMB: 0,
      allocatedVCores: 0,
      runningContainers: 0,
      trackingUI: '',
      trackingUrl: '',
      diagnostics: '',
      amHostHttpAddress: 'cpu-1:8042',
      appNodeLabelExpression: s.label ?? '',
      amNodeLabelExpression: '',
      resourceRequests: [],
    };
  }

  api(): ResourceManagerApi {
    const scheduler = (): SchedulerInfo => ({
      type: 'capacity',
      root: {
        ...this.queue('root', 100, 100),
        kind: 'parent',
        children: [
          this.queue('realtime', 50, 100),
          this.queue('besteffort', 30, 0),
          this.queue('default', 20, 0, (this.tenantPerCpuNode / 4) * 100),
        ],
      },
    });
    const nodes = () => [
      ...Array.from({ length: this.cpuNodes }, (_, i) => this.node(`cpu-${i + 1}`, [])),
      ...Array.from({ length: this.gpuNodes }, (_, i) => this.node(`gpu-${i + 1}`, ['gpu'])),
    ];
    return {
      clusterInfo: async () => {
        this.check();
        return {
          id: 1,
          startedOn: 1,
          state: 'STARTED',
          haState: 'ACTIVE',
          resourceManagerVersion: '3.3.6',
          hadoopVersion: '3.3.6',
        };
      },
      clusterMetrics: async () => {
        this.check();
        const all = nodes();
        const sum = (f: (n: NodeReport) => number) => all.reduce((a, n) => a + f(n), 0);
        return {
          totalMB: sum((n) => n.total.memoryMB),
          totalVirtualCores: sum((n) => n.total.vcores),
          totalNodes: all.length,
          activeNodes: all.length,
          lostNodes: 0,
          unhealthyNodes: 0,
          decommissionedNodes: 0,
          rebootedNodes: 0,
        };
      },
      nodes: async () => (this.check(), nodes()),
      scheduler: async () => (this.check(), scheduler()),
      ...(this.preemptionSettings === undefined
        ? {}
        : { preemption: async () => (this.check(), this.preemptionSettings!) }),
      apps: async () => (this.check(), [...this.apps.values()]),
      app: async (id: string) => {
        this.check();
        const a = this.apps.get(id);
        if (!a) this.notFound(id);
        return a;
      },
      maxApplicationPriority: async () => (this.check(), this.confCap),
      newApplication: async () => {
        this.checkWrite();
        this.writes.push('new-application');
        return {
          applicationId: `application_1_${String(++this.seq).padStart(4, '0')}`,
          maximumResourceCapability: { memoryMB: 8192, vcores: 4, extra: {} },
        };
      },
      submitApp: async (s: AppSubmission) => {
        this.checkWrite();
        if (this.submitRefusals > 0) {
          this.submitRefusals--;
          this.writes.push(`submit-refused ${s.applicationId}`);
          throw new RmRemoteError({
            status: 400,
            exception: 'BadRequestException',
            javaClassName: 'org.apache.hadoop.yarn.webapp.BadRequestException',
            message: `queue ${s.queue ?? 'default'} does not accept the submission`,
            url: 'http://rm/ws/v1/cluster/apps',
          });
        }
        this.writes.push(`submit ${s.applicationId}`);
        this.submissions.push(s);
        this.apps.set(
          s.applicationId,
          this.report(
            s.applicationId,
            {
              name: s.name,
              queue: s.queue ?? 'default',
              tags: s.tags ?? [],
              priority: Math.min(s.priority ?? 0, this.priorityCap),
              label: s.appNodeLabelExpression,
            },
            0,
          ),
        );
        return { status: 202, location: undefined };
      },
      setAppPriority: async (id: string, p: number) => {
        this.checkWrite();
        if (this.priorityRefusals > 0) {
          this.priorityRefusals--;
          this.writes.push(`priority-refused ${id}`);
          throw new RmRemoteError({
            status: 503,
            exception: 'NullPointerException',
            javaClassName: 'java.lang.NullPointerException',
            message: 'Cannot invoke "…RMAppAttempt…" because "attempt" is null',
            url: `http://rm/ws/v1/cluster/apps/${id}/priority`,
          });
        }
        this.writes.push(`priority ${id} ${p}`);
        const a = this.apps.get(id) ?? this.notFound(id);
        const set = Math.min(p, this.priorityCap);
        this.apps.set(id, { ...a, priority: set });
        return set;
      },
      moveApp: async (id: string, queue: string) => {
        this.checkWrite();
        this.writes.push(`move ${id} ${queue}`);
        const a = this.apps.get(id)!;
        this.apps.set(id, { ...a, queue: `root.${queue}` });
        return { queue: `root.${queue}`, moved: true };
      },
    } as unknown as ResourceManagerApi;
  }
}
