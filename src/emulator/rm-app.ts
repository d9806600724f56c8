import express, { type Request, type Response } from 'express';
import { EmulatedRmRejection, remoteRejection } from '../errors/emulated-rm-rejection';
import type { Logger } from '../log';
import type { Node } from '../yarn/coerce';
import { GPU_RESOURCE } from '../yarn/model';
import type { Controls } from './controls';
import {
  answer,
  formatOf,
  handle,
  query,
  queryList,
  queryNumber,
  PreResourceRejection,
  readBody,
  sendExact,
  undeclaredThrowable,
  unknownRoutes,
  userOf,
} from './http';
import { CONTENT_TYPE, EntryMap, XSI_TYPE, type Content } from './render';
import {
  APP_STATES,
  type AppRecord,
  type AppView,
  type EmulatedRm,
  type ReservationRecord,
  type ReservationSpec,
} from './rm-state';
import { nodePartition } from './ports';
import { readSubmissionContext } from './submission-context';

/**
 * The emulated ResourceManager's REST API (INDEX.md section 3 and 4): every path the client
 * uses, answering in the shapes of Hadoop's samples (test/fixtures/yarn-rm-api/), JSON or XML
 * by Accept, through render.ts. State and refusals come from EmulatedRm.
 */

const C = '/ws/v1/cluster';

type Res = { memoryMB: number; vcores: number; gpus: number };

/** A resource as the RM writes it, with resourceInformations carrying yarn.io/gpu. */
function resource(r: Res): Content {
  const info = (name: string, units: string, value: number) => ({
    attributes: {},
    // The RM writes Long.MAX_VALUE, which a JS number cannot hold exactly.
    maximumAllocation: Number.MAX_SAFE_INTEGER,
    minimumAllocation: 0,
    name,
    resourceType: 'COUNTABLE',
    units,
    value,
  });
  return {
    memory: r.memoryMB,
    vCores: r.vcores,
    resourceInformations: {
      resourceInformation: [
        info('memory-mb', 'Mi', r.memoryMB),
        info('vcores', '', r.vcores),
        info(GPU_RESOURCE, '', r.gpus),
      ],
    },
  };
}

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0);

