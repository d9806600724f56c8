import { RmHttpError } from '../errors/rm-http';
import { RmRemoteError } from '../errors/rm-remote';
import type { AppQuery, ReservationQuery, ResourceManagerApi } from './api';
import {
  CONF_PATH,
  MAX_APP_PRIORITY_KEY,
  PREEMPTION_KEYS,
  mapConfValue,
  preemptionOf,
  UNKNOWN_PREEMPTION,
  type PreemptionSettings,
} from './conf';
import { formatExpiryTime } from './expiry';
import type { Tree } from './format';
import { sameQueue } from './ids';
import type { Endpoint } from './limits';
import * as m from './mapping';
import type * as model from './model';
import { submissionContent, type AppSubmission } from './submission';
import { HttpTransport, withUrl, type HttpRequest, type TransportOptions } from './transport';

const CLUSTER = '/ws/v1/cluster';

export { ITEMWISE_MIN_CHARS } from './transport';

export interface RmClientOptions extends TransportOptions {
  /**
   * Zone offset (minutes east of UTC) used to write lifetime expiry times. The instant sent is
   * the same whatever the offset; only the text differs.
   */
  expiryOffsetMinutes?: number;
}

/**
 * The deSelects member a 400 refused ("Invalid deSelects string X specified. It should be one
 * of [...]", Hadoop's DeSelectFields), lower-cased, or undefined for any other error.
 */
function refusedDeSelect(err: unknown): string | undefined {
  if (!(err instanceof RmRemoteError) || err.status !== 400) return undefined;
  return /Invalid deSelects string (\S+)/.exec(err.remoteMessage)?.[1]?.toLowerCase();
}

/** One path segment; `:` stays as is (node ids are host:port). */
const seg = (s: string): string => encodeURIComponent(s).replace(/%3A/gi, ':');

/** The ResourceManager REST client, JSON or XML (INDEX.md section 3). */
export class HttpResourceManagerClient implements ResourceManagerApi {
  readonly transport: HttpTransport;
  private readonly expiryOffsetMinutes: number;
  /** Whether this RM reads reservation bodies wrapped in their root (sendReservation). */
  private reservationsWrapped: boolean | undefined;
  /** deSelects members this RM refused (lower-cased): left out of every later read. */
  private readonly refusedDeSelects = new Set<string>();

  constructor(options: RmClientOptions | HttpTransport, expiryOffsetMinutes = 0) {
    if (options instanceof HttpTransport) {
      this.transport = options;
      this.expiryOffsetMinutes = expiryOffsetMinutes;
    } else {
      this.transport = new HttpTransport({ component: 'rm-client', ...options });
      this.expiryOffsetMinutes = options.expiryOffsetMinutes ?? 0;
    }
  }

  /** How many times the active RM changed (HttpTransport.activeChanges). */
  get activeChanges(): number {
    return this.transport.activeChanges;
  }

  private get format() {
    return this.transport.format;
  }

  /** A GET, its answer parsed (JSON or XML) as it arrives, held to its endpoint's limits, and mapped. */
  private async read<T>(
    req: Omit<HttpRequest, 'method'> & { endpoint: Endpoint | undefined },
    map: (tree: Tree) => T,
  ): Promise<T> {
    const { tree, res } = await this.transport.sendForTree({ method: 'GET', ...req });
    try {
      return map(tree);
    } catch (err) {
      throw withUrl(err, res.url);
    }
  }

  private async write<T>(req: HttpRequest, map: (tree: Tree) => T): Promise<{ value: T; status: number }> {
    const { tree, res } = await this.transport.sendForTree(req);
    try {
      return { value: map(tree), status: res.status };
    } catch (err) {
      throw withUrl(err, res.url);
    }
  }

  /**
   * `PUT /apps/{appId}/{resource}` with `content` under `rootName` (wrapped in its root in JSON
   * only where the RM wants it), the answer read with `map`.
   */
  private putApp<T>(
    appId: string,
    resource: string,
    rootName: string,
    content: Record<string, unknown>,
    map: (tree: Tree) => T,
    wrapped = false,
  ): Promise<{ value: T; status: number }> {
    return this.write(
      {
        method: 'PUT',
        path: `${CLUSTER}/apps/${seg(appId)}/${resource}`,
        endpoint: 'app',
        body: m.encodeBody(this.format, rootName, content, wrapped),
      },
      map,
    );
  }

