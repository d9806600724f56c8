/**
 * What a real RM 3.4.3 answered when measured, and the emulator answers alike (docs/emulator.md,
 * "What a real RM answers"): errors asked for in XML (a 404 becomes Jetty's 500 with no body,
 * every other refusal keeps its status and body), requests Jersey refuses before any method
 * runs, unknown paths, and the app-state endpoint, which speaks RMAppState (FINISHING, KILLING,
 * FINAL_SAVING) where the app report does not. Raw HTTP, so the exact answers are visible.
 */
import { RmRemoteError } from '../../src/errors/rm-remote';
import { FINISHING_SECONDS } from '../../src/emulator/rm-state';
import { call, rawRm, type RawAnswer } from './raw';
import { client, harness, type Harness } from './helpers';

const C = '/ws/v1/cluster';
const H = '/ws/v1/history/mapreduce';
const JSON_TYPE = 'application/json;charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';
const XML = 'application/xml';
const JSON_ACCEPT = 'application/json';
const SLEEP = { 'am-container-spec': { commands: { command: 'sleep 300' } } };
const NO_CACHE = 'must-revalidate,no-cache,no-store';
const STREAM = 'java.lang.IllegalStateException: STREAM';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

type App = Record<string, unknown> & { id: string; state: string; finalStatus: string; finishedTime: number };

function rmOf(h: Harness) {
  const raw = rawRm<App>(h.emu.url);
  /** Submits and expects the RM's 202; the new app's id. */
  const submit = async (ctx: Record<string, unknown>): Promise<string> => {
    const { id, r } = await raw.submit(ctx);
    expect(r.status).toBe(202);
    return id;
  };
  return { ...raw, submit };
}

/** Jetty's 500 for a 404 the web services could not write in XML: no body, no Content-Type. */
function expectLost404(r: RawAnswer, method = 'GET'): void {
  expect([r.status, r.statusText, r.headers.get('content-type'), r.text]).toEqual([
    500,
    'Server Error',
    null,
    '',
  ]);
  expect(r.headers.get('connection')).toBe('close');
  // Jetty's error handler sets it for the methods it writes pages for, even an empty one.
  expect(r.headers.get('cache-control')).toBe(method === 'PUT' ? null : NO_CACHE);
}

