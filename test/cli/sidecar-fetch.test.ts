/**
 * `run`'s HTTP client (node:http instead of the global fetch, whose first call loads undici):
 * what it sends and what it answers, against a server on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sidecarFetch } from '../../src/cli/sidecar-fetch';
import { hasOpenssl, selfSignedCert } from '../support/tls';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const listen = (server: http.Server | https.Server): Promise<number> =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

const closeServer = (server: http.Server | https.Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('sidecarFetch over http', () => {
  const seen: Seen[] = [];
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url === '/slow') return; // never answered: the caller's signal ends it
        const status = req.url === '/missing' ? 404 : req.method === 'POST' ? 201 : 200;
        res.writeHead(status, { 'content-type': 'application/json' });
        // In two writes: the answer's text is every chunk, decoded once (é split across them).
        const text = Buffer.from(JSON.stringify({ echo: body, method: req.method, name: 'café' }));
        res.write(text.subarray(0, text.length - 4));
        res.end(text.subarray(text.length - 4));
      });
    });
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  afterAll(() => closeServer(server));
  beforeEach(() => (seen.length = 0));

  it('sends the method, the headers and the body, and answers the status and the text', async () => {
    const body = JSON.stringify({ name: 'wordcount', deadline: 600 });
    const res = await sidecarFetch(`${base}/api/v1/jobs?x=1`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer t0k',
        'content-type': 'application/json',
        'idempotency-key': 'run-1',
      },
      body,
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(await res.text())).toEqual({ echo: body, method: 'POST', name: 'café' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/jobs?x=1', body });
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'Bearer t0k',
      'content-type': 'application/json',
      'idempotency-key': 'run-1',
    });
  });

  it('answers an error status as a status, and a GET without a body', async () => {
    const res = await sidecarFetch(`${base}/missing`, { method: 'GET', headers: {} });
    expect(res.status).toBe(404);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/missing', body: '' });
  });

  it('rejects once its signal aborts a request that is not answered', async () => {
    const started = Date.now();
    const err = await sidecarFetch(`${base}/slow`, {
      method: 'GET',
      headers: {},
      signal: AbortSignal.timeout(100),
    }).catch((e: unknown) => e);
    // Node's AbortError (of its own realm, not the test's Error).
    expect((err as Error).name).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('rejects with the reason when nothing listens, and refuses a URL that is not http(s)', async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await closeServer(closed);
    const err = await sidecarFetch(`http://127.0.0.1:${port}/`, { method: 'GET', headers: {} }).catch(
      (e: unknown) => e,
    );
    expect((err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    await expect(sidecarFetch('ftp://127.0.0.1/x', { method: 'GET', headers: {} })).rejects.toThrow(
      "the sidecar's URL must be http: or https:, not ftp:",
    );
  });
});

(hasOpenssl ? describe : describe.skip)('sidecarFetch over https', () => {
  let dir: string;
  let server: https.Server;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'run-tls-'));
    const { key, cert } = selfSignedCert(dir);
    server = https.createServer({ key, cert }, (_req, res) => res.end('{}'));
    base = `https://127.0.0.1:${await listen(server)}`;
  });
  afterAll(async () => {
    await closeServer(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('speaks TLS to an https sidecar and checks its certificate (a self-signed one is refused)', async () => {
    const err = await sidecarFetch(`${base}/api/v1/jobs`, { method: 'GET', headers: {} }).catch(
      (e: unknown) => e,
    );
    expect((err as NodeJS.ErrnoException).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });
});