export function buildRmApp(rm: EmulatedRm, controls: Controls, log: Logger): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.text({ type: () => true, limit: '1mb' }));
  app.use(controls.middleware(true));
  app.use((_req, _res, next) => {
    rm.sync();
    next();
  });
  const cfg = rm.config;
  const slot = (n: number, gpus = 0): Res => ({
    memoryMB: n * cfg.containerMemoryMB,
    vcores: n * cfg.containerVcores,
    gpus,
  });
  const ts = rm.clusterTimestamp;
  const h = (fn: (req: Request, res: Response) => void) => handle(log, fn);

  // ------------------------------------------------------------------ cluster

  const clusterInfo = (): Content => ({
    id: ts,
    startedOn: ts,
    state: 'STARTED',
    haState: controls.faults.standbyOf === null ? 'ACTIVE' : 'STANDBY',
    rmStateStoreName: 'org.apache.hadoop.yarn.server.resourcemanager.recovery.NullRMStateStore',
    resourceManagerVersion: cfg.hadoopVersion,
    resourceManagerBuildVersion: `${cfg.hadoopVersion} from yarn-sched-sidecar emulator`,
    resourceManagerVersionBuiltOn: '2024-01-01T00:00Z',
    hadoopVersion: cfg.hadoopVersion,
    hadoopBuildVersion: `${cfg.hadoopVersion} from yarn-sched-sidecar emulator`,
    hadoopVersionBuiltOn: '2024-01-01T00:00Z',
    haZooKeeperConnectionState: 'ResourceManager HA is not enabled.',
  });
  // `/ws/v1/cluster` itself is redirected by a standby; only `/info` is its own (INDEX.md section 7).
  app.get(
    [C, `${C}/info`],
    h((req, res) => answer(req, res, 'clusterInfo', clusterInfo())),
  );
  app.get('/isActive', (_req, res) => {
    if (controls.faults.standbyOf === null) sendExact(res, 200, 'text/plain;charset=utf-8', 'I am Active!');
    else res.status(405).type('text/plain').send('STANDBY');
  });

  // Hadoop's ConfServlet (`/conf`, `/conf?name=KEY`): the settings the emulator has, each with
  // the file it would come from (a `-default.xml` when at its default). JSON when Accept names
  // application/json, else XML (text/xml); an unknown name is 404 with no body (measured on 3.4.3).
  const confProperties = (): Array<{ key: string; value: string; resource: string }> => {
    const yarn = (key: string, value: string | number | boolean, dflt: string | number | boolean) => ({
      key,
      value: String(value),
      resource: value === dflt ? 'yarn-default.xml' : 'yarn-site.xml',
    });
    const core = (key: string, value: string, dflt: string) => ({
      key,
      value,
      resource: value === dflt ? 'core-default.xml' : 'core-site.xml',
    });
    const simple = cfg.auth === 'simple';
    return [
      yarn('yarn.cluster.max-application-priority', cfg.maxApplicationPriority, 0),
      yarn('yarn.resourcemanager.am.max-attempts', cfg.amMaxAttempts, 2),
      yarn('yarn.acl.enable', cfg.aclEnabled, false),
      yarn('yarn.admin.acl', cfg.adminAcl, '*'),
      core('hadoop.http.authentication.type', 'simple', 'simple'),
      core('hadoop.http.authentication.simple.anonymous.allowed', simple ? 'false' : 'true', 'true'),
      core(
        'hadoop.http.filter.initializers',
        simple
          ? 'org.apache.hadoop.security.AuthenticationFilterInitializer'
          : 'org.apache.hadoop.http.lib.StaticUserWebFilter',
        'org.apache.hadoop.http.lib.StaticUserWebFilter',
      ),
      core('hadoop.http.staticuser.user', cfg.defaultUser, 'dr.who'),
    ];
  };
  app.get('/conf', (req, res) => {
    const json = (req.get('accept') ?? '').includes('application/json');
    const type = json ? 'application/json;charset=utf-8' : 'text/xml;charset=utf-8';
    const name = query(req, 'name');
    const all = confProperties();
    const props = name === undefined ? all : all.filter((p) => p.key === name);
    res.setHeader('Cache-Control', 'no-cache');
    if (name !== undefined && props.length === 0) return sendExact(res, 404, type, '');
    if (json) {
      const ordered = (p: (typeof all)[number]) => ({
        key: p.key,
        value: p.value,
        isFinal: false,
        resource: p.resource,
      });
      return sendExact(
        res,
        200,
        type,
        JSON.stringify(
          name === undefined ? { properties: props.map(ordered) } : { property: ordered(props[0]!) },
        ),
      );
    }
    const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    sendExact(
      res,
      200,
      type,
      '<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>\n' +
        props
          .map(
            (p) =>
              `<property><name>${esc(p.key)}</name><value>${esc(p.value)}</value><final>false</final><source>${p.resource}</source></property>\n`,
          )
          .join('') +
        '</configuration>',
    );
  });

  app.get(
    `${C}/metrics`,
    h((req, res) => {
      const nodes = rm.nodeUsage();
      const live = nodes.filter((n) => n.alive);
      const total = live.reduce((s, n) => s + n.containers, 0);
      const used = live.reduce((s, n) => s + n.usedContainers, 0);
      const views = rm.allViews();
      const count = (...states: string[]) => views.filter((v) => states.includes(v.state)).length;
      const pending = views.reduce(
        (s, v) => s + (['ACCEPTED', 'RUNNING'].includes(v.state) ? v.pendingMaps : 0),
        0,
      );
      answer(req, res, 'clusterMetrics', {
        appsSubmitted: views.length,
        appsCompleted: count('FINISHED', 'FAILED', 'KILLED'),
        appsPending: count('NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED'),
        appsRunning: count('RUNNING'),
        appsFailed: count('FAILED'),
        appsKilled: count('KILLED'),
        reservedMB: 0,
        availableMB: (total - used) * cfg.containerMemoryMB,
        allocatedMB: used * cfg.containerMemoryMB,
        reservedVirtualCores: 0,
        availableVirtualCores: (total - used) * cfg.containerVcores,
        allocatedVirtualCores: used * cfg.containerVcores,
        containersAllocated: used,
        containersReserved: 0,
        containersPending: pending,
        totalMB: total * cfg.containerMemoryMB,
        totalVirtualCores: total * cfg.containerVcores,
        totalNodes: nodes.length,
        lostNodes: nodes.length - live.length,
        unhealthyNodes: 0,
        decommissioningNodes: 0,
        decommissionedNodes: 0,
        rebootedNodes: 0,
        activeNodes: live.length,
        shutdownNodes: 0,
      });
    }),
  );

  // ------------------------------------------------------------------ scheduler

  app.get(
    `${C}/scheduler`,
    h((req, res) => {
      const usage = rm.queueUsage();
      const partitions = ['', ...rm.labels()];
      const totals = new Map(partitions.map((p) => [p, rm.partitionContainers(p)]));
      const usedIn = (q: string, p: string) => usage.get(q)?.get(p) ?? 0;
      const views = rm.allViews();
      const leaves = rm.queueConfigs.map((q) => {
        const caps = partitions
          .filter((p) => p === '' || q.accessibleNodeLabels.includes(p))
          .map((p) => {
            const total = totals.get(p)!;
            const capacity = rm.queueShare(q, p, 'capacity');
            const maxCapacity = rm.queueShare(q, p, 'max');
            const used = usedIn(q.name, p);
            return {
              partitionName: p,
              capacity,
              usedCapacity: pct(used, (total * capacity) / 100),
              maxCapacity,
              absoluteCapacity: capacity,
              absoluteUsedCapacity: pct(used, total),
              absoluteMaxCapacity: maxCapacity,
              maxAMLimitPercentage: 10,
              weight: -1,
              normalizedWeight: 0,
            };
          });
        const usedDefault = usedIn(q.name, '');
        const usedAll = partitions.reduce((s, p) => s + usedIn(q.name, p), 0);
        const apps = views.filter(
          (v) => v.rec.queue === q.name && ['SUBMITTED', 'ACCEPTED', 'RUNNING'].includes(v.state),
        );
        const defaultCap = caps.find((c) => c.partitionName === '')!;
        return {
          [XSI_TYPE]: 'capacitySchedulerLeafQueueInfo',
          queuePath: `root.${q.name}`,
          capacity: q.capacity,
          usedCapacity: defaultCap.usedCapacity,
          maxCapacity: q.maxCapacity,
          absoluteCapacity: q.capacity,
          absoluteMaxCapacity: q.maxCapacity,
          absoluteUsedCapacity: pct(usedDefault, totals.get('')!),
          weight: -1,
          normalizedWeight: 0,
          numApplications: apps.length,
          maxParallelApps: 2147483647,
          queueName: q.name,
          isAbsoluteResource: false,
          state: 'RUNNING',
          resourcesUsed: resource(slot(usedAll)),
          hideReservationQueues: false,
          nodeLabels: q.accessibleNodeLabels,
          defaultNodeLabelExpression:
            q.defaultNodeLabelExpression === '' ? undefined : q.defaultNodeLabelExpression,
          allocatedContainers: usedAll,
          reservedContainers: 0,
          pendingContainers: apps.reduce((s, v) => s + v.pendingMaps, 0),
          capacities: { queueCapacitiesByPartition: caps },
          resources: {
            resourceUsagesByPartition: caps.map((c) => ({
              partitionName: c.partitionName,
              used: resource(slot(usedIn(q.name, c.partitionName))),
              reserved: resource(slot(0)),
              pending: resource(slot(0)),
              amUsed: resource(slot(0)),
              amLimit: resource(slot(0)),
              userAmLimit: resource(slot(0)),
            })),
          },
          queuePriority: 0,
          orderingPolicyInfo: 'fifo',
          autoCreateChildQueueEnabled: false,
          mode: 'percentage',
          queueType: 'leaf',
          creationMethod: 'static',
          numActiveApplications: apps.filter((v) => v.state === 'RUNNING').length,
          numPendingApplications: apps.filter((v) => v.state !== 'RUNNING').length,
          numContainers: usedAll,
          maxApplications: 10000,
          maxApplicationsPerUser: 10000,
          userLimit: 100,
          users: {},
          userLimitFactor: 1,
          preemptionDisabled: true,
          intraQueuePreemptionDisabled: true,
          defaultPriority: 0,
          isAutoCreatedLeafQueue: false,
          maxApplicationLifetime: -1,
          defaultApplicationLifetime: -1,
        };
      });
      const usedRoot = partitions.reduce(
        (s, p) => s + [...usage.values()].reduce((a, m) => a + (m.get(p) ?? 0), 0),
        0,
      );
      answer(req, res, 'scheduler', {
        schedulerInfo: {
          [XSI_TYPE]: 'capacityScheduler',
          capacity: 100,
          usedCapacity: pct(
            [...usage.values()].reduce((a, m) => a + (m.get('') ?? 0), 0),
            totals.get('')!,
          ),
          maxCapacity: 100,
          weight: -1,
          normalizedWeight: 0,
          queueName: 'root',
          queuePath: 'root',
          maxParallelApps: 2147483647,
          isAbsoluteResource: false,
          queues: { queue: leaves },
          capacities: {
            queueCapacitiesByPartition: partitions.map((p) => ({
              partitionName: p,
              capacity: 100,
              usedCapacity: pct(
                [...usage.values()].reduce((a, m) => a + (m.get(p) ?? 0), 0),
                totals.get(p)!,
              ),
              maxCapacity: 100,
              absoluteCapacity: 100,
              absoluteUsedCapacity: pct(
                [...usage.values()].reduce((a, m) => a + (m.get(p) ?? 0), 0),
                totals.get(p)!,
              ),
              absoluteMaxCapacity: 100,
            })),
          },
          allocatedContainers: usedRoot,
          queuePriority: 0,
          orderingPolicyInfo: 'utilization',
          mode: 'percentage',
          queueType: 'parent',
          creationMethod: 'static',
        },
      });
    }),
  );

  // ------------------------------------------------------------------ nodes and labels

  const nodeContent = (n: ReturnType<EmulatedRm['nodeUsage']>[number]): Content => {
    const total = slot(n.containers, n.gpus);
    const used = slot(n.usedContainers, n.usedGpus);
    const avail = slot(n.containers - n.usedContainers, n.gpus - n.usedGpus);
    return {
      rack: '/default-rack',
      state: n.alive ? 'RUNNING' : 'LOST',
      id: n.id,
      nodeHostName: n.host,
      nodeHTTPAddress: `${n.host}:8042`,
      lastHealthUpdate: rm.time.nowEpochMs(),
      version: cfg.hadoopVersion,
      healthReport: '',
      numContainers: n.usedContainers,
      usedMemoryMB: used.memoryMB,
      availMemoryMB: avail.memoryMB,
      usedVirtualCores: used.vcores,
      availableVirtualCores: avail.vcores,
      nodeLabels: n.labels,
      totalResource: resource(total),
      usedResource: resource(used),
      availableResource: resource(avail),
    };
  };
  const NODE_STATES = [
    'NEW',
    'RUNNING',
    'UNHEALTHY',
    'DECOMMISSIONING',
    'DECOMMISSIONED',
    'LOST',
    'REBOOTED',
    'SHUTDOWN',
  ];
  app.get(
    `${C}/nodes`,
    h((req, res) => {
      const states = queryList(req, 'states')?.map((s) => s.toUpperCase());
      for (const s of states ?? []) {
        if (!NODE_STATES.includes(s)) {
          throw remoteRejection(
            400,
            'BadRequestException',
            `java.lang.IllegalArgumentException: No enum constant org.apache.hadoop.yarn.api.records.NodeState.${s}`,
          );
        }
      }
      const nodes = rm
        .nodeUsage()
        .filter((n) => !states || states.length === 0 || states.includes(n.alive ? 'RUNNING' : 'LOST'));
      answer(req, res, 'nodes', { node: nodes.map(nodeContent) });
    }),
  );
  const mustNode = (id: string) => {
    const n = rm.nodeUsage().find((x) => x.id === id || x.host === id);
    if (!n)
      throw remoteRejection(404, 'NotFoundException', `java.lang.Exception: nodeId, ${id}, is not found`);
    return n;
  };
  app.get(
    `${C}/nodes/:nodeId`,
    h((req, res) => answer(req, res, 'node', nodeContent(mustNode(String(req.params.nodeId))))),
  );

  const labelInfo = (name: string, withResources: boolean, activeNMs?: number): Content => {
    const nodes = rm.nodeUsage().filter((n) => n.alive && nodePartition(n.labels) === name);
    const free = nodes.reduce((s, n) => s + n.containers - n.usedContainers, 0);
    const gpus = nodes.reduce((s, n) => s + n.gpus - n.usedGpus, 0);
    return {
      name,
      exclusivity: true,
      activeNMs,
      partitionInfo: withResources ? { resourceAvailable: resource(slot(free, gpus)) } : undefined,
    };
  };
  app.get(
    `${C}/get-node-labels`,
    h((req, res) =>
      answer(req, res, 'nodeLabelsInfo', { nodeLabelInfo: rm.labels().map((l) => labelInfo(l, true)) }),
    ),
  );
  app.get(
    `${C}/get-rm-node-labels`,
    h((req, res) => {
      const nodes = rm.nodeUsage().filter((n) => n.alive);
      const active = (p: string) => nodes.filter((n) => nodePartition(n.labels) === p).length;
      const all = [
        { ...(labelInfo('', true, active('')) as object), name: '<DEFAULT_PARTITION>' },
        ...rm.labels().map((l) => labelInfo(l, true, active(l))),
      ];
      answer(req, res, 'nodeLabelsInfo', { nodeLabelInfo: all as Content[] });
    }),
  );
  app.get(
    `${C}/get-node-to-labels`,
    h((req, res) => {
      const entries = rm
        .nodeUsage()
        .filter((n) => n.labels.length > 0)
        .map((n) => ({
          key: n.id,
          value: { nodeLabelInfo: n.labels.map((l) => ({ name: l, exclusivity: true })) },
        }));
      answer(req, res, 'nodeToLabelsInfo', { nodeToLabels: { entry: entries } });
    }),
  );
  app.get(
    `${C}/label-mappings`,
    h((req, res) => {
      const wanted = queryList(req, 'labels');
      const labels = rm.labels().filter((l) => !wanted || wanted.length === 0 || wanted.includes(l));
      const entries = labels.map((l) => {
        const info = labelInfo(l, true) as { partitionInfo: Content };
        return {
          key: { name: l, exclusivity: true },
          value: {
            nodes: rm
              .nodeUsage()
              .filter((n) => n.labels.includes(l))
              .map((n) => n.id),
            partitionInfo: info.partitionInfo,
          },
        };
      });
      answer(req, res, 'labelsToNodesInfo', { labelsToNodes: { entry: entries } });
    }),
  );
  app.get(
    `${C}/nodes/:nodeId/get-labels`,
    h((req, res) => {
      const n = mustNode(String(req.params.nodeId));
      answer(req, res, 'nodeLabelsInfo', {
        nodeLabelInfo: n.labels.map((l) => ({ name: l, exclusivity: true })),
      });
    }),
  );

  // ------------------------------------------------------------------ apps: reads

  const base = (req: Request) => `http://${req.get('host') ?? 'localhost'}`;
  const FINAL = ['FINISHED', 'FAILED', 'KILLED'];
  const suffixOf = (id: string) => id.slice('application_'.length);
  const amHostOf = (r: AppRecord) =>
    rm.nodeUsage().find((n) => nodePartition(n.labels) === (r.amNodeLabelExpression || r.partition))?.host ??
    '';
  const containerOf = (r: AppRecord, attempt: number) =>
    `container_${suffixOf(r.id)}_${String(attempt).padStart(2, '0')}_000001`;
  /** The AM attempt the app report speaks of: its number, once one has started. */
  const currentAttempt = (r: AppRecord): number | undefined => {
    if (r.amFailure) return rm.amFailureAttempts(r).at(-1)?.n;
    return r.inEngine ? 1 : undefined;
  };
  /** Container time of the app's tasks so far, simulated seconds (memorySeconds / MB). */
  const containerSeconds = (r: AppRecord): number => {
    const now = rm.engine.now;
    const done = rm.taskRecordsOf(r.id).reduce((a, t) => a + (t.end - t.start), 0);
    const running = rm.engine.runningTasksOf(r.id).reduce((a, t) => a + Math.max(0, now - t.start), 0);
    const am = rm.amFailureAttempts(r).reduce((a, t) => a + (Math.min(t.end, now) - t.start), 0);
    return done + running + am;
  };
  const usage = (partition: string, used: Res, pending: Res, amUsed: Res): Content => ({
    partitionName: partition,
    used: resource(used),
    reserved: resource(slot(0)),
    pending: resource(pending),
    amUsed: resource(amUsed),
    amLimit: resource(slot(0)),
    userAmLimit: resource(slot(0)),
  });
  /** A pending ask as the RM's ResourceRequestInfo renders it. */
  const request = (priority: number, r: Res, numContainers: number, label: string): Content => ({
    priority,
    allocationRequestId: -1,
    resourceName: '*',
    capability: resource(r),
    numContainers,
    relaxLocality: true,
    nodeLabelExpression: label,
    executionTypeRequest: { executionType: 'GUARANTEED', enforceExecutionType: false },
  });

  /**
   * An app as the RM 3.4.3's AppInfo renders it (measured): the queue as a full path, the
   * submission's name, type (empty when not given), lower-cased sorted tags, priority (-1 when
   * not given, capped), label expressions (the AM's is the app's when not given; none for an
   * unmanaged AM), the pending asks (the AM's before it runs, the maps' after), and -1 for the
   * allocations of a final app.
   */
  const appContent = (req: Request, v: AppView, deSelects: Set<string>): Content => {
    const r = v.rec;
    const final = FINAL.includes(v.state);
    // FINISHED in the report, its AM container still held until it ends (measured on 3.4.3).
    const finishing = v.rmState === 'FINISHING';
    const attempt = currentAttempt(r);
    const launched = attempt !== undefined && (v.state === 'RUNNING' || final || r.amFailure !== null);
    const amHost = amHostOf(r);
    // An AM that never registered leaves the RM's app page as the tracking URL.
    const neverRegistered = r.amFailure !== null || r.unmanaged;
    const amAsk = slot(0);
    amAsk.memoryMB = r.amResource.memoryMB;
    amAsk.vcores = r.amResource.vcores;
    const seconds = attempt !== undefined ? containerSeconds(r) : 0;
    const out: Record<string, Content> = {
      id: r.id,
      user: r.user,
      name: r.name,
      queue: r.queueKnown ? `root.${r.queue}` : r.queue,
      state: v.state,
      finalStatus: v.finalStatus,
      progress: Math.round(v.progress * 100) / 100,
      trackingUI:
        final && r.queueKnown ? 'History' : v.state === 'RUNNING' ? 'ApplicationMaster' : 'UNASSIGNED',
      trackingUrl: !r.queueKnown
        ? undefined
        : neverRegistered
          ? final
            ? `${base(req)}/cluster/app/${r.id}`
            : undefined
          : `${base(req)}/proxy/${r.id}/`,
      diagnostics: rm.diagnosticsOf(r, base(req)),
      clusterId: ts,
      applicationType: r.applicationType,
      applicationTags: r.tags.join(','),
      priority: r.priority,
      startedTime: v.startedTime,
      launchTime: r.unmanaged ? -1 : launched ? v.startedTime : 0,
      finishedTime: v.finishedTime,
      elapsedTime: v.elapsedTime,
      amContainerLogs:
        launched && !r.unmanaged
          ? `http://${amHost}:8042/node/containerlogs/${containerOf(r, attempt ?? 1)}/${r.user}`
          : undefined,
      amHostHttpAddress: launched && !r.unmanaged ? `${amHost}:8042` : undefined,
      masterNodeId: launched && !r.unmanaged ? `${amHost}:45454` : '',
      allocatedMB: finishing
        ? r.amResource.memoryMB
        : final
          ? -1
          : v.runningContainers * cfg.containerMemoryMB,
      allocatedVCores: finishing
        ? r.amResource.vcores
        : final
          ? -1
          : v.runningContainers * cfg.containerVcores,
      reservedMB: final && !finishing ? -1 : 0,
      reservedVCores: final && !finishing ? -1 : 0,
      runningContainers: finishing ? 1 : final ? -1 : v.runningContainers,
      memorySeconds: Math.round(seconds * cfg.containerMemoryMB),
      vcoreSeconds: Math.round(seconds * cfg.containerVcores),
      queueUsagePercentage: 0,
      clusterUsagePercentage: 0,
      resourceSecondsMap: new EntryMap(
        attempt === undefined
          ? []
          : [
              ['memory-mb', Math.round(seconds * cfg.containerMemoryMB)],
              ['vcores', Math.round(seconds * cfg.containerVcores)],
            ],
      ),
      preemptedResourceMB: 0,
      preemptedResourceVCores: 0,
      numNonAMContainerPreempted: 0,
      numAMContainerPreempted: 0,
      preemptedMemorySeconds: 0,
      preemptedVcoreSeconds: 0,
      preemptedResourceSecondsMap: new EntryMap([]),
    };
    if (!deSelects.has('resourceRequests') && !final && r.queueKnown && !r.unmanaged) {
      const waiting = r.inEngine && v.state !== 'RUNNING';
      if (waiting) out.resourceRequests = [request(0, amAsk, 1, r.amNodeLabelExpression)];
      else if (v.state === 'RUNNING' && v.pendingMaps > 0)
        // MapReduce asks for maps at priority 20 (RMContainerAllocator's PRIORITY_MAP).
        out.resourceRequests = [request(20, slot(1), v.pendingMaps, r.partition)];
    }
    out.logAggregationStatus = 'DISABLED';
    out.unmanagedApplication = r.unmanaged;
    out.reservationId = r.reservationId ?? undefined;
    if (!deSelects.has('appNodeLabelExpression')) out.appNodeLabelExpression = r.appNodeLabelExpression;
    if (!deSelects.has('amNodeLabelExpression') && !r.unmanaged)
      out.amNodeLabelExpression = r.amNodeLabelExpression;
    if (
      !deSelects.has('resourceInfo') &&
      (!final || finishing) &&
      r.queueKnown &&
      !r.unmanaged &&
      attempt !== undefined
    ) {
      const partitions = [...new Set(['', r.partition, r.amNodeLabelExpression])];
      out.resourceInfo = {
        resourceUsagesByPartition: partitions.map((p) =>
          usage(
            p,
            finishing
              ? p === r.amNodeLabelExpression
                ? amAsk
                : slot(0)
              : p === r.partition
                ? slot(v.runningContainers)
                : slot(0),
            p === r.partition && v.state === 'RUNNING' ? slot(v.pendingMaps) : slot(0),
            p === r.amNodeLabelExpression ? amAsk : slot(0),
          ),
        ),
      };
    }
    if (!deSelects.has('timeouts')) out.timeouts = { timeout: [rm.timeoutOf(r)] };
    return out;
  };
  const deSelectsOf = (req: Request) => new Set(queryList(req, 'deSelects') ?? []);

  app.get(
    `${C}/apps`,
    h((req, res) => {
      const given = [...(queryList(req, 'states') ?? []), ...(queryList(req, 'state') ?? [])];
      for (const s of given) {
        if (!(APP_STATES as readonly string[]).includes(s.toUpperCase())) {
          // The state as given, and the list (measured on 3.4.3).
          throw remoteRejection(
            400,
            'BadRequestException',
            `java.lang.Exception: Invalid application-state ${s} specified. It should be one of [${APP_STATES.join(', ')}]`,
          );
        }
      }
      const states = given.map((s) => s.toUpperCase());
      const limit = queryNumber(req, 'limit');
      if (limit !== undefined && limit <= 0) {
        throw remoteRejection(
          400,
          'BadRequestException',
          'java.lang.Exception: limit value must be greater then 0',
        );
      }
      const views = rm.queryApps({
        states,
        finalStatus: query(req, 'finalStatus'),
        user: query(req, 'user'),
        queue: query(req, 'queue'),
        limit,
        startedTimeBegin: queryNumber(req, 'startedTimeBegin', 0),
        startedTimeEnd: queryNumber(req, 'startedTimeEnd', 0),
        finishedTimeBegin: queryNumber(req, 'finishedTimeBegin', 0),
        finishedTimeEnd: queryNumber(req, 'finishedTimeEnd', 0),
        applicationTypes: queryList(req, 'applicationTypes'),
        applicationTags: queryList(req, 'applicationTags'),
        name: query(req, 'name'),
      });
      const de = deSelectsOf(req);
      answer(req, res, 'apps', { app: views.map((v) => appContent(req, v, de)) });
    }),
  );

  app.get(
    `${C}/appstatistics`,
    h((req, res) => {
      const types = queryList(req, 'applicationTypes') ?? [];
      if (types.length > 1) {
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: # of applicationTypes = ${types.length}, we temporarily support at most one applicationType`,
        );
      }
      const states = (queryList(req, 'states') ?? APP_STATES.slice()).map((s) => s.toUpperCase());
      const views = rm
        .allViews()
        .filter((v) => types.length === 0 || v.rec.applicationType.toUpperCase() === types[0]!.toUpperCase());
      answer(req, res, 'appStatInfo', {
        statItem: states.map((s) => ({
          state: s.toLowerCase(),
          type: types[0] ?? '*',
          count: views.filter((v) => v.state === s).length,
        })),
      });
    }),
  );

  const appOf = (req: Request) => rm.mustApp(String(req.params.appId));
  // Jersey matches the literal path before `{appid}`: new-application has no GET (503).
  app.get(
    `${C}/apps/new-application`,
    h(() => {
      throw new PreResourceRejection();
    }),
  );
  app.get(
    `${C}/apps/:appId`,
    h((req, res) => answer(req, res, 'app', appContent(req, rm.view(appOf(req)), deSelectsOf(req)))),
  );

  const attemptState: Record<string, string> = {
    SUBMITTED: 'SUBMITTED',
    ACCEPTED: 'SCHEDULED',
    RUNNING: 'RUNNING',
    FINISHED: 'FINISHED',
    KILLED: 'KILLED',
    FAILED: 'FAILED',
  };
  /** One attempt as AppAttemptInfo renders it (3.4.3: `exportPorts` is the text `null`). */
  const attemptContent = (
    r: AppRecord,
    n: number,
    startMs: number,
    finishedMs: number,
    state: string,
    host: string,
  ): Content => ({
    id: n,
    startTime: startMs,
    finishedTime: finishedMs,
    containerId: containerOf(r, n),
    nodeHttpAddress: `${host}:8042`,
    nodeId: `${host}:45454`,
    logsLink: `http://${host}:8042/node/containerlogs/${containerOf(r, n)}/${r.user}`,
    blacklistedNodes: '',
    nodesBlacklistedBySystem: '',
    appAttemptId: `appattempt_${suffixOf(r.id)}_${String(n).padStart(6, '0')}`,
    exportPorts: 'null',
    appAttemptState: state,
  });
  const attempts = (v: AppView): Content[] => {
    const r = v.rec;
    if (r.unmanaged) {
      // Nothing launched: the attempt waits for its AM to register (measured on 3.4.3).
      return [
        {
          id: 1,
          startTime: v.startedTime,
          finishedTime: v.state === 'KILLED' ? v.finishedTime : 0,
          containerId: '',
          nodeHttpAddress: '',
          nodeId: '',
          logsLink: '',
          blacklistedNodes: '',
          appAttemptId: `appattempt_${suffixOf(r.id)}_000001`,
          exportPorts: '',
          appAttemptState: v.state === 'KILLED' ? 'KILLED' : 'LAUNCHED',
        },
      ];
    }
    if (r.amFailure) {
      const host = amHostOf(r);
      return rm
        .amFailureAttempts(r)
        .map((a) =>
          attemptContent(
            r,
            a.n,
            rm.epoch(a.start),
            a.over ? rm.epoch(a.end) : 0,
            a.over
              ? r.killedSeconds !== null && a.end >= r.killedSeconds
                ? 'KILLED'
                : 'FAILED'
              : 'LAUNCHED',
            host,
          ),
        );
    }
    if (!r.inEngine) return [];
    // A FINISHING app's attempt is FINISHING too (measured on 3.4.3).
    const state = v.rmState === 'FINISHING' ? 'FINISHING' : (attemptState[v.state] ?? 'NEW');
    return [attemptContent(r, 1, v.startedTime, v.finishedTime, state, amHostOf(r))];
  };
  app.get(
    `${C}/apps/:appId/appattempts`,
    h((req, res) => answer(req, res, 'appAttempts', { appAttempt: attempts(rm.view(appOf(req))) })),
  );
  /**
   * One attempt of an app, as the RM's AppInfoProvider finds it (measured on 3.4.3): an id that
   * does not parse is 400, an unknown app or attempt 404 with the client service's message.
   */
  const attemptOf = (req: Request): Content => {
    const appId = String(req.params.appId);
    const attemptId = String(req.params.attemptId);
    if (!/^appattempt_\d+_\d+_\d+$/.test(attemptId))
      throw remoteRejection(
        400,
        'BadRequestException',
        attemptId.startsWith('appattempt_')
          ? `java.lang.IllegalArgumentException: Invalid AppAttemptId: ${attemptId}`
          : `java.lang.IllegalArgumentException: Invalid AppAttemptId prefix: ${attemptId}`,
      );
    const rec = rm.submissionOf(appId) === undefined ? undefined : rm.mustApp(appId);
    if (rec === undefined)
      throw remoteRejection(
        404,
        'NotFoundException',
        `org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException: Application with id '${appId}' doesn't exist in RM. Please check that the job submission was successful.`,
      );
    const found = attempts(rm.view(rec)).find(
      (a) => (a as { appAttemptId: string }).appAttemptId === attemptId,
    );
    if (!found)
      throw remoteRejection(
        404,
        'NotFoundException',
        `org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException: ApplicationAttempt with id '${attemptId}' doesn't exist in RM.`,
      );
    return found;
  };
  app.get(
    `${C}/apps/:appId/appattempts/:attemptId`,
    h((req, res) => answer(req, res, 'appAttempt', attemptOf(req))),
  );
  app.get(
    `${C}/apps/:appId/appattempts/:attemptId/containers`,
    // Containers of a task are not tracked one by one by the simulator: the list is the empty
    // one, which the RM writes `{}` in JSON and `<containers/>` in XML (measured on 3.4.3).
    h((req, res) => {
      attemptOf(req);
      answer(req, res, 'containers', { container: [] }, { dialect: 'jersey-default', wrapJson: false });
    }),
  );

  app.get(
    `${C}/apps/:appId/state`,
    // RMAppState, not the report's state: FINISHING, KILLING, FINAL_SAVING too (measured on 3.4.3).
    h((req, res) =>
      answer(req, res, 'appstate', { state: rm.view(appOf(req)).rmState }, { wrapJson: false }),
    ),
  );
  app.get(
    `${C}/apps/:appId/queue`,
    h((req, res) => answer(req, res, 'appqueue', { queue: `root.${appOf(req).queue}` }, { wrapJson: false })),
  );
  app.get(
    `${C}/apps/:appId/priority`,
    h((req, res) =>
      answer(req, res, 'applicationpriority', { priority: appOf(req).priority }, { wrapJson: false }),
    ),
  );
  app.get(
    `${C}/apps/:appId/timeouts`,
    h((req, res) => answer(req, res, 'timeouts', { timeout: [rm.timeoutOf(appOf(req))] })),
  );
  app.get(
    `${C}/apps/:appId/timeouts/:type`,
    h((req, res) => {
      const rec = appOf(req);
      if (req.params.type !== 'LIFETIME') {
        throw remoteRejection(
          400,
          'BadRequestException',
          `java.lang.Exception: Invalid application timeout type ${String(req.params.type)}`,
        );
      }
      answer(req, res, 'timeout', rm.timeoutOf(rec));
    }),
  );

  // ------------------------------------------------------------------ apps: writes

  // The writes: the app first (400 for an id that does not parse, 404 for an unknown one), then
  // the body, as RMWebServices reads them (measured on 3.4.3).
  app.put(
    `${C}/apps/:appId/state`,
    h((req, res) => {
      const appId = String(req.params.appId);
      const body = readBody(req, 'appstate');
      rm.mustApp(appId);
      const target = body.get('state').optStr();
      if (target === undefined) {
        // AppState.getState() is null and the resource method dereferences it.
        throw new EmulatedRmRejection({
          status: 503,
          exception: 'NullPointerException',
          javaClassName: 'java.lang.NullPointerException',
          message:
            'Cannot invoke "String.equals(Object)" because the return value of "org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.AppState.getState()" is null',
        });
      }
      const out = rm.kill(appId, target, body.get('diagnostics').optStr(), userOf(req));
      if (out.status === 202) res.set('Location', `${base(req)}${req.path}`);
      answer(req, res, 'appstate', { state: out.state }, { wrapJson: false, status: out.status });
    }),
  );
  app.put(
    `${C}/apps/:appId/queue`,
    h((req, res) => {
      const appId = String(req.params.appId);
      const body = readBody(req, 'appqueue');
      rm.mustApp(appId);
      // No queue in the body is a move to null: the scheduler's refusal (503).
      const target = body.get('queue').optStr();
      if (target === undefined) throw undeclaredThrowable();
      answer(req, res, 'appqueue', { queue: rm.move(appId, target, userOf(req)) }, { wrapJson: false });
    }),
  );
  app.put(
    `${C}/apps/:appId/priority`,
    h((req, res) => {
      const appId = String(req.params.appId);
      const p = readBody(req, 'applicationpriority').get('priority');
      rm.mustApp(appId);
      // AppPriority's priority is an int: a body without it asks for 0.
      answer(
        req,
        res,
        'applicationpriority',
        { priority: rm.setPriority(appId, p.present ? p.int() : 0, userOf(req)) },
        { wrapJson: false },
      );
    }),
  );
  app.put(
    `${C}/apps/:appId/timeout`,
    h((req, res) => {
      const appId = String(req.params.appId);
      // The timeout body is root-wrapped in JSON too (INDEX.md 9.3): an unwrapped one has no type.
      const body = readBody(req, 'timeout', { wrappedJson: true });
      rm.mustApp(appId);
      const rec = rm.setLifetime(
        appId,
        body.get('type').optStr(),
        body.get('expiryTime').optStr(),
        userOf(req),
      );
      answer(req, res, 'timeout', rm.timeoutOf(rec));
    }),
  );

  app.post(
    `${C}/apps/new-application`,
    h((req, res) => {
      const id = rm.newApplication();
      const max = rm.maximumAllocation();
      answer(
        req,
        res,
        'NewApplication',
        {
          'application-id': id,
          'maximum-resource-capability': resource({ memoryMB: max.memoryMB, vcores: max.vcores, gpus: 0 }),
        },
        { wrapJson: false },
      );
    }),
  );
  app.post(
    `${C}/apps`,
    h((req, res) => {
      const context = readSubmissionContext(readBody(req, 'application-submission-context'));
      const rec = rm.submit({ context, user: userOf(req) });
      // 202, no body, the Content-Type negotiated all the same, and the request URL (no query)
      // plus the id as Location (measured on 3.4.3).
      res.set('Location', `${base(req)}${req.path.replace(/\/+$/, '')}/${rec.id}`);
      sendExact(res, 202, CONTENT_TYPE[formatOf(req)], '');
    }),
  );

  // ------------------------------------------------------------------ reservations

  const readDefinition = (n: Node): ReservationSpec => {
    const reqs = n.get('reservation-requests');
    return {
      arrival: n.req('arrival').num(),
      deadline: n.req('deadline').num(),
      name: n.get('reservation-name').strOr(''),
      priority: n.get('priority').present ? n.get('priority').num() : undefined,
      recurrenceExpression: n.get('recurrence-expression').optStr(),
      interpreter: reqs.get('reservation-request-interpreter').numOr(0),
      requests: reqs.listOf('reservation-request').map((r) => ({
        memoryMB: r.req('capability').get('memory').numOr(0),
        vcores: r.req('capability').get('vCores').numOr(0),
        numContainers: r.req('num-containers').num(),
        minConcurrency: r.get('min-concurrency').numOr(1),
        durationMs: r.req('duration').num(),
      })),
    };
  };
  const reservationContent = (r: ReservationRecord, withAllocations: boolean): Content => ({
    'acceptance-time': r.acceptanceTime,
    user: r.user,
    'resource-allocations': withAllocations
      ? r.allocations.map((a) => ({
          resource: { memory: a.memoryMB, vCores: a.vcores },
          startTime: a.startTime,
          endTime: a.endTime,
        }))
      : undefined,
    'reservation-id': r.id,
    'reservation-definition': {
      arrival: r.definition.arrival,
      deadline: r.definition.deadline,
      'reservation-requests': {
        'reservation-request-interpreter': r.definition.interpreter,
        'reservation-request': r.definition.requests.map((q) => ({
          capability: { memory: q.memoryMB, vCores: q.vcores },
          'min-concurrency': q.minConcurrency,
          'num-containers': q.numContainers,
          duration: q.durationMs,
        })),
      },
      'reservation-name': r.definition.name,
      priority: r.definition.priority,
      'recurrence-expression': r.definition.recurrenceExpression,
    },
  });

  app.get(
    `${C}/reservation/list`,
    h((req, res) => {
      const list = rm.listReservations({
        queue: query(req, 'queue') ?? 'default',
        reservationId: query(req, 'reservation-id'),
        startTime: queryNumber(req, 'start-time', 0) ?? 0,
        endTime: queryNumber(req, 'end-time', 0) ?? Number.MAX_SAFE_INTEGER,
      });
      const withAllocations = query(req, 'include-resource-allocations') === 'true';
      answer(
        req,
        res,
        'reservationListInfo',
        { reservations: list.map((r) => reservationContent(r, withAllocations)) },
        { wrapJson: false, dialect: 'jersey-default' },
      );
    }),
  );
  app.post(
    `${C}/reservation/new-reservation`,
    h((req, res) =>
      answer(req, res, 'new-reservation', { 'reservation-id': rm.newReservation() }, { wrapJson: false }),
    ),
  );
  app.post(
    `${C}/reservation/submit`,
    h((req, res) => {
      const n = readBody(req, 'reservation-submission-context');
      rm.submitReservation(
        n.get('reservation-id').optStr(),
        n.get('queue').optStr(),
        readDefinition(n.req('reservation-definition')),
        userOf(req),
      );
      // The doc shows 200; the RM's code answers 202 Accepted with no body (INDEX.md row 23),
      // the Content-Type negotiated all the same (measured on 3.4.3).
      sendExact(res, 202, CONTENT_TYPE[formatOf(req)], '');
    }),
  );
  app.post(
    `${C}/reservation/update`,
    h((req, res) => {
      const n = readBody(req, 'reservation-update-context');
      rm.updateReservation(n.get('reservation-id').optStr(), readDefinition(n.req('reservation-definition')));
      answer(req, res, 'reservation-update-response', {}, { wrapJson: false });
    }),
  );
  app.post(
    `${C}/reservation/delete`,
    h((req, res) => {
      rm.deleteReservation(readBody(req, 'reservation-delete-context').get('reservation-id').optStr());
      answer(req, res, 'reservation-delete-response', {}, { wrapJson: false });
    }),
  );

  // Writes the emulator does not offer, answered as an RM without Kerberos does: a 403 text
  // entity naming the channel's auth type (`null` on a stock RM, `simple` with simple auth).
  app.post(
    `${C}/delegation-token`,
    h((req, res) => {
      sendExact(
        res,
        403,
        CONTENT_TYPE[formatOf(req)],
        `Delegation token operations can only be carried out on a Kerberos authenticated channel. Expected auth type is kerberos, got type ${cfg.auth === 'simple' ? 'simple' : 'null'}`,
      );
    }),
  );

  // A known path asked with another method: 503; an unknown one: the web UI's 404 page.
  app.use(unknownRoutes(app, log, 'rm'));
  return app;
}
