import { XMLBuilder } from 'fast-xml-parser';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import { Node, splitList } from './coerce';
import { parseExpiryTime } from './expiry';
import type { Format, Tree } from './format';
import { JsonListSink } from './json-list';
import type { ItemLimit } from './limits';
import type { XmlList } from './xml-reader';
import type {
  AppAttempt,
  AppReport,
  AppStatItem,
  AppTimeout,
  BlockLocation,
  CapacityVector,
  ClusterInfo,
  ClusterMetrics,
  ContainerReport,
  FileStatus,
  JobCounters,
  JobSummary,
  LabelMapping,
  NewApplication,
  NodeLabel,
  NodeReport,
  PartitionCapacity,
  PartitionResources,
  QueueInfo,
  ReservationDefinition,
  ReservationInfo,
  Resource,
  ResourceRequestInfo,
  SchedulerInfo,
  TaskAttemptReport,
  TaskCounters,
  TaskReport,
  TaskRun,
  TaskType,
} from './model';

/**
 * Every mapping between the RM's bodies (JSON or XML, already decoded by format.ts into one
 * tree) and the typed model, in both directions. A body that lacks a required field throws
 * RmMalformedResponseError naming the field; nothing here returns a partial object. A field
 * that some RM versions do not send (model.ts says since which version) is read with the
 * `opt…` helpers and stays undefined when missing: it is never replaced by a default.
 */

const root = (tree: Tree): Node => Node.root(tree);

/** A list answer `{<list>: {<item>: [...]}}` (missing or empty: no items), each item mapped. */
const listOf =
  <T>(list: string, item: string, map: (n: Node) => T) =>
  (tree: Tree): T[] =>
    root(tree).get(list).listOf(item).map(map);

/**
 * A list answer `{<list>: {<item>: [...]}}` read as its text arrives: a JsonListSink mapping
 * each item (json-list.ts), for the transport to give the text to (the client's reads of nodes
 * and apps). The same items, or the same error, as listOf of the parsed text.
 */
const listSinkOf =
  <T>(list: string, item: string, map: (n: Node) => T) =>
  (streamFromChars: number, limit?: ItemLimit): JsonListSink<T> =>
    new JsonListSink<T>(
      list,
      item,
      (tree, i) => map(new Node(tree as Tree, `${list}.${item}[${i}]`)),
      streamFromChars,
      limit,
    );

/**
 * Everything a client needs to read one list endpoint: the whole-tree mapping, the readers of
 * its text as it arrives in JSON (JsonListSink) and XML (xml-reader.ts), each mapping an item as
 * listOf would, and the count of a whole tree's items (held to the endpoint's limit before they
 * are mapped).
 */
export interface ListShape<T> {
  map: (tree: Tree) => T[];
  json: (streamFromChars: number, limit?: ItemLimit) => JsonListSink<T>;
  xml: (limit?: ItemLimit) => XmlList<T>;
  count: (tree: Tree) => number;
}

const listShapeOf = <T>(list: string, item: string, map: (n: Node) => T): ListShape<T> => ({
  map: listOf(list, item, map),
  json: listSinkOf(list, item, map),
  xml: (limit) => ({
    list,
    item,
    map: (tree, i) => map(new Node(tree, `${list}.${item}[${i}]`)),
    limit,
  }),
  count: (tree) => root(tree).get(list).listOf(item).length,
});

/** WebHDFS's list answer `{<list>: {<item>: [...]}}`, whose list is required, each item mapped. */
const requiredListOf =
  <T>(list: string, item: string, map: (n: Node) => T) =>
  (tree: Tree): T[] =>
    root(tree).req(list).listOf(item).map(map);

/** A one-item answer `{<item>: {...}}`, mapped (the item is required). */
const itemOf =
  <T>(item: string, map: (n: Node) => T) =>
  (tree: Tree): T =>
    map(root(tree).req(item));

// --- resources ------------------------------------------------------------------------------

const BUILTIN_RESOURCES = new Set(['memory-mb', 'memory', 'vcores']);

/**
 * `{memory, vCores, resourceInformations:{resourceInformation:[{name, value}]}}`. Extra types
 * (e.g. `yarn.io/gpu`) exist only in resourceInformations. The apps list's resourceRequests
 * write `virtualCores` instead of `vCores` (INDEX.md section 5).
 */
export function mapResource(n: Node): Resource {
  const extra: Record<string, number> = {};
  for (const info of n.get('resourceInformations').listOf('resourceInformation')) {
    const name = info.req('name').str();
    if (!BUILTIN_RESOURCES.has(name)) extra[name] = info.get('value').numOr(0);
  }
  const vcores = n.get('vCores').present ? n.get('vCores') : n.get('virtualCores');
  return { memoryMB: n.get('memory').numOr(0), vcores: vcores.numOr(0), extra };
}

