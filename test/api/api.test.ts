import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApiApp, type SidecarService } from '../../src/api/app';
import { SidecarMetrics } from '../../src/api/metrics';
import { openApiDocument } from '../../src/api/openapi';
import type { Submission } from '../../src/api/submission';
import { LedgerUnavailableError } from '../../src/errors/ledger-unavailable';
import { silentLogger } from '../../src/log';
import { SLEEP_AM } from '../yarn-submission';

const NOW = Date.parse('2026-11-22T08:00:00Z');
const TOKEN = 'test-token-0123456789abcdef';

/** A service that records what reached it, so tests can show a bad request never did. */
class RecordingService implements SidecarService {
  submitted: Array<{ submission: Submission; submitter: string; idempotencyKey?: string }> = [];
  /** Set: the submission and writes fail with it (the ledger not durable in time). */
  ledgerDown: Error | undefined;
  async submit(
    submission: Submission,
    ctx: { submitter: string; idempotencyKey?: string; requestHash: string },
  ) {
    if (this.ledgerDown) throw this.ledgerDown;
    this.submitted.push({ submission, submitter: ctx.submitter, idempotencyKey: ctx.idempotencyKey });
    return { status: 201, body: { id: 'dl-1', decision: 'admitted', deadlineMs: submission.deadlineMs } };
  }
  listJobs(query: object) {
    return { jobs: [{ query }], total: 1 };
  }
  getJob(id: string) {
    return id === 'dl-1' ? { id } : undefined;
  }
  cluster() {
    return { nodes: 3 };
  }
  stats() {
    return { samples: [{ at: '2026-11-22T08:00:00.000Z', accepted: 1 }] };
  }
  taskCosts() {
    return { scope: 'class', jobs: 2, classes: [{ workloadClass: '*', map: { learnedWorstCase: 0.5 } }] };
  }
  cancelled: string[] = [];
  async cancelTicket(id: string) {
    // Answered once durable: the route waits for this promise.
    await new Promise((r) => setTimeout(r, 20));
    if (this.ledgerDown) throw this.ledgerDown;
    this.cancelled.push(id);
    return { id, state: 'cancelled' };
  }
  ready = true;
  readiness() {
    return this.ready ? { ready: true } : { ready: false, reason: 'RM unreachable since 08:00:00Z' };
  }
}

let server: Server;
let base: string;
let service: RecordingService;

beforeEach(async () => {
  service = new RecordingService();
  const app = createApiApp({
    service,
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'ci-pipeline', token: TOKEN }],
    protectReads: false,
    maxBodyBytes: 1_048_576,
    now: () => NOW,
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((r) => server.close(r));
});

const goodJob = {
  name: 'hourly report',
  user: 'alice',
  yarnSubmission: SLEEP_AM,
  deadline: 600,
  maps: 10,
  reduces: 2,
  inputBytes: 1e9,
};

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      error?: { code: string; message: string; issues?: Array<{ path: string }> };
    },
  };
}

