/**
 * Invalid requests get the RM's status and error body (INDEX.md sections 6, 9 and 12), and the
 * emulator stays up. Raw HTTP, so the exact bodies are visible.
 */
import { RmRemoteError } from '../../src/errors/rm-remote';
import { client, harness, type Harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';

interface Case {
  name: string;
  method?: string;
  path: (ids: Ids) => string;
  body?: string;
  contentType?: string;
  accept?: string;
  jhs?: boolean;
  status: number;
  /**
   * Exact plain-text body, or the RemoteException's exception and message start ('' for an
   * exception the RM writes without a message).
   */
  text?: string;
  remote?: [string, string];
  /** A page whose body matches this. */
  match?: RegExp;
  /** The Content-Type: the one negotiated from Accept unless said (measured on 3.4.3). */
  type?: string;
}
interface Ids {
  running: string;
  finished: string;
  job: string;
}

const json = 'application/json';
const CASES: Case[] = [
  {
    name: 'unknown app',
    path: () => '/ws/v1/cluster/apps/application_1_9999',
    status: 404,
    remote: ['NotFoundException', 'java.lang.Exception: app with id: application_1_9999 not found'],
  },
  {
    name: 'move of a finished app',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.finished}/queue`,
    body: '{"queue":"realtime"}',
    status: 400,
    text: 'App in FINISHED state cannot be moved.',
  },
  {
    name: 'move to an unknown queue',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.running}/queue`,
    body: '{"queue":"nosuch"}',
    status: 503,
    remote: ['UndeclaredThrowableException', ''],
  },
  {
    name: 'state other than KILLED',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.running}/state`,
    body: '{"state":"FINISHED"}',
    status: 400,
    remote: ['BadRequestException', "java.lang.Exception: Only 'KILLED' is allowed as a target state."],
  },
  {
    name: 'expiry with a +05:30 offset',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.running}/timeout`,
    body: '{"timeout":{"type":"LIFETIME","expiryTime":"2030-11-27T09:36:16.678+05:30"}}',
    status: 503,
    remote: [
      'DateTimeParseException',
      "Text '2030-11-27T09:36:16.678+05:30' could not be parsed at index 23",
    ],
  },
  {
    name: 'unwrapped timeout body',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.running}/timeout`,
    body: '{"type":"LIFETIME","expiryTime":"2030-11-27T09:36:16.678+0530"}',
    status: 400,
    remote: ['WebApplicationException', 'javax.xml.bind.UnmarshalException'],
  },
  {
    name: 'malformed JSON body',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.running}/queue`,
    body: '{"queue":',
    status: 400,
    remote: ['WebApplicationException', 'javax.xml.bind.UnmarshalException'],
  },
  {
    name: 'body of an unsupported type',
    method: 'PUT',
    path: (i) => `/ws/v1/cluster/apps/${i.running}/queue`,
    body: 'queue=a',
    contentType: 'text/plain',
    status: 503,
    remote: ['WebApplicationException', ''],
    type: 'application/json;charset=null',
  },
  {
    name: 'unknown app state filter',
    path: () => '/ws/v1/cluster/apps?states=BOGUS',
    status: 400,
    remote: [
      'BadRequestException',
      'java.lang.Exception: Invalid application-state BOGUS specified. It should be one of [NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING, FINISHED, FAILED, KILLED]',
    ],
  },
  {
    name: 'submission to a queue without the label',
    method: 'POST',
    path: () => '/ws/v1/cluster/apps',
    body: 'SUBMIT',
    status: 400,
    remote: [
      'BadRequestException',
      "java.lang.Exception: Invalid resource request, queue=default doesn't have permission",
    ],
  },
  {
    name: 'reservation in a queue that is not reservable',
    method: 'POST',
    path: () => '/ws/v1/cluster/reservation/submit',
    body: 'RESERVE',
    status: 400,
    remote: [
      'BadRequestException',
      'java.lang.Exception: The specified queue: default is not managed by reservation system',
    ],
  },
  {
    name: 'Accept the RM cannot serve',
    path: () => '/ws/v1/cluster/metrics',
    accept: 'text/html',
    status: 500,
    // Jetty's own error page (measured on 3.4.3), not a RemoteException.
    match: /<h2>HTTP ERROR 500 Server Error<\/h2>/,
    type: 'text/html;charset=iso-8859-1',
  },
  {
    name: 'unknown path: the web UI’s 404 page',
    path: () => '/ws/v1/cluster/nosuch',
    status: 404,
    match:
      /<title>\n {4}Sorry, got error 404\n {2}<\/title>[\s\S]*<pre>org\.apache\.hadoop\.yarn\.webapp\.WebAppException: \/v1\/cluster\/nosuch: controller for v1 not found\n/,
    type: 'text/html;charset=utf-8',
  },
  {
    name: 'JobHistory task type MAP',
    jhs: true,
    path: (i) => `/ws/v1/history/mapreduce/jobs/${i.job}/tasks?type=MAP`,
    status: 400,
    remote: ['BadRequestException', 'java.lang.Exception: tasktype must be either m or r'],
  },
  {
    name: 'JobHistory malformed job id',
    jhs: true,
    path: () => '/ws/v1/history/mapreduce/jobs/job_1326381300833_2_2',
    status: 404,
    remote: [
      'NotFoundException',
      'java.lang.Exception: JobId string : job_1326381300833_2_2 is not properly formed',
    ],
  },
];