  // --- reads -----------------------------------------------------------------------------

  clusterInfo(): Promise<model.ClusterInfo> {
    return this.read({ path: `${CLUSTER}/info`, endpoint: 'info' }, m.mapClusterInfo);
  }

  clusterMetrics(): Promise<model.ClusterMetrics> {
    return this.read({ path: `${CLUSTER}/metrics`, endpoint: 'metrics' }, m.mapClusterMetrics);
  }

  scheduler(): Promise<model.SchedulerInfo> {
    return this.read({ path: `${CLUSTER}/scheduler`, endpoint: 'scheduler' }, m.mapScheduler);
  }

  nodes(states?: string[]): Promise<model.NodeReport[]> {
    return this.transport.readList(
      { path: `${CLUSTER}/nodes`, query: { states }, endpoint: 'nodes' },
      m.nodesList,
    );
  }

  node(nodeId: string): Promise<model.NodeReport> {
    return this.read({ path: `${CLUSTER}/nodes/${seg(nodeId)}`, endpoint: 'nodes' }, m.mapNode);
  }

  /**
   * The apps. A member named in `deSelects` that this RM does not know (an older RM knows only
   * `resourceRequests`; it answers 400 "Invalid deSelects string X") is left out of
   * this read, asked again without it, and of every later read: the answer then carries that
   * member, which mapping ignores.
   */
  async apps(q: AppQuery = {}): Promise<model.AppReport[]> {
    for (;;) {
      const deSelects = q.deSelects?.filter((d) => !this.refusedDeSelects.has(d.toLowerCase()));
      try {
        return await this.readApps({ ...q, deSelects });
      } catch (err) {
        const refused = refusedDeSelect(err);
        if (refused === undefined || !deSelects?.some((d) => d.toLowerCase() === refused)) throw err;
        this.refusedDeSelects.add(refused);
        this.transport.log.info('the RM does not know a deSelects member; reads ask without it', {
          deSelects: refused,
        });
      }
    }
  }

  private readApps(q: AppQuery): Promise<model.AppReport[]> {
    return this.transport.readList(
      {
        path: `${CLUSTER}/apps`,
        endpoint: 'apps',
        query: {
          states: q.states,
          queue: q.queue,
          user: q.user,
          applicationTags: q.applicationTags,
          applicationTypes: q.applicationTypes,
          startedTimeBegin: q.startedTimeBegin,
          startedTimeEnd: q.startedTimeEnd,
          finishedTimeBegin: q.finishedTimeBegin,
          finishedTimeEnd: q.finishedTimeEnd,
          limit: q.limit,
          deSelects: q.deSelects,
        },
      },
      m.appsList,
    );
  }

  app(appId: string): Promise<model.AppReport> {
    return this.read({ path: `${CLUSTER}/apps/${seg(appId)}`, endpoint: 'app' }, m.mapApp);
  }

  appStatistics(states?: string[], applicationType?: string): Promise<model.AppStatItem[]> {
    return this.read(
      {
        path: `${CLUSTER}/appstatistics`,
        query: { states, applicationTypes: applicationType },
        endpoint: undefined,
      },
      m.mapAppStatistics,
    );
  }

  appAttempts(appId: string): Promise<model.AppAttempt[]> {
    return this.read(
      { path: `${CLUSTER}/apps/${seg(appId)}/appattempts`, endpoint: 'app' },
      m.mapAppAttempts,
    );
  }

  attemptContainers(appId: string, attemptId: string): Promise<model.ContainerReport[]> {
    return this.read(
      { path: `${CLUSTER}/apps/${seg(appId)}/appattempts/${seg(attemptId)}/containers`, endpoint: 'app' },
      m.mapContainers,
    );
  }

  appState(appId: string): Promise<string> {
    return this.read({ path: `${CLUSTER}/apps/${seg(appId)}/state`, endpoint: 'app' }, m.mapAppState);
  }