describe('the HTTP API', () => {
  it('accepts a valid submission with the token, turning seconds-from-now into an absolute deadline', async () => {
    const res = await post(goodJob, { 'idempotency-key': 'abc-1' });
    expect(res.status).toBe(201);
    expect(service.submitted).toHaveLength(1);
    expect(service.submitted[0]).toMatchObject({ submitter: 'ci-pipeline', idempotencyKey: 'abc-1' });
    expect(service.submitted[0]!.submission).toMatchObject({
      deadlineMs: NOW + 600_000,
      jobType: 'cpu',
      dryRun: false,
    });
  });

  it.each([
    ['no token', {}, 'a valid bearer token is required'],
    ['a wrong token', { authorization: 'Bearer not-the-token-at-all' }, 'a valid bearer token is required'],
    ['a malformed header', { authorization: TOKEN }, 'a valid bearer token is required'],
  ])('answers 401 to %s and lets nothing through', async (_what, headers, message) => {
    const res = await fetch(`${base}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(goodJob),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(message);
    expect(service.submitted).toHaveLength(0);
  });

  it.each<[string, unknown, number, string, string[]]>([
    ['invalid JSON', '{"name": "x", ', 400, 'INVALID_JSON', []],
    ['a missing field', { ...goodJob, maps: undefined }, 400, 'VALIDATION_FAILED', ['maps']],
    ['a mistyped field', { ...goodJob, reduces: 'two' }, 400, 'VALIDATION_FAILED', ['reduces']],
    ['a fractional task count', { ...goodJob, maps: 2.5 }, 400, 'VALIDATION_FAILED', ['maps']],
    [
      'a deadline in the past',
      { ...goodJob, deadline: '2026-11-22T07:00:00Z' },
      400,
      'VALIDATION_FAILED',
      ['deadline'],
    ],
    [
      'a deadline without a zone',
      { ...goodJob, deadline: '2026-11-22T09:00:00' },
      400,
      'VALIDATION_FAILED',
      ['deadline'],
    ],
    ['a negative relative deadline', { ...goodJob, deadline: -5 }, 400, 'VALIDATION_FAILED', ['deadline']],
    ['an unknown job type', { ...goodJob, jobType: 'tpu' }, 400, 'VALIDATION_FAILED', ['jobType']],
    ['an unknown field', { ...goodJob, colour: 'red' }, 400, 'VALIDATION_FAILED', ['(body)']],
    [
      'splits that do not add up',
      { ...goodJob, maps: 2, splitBytes: [1, 2] },
      400,
      'VALIDATION_FAILED',
      ['splitBytes'],
    ],
    [
      'a sidecar-owned YARN field',
      { ...goodJob, yarnSubmission: { ...SLEEP_AM, queue: 'x' } },
      400,
      'VALIDATION_FAILED',
      ['yarnSubmission.queue'],
    ],
    ['a JSON array', [goodJob], 400, 'VALIDATION_FAILED', ['(body)']],
  ])(
    'rejects %s with a 4xx naming the problem, and nothing reaches the service',
    async (_what, body, status, code, paths) => {
      const res = await post(body);
      expect(res.status).toBe(status);
      expect(res.body.error!.code).toBe(code);
      if (paths.length) expect(res.body.error!.issues!.map((i) => i.path)).toEqual(paths);
      expect(service.submitted).toHaveLength(0);
    },
  );

  it('rejects a 10 MB body with 413 and stays up', async () => {
    const res = await post({ ...goodJob, name: 'x'.repeat(10 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.error!.code).toBe('PAYLOAD_TOO_LARGE');
    expect(service.submitted).toHaveLength(0);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('rejects another content type with 415 and a bad Idempotency-Key with 400', async () => {
    const res = await fetch(`${base}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(goodJob),
    });
    expect(res.status).toBe(415);
    const bad = await post(goodJob, { 'idempotency-key': 'x'.repeat(201) });
    expect(bad.status).toBe(400);
    expect(bad.body.error!.issues!.map((i) => i.path)).toEqual(['Idempotency-Key']);
    expect(service.submitted).toHaveLength(0);
  });

  it('checks a submission in order: the token, the content type, the body size, the JSON', async () => {
    const big = JSON.stringify({ ...goodJob, name: 'x'.repeat(2 * 1024 * 1024) });
    const send = async (headers: Record<string, string>, body: string) => {
      const res = await fetch(`${base}/api/v1/jobs`, { method: 'POST', headers, body });
      return ((await res.json()) as { error: { code: string } }).error.code;
    };
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(await send({ 'content-type': 'text/plain' }, big)).toBe('UNAUTHORIZED');
    expect(await send({ ...auth, 'content-type': 'text/plain' }, big)).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await send({ ...auth, 'content-type': 'application/json' }, `${big.slice(0, -1)},`)).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(await send({ ...auth, 'content-type': 'application/json' }, '{"name": ')).toBe('INVALID_JSON');
    expect(service.submitted).toHaveLength(0);
  });

  it('serves the read API with validated filters', async () => {
    const list = await fetch(`${base}/api/v1/jobs?decision=rejected&limit=5`);
    expect(await list.json()).toEqual({
      jobs: [{ query: { decision: 'rejected', limit: 5, offset: 0 } }],
      total: 1,
    });
    const bad = await fetch(`${base}/api/v1/jobs?decision=maybe&limit=0`);
    expect(bad.status).toBe(400);
    expect(
      ((await bad.json()) as { error: { issues: Array<{ path: string }> } }).error.issues.map((i) => i.path),
    ).toEqual(['decision', 'limit']);
    expect((await fetch(`${base}/api/v1/jobs/dl-1`)).status).toBe(200);
    const missing = await fetch(`${base}/api/v1/jobs/dl-404`);
    expect(missing.status).toBe(404);
    expect(await fetch(`${base}/api/v1/cluster`).then((r) => r.json())).toEqual({ nodes: 3 });
    expect(await fetch(`${base}/api/v1/stats`).then((r) => r.json())).toEqual({
      samples: [{ at: '2026-11-22T08:00:00.000Z', accepted: 1 }],
    });
    expect(await fetch(`${base}/api/v1/estimates`).then((r) => r.json())).toEqual({
      scope: 'class',
      jobs: 2,
      classes: [{ workloadClass: '*', map: { learnedWorstCase: 0.5 } }],
    });
  });

  it('reports readiness from the service', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    service.ready = false;
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ready: false, reason: 'RM unreachable since 08:00:00Z' });
  });

  it('serves Prometheus metrics and an OpenAPI document describing every route', async () => {
    const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
    expect(metrics).toContain('# TYPE yss_decisions_total counter');
    expect(metrics).toContain('# TYPE yss_admission_duration_seconds histogram');
    const doc = (await fetch(`${base}/api/v1/openapi.json`).then((r) => r.json())) as typeof openApiDocument;
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/',
        '/api/v1/cluster',
        '/api/v1/estimates',
        '/api/v1/estimates/{workloadClass}/reset',
        '/api/v1/jobs',
        '/api/v1/jobs/{id}',
        '/api/v1/jobs/{id}/client',
        '/api/v1/docs',
        '/api/v1/leader',
        '/api/v1/openapi.json',
        '/api/v1/replays',
        '/api/v1/replays/{id}',
        '/api/v1/stats',
        '/healthz',
        '/metrics',
        '/readyz',
      ].sort(),
    );
  });

  it('answers unknown routes with a 404 error body', async () => {
    const res = await fetch(`${base}/api/v2/nothing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'no route GET /api/v2/nothing' },
    });
  });
});

describe('the write API without configured tokens', () => {
  it('is closed, saying how to open it', async () => {
    const app = createApiApp({
      service: new RecordingService(),
      metrics: new SidecarMetrics(),
      logger: silentLogger(),
      tokens: [],
      protectReads: false,
      maxBodyBytes: 1024 * 1024,
      now: () => NOW,
    });
    const s = app.listen(0, '127.0.0.1');
    await new Promise((r) => s.once('listening', r));
    const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(goodJob),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('YSS_TOKENS');
    await new Promise((r) => s.close(r));
  });
});

describe('a submission without a deadline', () => {
  it('passes the parser with no deadline, for the sidecar to settle by its queue', async () => {
    const { parseSubmission, resolveDeadline } = await import('../../src/api/submission');
    const { deadline: _omitted, ...noDeadline } = goodJob;
    const s = parseSubmission(noDeadline, NOW);
    expect(s.deadlineMs).toBeNull();
    expect(resolveDeadline(s, 'adhoc', { key: 'adhoc', deadlineSeconds: 7200 }, NOW)).toMatchObject({
      deadlineMs: NOW + 7_200_000,
      deadlineSource: 'queue-default',
      defaultDeadlineSeconds: 7200,
    });
    expect(() => resolveDeadline(s, 'adhoc', undefined, NOW)).toThrow(
      "deadline: is required: queue 'adhoc' has no default deadline configured (admission.queueDefaults)",
    );
    // A deadline of its own wins over any default.
    const own = parseSubmission(goodJob, NOW);
    expect(resolveDeadline(own, 'adhoc', { key: '*', deadlineSeconds: 7200 }, NOW)).toMatchObject({
      deadlineMs: NOW + 600_000,
      deadlineSource: 'request',
    });
  });

  it('reaches the service (which decides whether a default applies)', async () => {
    const { deadline: _omitted, ...noDeadline } = goodJob;
    const res = await post(noDeadline);
    expect(res.status).toBe(201);
    expect(service.submitted[0]!.submission.deadlineMs).toBeNull();
  });
});

describe('submission limits', () => {
  it('takes a map-only job (reduces 0) and refuses a negative count, naming the field', async () => {
    const { parseSubmission } = await import('../../src/api/submission');
    expect(parseSubmission({ ...goodJob, reduces: 0 }, NOW).reduces).toBe(0);
    expect(() => parseSubmission({ ...goodJob, reduces: -1 }, NOW)).toThrow('reduces: must be at least 0');
  });
});

describe('writes on a ledger that cannot make them durable in time', () => {
  it('answer 503 LEDGER_UNAVAILABLE with Retry-After; a write that became durable answers once it did', async () => {
    const del = () =>
      fetch(`${base}/api/v1/jobs/dl-1`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } });
    const ok = await del();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ id: 'dl-1', state: 'cancelled' });
    service.ledgerDown = new LedgerUnavailableError('PostgreSQL did not commit within 5000 ms', {
      waitedMs: 5_000,
      retryAfterSeconds: 2,
    });
    const submitted = await fetch(`${base}/api/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(goodJob),
    });
    for (const res of [submitted, await del()]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(await res.json()).toMatchObject({ error: { code: 'LEDGER_UNAVAILABLE' } });
    }
    expect(service.cancelled).toEqual(['dl-1']);
  });
});