describe('invalid requests', () => {
  let h: Harness;
  let ids: Ids;
  let freshId: string;

  beforeAll(async () => {
    h = await harness();
    const rm = client(h.emu.url);
    const submit = async (maps: number) => {
      const { applicationId } = await rm.newApplication();
      await rm.submitApp({
        applicationId,
        name: 'x',
        tags: [`maps:${maps}`, `input-bytes:${maps * 2 ** 36}`],
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('true'),
      });
      return applicationId;
    };
    const finished = await (async () => {
      const { applicationId } = await rm.newApplication();
      await rm.submitApp({
        applicationId,
        name: 'small',
        tags: ['maps:1'],
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('true'),
      });
      return applicationId;
    })();
    h.advance(300);
    const running = await submit(2);
    h.advance(5);
    freshId = (await rm.newApplication()).applicationId;
    ids = { running, finished, job: finished.replace('application_', 'job_') };
    expect(await rm.appState(finished)).toBe('FINISHED');
    expect(await rm.appState(running)).toBe('RUNNING');
  });
  afterAll(() => h.emu.close());

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    let body = c.body;
    if (body === 'SUBMIT') {
      body = JSON.stringify({
        'application-id': freshId,
        'application-name': 'x',
        queue: 'default',
        'app-node-label-expression': 'gpu',
        resource: { memory: 1024, vCores: 1 },
      });
    }
    if (body === 'RESERVE') {
      const id = (
        (await (
          await fetch(`${h.emu.url}/ws/v1/cluster/reservation/new-reservation`, { method: 'POST' })
        ).json()) as Record<string, string>
      )['reservation-id'];
      body = JSON.stringify({
        queue: 'default',
        'reservation-id': id,
        'reservation-definition': {
          arrival: 1,
          deadline: 100000,
          'reservation-requests': {
            'reservation-request': [
              { duration: 1000, 'num-containers': 1, capability: { memory: 1024, vCores: 1 } },
            ],
          },
        },
      });
    }
    const res = await fetch(`${c.jhs ? h.emu.jhsUrl : h.emu.url}${c.path(ids)}`, {
      method: c.method ?? 'GET',
      headers: {
        accept: c.accept ?? json,
        ...(body !== undefined ? { 'content-type': c.contentType ?? json } : {}),
      },
      body,
    });
    const text = await res.text();
    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toBe(c.type ?? 'application/json;charset=utf-8');
    if (c.text !== undefined) {
      expect(text).toBe(c.text);
    } else if (c.match !== undefined) {
      expect(text).toMatch(c.match);
    } else {
      const r = (
        JSON.parse(text) as {
          RemoteException: { exception: string; message?: string; javaClassName: string };
        }
      ).RemoteException;
      expect(r.exception).toBe(c.remote![0]);
      if (c.remote![1] === '') expect(r.message).toBeUndefined();
      else expect(r.message!.startsWith(c.remote![1])).toBe(true);
      expect(r.javaClassName).not.toBe('');
    }
  });

  it('answers an unknown app asked in XML as the RM does: 500 and no body, not a RemoteException', async () => {
    const res = await fetch(`${h.emu.url}/ws/v1/cluster/apps/application_1_9999`, {
      headers: { accept: 'application/xml' },
    });
    expect([res.status, res.statusText, res.headers.get('content-type')]).toEqual([
      500,
      'Server Error',
      null,
    ]);
    expect(await res.text()).toBe('');
  });

  it('refuses more than 10 tags, a tag over 100 characters or one not in ASCII, as the RM does', async () => {
    const rm = client(h.emu.url);
    const tryTags = async (tags: string[]) => {
      const { applicationId } = await rm.newApplication();
      const err = await rm
        .submitApp({
          applicationId,
          name: 't',
          tags,
          amResource: { memoryMB: 1024, vcores: 1 },
          am: amCommand('true'),
        })
        .then(() => null)
        .catch((e: unknown) => e as RmRemoteError);
      return { applicationId, err };
    };
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`);
    const tooMany = await tryTags(eleven);
    expect(tooMany.err).toBeInstanceOf(RmRemoteError);
    // The submission's BadRequestException around the IllegalArgumentException (measured on 3.4.3).
    const wrapped = 'java.lang.Exception: java.lang.IllegalArgumentException: ';
    expect([tooMany.err!.status, tooMany.err!.exception, tooMany.err!.remoteMessage]).toEqual([
      400,
      'BadRequestException',
      `${wrapped}Too many applicationTags, a maximum of only 10 are allowed!`,
    ]);
    expect(tooMany.err!.javaClassName).toBe('org.apache.hadoop.yarn.webapp.BadRequestException');
    const long = `x:${'a'.repeat(99)}`;
    expect((await tryTags([long])).err!.remoteMessage).toBe(
      `${wrapped}Tag ${long} is too long, maximum allowed length of a tag is 100`,
    );
    expect((await tryTags(['team:\u00e9t\u00e9'])).err!.remoteMessage).toBe(
      `${wrapped}A tag can only have ASCII characters! Invalid tag - team:\u00e9t\u00e9`,
    );
    // The RM counts the set it is sent before lower-casing it: `T0` beside `t0` is an eleventh
    // tag, a repeated `t0` is not; stored, they are ten.
    expect((await tryTags([...eleven.slice(0, 10), 'T0'])).err!.remoteMessage).toMatch(
      /^java.lang.Exception: java.lang.IllegalArgumentException: Too many/,
    );
    const ok = await tryTags([...eleven.slice(0, 10), 't0']);
    expect(ok.err).toBeNull();
    expect((await rm.app(ok.applicationId)).applicationTags).toHaveLength(10);
  });

  it('accepts a submission to an unknown queue, then fails the app as the RM does', async () => {
    const rm = client(h.emu.url);
    const { applicationId } = await rm.newApplication();
    expect(
      (
        await rm.submitApp({
          applicationId,
          name: 'lost',
          queue: 'nosuch',
          amResource: { memoryMB: 1024, vcores: 1 },
          am: amCommand('true'),
        })
      ).status,
    ).toBe(202);
    const app = await rm.app(applicationId);
    expect([app.state, app.finalStatus]).toEqual(['FAILED', 'FAILED']);
    expect(app.diagnostics).toBe(
      `Application ${applicationId} submitted by user dr.who to unknown queue: nosuch`,
    );
  });

  it('stays up after all of them', async () => {
    expect((await client(h.emu.url).clusterInfo()).haState).toBe('ACTIVE');
    expect((await client(h.emu.url).apps()).length).toBeGreaterThanOrEqual(2);
  });
});
