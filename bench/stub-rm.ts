/**
 * The pieces of the benches' stand-in RMs (bench/poll.bench.ts, bench/sidecar.bench.ts): HTTP
 * servers in the bench's process answering in the RM's JSON shapes, their bodies built from
 * what the emulated RM answers (one CPU node, one GPU node, one app, the scheduler), copied with
 * new ids, so the sidecar's client parses exactly the RM's shapes. Each bench keeps its own apps
 * and routes; the templates, the node list, the cluster metrics, the writes' bodies and the
 * server are here. A sidecar that asks for XML (rm.format) gets the same bodies in the RM's XML
 * (asXml), and its XML writes are read too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { startEmulator } from '../src/emulator/server';
import { HttpResourceManagerClient } from '../src/yarn/client';
import { amCommand } from '../src/yarn/submission';

export interface Templates {
  info: string;
  scheduler: string;
  /** The cluster's info and scheduler as the RM writes them in XML (its xsi:type attributes). */
  xml: { info: string; scheduler: string };
  cpuNode: Record<string, unknown>;
  gpuNode: Record<string, unknown>;
  app: Record<string, unknown>;
  clusterTimestamp: number;
}

/** The RM's own answers, taken once from an emulated RM; the app from GET `appsPath`. */
export async function captureTemplates(appsPath = '/ws/v1/cluster/apps'): Promise<Templates> {
  const emu = await startEmulator({ speed: 1 });
  try {
    const rm = new HttpResourceManagerClient({ urls: [emu.url], format: 'json', timeoutMs: 5000 });
    const { applicationId } = await rm.newApplication();
    await rm.submitApp({
      applicationId,
      name: 'template',
      queue: 'default',
      tags: ['type:cpu'],
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('true'),
    });
    const get = async (path: string, accept = 'application/json') =>
      (await fetch(`${emu.url}${path}`, { headers: { accept } })).text();
    const nodes = (
      JSON.parse(await get('/ws/v1/cluster/nodes')) as { nodes: { node: Array<Record<string, unknown>> } }
    ).nodes.node;
    const labelled = (n: Record<string, unknown>) =>
      ((n.nodeLabels as string[] | undefined) ?? []).length > 0;
    const apps = JSON.parse(await get(appsPath)) as {
      apps: { app: Array<Record<string, unknown>> };
    };
    return {
      info: await get('/ws/v1/cluster/info'),
      scheduler: await get('/ws/v1/cluster/scheduler'),
      xml: {
        info: await get('/ws/v1/cluster/info', 'application/xml'),
        scheduler: await get('/ws/v1/cluster/scheduler', 'application/xml'),
      },
      cpuNode: nodes.find((n) => !labelled(n))!,
      gpuNode: nodes.find(labelled)!,
      app: apps.apps.app[0]!,
      clusterTimestamp: emu.rm.clusterTimestamp,
    };
  } finally {
    await emu.close();
  }
}

/**
 * GET /cluster/nodes and /cluster/metrics of `cpu` CPU nodes (cpu-0 ...) then `gpu` labelled
 * GPU nodes, copied from the templates.
 */
export function clusterBodies(
  t: Templates,
  cpu: number,
  gpu: number,
): { nodesBody: string; metricsBody: string } {
  const nodes: Array<Record<string, unknown>> = [];
  for (let i = 0; i < cpu + gpu; i++) {
    const isGpu = i >= cpu;
    const host = isGpu ? `gpu-${i}` : `cpu-${i}`;
    nodes.push({
      ...(isGpu ? t.gpuNode : t.cpuNode),
      id: `${host}:45454`,
      nodeHostName: host,
      nodeHTTPAddress: `${host}:8042`,
    });
  }
  return { nodesBody: JSON.stringify({ nodes: { node: nodes } }), metricsBody: metricsBody(nodes) };
}

/** GET /cluster/metrics for these nodes: their totals and counts, nothing allocated. */
function metricsBody(nodes: ReadonlyArray<Record<string, unknown>>): string {
  const total = (n: Record<string, unknown>, k: string) =>
    Number((n.totalResource as Record<string, number>)[k]);
  return JSON.stringify({
    clusterMetrics: {
      appsSubmitted: 0,
      appsCompleted: 0,
      appsPending: 0,
      appsRunning: 0,
      appsFailed: 0,
      appsKilled: 0,
      totalMB: nodes.reduce((a, n) => a + total(n, 'memory'), 0),
      availableMB: 0,
      allocatedMB: 0,
      reservedMB: 0,
      reservedVirtualCores: 0,
      totalVirtualCores: nodes.reduce((a, n) => a + total(n, 'vCores'), 0),
      availableVirtualCores: 0,
      allocatedVirtualCores: 0,
      containersAllocated: 0,
      containersPending: 0,
      containersReserved: 0,
      totalNodes: nodes.length,
      activeNodes: nodes.length,
      lostNodes: 0,
      unhealthyNodes: 0,
      decommissioningNodes: 0,
      decommissionedNodes: 0,
      rebootedNodes: 0,
      shutdownNodes: 0,
    },
  });
}

/** POST /apps/new-application's answer, the `seq`-th id of the templates' cluster. */
export function newApplication(t: Templates, seq: number): { id: string; body: string } {
  const id = `application_${t.clusterTimestamp}_${String(seq).padStart(4, '0')}`;
  return {
    id,
    body: JSON.stringify({
      'application-id': id,
      'maximum-resource-capability': { memory: 16384, vCores: 8 },
    }),
  };
}