function optResource(n: Node): Resource | undefined {
  return n.present && n.value !== '' ? mapResource(n) : undefined;
}

function subtract(a: Resource, b: Resource): Resource {
  const extra: Record<string, number> = {};
  for (const k of Object.keys(a.extra)) extra[k] = (a.extra[k] ?? 0) - (b.extra[k] ?? 0);
  return { memoryMB: a.memoryMB - b.memoryMB, vcores: a.vcores - b.vcores, extra };
}

function add(a: Resource, b: Resource): Resource {
  const extra: Record<string, number> = { ...a.extra };
  for (const [k, v] of Object.entries(b.extra)) extra[k] = (extra[k] ?? 0) + v;
  return { memoryMB: a.memoryMB + b.memoryMB, vcores: a.vcores + b.vcores, extra };
}

// --- cluster ---------------------------------------------------------------------------------

export function mapClusterInfo(tree: Tree): ClusterInfo {
  const n = root(tree).req('clusterInfo');
  return {
    id: n.req('id').num(),
    startedOn: n.get('startedOn').numOr(0),
    state: n.get('state').strOr(''),
    haState: n.get('haState').optStr(),
    ...n.strs('resourceManagerVersion', 'hadoopVersion'),
    haZooKeeperConnectionState: n.get('haZooKeeperConnectionState').optStr(),
  };
}

/** The metrics every RM since 2.7 sends (ClusterMetricsInfo of 2.7.7): a body without one is malformed. */
const METRIC_KEYS = [
  'appsSubmitted',
  'appsCompleted',
  'appsPending',
  'appsRunning',
  'appsFailed',
  'appsKilled',
  'totalMB',
  'availableMB',
  'allocatedMB',
  'reservedMB',
  'totalVirtualCores',
  'availableVirtualCores',
  'allocatedVirtualCores',
  'containersAllocated',
  'containersPending',
  'containersReserved',
  'totalNodes',
  'activeNodes',
  'lostNodes',
  'unhealthyNodes',
  'decommissionedNodes',
  'rebootedNodes',
] as const satisfies ReadonlyArray<keyof ClusterMetrics>;

/** Metrics that some RMs do not send: decommissioning and shutdown nodes arrived in 2.8. */
const OPTIONAL_METRIC_KEYS = [
  'reservedVirtualCores',
  'decommissioningNodes',
  'shutdownNodes',
] as const satisfies ReadonlyArray<keyof ClusterMetrics>;

export function mapClusterMetrics(tree: Tree): ClusterMetrics {
  const n = root(tree).req('clusterMetrics');
  const out = {} as ClusterMetrics;
  for (const key of METRIC_KEYS) out[key] = n.req(key).num();
  for (const key of OPTIONAL_METRIC_KEYS) {
    const value = n.get(key).optNum();
    if (value !== undefined) out[key] = value;
  }
  return out;
}

// --- nodes -----------------------------------------------------------------------------------

function mapNodeReport(n: Node): NodeReport {
  // Hadoop 3 nodes carry totalResource/usedResource/availableResource (with extra types such as
  // yarn.io/gpu); the doc's samples only have the memory/vcore scalars, so fall back to those.
  const usedScalar: Resource = {
    memoryMB: n.get('usedMemoryMB').numOr(0),
    vcores: n.get('usedVirtualCores').numOr(0),
    extra: {},
  };
  const availScalar: Resource = {
    memoryMB: n.get('availMemoryMB').numOr(0),
    vcores: n.get('availableVirtualCores').numOr(0),
    extra: {},
  };
  const used = optResource(n.get('usedResource')) ?? usedScalar;
  const total = optResource(n.get('totalResource'));
  const available = optResource(n.get('availableResource')) ?? (total ? subtract(total, used) : availScalar);
  return {
    id: n.req('id').str(),
    host: n.get('nodeHostName').strOr(''),
    rack: n.get('rack').strOr(''),
    state: n.req('state').str(),
    httpAddress: n.get('nodeHTTPAddress').strOr(''),
    nodeLabels: n.get('nodeLabels').strings(),
    numContainers: n.get('numContainers').numOr(0),
    lastHealthUpdate: n.get('lastHealthUpdate').numOr(0),
    healthReport: n.get('healthReport').strOr(''),
    version: n.get('version').strOr(''),
    total: total ?? add(used, available),
    used,
    available,
  };
}

export const mapNodes = listOf('nodes', 'node', mapNodeReport);
export const nodesSink = listSinkOf('nodes', 'node', mapNodeReport);
export const nodesList = listShapeOf('nodes', 'node', mapNodeReport);
export const mapNode = itemOf('node', mapNodeReport);

// --- apps ------------------------------------------------------------------------------------