describe('errors asked for in XML', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  let running: string;
  let failed: string;
  let unknown: string;
  beforeAll(async () => {
    h = await harness();
    rm = rmOf(h);
    running = await rm.submit({
      ...SLEEP,
      'application-type': 'MAPREDUCE',
      'application-tags': { tag: ['maps:8', `input-bytes:${2 ** 36}`] },
    });
    // No AM command: the AM exits at once and the app FAILS after its attempts.
    failed = await rm.submit({ queue: 'besteffort' });
    h.advance(5);
    expect((await rm.app(running)).state).toBe('RUNNING');
    expect((await rm.app(failed)).state).toBe('FAILED');
    unknown = running.replace(/_\d+$/, '_9999');
  });
  afterAll(() => h.emu.close());

  it('a 404 read: RemoteException in JSON, Jetty’s 500 with no body in XML', async () => {
    const paths = [
      `${C}/apps/${unknown}`,
      `${C}/apps/${unknown}/state`,
      `${C}/apps/${unknown}/queue`,
      `${C}/apps/${unknown}/priority`,
      `${C}/apps/${unknown}/timeouts`,
      `${C}/apps/${unknown}/appattempts`,
      `${C}/nodes/nosuch:1`,
    ];
    for (const path of paths) {
      const json = await call(`${rm.url}${path}`, 'GET', { accept: JSON_ACCEPT });
      expect([path, json.status, json.headers.get('content-type')]).toEqual([path, 404, JSON_TYPE]);
      expect(json.json<{ RemoteException: { exception: string } }>().RemoteException.exception).toBe(
        'NotFoundException',
      );
      expectLost404(await call(`${rm.url}${path}`, 'GET', { accept: XML }));
    }
  });

  it.each([
    ['priority', { priority: 1 }],
    ['state', { state: 'KILLED' }],
    ['queue', { queue: 'default' }],
    ['timeout', { timeout: { type: 'LIFETIME', expiryTime: '2030-01-01T00:00:00.000+0000' } }],
  ])('a %s write to an unknown app: 404 in JSON, 500 with no body in XML', async (what, body) => {
    const json = await rm.put(unknown, what, body, JSON_ACCEPT);
    expect([json.status, json.json()]).toEqual([
      404,
      {
        RemoteException: {
          exception: 'NotFoundException',
          message: `java.lang.Exception: app with id: ${unknown} not found`,
          javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException',
        },
      },
    ]);
    expectLost404(await rm.put(unknown, what, body, XML), 'PUT');
    // An XML body changes nothing: it is the answer's format that cannot be written.
    const xmlBody = `<appqueue><queue>default</queue></appqueue>`;
    if (what === 'queue') expectLost404(await rm.put(unknown, what, xmlBody, XML, XML), 'PUT');
  });

  it('Jetty writes its page when the Accept also names a type it writes (not for a PUT)', async () => {
    const url = `${rm.url}${C}/apps/${unknown}`;
    const json = await call(url, 'GET', { accept: 'application/xml, application/json' });
    expect([json.status, json.statusText, json.headers.get('content-type')]).toEqual([
      500,
      'Server Error',
      'application/json',
    ]);
    expect(json.text).toMatch(
      new RegExp(
        `^\\{\\n"servlet":"org\\.apache\\.hadoop\\.http\\.WebServlet-[0-9a-f]{8}",\\n"cause0":"${STREAM}",\\n"message":"${STREAM}",\\n"url":"${C}/apps/${unknown}",\\n"status":"500"\\n\\}$`,
      ),
    );
    const text = await call(url, 'GET', { accept: 'application/xml, text/plain' });
    expect([text.headers.get('content-type'), text.text.split('\n')[0]]).toEqual([
      'text/plain;charset=iso-8859-1',
      `HTTP ERROR 500 ${STREAM}`,
    ]);
    expectLost404(
      await rm.put(unknown, 'priority', { priority: 1 }, 'application/xml, application/json'),
      'PUT',
    );
  });

  it('every other refusal keeps its status and body in XML: 400 and 503 RemoteExceptions', async () => {
    const bad = await call(`${rm.url}${C}/apps/foo`, 'GET', { accept: XML });
    expect([bad.status, bad.headers.get('content-type'), bad.text]).toEqual([
      400,
      XML_TYPE,
      `${XML_DECL}<RemoteException><exception>BadRequestException</exception><message>java.lang.IllegalArgumentException: Invalid ApplicationId prefix: foo. The valid ApplicationId should start with prefix application</message><javaClassName>org.apache.hadoop.yarn.webapp.BadRequestException</javaClassName></RemoteException>`,
    ]);
    const states = await call(`${rm.url}${C}/apps?states=bogus`, 'GET', { accept: XML });
    expect([states.status, states.headers.get('content-type')]).toEqual([400, XML_TYPE]);
    expect(states.text).toContain('<exception>BadRequestException</exception>');
    // A refused move (the scheduler's YarnException), with an XML body and in XML.
    const move = await rm.put(running, 'queue', '<appqueue><queue>nosuch</queue></appqueue>', XML, XML);
    expect([move.status, move.headers.get('content-type'), move.text]).toEqual([
      503,
      XML_TYPE,
      `${XML_DECL}<RemoteException><exception>UndeclaredThrowableException</exception><javaClassName>java.lang.reflect.UndeclaredThrowableException</javaClassName></RemoteException>`,
    ]);
    const npe = await rm.put(running, 'state', {}, XML);
    expect([npe.status, npe.headers.get('content-type')]).toEqual([503, XML_TYPE]);
    expect(npe.text).toContain('<exception>NullPointerException</exception>');
    const only = await rm.put(running, 'state', { state: 'RUNNING_X' }, XML);
    expect([only.status, only.text]).toEqual([
      400,
      `${XML_DECL}<RemoteException><exception>BadRequestException</exception><message>java.lang.Exception: Only 'KILLED' is allowed as a target state.</message><javaClassName>org.apache.hadoop.yarn.webapp.BadRequestException</javaClassName></RemoteException>`,
    ]);
  });

  it('a plain-text refusal keeps its status and text, with the XML Content-Type', async () => {
    const r = await rm.put(failed, 'queue', { queue: 'default' }, XML);
    expect([r.status, r.headers.get('content-type'), r.text]).toEqual([
      400,
      XML_TYPE,
      'App in FAILED state cannot be moved.',
    ]);
    const t = await rm.put(running, 'timeout', { timeout: { type: 'BOGUS' } }, XML);
    expect([t.status, t.headers.get('content-type'), t.text]).toEqual([
      400,
      XML_TYPE,
      'Timeout type or ExpiryTime is null.',
    ]);
  });

  it('the JobHistory server alike: an unknown or malformed job is 500 with no body in XML', async () => {
    for (const job of ['job_1_9999', 'job_x']) {
      const url = `${h.emu.jhsUrl}${H}/jobs/${job}`;
      const json = await call(url, 'GET', { accept: JSON_ACCEPT });
      expect([json.status, json.headers.get('content-type')]).toEqual([404, JSON_TYPE]);
      expectLost404(await call(url, 'GET', { accept: XML }));
    }
    const bad = await call(`${h.emu.jhsUrl}${H}/jobs?limit=abc`, 'GET', { accept: XML });
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, XML_TYPE]);
  });

  it('a MapReduce AM through the proxy alike, relayed with a charset', async () => {
    const job = running.replace('application_', 'job_').replace(/_\d+$/, '_9999');
    const url = `${rm.url}/proxy/${running}/ws/v1/mapreduce/jobs/${job}`;
    const json = await call(url, 'GET', { accept: JSON_ACCEPT });
    expect([json.status, json.headers.get('content-type')]).toEqual([404, JSON_TYPE]);
    const xml = await call(url, 'GET', { accept: XML });
    expect([xml.status, xml.statusText, xml.headers.get('content-type'), xml.text]).toEqual([
      500,
      'Server Error',
      'text/plain;charset=utf-8',
      '',
    ]);
    expect([xml.headers.get('connection'), xml.headers.get('cache-control')]).toEqual(['close', NO_CACHE]);
    const both = await call(url, 'GET', { accept: 'application/xml, application/json' });
    expect(both.headers.get('content-type')).toBe('application/json;charset=utf-8');
    // The AM's own path and servlet, not the proxy's.
    expect(both.text).toMatch(
      new RegExp(`"servlet":"org\\.apache\\.hadoop\\.http\\.WebServlet-[0-9a-f]{8}",\\n"cause0":"${STREAM}"`),
    );
    expect(both.text).toContain(`"url":"/ws/v1/mapreduce/jobs/${job}"`);
  });

  it('the client copes: a read is asked again in JSON, a write taken as refused', async () => {
    const xml = client(h.emu.url, 'xml');
    await expect(xml.app(unknown)).rejects.toMatchObject({ status: 404, exception: 'NotFoundException' });
    await expect(xml.app(unknown)).rejects.toBeInstanceOf(RmRemoteError);
    await expect(xml.setAppPriority(unknown, 1)).rejects.toMatchObject({ status: 500 });
  });
});

