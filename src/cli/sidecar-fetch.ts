import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';

/**
 * What `run` asks of an HTTP client: a method, headers and a text body out; the status and the
 * text back. The global `fetch` satisfies it (the tests hand one in), and so does sidecarFetch.
 */
export type SidecarFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

/**
 * `run`'s requests to the sidecar over node:http (node:https for an https URL, loaded only then),
 * as keep-alive connections of Node's global agents. Node's `fetch` loads its HTTP client
 * (undici) at its first call; `run` starts a job's client only after its first answer, so
 * that load was on every job's path to the RM: see docs/performance.md, "What it costs the
 * cluster". A request that cannot be made, or is aborted by `signal`, rejects with the error.
 */
export const sidecarFetch: SidecarFetch = (url, init) =>
  new Promise((resolve, reject) => {
    const u = new URL(url);
    const options: RequestOptions = { method: init.method, headers: init.headers, signal: init.signal };
    const answered = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, text: () => Promise.resolve(text) });
      });
    };
    let req: ClientRequest;
    if (u.protocol === 'https:') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- TLS is loaded only for an https sidecar
      const https = require('node:https') as typeof import('node:https');
      req = https.request(u, options, answered);
    } else if (u.protocol === 'http:') {
      req = httpRequest(u, options, answered);
    } else {
      reject(new TypeError(`the sidecar's URL must be http: or https:, not ${u.protocol} (${url})`));
      return;
    }
    req.once('error', reject);
    req.end(init.body);
  });