function mapResourceRequest(n: Node): ResourceRequestInfo {
  const prio = n.get('priority');
  return {
    resourceName: n.get('resourceName').strOr('*'),
    numContainers: n.get('numContainers').numOr(0),
    capability: mapResource(n.get('capability')),
    // `"priority":{"priority":N}` in the apps list (INDEX.md section 5); a bare number elsewhere.
    priority: prio.get('priority').present ? prio.get('priority').num() : prio.numOr(0),
    relaxLocality: n.get('relaxLocality').boolOr(true),
    nodeLabelExpression: n.get('nodeLabelExpression').optStr(),
  };
}

/**
 * An app report, the members read straight from a JSON object when each has the type JSON gives
 * it (a cycle maps hundreds of them); any other form (XML's strings for numbers, a member of a
 * wrong type, resource requests present) is read by the Node cursor (`appReportOf`), which also
 * names what is wrong. Both give the same report for any object (test/yarn/mapping-fast.test.ts).
 */
function mapAppReport(n: Node): AppReport {
  const v = n.value;
  const fast = typeof v === 'object' && v !== null && !Array.isArray(v) ? appReportOfJson(v) : undefined;
  return fast ?? appReportOf(n);
}

/** Set by the readers below when a member is not of the type they read: the report is left to the cursor. */
let offType = false;
const jsonStr = (v: unknown, fallback: string): string =>
  v === undefined || v === null
    ? fallback
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : ((offType = true), fallback);
const jsonOptStr = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : jsonStr(v, '');
const jsonReqStr = (v: unknown): string =>
  v === undefined || v === null ? ((offType = true), '') : jsonStr(v, '');
const jsonOptNum = (v: unknown): number | undefined =>
  v === undefined || v === null || v === '' ? undefined : typeof v === 'number' ? v : ((offType = true), 0);
const jsonNum = (v: unknown): number => jsonOptNum(v) ?? 0;

/** appReportOf for a JSON object whose members all have their JSON types, or undefined. */
export function appReportOfJson(o: Record<string, unknown>): AppReport | undefined {
  offType = false;
  const requests = o.resourceRequests;
  if (!(requests === undefined || requests === null || requests === '')) return undefined;
  const report: AppReport = {
    id: jsonReqStr(o.id),
    name: jsonStr(o.name, ''),
    user: jsonStr(o.user, ''),
    queue: jsonStr(o.queue, ''),
    state: jsonReqStr(o.state),
    finalStatus: jsonStr(o.finalStatus, 'UNDEFINED'),
    progress: jsonNum(o.progress),
    applicationType: jsonStr(o.applicationType, ''),
    applicationTags: splitList(jsonStr(o.applicationTags, '')),
    priority: jsonOptNum(o.priority),
    startedTime: jsonNum(o.startedTime),
    launchTime: jsonOptNum(o.launchTime),
    finishedTime: jsonNum(o.finishedTime),
    elapsedTime: jsonNum(o.elapsedTime),
    allocatedMB: jsonNum(o.allocatedMB),
    allocatedVCores: jsonNum(o.allocatedVCores),
    runningContainers: jsonNum(o.runningContainers),
    trackingUI: jsonStr(o.trackingUI, ''),
    trackingUrl: jsonStr(o.trackingUrl, ''),
    diagnostics: jsonStr(o.diagnostics, ''),
    amHostHttpAddress: jsonStr(o.amHostHttpAddress, ''),
    appNodeLabelExpression: jsonOptStr(o.appNodeLabelExpression),
    amNodeLabelExpression: jsonOptStr(o.amNodeLabelExpression),
    resourceRequests: [],
  };
  return offType ? undefined : report;
}

/** An app report read through the cursor: every dialect, and errors naming the member. */
export function appReportOf(n: Node): AppReport {
  return {
    id: n.req('id').str(),
    name: n.get('name').strOr(''),
    user: n.get('user').strOr(''),
    queue: n.get('queue').strOr(''),
    state: n.req('state').str(),
    finalStatus: n.get('finalStatus').strOr('UNDEFINED'),
    progress: n.get('progress').numOr(0),
    applicationType: n.get('applicationType').strOr(''),
    // As reported: the RM lower-cases tags, and a reader of a tag's value must allow for that.
    applicationTags: splitList(n.get('applicationTags').strOr('')),
    priority: n.get('priority').optNum(),
    startedTime: n.get('startedTime').numOr(0),
    launchTime: n.get('launchTime').optNum(),
    finishedTime: n.get('finishedTime').numOr(0),
    elapsedTime: n.get('elapsedTime').numOr(0),
    allocatedMB: n.get('allocatedMB').numOr(0),
    allocatedVCores: n.get('allocatedVCores').numOr(0),
    runningContainers: n.get('runningContainers').numOr(0),
    trackingUI: n.get('trackingUI').strOr(''),
    trackingUrl: n.get('trackingUrl').strOr(''),
    diagnostics: n.get('diagnostics').strOr(''),
    amHostHttpAddress: n.get('amHostHttpAddress').strOr(''),
    appNodeLabelExpression: n.get('appNodeLabelExpression').optStr(),
    amNodeLabelExpression: n.get('amNodeLabelExpression').optStr(),
    resourceRequests: n.get('resourceRequests').list().map(mapResourceRequest),
  };
}