describe('requests Jersey refuses before any method runs, and unknown paths', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  let running: string;
  beforeAll(async () => {
    h = await harness();
    rm = rmOf(h);
    running = await rm.submit({ ...SLEEP });
    h.advance(3);
  });
  afterAll(() => h.emu.close());

  const wae = (format: 'json' | 'xml') =>
    format === 'json'
      ? '{"RemoteException":{"exception":"WebApplicationException","javaClassName":"javax.ws.rs.WebApplicationException"}}'
      : `${XML_DECL}<RemoteException><exception>WebApplicationException</exception><javaClassName>javax.ws.rs.WebApplicationException</javaClassName></RemoteException>`;

  it('a method the path does not have: 503 WebApplicationException, XML for a wildcard', async () => {
    const url = `${rm.url}${C}/apps/${running}/state`;
    for (const [accept, type, format] of [
      ['application/json', 'application/json;charset=null', 'json'],
      ['application/xml', 'application/xml;charset=null', 'xml'],
      ['*/*', 'application/xml;charset=null', 'xml'],
      [undefined, 'application/xml;charset=null', 'xml'],
    ] as const) {
      const r = await call(url, 'DELETE', { accept });
      expect([accept, r.status, r.headers.get('content-type'), r.text]).toEqual([
        accept,
        503,
        type,
        wae(format),
      ]);
    }
    const post = await call(url, 'POST', { body: { state: 'KILLED' }, accept: JSON_ACCEPT });
    expect([post.status, post.text]).toEqual([503, wae('json')]);
    // new-application is matched before {appid}: a GET of it is a method it does not have.
    const get = await call(`${rm.url}${C}/apps/new-application`, 'GET', { accept: JSON_ACCEPT });
    expect([get.status, get.headers.get('content-type'), get.text]).toEqual([
      503,
      'application/json;charset=null',
      wae('json'),
    ]);
  });

  it('an Accept of text/xml: no method produces it, 503 in text/xml (RM: charset=null)', async () => {
    for (const path of [`${C}/apps`, `${C}/apps/foo`, `${C}/info`]) {
      const r = await call(`${rm.url}${path}`, 'GET', { accept: 'text/xml' });
      expect([path, r.status, r.headers.get('content-type'), r.text]).toEqual([
        path,
        503,
        'text/xml;charset=null',
        wae('xml'),
      ]);
    }
    const jhs = await call(`${h.emu.jhsUrl}/ws/v1/history/info`, 'GET', { accept: 'text/xml' });
    expect([jhs.status, jhs.headers.get('content-type')]).toEqual([503, 'text/xml']);
    // Listed after a type the RM writes, it is passed over.
    const mixed = await call(`${rm.url}${C}/info`, 'GET', { accept: 'text/xml, application/json' });
    expect([mixed.status, mixed.headers.get('content-type')]).toEqual([200, JSON_TYPE]);
  });

  it('a body in text/xml cannot be read (the writes consume application/xml)', async () => {
    const r = await rm.put(
      running,
      'queue',
      '<appqueue><queue>default</queue></appqueue>',
      JSON_ACCEPT,
      'text/xml',
    );
    expect([r.status, r.headers.get('content-type'), r.text]).toEqual([
      503,
      'application/json;charset=null',
      wae('json'),
    ]);
  });

  it('an Accept is read by quality', async () => {
    const r = await call(`${rm.url}${C}/info`, 'GET', { accept: 'application/xml;q=0.5, application/json' });
    expect(r.headers.get('content-type')).toBe(JSON_TYPE);
  });

  it('an unknown path under /ws/: the web UI’s 404 page, whatever the Accept', async () => {
    for (const accept of [JSON_ACCEPT, XML]) {
      const r = await call(`${rm.url}${C}/nosuch?x=1`, 'GET', { accept });
      expect([r.status, r.headers.get('content-type')]).toEqual([404, 'text/html;charset=utf-8']);
      expect(r.text).toMatch(/^<!DOCTYPE html PUBLIC "-\/\/W3C\/\/DTD HTML 4\.01\/\/EN"/);
      expect(r.text).toContain(
        '<pre>org.apache.hadoop.yarn.webapp.WebAppException: /v1/cluster/nosuch: controller for v1 not found\n',
      );
    }
    const put = await call(`${rm.url}${C}/apps/${running}/nosuch`, 'PUT', { body: {} });
    expect(put.status).toBe(404);
    const jhs = await call(`${h.emu.jhsUrl}/ws/v1/history/x`, 'GET');
    expect(jhs.text).toContain('WebAppException: /v1/history/x: controller for v1 not found');
  });

  it('any other unknown path is Jetty’s 404; a servlet’s path with another method its 405', async () => {
    const r = await call(`${rm.url}/foo`, 'GET');
    expect([r.status, r.headers.get('content-type')]).toEqual([404, 'text/html;charset=iso-8859-1']);
    expect(r.text).toContain('<title>Error 404 Not Found</title>');
    const post = await call(`${rm.url}/isActive`, 'POST');
    expect([post.status, post.statusText, post.headers.get('content-type')]).toEqual([
      405,
      'Method Not Allowed',
      'text/html;charset=iso-8859-1',
    ]);
    expect(post.text).toContain('<title>Error 405 HTTP method POST is not supported by this URL</title>');
  });
});

