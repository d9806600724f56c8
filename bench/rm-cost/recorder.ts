/**
 * Which requests the sidecar's poll cycle makes, and how many of each: a pass-through HTTP proxy
 * between the sidecar and the RM that counts every request by its kind (endpoint and filters)
 * and keeps the last URL of each kind, so that the bench can then time that request alone
 * against the RM (its CPU for one such request) and split a cycle's cost by endpoint.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The kind of a request to the RM's REST API: its path with ids left out, and for a read of
 * apps which filter it carries (the sidecar's reads differ by filter, not by path).
 */
export function requestKind(pathAndQuery: string): string {
  const url = new URL(pathAndQuery, 'http://rm');
  const path = url.pathname
    .replace(/\/application_\d+_\d+/g, '/{id}')
    .replace(/\/appattempt_\d+_\d+_\d+/g, '/{attempt}')
    .replace(/\/+$/, '');
  if (!path.endsWith('/cluster/apps')) return path;
  const q = url.searchParams;
  const filters = ['applicationTags', 'states', 'startedTimeBegin', 'finishedTimeBegin']
    .filter((k) => q.has(k))
    .map((k) => (k === 'states' ? `states=${q.get(k)!.split(',').length}` : k));
  return filters.length === 0 ? path : `${path}?${filters.join('&')}`;
}

export interface RecordedKind {
  kind: string;
  requests: number;
  /** The last such request's path and query, as sent. */
  lastUrl: string;
  /** Its Accept header (the sidecar reads JSON or XML). */
  accept: string;
}

export interface Recorder {
  /** The proxy's base URL (http://127.0.0.1:PORT): give it to the sidecar as the RM's address. */
  url: string;
  /** Counts from zero again. */
  reset(): void;
  /** The requests since the last reset, by kind, most first. */
  kinds(): RecordedKind[];
  close(): Promise<void>;
}

/** A recording proxy in front of `target` (the RM's base URL). */
export async function startRecorder(target: string): Promise<Recorder> {
  const to = new URL(target);
  let counts = new Map<string, RecordedKind>();
  const server = http.createServer((req, res) => {
    const pathAndQuery = req.url ?? '/';
    const kind = requestKind(pathAndQuery);
    const accept = req.headers.accept ?? '*/*';
    const k = counts.get(kind) ?? { kind, requests: 0, lastUrl: pathAndQuery, accept };
    k.requests++;
    k.lastUrl = pathAndQuery;
    k.accept = accept;
    counts.set(kind, k);
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: pathAndQuery,
        headers: { ...req.headers, host: to.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recorder: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reset: () => {
      counts = new Map();
    },
    kinds: () => [...counts.values()].sort((a, b) => b.requests - a.requests),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