export const mapApps = listOf('apps', 'app', mapAppReport);
export const appsSink = listSinkOf('apps', 'app', mapAppReport);
export const appsList = listShapeOf('apps', 'app', mapAppReport);
export const mapApp = itemOf('app', mapAppReport);

export const mapAppStatistics = listOf('appStatInfo', 'statItem', (n): AppStatItem => ({
  state: n.req('state').str(),
  type: n.get('type').strOr(''),
  count: n.req('count').num(),
}));

export const mapAppAttempts = listOf('appAttempts', 'appAttempt', (n): AppAttempt => ({
  id: n.req('id').num(),
  appAttemptId: n.get('appAttemptId').optStr(),
  ...n.nums('startTime', 'finishedTime'),
  ...n.strs('containerId', 'nodeId', 'nodeHttpAddress', 'logsLink'),
  state: n.get('appAttemptState').optStr(),
}));

function mapContainerReport(n: Node): ContainerReport {
  return {
    containerId: n.req('containerId').str(),
    ...n.nums('allocatedMB', 'allocatedVCores'),
    nodeId: n.get('nodeId').strOr(n.get('assignedNodeId').strOr('')),
    state: n.get('containerState').strOr(''),
    ...n.nums('priority', 'startedTime', 'finishedTime', 'elapsedTime'),
    exitStatus: n.get('containerExitStatus').numOr(0),
  };
}

export const mapContainers = listOf('containers', 'container', mapContainerReport);
export const mapContainer = itemOf('container', mapContainerReport);

/** `{"state":…}` in JSON (unwrapped), `<appstate><state>…` in XML. */
export function mapAppState(tree: Tree): string {
  return root(tree).unwrap('appstate').req('state').str();
}

/** `{"queue":…}` in JSON (unwrapped), `<appqueue><queue>…` in XML. */
export function mapAppQueue(tree: Tree): string {
  return root(tree).unwrap('appqueue').req('queue').str();
}

/** `{"priority":…}` in JSON (unwrapped), `<applicationpriority><priority>…` in XML. */
export function mapAppPriority(tree: Tree): number {
  return root(tree).unwrap('applicationpriority').req('priority').int();
}

function mapTimeoutNode(n: Node): AppTimeout {
  const text = n.req('expiryTime').str();
  let expiryTime: number | null;
  try {
    expiryTime = parseExpiryTime(text);
  } catch (err) {
    throw new RmMalformedResponseError(`RM body: ${n.path}.expiryTime: ${(err as Error).message}`, {
      fieldPath: `${n.path}.expiryTime`,
    });
  }
  return {
    type: n.req('type').str(),
    expiryTime,
    remainingTimeInSeconds: n.get('remainingTimeInSeconds').numOr(-1),
  };
}

export const mapTimeouts = listOf('timeouts', 'timeout', mapTimeoutNode);
/** The timeout GET and PUT answers are root-wrapped in both formats (INDEX.md 9.3). */
export const mapTimeout = itemOf('timeout', mapTimeoutNode);

export function mapNewApplication(tree: Tree): NewApplication {
  const n = root(tree).unwrap('NewApplication');
  return {
    applicationId: n.req('application-id').str(),
    maximumResourceCapability: mapResource(n.req('maximum-resource-capability')),
  };
}

// --- scheduler -------------------------------------------------------------------------------

/** A queue's weight mode figures and capacity vector, as both the queue and its partition report them. */
function queueWeights(n: Node): {
  weight?: number;
  normalizedWeight?: number;
  capacityVector?: ReturnType<typeof optCapacityVector>;
} {
  return {
    weight: n.get('weight').optNum(),
    normalizedWeight: n.get('normalizedWeight').optNum(),
    capacityVector: optCapacityVector(n.get('queueCapacityVectorInfo')),
  };
}

/** `queueCapacityVectorInfo` (3.4+): `{configuredCapacityVector, capacityVectorEntries[]}`. */
function optCapacityVector(n: Node): CapacityVector | undefined {
  if (!n.present || n.value === '') return undefined;
  return {
    text: n.get('configuredCapacityVector').strOr(''),
    entries: n
      .get('capacityVectorEntries')
      .list()
      .map((e) => ({
        resource: e.req('resourceName').str(),
        value: e.get('resourceValue').strOr(''),
      })),
  };
}