  appQueue(appId: string): Promise<string> {
    return this.read({ path: `${CLUSTER}/apps/${seg(appId)}/queue`, endpoint: 'app' }, m.mapAppQueue);
  }

  appPriority(appId: string): Promise<number> {
    return this.read({ path: `${CLUSTER}/apps/${seg(appId)}/priority`, endpoint: 'app' }, m.mapAppPriority);
  }

  appTimeouts(appId: string): Promise<model.AppTimeout[]> {
    return this.read({ path: `${CLUSTER}/apps/${seg(appId)}/timeouts`, endpoint: 'app' }, m.mapTimeouts);
  }

  appTimeout(appId: string, type = 'LIFETIME'): Promise<model.AppTimeout> {
    return this.read(
      { path: `${CLUSTER}/apps/${seg(appId)}/timeouts/${seg(type)}`, endpoint: 'app' },
      m.mapTimeout,
    );
  }

  async maxApplicationPriority(): Promise<number | undefined> {
    const text = await this.read(
      { path: CONF_PATH, query: { name: MAX_APP_PRIORITY_KEY }, endpoint: 'conf' },
      (tree) => mapConfValue(tree, MAX_APP_PRIORITY_KEY),
    );
    const n = text === undefined ? NaN : Number(text.trim());
    return Number.isInteger(n) ? n : undefined;
  }

  /** One key of the RM's /conf; undefined when the RM does not have it set (its 404). */
  async confValue(key: string): Promise<string | undefined> {
    try {
      return await this.read({ path: CONF_PATH, query: { name: key }, endpoint: 'conf' }, (tree) =>
        mapConfValue(tree, key),
      );
    } catch (err) {
      // ConfServlet answers a key it does not have with a bare 404 (measured on 3.4.3).
      if ((err instanceof RmHttpError || err instanceof RmRemoteError) && err.status === 404)
        return undefined;
      throw err;
    }
  }

  /**
   * Whether the RM can take containers back from queues over their guarantee, and with what
   * waits, from its /conf; `source: 'unknown'` when the RM hides /conf (any other failure).
   */
  async preemption(): Promise<PreemptionSettings> {
    try {
      const entries = await Promise.all(
        Object.entries(PREEMPTION_KEYS).map(async ([k, key]) => [k, await this.confValue(key)] as const),
      );
      return preemptionOf(Object.fromEntries(entries.filter(([, v]) => v !== undefined)));
    } catch {
      return UNKNOWN_PREEMPTION;
    }
  }

  nodeLabels(): Promise<model.NodeLabel[]> {
    return this.read({ path: `${CLUSTER}/get-node-labels`, endpoint: 'nodeLabels' }, m.mapNodeLabels);
  }

  nodeToLabels(): Promise<Map<string, string[]>> {
    return this.read({ path: `${CLUSTER}/get-node-to-labels`, endpoint: 'nodeLabels' }, m.mapNodeToLabels);
  }

  labelMappings(labels?: string[]): Promise<model.LabelMapping[]> {
    return this.read(
      { path: `${CLUSTER}/label-mappings`, repeatedQuery: { labels }, endpoint: 'nodeLabels' },
      m.mapLabelMappings,
    );
  }

  reservations(q: ReservationQuery = {}): Promise<model.ReservationInfo[]> {
    return this.read(
      {
        path: `${CLUSTER}/reservation/list`,
        endpoint: undefined,
        query: {
          queue: q.queue,
          'reservation-id': q.reservationId,
          'start-time': q.startTime,
          'end-time': q.endTime,
          'include-resource-allocations': q.includeResourceAllocations,
        },
      },
      m.mapReservationList,
    );
  }

  // --- writes ----------------------------------------------------------------------------

  /** INDEX.md 9.1: the answer is the queue after the call, compared by leaf name. */
  async moveApp(appId: string, queue: string): Promise<model.QueueMoveResult> {
    const { value } = await this.putApp(appId, 'queue', 'appqueue', { queue }, m.mapAppQueue);
    return { queue: value, moved: sameQueue(queue, value) };
  }

  /** INDEX.md 9.2: the RM caps the value, so the answer is what it actually set. */
  async setAppPriority(appId: string, priority: number): Promise<number> {
    const { value } = await this.putApp(
      appId,
      'priority',
      'applicationpriority',
      { priority },
      m.mapAppPriority,
    );
    return value;
  }

