/**
 * Bad inputs against the real running sidecar (a separate process, with
 * the emulated RM in another). Each one is answered with a 4xx whose message names the problem,
 * nothing is recorded, nothing reaches the RM, and the service stays up.
 */
import { join } from 'node:path';
import {
  MB,
  OTHER_TOKEN,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  waitReady,
  type EmulatorProc,
  type SidecarProc,
} from './support/procs';
import { SLEEP_AM } from '../yarn-submission';

let emu: EmulatorProc;
let sc: SidecarProc;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('bad');
  emu = await startEmulatorProc('emulator');
  sc = await startSidecarProc('sidecar', {
    rmUrls: [emu.url],
    jhsUrl: emu.jhsUrl,
    ledgerPath: join(tmp.dir, 'ledger.db'),
  });
  await waitReady(sc, [sc.proc, emu.proc]);
}, 60_000);

afterAll(async () => {
  await stopAll();
  tmp?.cleanup();
});

const good = () => ({
  name: 'nightly-report',
  user: 'alice',
  deadline: 600,
  maps: 4,
  reduces: 1,
  inputBytes: 4 * 16 * MB,
  yarnSubmission: SLEEP_AM,
});

interface Case {
  name: string;
  send: () => ReturnType<SidecarProc['submit']> | Promise<{ status: number; body: never }>;
  status: number;
  code: string;
  /** A field path the answer's issues must name, or a phrase its message must hold. */
  names: string;
}

const raw = async (body: string | Uint8Array, headers: Record<string, string>) => {
  const res = await fetch(`${sc.url}/api/v1/jobs`, { method: 'POST', headers, body: body as BodyInit });
  return { status: res.status, body: (await res.json()) as never };
};
const auth = { authorization: 'Bearer e2e-token-0123456789abcdef', 'content-type': 'application/json' };

const cases: Case[] = [
  {
    name: 'no token',
    send: () => sc.submit(good(), { token: null }),
    status: 401,
    code: 'UNAUTHORIZED',
    names: 'bearer token',
  },
  {
    name: 'a wrong token',
    send: () => sc.submit(good(), { token: 'not-a-token-of-ours-at-all' }),
    status: 401,
    code: 'UNAUTHORIZED',
    names: 'bearer token',
  },
  {
    name: 'a wrong scheme',
    send: () => raw(JSON.stringify(good()), { ...auth, authorization: `Basic ${OTHER_TOKEN}` }),
    status: 401,
    code: 'UNAUTHORIZED',
    names: 'bearer token',
  },
  {
    name: 'invalid JSON',
    send: () => raw('{"name": "x", "maps": 4,', auth),
    status: 400,
    code: 'INVALID_JSON',
    names: 'not valid JSON',
  },
  {
    name: 'not JSON at all',
    send: () => raw('name=x', { ...auth, 'content-type': 'text/plain' }),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    names: 'application/json',
  },
  {
    name: 'a missing name',
    send: () => sc.submit({ ...good(), name: undefined }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'name',
  },
  {
    name: 'missing maps and deadline',
    send: () => sc.submit({ name: 'x', user: 'alice', reduces: 1, inputBytes: 1 }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'maps',
  },
  {
    name: 'maps as a string',
    send: () => sc.submit({ ...good(), maps: 'eight' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'maps',
  },
  {
    name: 'fractional reduces',
    send: () => sc.submit({ ...good(), reduces: 1.5 }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'reduces',
  },
  {
    name: 'inputBytes as a string',
    send: () => sc.submit({ ...good(), inputBytes: '64MB' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'inputBytes',
  },
  {
    name: 'an unknown field',
    send: () => sc.submit({ ...good(), priority: 10 }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'priority',
  },
  {
    name: 'a deadline in the past (ISO)',
    send: () => sc.submit({ ...good(), deadline: '2020-01-01T00:00:00Z' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'deadline',
  },
  {
    name: 'a deadline in the past (seconds)',
    send: () => sc.submit({ ...good(), deadline: -30 }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'deadline',
  },
  {
    name: 'a deadline without a zone',
    send: () => sc.submit({ ...good(), deadline: '2099-01-01T00:00:00' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'deadline',
  },
  {
    name: 'a 10 MB body',
    send: () => raw(new Uint8Array(10 * MB).fill(0x20), auth),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    names: 'larger than',
  },
  {
    name: 'an unknown job type',
    send: () => sc.submit({ ...good(), jobType: 'quantum' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'jobType',
  },
  {
    name: 'an unknown queue',
    send: () => sc.submit({ ...good(), queue: 'no-such-queue' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'queue',
  },
  {
    name: 'a bad Idempotency-Key',
    send: () => sc.submit(good(), { key: 'with space' }),
    status: 400,
    code: 'VALIDATION_FAILED',
    names: 'Idempotency-Key',
  },
];

describe('bad inputs against the running sidecar', () => {
  it.each(cases)('$name: $status $code naming the problem', async (c) => {
    const { status, body } = await c.send();
    expect(status).toBe(c.status);
    const err = (body as { error: { code: string; message: string; issues?: Array<{ path: string }> } })
      .error;
    expect(err.code).toBe(c.code);
    const named =
      err.message.includes(c.names) ||
      (err.issues ?? []).some((i) => i.path === c.names || i.path.startsWith(`${c.names}.`));
    if (!named) throw new Error(`answer does not name '${c.names}': ${JSON.stringify(err)}`);
    // The service is still up after each one.
    expect((await fetch(`${sc.url}/healthz`)).status).toBe(200);
  });

  it('recorded nothing and sent nothing to the RM, and still admits a good job afterwards', async () => {
    const listed = await sc.get<{ total: number }>('/api/v1/jobs');
    expect(listed.total).toBe(0);
    const before = await emu.writes();
    expect(before.log).toEqual([]);
    const apps = await emu.rm.apps();
    expect(apps).toEqual([]);

    // The same Idempotency-Key with another body is refused (422) and records nothing.
    const first = await sc.submit(good(), { key: 'k-1' });
    expect(first.status).toBe(201);
    const conflict = await sc.submit({ ...good(), maps: 5 }, { key: 'k-1' });
    expect(conflict.status).toBe(422);
    expect(conflict.body.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(conflict.body.error?.message).toContain('k-1');
    expect((await sc.get<{ total: number }>('/api/v1/jobs')).total).toBe(1);
  });
});