function mapPartition(n: Node): PartitionCapacity {
  return {
    partition: n.get('partitionName').strOr(''),
    ...n.nums(
      'capacity',
      'usedCapacity',
      'maxCapacity',
      'absoluteCapacity',
      'absoluteUsedCapacity',
      'absoluteMaxCapacity',
    ),
    maxAMLimitPercentage: n.get('maxAMLimitPercentage').optNum(),
    ...queueWeights(n),
    configuredMinResource: optResource(n.get('configuredMinResource')),
    configuredMaxResource: optResource(n.get('configuredMaxResource')),
    effectiveMinResource: optResource(n.get('effectiveMinResource')),
    effectiveMaxResource: optResource(n.get('effectiveMaxResource')),
  };
}

function mapPartitionResources(n: Node): PartitionResources {
  return {
    partition: n.get('partitionName').strOr(''),
    used: optResource(n.get('used')),
    reserved: optResource(n.get('reserved')),
    pending: optResource(n.get('pending')),
    amUsed: optResource(n.get('amUsed')),
    amLimit: optResource(n.get('amLimit')),
    userAmLimit: optResource(n.get('userAmLimit')),
  };
}

function mapCapacityQueue(n: Node, parentPath: string | undefined): QueueInfo {
  const name = n.req('queueName').str();
  const path = n.get('queuePath').strOr(parentPath ? `${parentPath}.${name}` : name);
  const isLeaf =
    n.get('type').optStr() === 'capacitySchedulerLeafQueueInfo' || n.get('queueType').optStr() === 'leaf';
  const capacity = n.req('capacity').num();
  const maxCapacity = n.get('maxCapacity').numOr(100);
  const usedCapacity = n.get('usedCapacity').numOr(0);
  const defaultExpr = n.get('defaultNodeLabelExpression').optStr();
  return {
    name,
    path,
    kind: isLeaf ? 'leaf' : 'parent',
    state: n.get('state').strOr('RUNNING'),
    capacity,
    // The root carries no absolute values: it is the whole cluster.
    absoluteCapacity: n.get('absoluteCapacity').numOr(capacity),
    maxCapacity,
    absoluteMaxCapacity: n.get('absoluteMaxCapacity').numOr(maxCapacity),
    usedCapacity,
    absoluteUsedCapacity: n.get('absoluteUsedCapacity').numOr(usedCapacity),
    numApplications: n.get('numApplications').numOr(0),
    accessibleNodeLabels: n.get('nodeLabels').strings(),
    defaultNodeLabelExpression: defaultExpr === '' ? undefined : defaultExpr,
    partitions: n.get('capacities').listOf('queueCapacitiesByPartition').map(mapPartition),
    resourcesUsed: optResource(n.get('resourcesUsed')),
    resourcesByPartition: n.get('resources').present
      ? n.get('resources').listOf('resourceUsagesByPartition').map(mapPartitionResources)
      : undefined,
    capacityMode: n.get('mode').optStr(),
    ...queueWeights(n),
    preemptionDisabled: n.get('preemptionDisabled').optBool(),
    effectiveMinResource: optResource(n.get('minEffectiveCapacity')),
    effectiveMaxResource: optResource(n.get('maxEffectiveCapacity')),
    children: n
      .get('queues')
      .listOf('queue')
      .map((c) => mapCapacityQueue(c, path)),
  };
}

function percentOf(part: number, whole: number): number {
  return whole > 0 ? (part / whole) * 100 : 0;
}

/**
 * A fair-scheduler queue's children. Since 2.8 `childQueues` is a FairSchedulerQueueInfoList,
 * `{"queue":[…]}` (`<childQueues><queue>…</queue></childQueues>`); before 2.8 it was the
 * collection of queues itself, `"childQueues":[{…},{…}]` in JSON and one `<childQueues>`
 * element per child in XML. Either may come as one bare object.
 */
function fairChildren(n: Node): Node[] {
  const c = n.get('childQueues');
  if (!Array.isArray(c.value) && c.get('queue').present) return c.listOf('queue');
  return c.list();
}

/**
 * Fair scheduler queues have resources, not percentages: capacity is the steady fair share,
 * max capacity the max resources and used capacity the used resources, each as a percentage
 * of the cluster's memory, so that the three schedulers read alike.
 */
function mapFairQueue(n: Node): QueueInfo {
  const path = n.req('queueName').str();
  const clusterMB = mapResource(n.get('clusterResources')).memoryMB;
  const steady = mapResource(n.get('steadyFairResources')).memoryMB;
  const max = mapResource(n.get('maxResources')).memoryMB;
  const used = mapResource(n.get('usedResources'));
  const capacity = percentOf(steady, clusterMB);
  const maxCapacity = percentOf(max, clusterMB);
  const usedCapacity = percentOf(used.memoryMB, clusterMB);
  const children = fairChildren(n).map(mapFairQueue);
  // Leaves carry the type and their app counts; parents have neither.
  const type = n.get('type').optStr();
  const isLeaf =
    type === 'fairSchedulerLeafQueueInfo' ||
    (type === undefined &&
      children.length === 0 &&
      (n.get('numActiveApps').present || n.get('numPendingApps').present));
  return {
    name: path.slice(path.lastIndexOf('.') + 1),
    path,
    kind: isLeaf ? 'leaf' : 'parent',
    state: 'RUNNING',
    capacity,
    absoluteCapacity: capacity,
    maxCapacity,
    absoluteMaxCapacity: maxCapacity,
    usedCapacity,
    absoluteUsedCapacity: usedCapacity,
    numApplications: n.get('numActiveApps').numOr(0) + n.get('numPendingApps').numOr(0),
    accessibleNodeLabels: [],
    defaultNodeLabelExpression: undefined,
    partitions: [],
    resourcesUsed: used,
    children,
  };
}