describe('the app-state endpoint speaks RMAppState', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  beforeAll(async () => {
    h = await harness();
    rm = rmOf(h);
  });
  afterAll(() => h.emu.close());

  it(`an app that ends is FINISHING for ${FINISHING_SECONDS} s, while its report says FINISHED`, async () => {
    const id = await rm.submit({ ...SLEEP, 'application-tags': { tag: ['maps:1', 'reduces:0'] } });
    let a = await rm.app(id);
    for (let i = 0; i < 200 && a.state !== 'FINISHED'; i++) {
      h.advance(0.25);
      a = await rm.app(id);
    }
    expect([a.state, a.finalStatus]).toEqual(['FINISHED', 'SUCCEEDED']);
    expect(a.finishedTime).toBeGreaterThan(0);
    expect(await rm.state(id)).toBe('FINISHING');
    // The AM's container is held until it ends.
    expect([a.allocatedMB, a.allocatedVCores, a.runningContainers, a.reservedMB]).toEqual([1024, 1, 1, 0]);
    expect(a.resourceInfo).toBeDefined();
    const attempts = (await call(`${rm.url}${C}/apps/${id}/appattempts`, 'GET')).json<{
      appAttempts: { appAttempt: Array<{ appAttemptState: string }> };
    }>();
    expect(attempts.appAttempts.appAttempt.map((x) => x.appAttemptState)).toEqual(['FINISHING']);
    // The apps list speaks the report's states.
    const list = (await call(`${rm.url}${C}/apps?states=FINISHED`, 'GET')).json<{ apps: { app: App[] } }>();
    expect(list.apps.app.map((x) => x.id)).toContain(id);
    // Writes see FINISHING: the kill is done already, the move refused, the priority kept.
    const kill = await rm.put(id, 'state', { state: 'KILLED' });
    expect([kill.status, kill.json()]).toEqual([200, { state: 'FINISHING' }]);
    const same = await rm.put(id, 'state', { state: 'FINISHING' });
    expect([same.status, same.json()]).toEqual([200, { state: 'FINISHING' }]);
    const move = await rm.put(id, 'queue', { queue: 'besteffort' });
    expect([move.status, move.headers.get('content-type'), move.text]).toEqual([
      400,
      JSON_TYPE,
      'App in FINISHING state cannot be moved.',
    ]);
    const prio = await rm.put(id, 'priority', { priority: 5 });
    expect([prio.status, prio.json()]).toEqual([200, { priority: a.priority }]);
    const xml = await call(`${rm.url}${C}/apps/${id}/state`, 'GET', { accept: XML });
    expect(xml.text).toBe(`${XML_DECL}<appstate><state>FINISHING</state></appstate>`);

    h.advance(FINISHING_SECONDS);
    expect(await rm.state(id)).toBe('FINISHED');
    a = await rm.app(id);
    expect([a.allocatedMB, a.runningContainers, a.reservedMB, a.resourceInfo]).toEqual([
      -1,
      -1,
      -1,
      undefined,
    ]);
    const after = await rm.put(id, 'queue', { queue: 'besteffort' });
    expect(after.text).toBe('App in FINISHED state cannot be moved.');
  });

  it('a kill answers 202 KILLING while it runs (ACCEPTED or RUNNING); the app is KILLED after', async () => {
    const id = await rm.submit({
      ...SLEEP,
      'application-tags': { tag: ['maps:4', `input-bytes:${2 ** 36}`] },
    });
    h.advance(2);
    expect(await rm.state(id)).toBe('RUNNING');
    const kill = await rm.put(id, 'state', { state: 'KILLED' });
    expect([kill.status, kill.headers.get('location'), kill.json()]).toEqual([
      202,
      `${rm.url}${C}/apps/${id}/state`,
      { state: 'KILLING' },
    ]);
    expect(await rm.state(id)).toBe('KILLED');
    expect((await rm.app(id)).state).toBe('KILLED');
    const again = await rm.put(id, 'state', { state: 'KILLED' });
    expect([again.status, again.json()]).toEqual([200, { state: 'KILLED' }]);
    // An app whose AM never registers waits in ACCEPTED with an attempt: KILLING too.
    const accepted = await rm.submit({ 'max-app-attempts': 1, queue: 'besteffort' });
    expect(await rm.state(accepted)).toBe('ACCEPTED');
    const x = await rm.put(accepted, 'state', { state: 'KILLED' }, XML);
    expect([x.status, x.headers.get('content-type'), x.text]).toEqual([
      202,
      XML_TYPE,
      `${XML_DECL}<appstate><state>KILLING</state></appstate>`,
    ]);
  });

  it('a kill before the scheduler took the app answers FINAL_SAVING (no attempt to kill)', async () => {
    const id = await rm.submit({ ...SLEEP });
    expect(await rm.state(id)).toBe('SUBMITTED');
    const kill = await rm.put(id, 'state', { state: 'KILLED' });
    expect([kill.status, kill.json()]).toEqual([202, { state: 'FINAL_SAVING' }]);
    expect(await rm.state(id)).toBe('KILLED');
  });

  it('an unmanaged AM’s kill is answered done at once: 200 and the state it was in', async () => {
    const id = await rm.submit({ 'unmanaged-AM': true, 'am-container-spec': {} });
    h.advance(1);
    expect(await rm.state(id)).toBe('ACCEPTED');
    const kill = await rm.put(id, 'state', { state: 'KILLED' });
    expect([kill.status, kill.headers.get('location'), kill.json()]).toEqual([
      200,
      null,
      { state: 'ACCEPTED' },
    ]);
    expect(await rm.state(id)).toBe('KILLED');
  });
});