const xmlBuilder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
});
const xmlParser = new XMLParser({ ignoreAttributes: true, parseTagValue: false });

/** Whether a request asks for the RM's XML (a sidecar with rm.format xml). */
export const wantsXml = (req: StubRequest): boolean => /application\/xml/.test(req.accept);

/**
 * A JSON body of the RM's as the RM writes it in XML: every object an element, a list its
 * elements repeated, an empty value an empty element (as the emulated RM renders both,
 * src/emulator/render.ts), under `root` for a JSON body that has none (the new application's,
 * a priority's). Not for a body with `type` discriminators (the scheduler's): those are taken in
 * XML from the emulated RM.
 */
export function asXml(json: string, root?: string): string {
  const content: unknown = JSON.parse(json);
  const tree = root === undefined ? content : { [root]: content };
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${xmlBuilder.build(tree) as string}`;
}

/** A write's body, JSON or XML, as an object (XML's root element dropped, its values text). */
function bodyOf(text: string, root: string): Record<string, unknown> {
  if (!text.trimStart().startsWith('<')) return JSON.parse(text) as Record<string, unknown>;
  const doc = xmlParser.parse(text) as Record<string, Record<string, unknown>>;
  return doc[root] ?? Object.values(doc).find((v) => typeof v === 'object') ?? {};
}

/** What a stub keeps of a POST /apps submission. */
export interface Submission {
  id: string;
  name: string;
  /** Lower-cased and comma-joined, as the RM lists them. */
  tags: string;
  priority: number;
  label: string;
}

export function parseSubmission(body: string): Submission {
  const s = bodyOf(body, 'application-submission-context') as {
    'application-id': string;
    'application-name': string;
    priority?: number | string;
    'application-tags'?: { tag: string[] | string };
    'app-node-label-expression'?: string;
  };
  return {
    id: s['application-id'],
    name: s['application-name'],
    tags: [s['application-tags']?.tag ?? []].flat().join(',').toLowerCase(),
    priority: Number(s.priority ?? 0),
    label: s['app-node-label-expression'] ?? '',
  };
}

/** An app as GET /apps lists it: the template's fields, these set. */
export type StubApp = Record<string, unknown> & { id: string; state: string; applicationTags: string };

/** A deadline app the sidecar submitted, running in the realtime queue. */
export function submittedApp(t: Templates, s: Submission): StubApp {
  return {
    ...t.app,
    id: s.id,
    name: s.name,
    queue: 'root.realtime',
    state: 'RUNNING',
    finalStatus: 'UNDEFINED',
    finishedTime: 0,
    applicationTags: s.tags,
    priority: s.priority,
    appNodeLabelExpression: s.label,
  };
}

/** The i-th of the other users' apps: every third running, the rest finished. */
export function otherApp(t: Templates, i: number): StubApp {
  const running = i % 3 === 0;
  return {
    ...t.app,
    id: `application_${t.clusterTimestamp}_${String(900000 + i)}`,
    name: `batch-${i}`,
    queue: 'root.default',
    state: running ? 'RUNNING' : 'FINISHED',
    finalStatus: running ? 'UNDEFINED' : 'SUCCEEDED',
    applicationTags: 'team:analytics',
  };
}

/** A PUT /apps/ID/priority: the app's id and the priority asked for; null for another request. */
export function priorityWrite(req: StubRequest): { id: string; priority: number } | null {
  const id = /^\/ws\/v1\/cluster\/apps\/(application_\d+_\d+)\/priority$/.exec(req.url.pathname)?.[1];
  if (id === undefined || req.method !== 'PUT') return null;
  return { id, priority: Number(bodyOf(req.body, 'appPriority').priority) };
}

/** The RM's 404 body for a path it does not serve. */
export const notFoundBody = (path: string): string =>
  JSON.stringify({
    RemoteException: {
      exception: 'NotFoundException',
      message: `no ${path}`,
      javaClassName: 'NotFoundException',
    },
  });

/** One request as a stub sees it: the body read whole. */
export interface StubRequest {
  method: string;
  /** req.url as sent (path and query). */
  rawUrl: string;
  url: URL;
  /** Its Accept header ('' without one). */
  accept: string;
  body: string;
}

/** An HTTP server on a free loopback port, answering each request with `handle` once its body is read. */
export class StubServer {
  url = '';
  private server!: Server;

  constructor(
    private readonly handle: (req: StubRequest, res: ServerResponse) => void,
    private readonly keepAliveTimeoutMs?: number,
  ) {}

  async start(): Promise<void> {
    // The real RM reads 64 KB of request line and headers (src/emulator/http.ts), Node 16 KB.
    this.server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => void this.read(req, res));
    if (this.keepAliveTimeoutMs !== undefined) this.server.keepAliveTimeout = this.keepAliveTimeoutMs;
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }

  private async read(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawUrl = req.url ?? '/';
    this.handle(
      {
        method: req.method ?? 'GET',
        rawUrl: req.url ?? '',
        url: new URL(rawUrl, 'http://stub'),
        accept: req.headers.accept ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      },
      res,
    );
  }
}