/**
 * The FIFO scheduler has one queue. Its capacity is a fraction (1.0 = all) and its used
 * capacity is `NaN` (0/0) while no node is registered (the doc's sample): read that as 0.
 */
function mapFifoQueue(n: Node): QueueInfo {
  const capacity = n.get('capacity').numOr(1) * 100;
  const used = n.get('usedCapacity').numOr(0);
  const usedCapacity = Number.isNaN(used) ? 0 : used * 100;
  return {
    name: 'default',
    path: 'root.default',
    kind: 'leaf',
    state: n.get('qstate').strOr('RUNNING'),
    capacity,
    absoluteCapacity: capacity,
    maxCapacity: 100,
    absoluteMaxCapacity: 100,
    usedCapacity,
    absoluteUsedCapacity: usedCapacity,
    numApplications: 0,
    accessibleNodeLabels: [],
    defaultNodeLabelExpression: undefined,
    partitions: [],
    resourcesUsed: undefined,
    children: [],
  };
}

export function mapScheduler(tree: Tree): SchedulerInfo {
  const info = root(tree).req('scheduler').req('schedulerInfo');
  const type = info.req('type').str();
  switch (type) {
    case 'capacityScheduler':
      return { type: 'capacity', root: mapCapacityQueue(info, undefined) };
    case 'fairScheduler':
      return { type: 'fair', root: mapFairQueue(info.req('rootQueue')) };
    case 'fifoScheduler':
      return { type: 'fifo', root: mapFifoQueue(info) };
    default:
      throw new RmMalformedResponseError(`RM body: unknown scheduler type ${JSON.stringify(type)}`, {
        fieldPath: 'scheduler.schedulerInfo.type',
      });
  }
}

/** Every queue of the tree, parents before children. */
export function flattenQueues(q: QueueInfo): QueueInfo[] {
  return [q, ...q.children.flatMap(flattenQueues)];
}

// --- node labels (no Hadoop sample: shapes from the RM's DAO classes, INDEX.md section 4) -----
//
// The label classes are not in the RM's JAXBContextResolver, so Jersey 1 RMs (up to 3.4) write
// them in its default notation: the root element dropped (`{"nodeLabelInfo":…}`), numbers and
// booleans as strings (`"exclusivity":"true"`, `"memory":"4096"`) and a one-element list as a
// bare object. Jersey 2 RMs (3.5) write real numbers and booleans and lists as arrays. The
// mappings read both, with or without the root element.

function mapNodeLabelInfo(n: Node): NodeLabel {
  // A label may be a bare name in older RMs' label lists.
  if (typeof n.value === 'string') {
    return { name: n.value, exclusive: true, resourceAvailable: undefined, activeNMs: undefined };
  }
  return {
    name: n.req('name').str(),
    exclusive: n.get('exclusivity').boolOr(true),
    resourceAvailable: optResource(n.get('partitionInfo').get('resourceAvailable')),
    activeNMs: n.get('activeNMs').optNum(),
  };
}

/**
 * The labels of a `nodeLabelsInfo`: `nodeLabelInfo[]` objects (2.8+), or `nodeLabels[]` bare
 * names (2.7's NodeLabelsInfo).
 */
function labelInfos(n: Node): Node[] {
  return n.get('nodeLabelInfo').present ? n.listOf('nodeLabelInfo') : n.listOf('nodeLabels');
}

export function mapNodeLabels(tree: Tree): NodeLabel[] {
  return labelInfos(root(tree).unwrap('nodeLabelsInfo')).map(mapNodeLabelInfo);
}

/**
 * A JAXB map: `{"entry":[{"key":…,"value":…}]}` (as the submission body's maps, INDEX.md
 * section 5), or a plain object keyed by the map's keys.
 */
function mapEntries(n: Node): Array<{ key: Node; value: Node }> {
  const entries = n.get('entry');
  if (entries.present) return entries.list().map((e) => ({ key: e.req('key'), value: e.get('value') }));
  return n.keys().map((k) => ({ key: new Node(k, `${n.path}{key}`), value: n.get(k) }));
}