  /** 202 while the kill runs, 200 once the app is KILLED (INDEX.md section 3, row 15). */
  async killApp(appId: string, diagnostics?: string): Promise<model.KillResult> {
    const content: Record<string, unknown> = { state: 'KILLED' };
    if (diagnostics !== undefined) content.diagnostics = diagnostics;
    const { value, status } = await this.putApp(appId, 'state', 'appstate', content, m.mapAppState);
    return { status, state: value };
  }

  /** INDEX.md 9.3: singular path, wrapped body, `±HHMM` offset with milliseconds. */
  async setAppLifetime(appId: string, expiryEpochMs: number): Promise<model.AppTimeout> {
    const expiryTime = formatExpiryTime(expiryEpochMs, this.expiryOffsetMinutes);
    const { value } = await this.putApp(
      appId,
      'timeout',
      'timeout',
      { type: 'LIFETIME', expiryTime },
      m.mapTimeout,
      true,
    );
    return value;
  }

  async newApplication(): Promise<model.NewApplication> {
    const { value } = await this.write(
      { method: 'POST', path: `${CLUSTER}/apps/new-application` },
      m.mapNewApplication,
    );
    return value;
  }

  /** INDEX.md 9.4: unwrapped JSON body; the answer is 202 with a Location and no body. */
  async submitApp(submission: AppSubmission): Promise<model.SubmissionResult> {
    const res = await this.transport.send({
      method: 'POST',
      path: `${CLUSTER}/apps`,
      body: m.encodeBody(this.format, 'application-submission-context', submissionContent(submission), false),
    });
    return { status: res.status, location: res.location };
  }

  async newReservation(): Promise<string> {
    const { value } = await this.write(
      { method: 'POST', path: `${CLUSTER}/reservation/new-reservation` },
      m.mapNewReservation,
    );
    return value;
  }

  /**
   * A reservation body in JSON: Hadoop 3.4 reads it unwrapped (`{"queue":…}`), 3.5 (Jersey 2
   * with Jackson) only wrapped in its root (`{"reservation-submission-context":{…}}`), each
   * refusing the other's with 400 ("Input ReservationDefinition should not be null", "Missing
   * reservation id"). Sent unwrapped first; on that refusal, which changed nothing, sent wrapped,
   * and the form that worked is kept for the next calls. XML always has its root.
   */
  private async sendReservation(
    path: string,
    rootName: string,
    content: Record<string, unknown>,
  ): Promise<void> {
    const send = (wrapped: boolean) =>
      this.transport.send({
        method: 'POST',
        path: `${CLUSTER}/reservation/${path}`,
        body: m.encodeBody(this.format, rootName, content, wrapped),
      });
    if (this.format === 'xml') {
      await send(false);
      return;
    }
    const first = this.reservationsWrapped ?? false;
    try {
      await send(first);
      this.reservationsWrapped = first;
    } catch (err) {
      const otherForm =
        this.reservationsWrapped === undefined &&
        err instanceof RmRemoteError &&
        err.status === 400 &&
        /should not be null|Missing reservation id/.test(err.remoteMessage);
      if (!otherForm) throw err;
      await send(!first);
      this.reservationsWrapped = !first;
    }
  }

  /** INDEX.md 9.5: the doc says 200, the code answers 202; both are success. */
  async submitReservation(
    reservationId: string,
    queue: string,
    definition: model.ReservationDefinition,
  ): Promise<void> {
    await this.sendReservation('submit', 'reservation-submission-context', {
      queue,
      'reservation-id': reservationId,
      'reservation-definition': m.reservationDefinitionContent(definition),
    });
  }

  async updateReservation(reservationId: string, definition: model.ReservationDefinition): Promise<void> {
    await this.sendReservation('update', 'reservation-update-context', {
      'reservation-id': reservationId,
      'reservation-definition': m.reservationDefinitionContent(definition),
    });
  }

  async deleteReservation(reservationId: string): Promise<void> {
    await this.sendReservation('delete', 'reservation-delete-context', { 'reservation-id': reservationId });
  }
}