describe('app attempts and their containers', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  let id: string;
  let attempt: string;
  beforeAll(async () => {
    h = await harness();
    rm = rmOf(h);
    id = await rm.submit({ ...SLEEP, 'application-tags': { tag: ['maps:8', `input-bytes:${2 ** 36}`] } });
    h.advance(2);
    attempt = id.replace('application_', 'appattempt_') + '_000001';
  });
  afterAll(() => h.emu.close());

  const message = async (path: string) => {
    const r = await call(`${rm.url}${C}/apps/${path}`, 'GET', { accept: JSON_ACCEPT });
    return [r.status, r.json<{ RemoteException: { message: string } }>().RemoteException.message];
  };

  it('an unknown attempt, or one of an unknown app: 404 with the client service’s message', async () => {
    const other = attempt.replace(/_000001$/, '_000009');
    expect(await message(`${id}/appattempts/${other}`)).toEqual([
      404,
      `org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException: ApplicationAttempt with id '${other}' doesn't exist in RM.`,
    ]);
    expect(await message(`${id}/appattempts/${other}/containers`)).toEqual([
      404,
      `org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException: ApplicationAttempt with id '${other}' doesn't exist in RM.`,
    ]);
    const unknown = id.replace(/_\d+$/, '_9999');
    const theirs = `${unknown.replace('application_', 'appattempt_')}_000001`;
    expect(await message(`${unknown}/appattempts/${theirs}`)).toEqual([
      404,
      `org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException: Application with id '${unknown}' doesn't exist in RM. Please check that the job submission was successful.`,
    ]);
    expect(await message(`${id}/appattempts/bogus`)).toEqual([
      400,
      'java.lang.IllegalArgumentException: Invalid AppAttemptId prefix: bogus',
    ]);
    expectLost404(await call(`${rm.url}${C}/apps/${id}/appattempts/${other}`, 'GET', { accept: XML }));
  });

  it('an attempt’s containers, none tracked: {} in JSON, <containers/> in XML', async () => {
    const url = `${rm.url}${C}/apps/${id}/appattempts/${attempt}/containers`;
    const json = await call(url, 'GET', { accept: JSON_ACCEPT });
    expect([json.status, json.headers.get('content-type'), json.text]).toEqual([200, JSON_TYPE, '{}']);
    const xml = await call(url, 'GET', { accept: XML });
    expect([xml.status, xml.text]).toEqual([200, `${XML_DECL}<containers/>`]);
    expect(await client(h.emu.url).attemptContainers(id, attempt)).toEqual([]);
  });

  it('a reservation submitted: 202, no body, the negotiated Content-Type', async () => {
    const rid = (
      await call(`${rm.url}${C}/reservation/new-reservation`, 'POST', { accept: JSON_ACCEPT })
    ).json<Record<string, string>>()['reservation-id']!;
    const r = await call(`${rm.url}${C}/reservation/submit`, 'POST', {
      accept: XML,
      body: {
        'reservation-id': rid,
        queue: 'realtime',
        'reservation-definition': {
          arrival: h.emu.time.nowEpochMs() + 60_000,
          deadline: h.emu.time.nowEpochMs() + 3_600_000,
          'reservation-requests': {
            'reservation-request-interpreter': 0,
            'reservation-request': [
              {
                capability: { memory: 2048, vCores: 1 },
                'num-containers': 1,
                'min-concurrency': 1,
                duration: 60_000,
              },
            ],
          },
        },
      },
    });
    expect([r.status, r.headers.get('content-type'), r.text]).toEqual([202, XML_TYPE, '']);
  });
});