/** The root object, wrapped (`{"nodeToLabelsInfo":{…}}`, XML) or not (Jersey's default notation). */
function wrappedOrNot(tree: Tree, rootName: string, member: string): Node {
  const r = root(tree);
  return r.get(member).present ? r : r.req(rootName);
}

export function mapNodeToLabels(tree: Tree): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const body = wrappedOrNot(tree, 'nodeToLabelsInfo', 'nodeToLabels');
  for (const { key, value } of mapEntries(body.get('nodeToLabels'))) {
    out.set(
      key.str(),
      labelInfos(value).map((l) => mapNodeLabelInfo(l).name),
    );
  }
  return out;
}

export function mapLabelMappings(tree: Tree): LabelMapping[] {
  const body = wrappedOrNot(tree, 'labelsToNodesInfo', 'labelsToNodes');
  return mapEntries(body.get('labelsToNodes')).map(({ key, value }) => {
    const label = mapNodeLabelInfo(key);
    // nodeIDsInfo carries the partition's resources beside the node list.
    label.resourceAvailable ??= optResource(value.get('partitionInfo').get('resourceAvailable'));
    return { label, nodes: value.get('nodes').strings() };
  });
}

// --- reservations ----------------------------------------------------------------------------

export function mapNewReservation(tree: Tree): string {
  return root(tree).unwrap('new-reservation').req('reservation-id').str();
}

function mapReservationDefinition(n: Node): ReservationDefinition {
  const reqs = n.get('reservation-requests');
  const def: ReservationDefinition = {
    arrival: n.req('arrival').num(),
    deadline: n.req('deadline').num(),
    name: n.get('reservation-name').strOr(''),
    interpreter: reqs.get('reservation-request-interpreter').numOr(0),
    requests: reqs.listOf('reservation-request').map((r) => ({
      capability: mapResource(r.req('capability')),
      numContainers: r.req('num-containers').num(),
      minConcurrency: r.get('min-concurrency').numOr(1),
      durationMs: r.req('duration').num(),
    })),
  };
  if (n.get('priority').present) def.priority = n.get('priority').num();
  if (n.get('recurrence-expression').present) def.recurrenceExpression = n.get('recurrence-expression').str();
  return def;
}

/**
 * The list answer has no root in JSON (`{"reservations":…}`), `<reservationListInfo>` in XML,
 * writes numbers as strings and a one-element list as a bare object (INDEX.md section 5).
 */
export function mapReservationList(tree: Tree): ReservationInfo[] {
  return root(tree)
    .unwrap('reservationListInfo')
    .listOf('reservations')
    .map((r) => ({
      id: r.req('reservation-id').str(),
      user: r.get('user').strOr(''),
      acceptanceTime: r.get('acceptance-time').numOr(0),
      definition: mapReservationDefinition(r.req('reservation-definition')),
      allocations: r.listOf('resource-allocations').map((a) => ({
        startTime: a.req('startTime').num(),
        endTime: a.req('endTime').num(),
        resource: mapResource(a.req('resource')),
      })),
    }));
}

// --- JobHistory server and MapReduce AM ------------------------------------------------------

function taskType(n: Node): TaskType {
  const t = n.str();
  if (t !== 'MAP' && t !== 'REDUCE') {
    throw new RmMalformedResponseError(
      `RM body: ${n.path} should be MAP or REDUCE, got ${JSON.stringify(t)}`,
      {
        fieldPath: n.path,
      },
    );
  }
  return t;
}

function mapJobNode(n: Node): JobSummary {
  return {
    id: n.req('id').str(),
    ...n.strs('name', 'user', 'queue'),
    state: n.req('state').str(),
    ...n.nums(
      'submitTime',
      'startTime',
      'finishTime',
      'mapsTotal',
      'mapsCompleted',
      'reducesTotal',
      'reducesCompleted',
    ),
  };
}

export const mapJobs = listOf('jobs', 'job', mapJobNode);
export const jobsList = listShapeOf('jobs', 'job', mapJobNode);
export const mapJob = itemOf('job', mapJobNode);

/** What a task and a task attempt both report. */
function mapTaskRun(n: Node): TaskRun {
  return {
    id: n.req('id').str(),
    type: taskType(n.req('type')),
    state: n.req('state').str(),
    startTime: n.req('startTime').num(),
    ...n.nums('finishTime', 'elapsedTime', 'progress'),
  };
}

function mapTaskNode(n: Node): TaskReport {
  return { ...mapTaskRun(n), successfulAttempt: n.get('successfulAttempt').strOr('') };
}

export const mapTasks = listOf('tasks', 'task', mapTaskNode);
export const tasksList = listShapeOf('tasks', 'task', mapTaskNode);
export const mapTask = itemOf('task', mapTaskNode);

