import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApiApp } from '../../src/api/app';
import type { SidecarService } from '../../src/model/sidecar-service';
import { SidecarMetrics } from '../../src/metrics';
import { silentLogger } from '../../src/log';
import { SLEEP_AM } from '../yarn-submission';

/**
 * The submission's answer as the service serialised it (SidecarService.submit's `json`): sent
 * as it is, with the headers res.json would give, unless it holds a credential marker; then the
 * body is answered through the app's redacting serialiser, as every other JSON answer is.
 */

const TOKEN = 'test-token-0123456789abcdef';
const job = {
  name: 'n',
  user: 'alice',
  yarnSubmission: SLEEP_AM,
  deadline: 600,
  maps: 1,
  reduces: 1,
  inputBytes: 1,
};

let server: Server;
let base: string;
let answer: { status: number; body: unknown; json?: string };

beforeEach(async () => {
  const service = {
    submit: async () => answer,
    listJobs: () => ({ jobs: [], total: 0 }),
    getJob: () => undefined,
    cluster: () => null,
    taskCosts: () => ({}),
    stats: () => ({ samples: [] }),
    readiness: () => ({ ready: true }),
  } satisfies SidecarService;
  const app = createApiApp({
    service,
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'ci', token: TOKEN }],
    protectReads: false,
    maxBodyBytes: 1_048_576,
    now: () => Date.parse('2026-11-22T08:00:00Z'),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((r) => server.close(r));
});

async function post(): Promise<{ status: number; type: string | null; length: string | null; text: string }> {
  const res = await fetch(`${base}/api/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(job),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    length: res.headers.get('content-length'),
    text: await res.text(),
  };
}

describe("the submission's answer", () => {
  it("is the service's JSON text, byte for byte, with res.json's headers", async () => {
    const body = { id: 'dl-1', decision: 'admitted', note: 'é ✓', n: 1.5 };
    // Not what JSON.stringify(body) gives (spacing): the text itself is what goes out.
    const json = '{"id":"dl-1", "decision":"admitted", "note":"é ✓", "n":1.5}';
    answer = { status: 201, body, json };
    const res = await post();
    expect(res).toEqual({
      status: 201,
      type: 'application/json; charset=utf-8',
      length: String(Buffer.byteLength(json)),
      text: json,
    });
  });

  it('without the text, is JSON.stringify of the body', async () => {
    answer = { status: 200, body: { id: 'dl-2', decision: 'rejected' } };
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json; charset=utf-8');
    expect(res.text).toBe('{"id":"dl-2","decision":"rejected"}');
  });

  it('is redacted when its text holds a credential, whatever the service serialised', async () => {
    const body = {
      id: 'dl-3',
      decision: 'rejected',
      reason: { message: 'http://bob:s3cret@rm:8088 said no' },
    };
    answer = { status: 200, body, json: JSON.stringify(body) };
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json; charset=utf-8');
    expect(res.text).not.toContain('s3cret');
    expect(JSON.parse(res.text)).toEqual({
      ...body,
      reason: { message: 'http://[redacted]@rm:8088 said no' },
    });
  });
});
