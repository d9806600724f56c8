/**
 * Helpers for the real-Hadoop tests: the shared cluster's ready line, plain HTTP to the daemons
 * (JSON or XML), a long-running app submitted through the RM's REST API, and polling with a
 * deadline (a real cluster changes state in its own time).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import {
  DEFAULT_HADOOP_VERSION,
  HADOOP_VERSION_ENV,
  type HadoopInfo,
  type RunningHadoop,
} from '../../hadoop/launch';

export const CLUSTER_ENV = 'YSS_HADOOP_CLUSTER';

/** The Hadoop release this run builds and starts. */
export const EXPECTED_VERSION = process.env[HADOOP_VERSION_ENV] || DEFAULT_HADOOP_VERSION;

export type SharedCluster = typeof globalThis & { __yssHadoop?: { hadoop: RunningHadoop; dir: string } };

/** The ready line of the cluster started by global-setup.ts. */
export function sharedCluster(): HadoopInfo {
  const file = process.env[CLUSTER_ENV];
  if (!file) throw new Error(`$${CLUSTER_ENV} is not set: run these tests with npm run test:hadoop`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as HadoopInfo;
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  location: string | null;
  text: string;
}

export interface HttpOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Sent as ?user.name= (the simple auth's user); none when undefined. */
  user?: string;
  accept?: 'json' | 'xml';
  body?: unknown;
}

export function withUser(url: string, user: string | undefined): string {
  if (user === undefined) return url;
  return `${url}${url.includes('?') ? '&' : '?'}user.name=${encodeURIComponent(user)}`;
}

export async function http(url: string, o: HttpOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = {
    Accept: o.accept === 'xml' ? 'application/xml' : 'application/json',
  };
  if (o.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(withUser(url, o.user), {
    method: o.method ?? 'GET',
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    redirect: 'manual',
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    location: res.headers.get('location'),
    text: await res.text(),
  };
}

/** GET, expecting 200, parsed from JSON or XML into one plain tree. */
export async function read(url: string, format: 'json' | 'xml' = 'json', user?: string): Promise<unknown> {
  const a = await http(url, { accept: format, user });
  if (a.status !== 200) throw new Error(`GET ${url}: ${a.status} ${a.text.slice(0, 300)}`);
  if (format === 'json') {
    expect(a.contentType).toMatch(/^application\/json/);
    return JSON.parse(a.text) as unknown;
  }
  expect(a.contentType).toMatch(/^application\/xml/);
  return new XMLParser({ parseTagValue: false, ignoreDeclaration: true }).parse(a.text) as unknown;
}

/** The member at a dotted path of a parsed answer (`at(t, 'clusterInfo.haState')`), or undefined. */
export function at(tree: unknown, dotted: string): unknown {
  let node = tree;
  for (const key of dotted.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** One item or a list (Jersey 1's JSON and any XML write a one-item list as the item). */
export function list(value: unknown): unknown[] {
  if (value === null || value === undefined || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Submits an app whose AM is `sleep 300` (it never registers, so it stays ACCEPTED and holds
 * its AM container) through new-application and submit; returns its id once the AM container
 * is launched.
 */
export async function submitSleeper(
  rm: string,
  o: { user: string; queue: string; priority?: number; name?: string },
): Promise<string> {
  const created = await http(`${rm}/ws/v1/cluster/apps/new-application`, { method: 'POST', user: o.user });
  expect(created.status).toBe(200);
  const id = (JSON.parse(created.text) as { 'application-id': string })['application-id'];
  const submitted = await http(`${rm}/ws/v1/cluster/apps`, {
    method: 'POST',
    user: o.user,
    body: {
      'application-id': id,
      'application-name': o.name ?? 'sleeper',
      'application-type': 'YARN',
      queue: o.queue,
      priority: o.priority ?? 0,
      'am-container-spec': { commands: { command: 'sleep 300' } },
      resource: { memory: 512, vCores: 1 },
      'max-app-attempts': 1,
    },
  });
  expect(submitted.status).toBe(202);
  // Until the RM has made the app's attempt, a priority write fails with 503 (a
  // NullPointerException in the CapacityScheduler): wait for the AM container.
  await waitFor(`${id} to get its AM container`, async () => {
    const app = await read(`${rm}/ws/v1/cluster/apps/${id}`, 'json', o.user);
    return at(app, 'app.amContainerLogs') ? true : undefined;
  });
  return id;
}

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, its output collected; rejects (after SIGKILL) past `timeoutMs`. */
export function runProcess(
  command: string,
  args: string[],
  o: { timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: o.env, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.slice(-8).join(' ')}: still running after ${o.timeoutMs} ms:\n${stderr.slice(-2000)}`,
        ),
      );
    }, o.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a Hadoop client class against the cluster: java -cp CONF:JARS MAIN ARGS. */
export function runHadoopClient(info: HadoopInfo, args: string[], timeoutMs: number): Promise<ProcessRun> {
  return runProcess('java', ['-Xmx256m', ...info.javaOpts, '-cp', info.clientClasspath, ...args], {
    timeoutMs,
  });
}