function mapTaskAttemptNode(n: Node): TaskAttemptReport {
  const out: TaskAttemptReport = {
    ...mapTaskRun(n),
    ...n.strs('nodeHttpAddress', 'rack', 'assignedContainerId'),
  };
  if (n.get('shuffleFinishTime').present) out.shuffleFinishTime = n.get('shuffleFinishTime').num();
  if (n.get('mergeFinishTime').present) out.mergeFinishTime = n.get('mergeFinishTime').num();
  return out;
}

export const mapTaskAttempts = listOf('taskAttempts', 'taskAttempt', mapTaskAttemptNode);
export const mapTaskAttempt = itemOf('taskAttempt', mapTaskAttemptNode);

/** `{jobCounters: {id, counterGroup: [{counterGroupName, counter: [{name, totalCounterValue, ...}]}]}}`. */
export function mapJobCounters(tree: Tree): JobCounters {
  const out: Record<string, { total: number; map: number; reduce: number }> = {};
  for (const g of root(tree).req('jobCounters').listOf('counterGroup'))
    for (const c of g.listOf('counter')) {
      const name = c.req('name').str();
      if (Object.hasOwn(out, name)) continue;
      out[name] = {
        total: c.get('totalCounterValue').numOr(0),
        map: c.get('mapCounterValue').numOr(0),
        reduce: c.get('reduceCounterValue').numOr(0),
      };
    }
  return out;
}

/** `{jobTaskCounters: {id, taskCounterGroup: [{counterGroupName, counter: [{name, value}]}]}}`. */
export function mapTaskCounters(tree: Tree): TaskCounters {
  const out: Record<string, number> = {};
  for (const g of root(tree).req('jobTaskCounters').listOf('taskCounterGroup'))
    for (const c of g.listOf('counter')) {
      const name = c.req('name').str();
      if (!Object.hasOwn(out, name)) out[name] = c.get('value').numOr(0);
    }
  return out;
}

// --- WebHDFS ---------------------------------------------------------------------------------

export const mapBlockLocations = requiredListOf('BlockLocations', 'BlockLocation', (n): BlockLocation => ({
  offset: n.req('offset').num(),
  length: n.req('length').num(),
  hosts: n.get('hosts').strings(),
  names: n.get('names').strings(),
  topologyPaths: n.get('topologyPaths').strings(),
  storageTypes: n.get('storageTypes').strings(),
  cachedHosts: n.get('cachedHosts').strings(),
  corrupt: n.get('corrupt').boolOr(false),
}));

function mapFileStatusNode(n: Node): FileStatus {
  return {
    pathSuffix: n.get('pathSuffix').strOr(''),
    type: n.req('type').str(),
    length: n.req('length').num(),
    ...n.nums('blockSize', 'replication', 'modificationTime'),
  };
}

/** `GETFILESTATUS`: one `FileStatus` object (INDEX.md section 12, W1). */
export function mapFileStatus(tree: Tree): FileStatus {
  return mapFileStatusNode(root(tree).req('FileStatus'));
}

/** `LISTSTATUS`: always an array, one entry with `pathSuffix: ""` when the path is a file (W2). */
export const mapFileStatuses = requiredListOf('FileStatuses', 'FileStatus', mapFileStatusNode);

// --- request bodies --------------------------------------------------------------------------

/** A request body in the chosen format, with the content type to send it with. */
export interface EncodedBody {
  contentType: string;
  data: string;
}

const xmlBuilder = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: false });

/**
 * Encode a write body. In XML the root element is always present; in JSON some endpoints
 * take the body unwrapped (`{"queue":"a"}`, the submission, the reservation bodies) and some
 * wrapped (`{"timeout":{…}}`): INDEX.md section 5, "Wrapped or unwrapped".
 */
export function encodeBody(
  format: Format,
  rootName: string,
  content: Record<string, unknown>,
  jsonWrapped: boolean,
): EncodedBody {
  if (format === 'xml') {
    return {
      contentType: 'application/xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${xmlBuilder.build({ [rootName]: content }) as string}`,
    };
  }
  return {
    contentType: 'application/json',
    data: JSON.stringify(jsonWrapped ? { [rootName]: content } : content),
  };
}

/** The reservation definition as the RM reads it: epoch ms numbers, not ISO strings (INDEX.md 9.5). */
export function reservationDefinitionContent(d: ReservationDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {
    arrival: d.arrival,
    deadline: d.deadline,
    'reservation-name': d.name,
    'reservation-requests': {
      'reservation-request-interpreter': d.interpreter,
      'reservation-request': d.requests.map((r) => ({
        duration: r.durationMs,
        'num-containers': r.numContainers,
        'min-concurrency': r.minConcurrency,
        capability: { memory: r.capability.memoryMB, vCores: r.capability.vcores },
      })),
    },
  };
  if (d.priority !== undefined) out.priority = d.priority;
  if (d.recurrenceExpression !== undefined) out['recurrence-expression'] = d.recurrenceExpression;
  return out;
}
