/**
 * Bounded input and typed client errors at the HTTP API: every number at its bound is taken
 * and one past it is a 400 naming the field and the limit; bad encodings, escapes, JSON, depth
 * and sizes are typed 4xx from the catalog; a bug is a typed 500, logged with its component;
 * every answer carries the security headers.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createApiApp, MAX_JSON_DEPTH, SECURITY_HEADERS } from '../../src/api/app';
import type { SidecarService } from '../../src/model/sidecar-service';
import { SidecarMetrics } from '../../src/metrics';
import { PAGE_CSP } from '../../src/api/page';
import { SUBMISSION_LIMITS, type Submission } from '../../src/model/deadline-submission';
import { errorCatalog } from '../../src/errors/catalog';
import { RESERVED_TAG_KEYS } from '../../src/yarn/tags';
import { sidecarLogCapture } from '../log-capture';
import { SLEEP_AM } from '../yarn-submission';

const NOW = Date.parse('2026-11-22T08:00:00Z');
const TOKEN = 'limits-token-0123456789abcdef';
const H = SUBMISSION_LIMITS.deadlineHorizonSeconds;

class FakeService implements SidecarService {
  submitted: Submission[] = [];
  failNext = false;
  async submit(s: Submission) {
    if (this.failNext) {
      this.failNext = false;
      throw new TypeError('a bug in the sidecar');
    }
    this.submitted.push(s);
    return { status: 201, body: { id: 'dl-1', decision: 'admitted' } };
  }
  listJobs() {
    return { jobs: [], total: 0 };
  }
  getJob(id: string) {
    return id === 'dl-1' ? { id } : undefined;
  }
  cluster() {
    return {};
  }
  taskCosts() {
    return {};
  }
  stats() {
    return { samples: [] };
  }
  readiness() {
    return {
      ready: false,
      reason: 'RM unreachable: cannot reach http://[redacted]@rm-1.internal:8088/ws/v1/cluster/info',
    };
  }
}

let server: Server;
let base: string;
let service: FakeService;
const capture = sidecarLogCapture('info');
const logLines = capture.lines;

async function listen(protectReads: boolean, plainPage = false): Promise<void> {
  service = new FakeService();
  const app = createApiApp({
    service,
    metrics: new SidecarMetrics(),
    logger: capture.logger,
    tokens: [{ name: 'ci', token: TOKEN }],
    protectReads,
    maxBodyBytes: 65_536,
    now: () => NOW,
    ...(plainPage ? {} : { extraRoutes: () => undefined }),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await new Promise((r) => server.close(r));
});

const good = {
  name: 'report',
  user: 'alice',
  deadline: 600,
  maps: 4,
  reduces: 1,
  inputBytes: 1024,
  yarnSubmission: SLEEP_AM,
};

type ErrorBody = {
  error: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
};

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as ErrorBody };
}

describe('bounded submissions', () => {
  beforeEach(() => listen(false));

  const bounds: Array<[string, Record<string, unknown>, Record<string, unknown>, string, string]> = [
    ['maps', { maps: SUBMISSION_LIMITS.maxMaps }, { maps: SUBMISSION_LIMITS.maxMaps + 1 }, 'maps', '1000000'],
    [
      'reduces',
      { reduces: SUBMISSION_LIMITS.maxReduces },
      { reduces: SUBMISSION_LIMITS.maxReduces + 1 },
      'reduces',
      '100000',
    ],
    [
      'inputBytes',
      { inputBytes: SUBMISSION_LIMITS.maxInputBytes },
      { inputBytes: SUBMISSION_LIMITS.maxInputBytes + 1 },
      'inputBytes',
      String(2 ** 50),
    ],
    ['inputBytes 1e24', { inputBytes: 0 }, { inputBytes: 1e24 }, 'inputBytes', String(2 ** 50)],
    [
      'splitBytes',
      { maps: 2, inputBytes: 2 ** 50, splitBytes: [2 ** 49, 2 ** 49] },
      { maps: 2, inputBytes: 2 ** 50, splitBytes: [2 ** 50 + 2, 0] },
      'splitBytes.0',
      String(2 ** 50),
    ],
    ['deadline in seconds', { deadline: H }, { deadline: H + 1 }, 'deadline', String(H)],
    ['deadline 1e13', { deadline: 1 }, { deadline: 1e13 }, 'deadline', String(H)],
    [
      'deadline as a time',
      { deadline: new Date(NOW + H * 1000).toISOString() },
      { deadline: new Date(NOW + H * 1000 + 1000).toISOString() },
      'deadline',
      String(H),
    ],
    ['name', { name: 'n'.repeat(256) }, { name: 'n'.repeat(257) }, 'name', '256'],
    ['user', { user: 'u'.repeat(128) }, { user: 'u'.repeat(129) }, 'user', '128'],
    ['queue', { queue: 'q'.repeat(256) }, { queue: 'q'.repeat(257) }, 'queue', '256'],
    [
      'an input path',
      { inputPaths: [`/${'p'.repeat(7999)}`] },
      { inputPaths: [`/${'p'.repeat(8000)}`] },
      'inputPaths.0',
      '8000',
    ],
  ];

  it.each(bounds)('%s: takes the bound, refuses one past it naming the field and the limit', async (...c) => {
    const [, atBound, past, path, limit] = c;
    expect((await post({ ...good, ...atBound })).status).toBe(201);
    const res = await post({ ...good, ...past });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    const issue = res.body.error.issues!.find((i) => i.path === path);
    expect(issue?.message).toContain(limit);
  });

  it.each([
    ['2026-02-30T09:00:00Z', 'calendar date'],
    ['2027-02-29T09:00:00Z', 'calendar date'],
    ['2026-13-01T09:00:00Z', 'calendar date'],
    ['2026-12-00T09:00:00Z', 'calendar date'],
    ['2026-12-01T24:00:00Z', 'clock time'],
    ['2026-12-01T09:60:00Z', 'clock time'],
    ['2026-12-01T09:00:60Z', 'clock time'],
    ['2026-12-01T09:00:00+15:00', 'zone offset'],
    ['2026-12-01', 'ISO-8601'],
    ['next tuesday', 'ISO-8601'],
  ])('refuses %s as a deadline (%s)', async (deadline, words) => {
    const res = await post({ ...good, deadline });
    expect(res.status).toBe(400);
    expect(res.body.error.issues!.find((i) => i.path === 'deadline')?.message).toContain(words);
  });

  it('takes a real leap day and a zone offset', async () => {
    expect((await post({ ...good, deadline: '2027-11-20T09:00:00+01:00' })).status).toBe(201);
    expect(service.submitted[0]!.deadlineMs).toBe(Date.parse('2027-11-20T08:00:00Z'));
    const leap = await post({ ...good, deadline: '2027-02-28T23:00:00-02:00' });
    expect(leap.status).toBe(201);
  });

  it.each(RESERVED_TAG_KEYS.map((k) => [k]))(
    "refuses a user tag with the sidecar's key %s:, naming the tag",
    async (key) => {
      const tag = `${key.toUpperCase()}:dl-1`;
      const res = await post({ ...good, tags: ['mine', tag] });
      expect(res.status).toBe(400);
      const issue = res.body.error.issues!.find((i) => i.path === 'tags.1');
      expect(issue?.message).toContain(tag);
      expect(issue?.message).toContain(`reserved key '${key}:'`);
    },
  );

  it('still takes free tags, including ones that only look like ours', async () => {
    expect((await post({ ...good, tags: ['team:ads', 'sidecar-idx:3', 'deadlines'] })).status).toBe(201);
  });
});

describe('typed client errors', () => {
  beforeEach(() => listen(false));

  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} before parsing it, and reads brackets in strings as text`, async () => {
    const deep = await post(`{"name":"x","yarnSubmission":${nest(MAX_JSON_DEPTH)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error.code).toBe('JSON_TOO_DEEP');
    expect(deep.body.error.message).toContain(String(MAX_JSON_DEPTH));
    const huge = await post(`{"a":${nest(30_000)}}`);
    expect(huge.body.error.code).toBe('JSON_TOO_DEEP');
    // At the bound it parses (and fails validation instead); brackets inside strings do not count.
    const atBound = await post(`{"a":${nest(MAX_JSON_DEPTH - 1)}}`);
    expect(atBound.body.error.code).toBe('VALIDATION_FAILED');
    const inString = await post({ ...good, name: `${'['.repeat(100)}\\"{{{` });
    expect(inString.status).toBe(201);
  });

  it.each([
    ['invalid JSON', '{"name": ', {}, 400, 'INVALID_JSON'],
    ['an empty body', '', {}, 400, 'INVALID_JSON'],
    ['a lone string', '"\\ud800', {}, 400, 'INVALID_JSON'],
    ['a text body', 'name=x', { 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['no content type', '{}', { 'content-type': '' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['latin-1', '{}', { 'content-type': 'application/json; charset=latin1' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a bogus encoding', '{}', { 'content-encoding': 'bogus' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a body too large', `{"name":"${'x'.repeat(70_000)}"}`, {}, 413, 'PAYLOAD_TOO_LARGE'],
  ])('answers %s with a typed 4xx', async (_what, body, headers, status, code) => {
    const res = await post(body, headers as Record<string, string>);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(service.submitted).toHaveLength(0);
  });

  it.each(['gzip', 'deflate', 'br'])(
    'refuses a %s body (valid or not) naming Content-Encoding',
    async (enc) => {
      for (const body of [gzipSync(JSON.stringify(good)), new Uint8Array([1, 2, 3])]) {
        const res = await post(body, { 'content-encoding': enc });
        expect(res.status).toBe(415);
        expect(res.body.error.message).toContain('Content-Encoding');
      }
    },
  );

  it.each(['/api/v1/jobs/%E0%A4%A', '/api/v1/jobs/%', '/api/v1/jobs/%zz%', '/api/v1/jobs/a%ff'])(
    'answers a malformed escape in %s with 400 MALFORMED_REQUEST',
    async (path) => {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error.code).toBe('MALFORMED_REQUEST');
    },
  );

  it('answers a bug with a typed 500 that says nothing of it, and logs it with the component', async () => {
    service.failNext = true;
    logLines.length = 0;
    const res = await post(good);
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: 'INTERNAL', message: 'internal error; see the sidecar log' });
    expect(errorCatalog.some((e) => e.code === 'INTERNAL' && e.httpStatus === 500)).toBe(true);
    const line = JSON.parse(logLines.find((l) => l.includes('unexpected error'))!) as Record<string, string>;
    expect(line).toMatchObject({ component: 'api', path: '/api/v1/jobs', level: 'error' });
    expect(line.error).toContain('a bug in the sidecar');
  });
});

describe('security headers', () => {
  const expectHeaders = (h: Headers, csp = SECURITY_HEADERS['Content-Security-Policy']) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) {
      expect(h.get(k)).toBe(k === 'Content-Security-Policy' ? csp : v);
    }
    expect(h.get('content-security-policy')).toContain("frame-ancestors 'none'");
  };

  it('are on every answer: success, client error, server error, probes, metrics, the plain page', async () => {
    await listen(true, true);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const answers: Array<[string, Response]> = [];
    for (const path of ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json', '/nope', '/api/v1/jobs/%'])
      answers.push([path, await fetch(`${base}${path}`)]);
    answers.push(['401', await fetch(`${base}/api/v1/jobs`)]);
    answers.push(['200', await fetch(`${base}/api/v1/jobs`, { headers: auth })]);
    for (const [, res] of answers) expectHeaders(res.headers);
    expect((await post(good)).headers.get('x-content-type-options')).toBe('nosniff');
    expectHeaders((await post('{')).headers);
    expectHeaders((await post(`{"a":${'['.repeat(99)}`)).headers);
    service.failNext = true;
    expectHeaders((await post(good)).headers);
    // The plain page has an inline style only: allowed by its hash, and no script at all.
    const page = await fetch(`${base}/`, { headers: auth });
    expect(page.status).toBe(200);
    expectHeaders(page.headers, PAGE_CSP);
    expect(PAGE_CSP).not.toContain('script-src');
    expect(PAGE_CSP).not.toContain('unsafe-inline');
  });
});

describe('probes with reads protected', () => {
  beforeEach(() => listen(true));

  it('/readyz says ready or not and why in a word, the details only with a token; /healthz says ok', async () => {
    const open = await fetch(`${base}/readyz`);
    expect(open.status).toBe(503);
    const text = await open.text();
    expect(JSON.parse(text)).toMatchObject({ ready: false, reason: 'RM unreachable' });
    expect(text).not.toMatch(/rm-1|8088|http/);
    const detailed = await fetch(`${base}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await detailed.json()) as { reason: string }).reason).toContain('rm-1.internal:8088');
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
  });
});
