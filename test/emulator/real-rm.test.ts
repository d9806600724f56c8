/**
 * The emulated RM answers as a real RM 3.4.3 did when measured (docs/emulator.md, "What a real
 * RM answers"): the submission context kept and echoed, the priority cap, an AM without a
 * command, the refusals of writes and their bodies, content types. Raw HTTP, so the exact
 * answers are visible.
 */
import { AM_ATTEMPT_SECONDS } from '../../src/emulator/rm-state';
import type { SubmissionContext } from '../../src/emulator/submission-context';
import { call, rawRm } from './raw';
import { defaultEmulatorConfig, harness, type Harness } from './helpers';

const C = '/ws/v1/cluster';
const JSON_TYPE = 'application/json;charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';
const SLEEP = { 'am-container-spec': { commands: { command: 'sleep 300' } } };

type App = Record<string, unknown> & { id: string; state: string; priority: number };

const rmOf = (h: Harness) => rawRm<App>(h.emu.url);

describe('the submission context, kept and echoed', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  beforeAll(async () => {
    h = await harness();
    rm = rmOf(h);
  });
  afterAll(() => h.emu.close());

  const full = {
    'application-name': 'Full Context',
    queue: 'besteffort',
    priority: 10,
    'am-container-spec': {
      'local-resources': {
        entry: [
          {
            key: 'app.jar',
            value: {
              resource: 'hdfs://nn:8020/user/alice/app.jar',
              type: 'FILE',
              visibility: 'APPLICATION',
              size: 43004,
              timestamp: 1405452071209,
            },
          },
        ],
      },
      environment: { entry: [{ key: 'FOO', value: 'bar' }] },
      commands: { command: 'sleep 300' },
      'service-data': { entry: { key: 'svc', value: 'c2VydmljZQ==' } },
      credentials: { tokens: { entry: [{ key: 't', value: 'dG9rZW4=' }] }, secrets: {} },
      'application-acls': { entry: [{ key: 'VIEW_APP', value: 'alice admins' }] },
    },
    'unmanaged-AM': false,
    'max-app-attempts': 3,
    resource: { memory: 1536, vCores: 2 },
    'application-type': 'MAPREDUCE',
    'keep-containers-across-application-attempts': true,
    'application-tags': {
      tag: ['Deadline:2026-11-24T19:48:22Z', 'Sidecar-Id:ABC', 'MixedCase', 'mixedcase'],
    },
    'log-aggregation-context': { 'log-include-pattern': 'file1', 'log-exclude-pattern': 'file2' },
    'attempt-failures-validity-interval': 3600000,
    'app-node-label-expression': 'gpu',
    'cancel-tokens-when-complete': false,
  };

  it('answers 202 with the negotiated Content-Type, no body, and the request URL plus the id', async () => {
    const { id, r } = await rm.submit({ ...full }, '?user.name=alice');
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
    expect(r.headers.get('content-type')).toBe(JSON_TYPE);
    expect(r.headers.get('location')).toBe(`${rm.url}${C}/apps/${id}`);
  });

  it('reports what the RM reports: full queue path, capped priority, lower-cased sorted tags, labels', async () => {
    const { id } = await rm.submit({ ...full });
    const a = await rm.app(id);
    expect(a).toMatchObject({
      name: 'Full Context',
      queue: 'root.besteffort',
      // 10 asked, the stock cap is 0.
      priority: 0,
      applicationType: 'MAPREDUCE',
      applicationTags: 'deadline:2026-11-24t19:48:22z,mixedcase,sidecar-id:abc',
      appNodeLabelExpression: 'gpu',
      // None given: the app's.
      amNodeLabelExpression: 'gpu',
      unmanagedApplication: false,
      timeouts: { timeout: [{ type: 'LIFETIME', expiryTime: 'UNLIMITED', remainingTimeInSeconds: -1 }] },
    });
    // Before it runs, the pending ask is the AM's: its resource, at priority 0, in its label.
    expect(a.resourceRequests).toEqual([
      {
        priority: 0,
        allocationRequestId: -1,
        resourceName: '*',
        capability: expect.objectContaining({ memory: 1536, vCores: 2 }) as unknown,
        numContainers: 1,
        relaxLocality: true,
        nodeLabelExpression: 'gpu',
        executionTypeRequest: { executionType: 'GUARANTEED', enforceExecutionType: false },
      },
    ]);
  });

  it('keeps the whole context for a test to read, under /_emulator', async () => {
    const { id } = await rm.submit({ ...full });
    const got = (await call(`${rm.url}/_emulator/apps/${id}/submission`, 'GET')).json<SubmissionContext>();
    expect(got).toEqual(h.emu.rm.submissionOf(id));
    expect(got).toMatchObject({
      applicationId: id,
      applicationName: 'Full Context',
      queue: 'besteffort',
      priority: 10,
      unmanagedAM: false,
      maxAppAttempts: 3,
      resource: { memoryMB: 1536, vcores: 2 },
      applicationType: 'MAPREDUCE',
      keepContainersAcrossApplicationAttempts: true,
      applicationTags: ['Deadline:2026-11-24T19:48:22Z', 'Sidecar-Id:ABC', 'MixedCase', 'mixedcase'],
      appNodeLabelExpression: 'gpu',
      logAggregationContext: { 'log-include-pattern': 'file1', 'log-exclude-pattern': 'file2' },
      attemptFailuresValidityInterval: 3600000,
      cancelTokensWhenComplete: false,
      amContainerSpec: {
        command: 'sleep 300',
        localResources: {
          'app.jar': {
            resource: 'hdfs://nn:8020/user/alice/app.jar',
            type: 'FILE',
            visibility: 'APPLICATION',
            size: 43004,
            timestamp: 1405452071209,
          },
        },
        environment: { FOO: 'bar' },
        serviceData: { svc: 'c2VydmljZQ==' },
        credentials: { tokens: { t: 'dG9rZW4=' }, secrets: {} },
        applicationAcls: { VIEW_APP: 'alice admins' },
      },
    });
    expect((await call(`${rm.url}/_emulator/apps/application_1_1/submission`, 'GET')).status).toBe(404);
  });

  it('reads the same context from XML', async () => {
    const id = await rm.newId();
    const xml =
      `<application-submission-context><application-id>${id}</application-id>` +
      '<application-name>x</application-name><am-container-spec><environment><entry><key>A</key><value>1</value></entry>' +
      '<entry><key>B</key><value>2</value></entry></environment><commands><command>sleep 1</command></commands>' +
      '</am-container-spec><application-tags><tag>Zz</tag><tag>aA</tag></application-tags>' +
      '<max-app-attempts>1</max-app-attempts><unmanaged-AM>false</unmanaged-AM></application-submission-context>';
    const r = await call(`${rm.url}${C}/apps`, 'POST', {
      body: xml,
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    expect([r.status, r.headers.get('content-type')]).toEqual([202, XML_TYPE]);
    expect(h.emu.rm.submissionOf(id)!.amContainerSpec.environment).toEqual({ A: '1', B: '2' });
    expect((await rm.app(id)).applicationTags).toBe('aa,zz');
  });

  it('leaves out what the body leaves out: no name, no type, priority -1, default queue', async () => {
    const { id } = await rm.submit({ ...SLEEP });
    expect(await rm.app(id)).toMatchObject({
      name: '',
      applicationType: '',
      priority: -1,
      queue: 'root.default',
      applicationTags: '',
    });
  });

  it('ignores tags given as a JSON string, as Jersey does', async () => {
    const { id } = await rm.submit({ ...SLEEP, 'application-tags': 'One,Two' });
    expect((await rm.app(id)).applicationTags).toBe('');
  });

  it('keeps an unmanaged AM waiting in ACCEPTED, launchTime -1, no AM label, a LAUNCHED attempt', async () => {
    const { id } = await rm.submit({ 'unmanaged-AM': true, 'application-type': 'MAPREDUCE' });
    h.advance(60);
    const a = await rm.app(id);
    expect(a).toMatchObject({
      state: 'ACCEPTED',
      unmanagedApplication: true,
      launchTime: -1,
      trackingUI: 'UNASSIGNED',
    });
    expect(a.amNodeLabelExpression).toBeUndefined();
    expect(a.resourceRequests).toBeUndefined();
    const att = (await call(`${rm.url}${C}/apps/${id}/appattempts`, 'GET')).json<{
      appAttempts: { appAttempt: Array<Record<string, unknown>> };
    }>().appAttempts.appAttempt;
    expect(att).toEqual([
      {
        id: 1,
        startTime: a.startedTime,
        finishedTime: 0,
        containerId: '',
        nodeHttpAddress: '',
        nodeId: '',
        logsLink: '',
        blacklistedNodes: '',
        appAttemptId: `appattempt_${id.slice('application_'.length)}_000001`,
        exportPorts: '',
        appAttemptState: 'LAUNCHED',
      },
    ]);
  });

  it('accepts the same id twice, the second time changing nothing', async () => {
    const { id } = await rm.submit({ ...SLEEP, 'application-name': 'first' });
    const again = await rm.submit({ 'application-id': id, ...SLEEP, 'application-name': 'second' });
    expect(again.r.status).toBe(202);
    expect((await rm.app(id)).name).toBe('first');
  });

  it('accepts an id new-application did not hand out; refuses one that does not parse', async () => {
    const id = `application_${h.emu.rm.clusterTimestamp}_0999`;
    expect((await rm.submit({ 'application-id': id, ...SLEEP })).r.status).toBe(202);
    const none = await call(`${rm.url}${C}/apps`, 'POST', { body: { 'application-name': 'x' } });
    expect([none.status, none.json()]).toEqual([
      400,
      {
        RemoteException: {
          exception: 'BadRequestException',
          message: 'java.lang.Exception: Could not parse application id ',
          javaClassName: 'org.apache.hadoop.yarn.webapp.BadRequestException',
        },
      },
    ]);
  });

  it('writes resourceSecondsMap as the RM does: the entry member repeated in JSON', async () => {
    const { id } = await rm.submit({ ...SLEEP, 'application-tags': { tag: ['maps:2'] } });
    h.advance(3);
    const text = (await call(`${rm.url}${C}/apps/${id}`, 'GET')).text;
    expect(text).toMatch(
      /"resourceSecondsMap":\{"entry":\{"key":"memory-mb","value":"\d+"\},"entry":\{"key":"vcores","value":"\d+"\}\}/,
    );
    expect(text).toContain('"preemptedResourceSecondsMap":{}');
    const xml = (await call(`${rm.url}${C}/apps/${id}`, 'GET', { accept: 'application/xml' })).text;
    expect(xml).toMatch(
      /<resourceSecondsMap><entry><key>memory-mb<\/key><value>\d+<\/value><\/entry><entry><key>vcores<\/key><value>\d+<\/value><\/entry><\/resourceSecondsMap>/,
    );
    expect(xml).toContain('<preemptedResourceSecondsMap/>');
  });

  it('matches applicationTags= in any case, and queue= by leaf or full path, finished apps included', async () => {
    const { id } = await rm.submit({ ...SLEEP, queue: 'realtime', 'application-tags': { tag: ['B:Q'] } });
    const ids = async (q: string) =>
      ((await call(`${rm.url}${C}/apps?${q}`, 'GET')).json<{ apps: { app?: App[] } }>().apps.app ?? []).map(
        (a) => a.id,
      );
    expect(await ids('applicationTags=b:q')).toEqual([id]);
    expect(await ids('applicationTags=B:Q')).toEqual([id]);
    await rm.put(id, 'state', { state: 'KILLED' });
    h.advance(1);
    expect(await ids('queue=realtime')).toContain(id);
    expect(await ids('queue=root.realtime')).toContain(id);
  });

  it('refuses a state filter it does not know, naming it as given and the list', async () => {
    const r = await call(`${rm.url}${C}/apps?states=bogus`, 'GET');
    expect(r.json<{ RemoteException: { message: string } }>().RemoteException.message).toBe(
      'java.lang.Exception: Invalid application-state bogus specified. It should be one of [NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING, FINISHED, FAILED, KILLED]',
    );
  });
});

describe('the priority cap', () => {
  it('is 0 by default: a submission or a PUT of 10 reads 0; below is not bounded; absent is -1', async () => {
    const h = await harness();
    const rm = rmOf(h);
    try {
      const { id } = await rm.submit({ ...SLEEP, priority: 10 });
      expect((await rm.app(id)).priority).toBe(0);
      const put = await rm.put(id, 'priority', { priority: 10 });
      expect([put.status, put.headers.get('content-type'), put.json()]).toEqual([
        200,
        JSON_TYPE,
        { priority: 0 },
      ]);
      expect((await rm.put(id, 'priority', { priority: -3 })).json()).toEqual({ priority: -3 });
      expect((await rm.app(id)).priority).toBe(-3);
      // A body without a priority asks for 0 (AppPriority's int).
      expect((await rm.put(id, 'priority', {})).json()).toEqual({ priority: 0 });
      const xml = await call(`${rm.url}${C}/apps/${id}/priority`, 'PUT', {
        body: '<applicationpriority><priority>7</priority></applicationpriority>',
        contentType: 'application/xml',
        accept: 'application/xml',
      });
      expect(xml.headers.get('content-type')).toBe(XML_TYPE);
      expect(xml.text).toBe(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><applicationpriority><priority>0</priority></applicationpriority>',
      );
      const none = await rm.submit({ ...SLEEP });
      expect((await rm.app(none.id)).priority).toBe(-1);
      const conf = await call(`${rm.url}/conf?name=yarn.cluster.max-application-priority`, 'GET', {
        accept: 'application/json',
      });
      expect(conf.json()).toEqual({
        property: {
          key: 'yarn.cluster.max-application-priority',
          value: '0',
          isFinal: false,
          resource: 'yarn-default.xml',
        },
      });
    } finally {
      await h.emu.close();
    }
  });

  it('caps at the configured value, and a final app keeps its priority (200)', async () => {
    const h = await harness({ config: defaultEmulatorConfig({ maxApplicationPriority: 10 }) });
    const rm = rmOf(h);
    try {
      const { id } = await rm.submit({ ...SLEEP, priority: 50 });
      expect((await rm.app(id)).priority).toBe(10);
      expect((await rm.put(id, 'priority', { priority: 7 })).json()).toEqual({ priority: 7 });
      expect((await rm.put(id, 'priority', { priority: 50 })).json()).toEqual({ priority: 10 });
      expect(h.emu.rm.engine.snapshot().jobs.find((j) => j.id === id)!.priority).toBe(10);
      await rm.put(id, 'state', { state: 'KILLED' });
      h.advance(1);
      const p = await rm.put(id, 'priority', { priority: 3 });
      expect([p.status, p.json()]).toEqual([200, { priority: 10 }]);
      const conf = await call(`${rm.url}/conf?name=yarn.cluster.max-application-priority`, 'GET');
      expect(conf.headers.get('content-type')).toBe('text/xml;charset=utf-8');
      expect(conf.text).toBe(
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>\n' +
          '<property><name>yarn.cluster.max-application-priority</name><value>10</value><final>false</final><source>yarn-site.xml</source></property>\n' +
          '</configuration>',
      );
      expect(
        (await call(`${rm.url}/conf?name=no.such.key`, 'GET', { accept: 'application/json' })).status,
      ).toBe(404);
    } finally {
      await h.emu.close();
    }
  });
});

describe('an AM without a command', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  beforeAll(async () => {
    h = await harness({ speed: 1 });
    rm = rmOf(h);
  });
  afterAll(() => h.emu.close());

  const failedText = (id: string, n: number, limits = '') =>
    `Application ${id} failed ${n} times${limits} due to AM Container for appattempt_${id.slice(
      'application_'.length,
    )}_${String(n).padStart(6, '0')} exited with  exitCode: 0\nFailing this attempt.Diagnostics: For more detailed output, check the application tracking page: ${rm.url}/cluster/app/${id} Then click on links to logs of each attempt.\n. Failing the application.`;

  it.each([
    ['an empty command', { 'am-container-spec': { commands: { command: '' } } }],
    ['a blank command', { 'am-container-spec': { commands: { command: '   ' } } }],
    ['no commands', { 'am-container-spec': {} }],
    ['no launch context', {}],
  ])('%s: 2 attempts fail, then the app is FAILED with the RM’s diagnostics', async (_name, ctx) => {
    const { id, r } = await rm.submit({ ...ctx, queue: 'default', 'application-type': 'MAPREDUCE' });
    expect(r.status).toBe(202);
    const during = await rm.app(id);
    expect([during.state, during.finalStatus, during.trackingUI]).toEqual([
      'ACCEPTED',
      'UNDEFINED',
      'UNASSIGNED',
    ]);
    h.advance(AM_ATTEMPT_SECONDS * 2);
    const a = await rm.app(id);
    expect(a).toMatchObject({
      state: 'FAILED',
      finalStatus: 'FAILED',
      progress: 0,
      trackingUI: 'History',
      trackingUrl: `${rm.url}/cluster/app/${id}`,
      diagnostics: failedText(id, 2),
      allocatedMB: -1,
      allocatedVCores: -1,
      reservedMB: -1,
      reservedVCores: -1,
      runningContainers: -1,
      finishedTime: (a.startedTime as number) + 1000,
    });
    expect(a.amContainerLogs).toMatch(new RegExp(`/container_${id.slice(12)}_02_000001/dr\\.who$`));
    const attempts = (await call(`${rm.url}${C}/apps/${id}/appattempts`, 'GET')).json<{
      appAttempts: { appAttempt: Array<Record<string, unknown>> };
    }>().appAttempts.appAttempt;
    const start = a.startedTime as number;
    expect(
      attempts.map((x) => [x.id, x.appAttemptState, x.startTime, x.finishedTime, x.exportPorts]),
    ).toEqual([
      [1, 'FAILED', start, start + 500, 'null'],
      [2, 'FAILED', start + 500, start + 1000, 'null'],
    ]);
    expect(attempts[1]!.containerId).toBe(`container_${id.slice(12)}_02_000001`);
    // No job ran: the JobHistory server does not know it.
    expect(
      (await call(`${h.emu.jhsUrl}/ws/v1/history/mapreduce/jobs/job_${id.slice(12)}`, 'GET')).status,
    ).toBe(404);
  });

  it('stops at max-app-attempts when it is lower, and says both limits', async () => {
    const { id } = await rm.submit({ 'max-app-attempts': 1 });
    h.advance(AM_ATTEMPT_SECONDS);
    expect((await rm.app(id)).diagnostics).toBe(failedText(id, 1, ' (global limit =2; local limit is =1)'));
  });

  it('never goes past the RM’s limit (yarn.resourcemanager.am.max-attempts)', async () => {
    const { id } = await rm.submit({ 'max-app-attempts': 5 });
    h.advance(AM_ATTEMPT_SECONDS * 5);
    const a = await rm.app(id);
    expect([a.state, a.diagnostics]).toEqual(['FAILED', failedText(id, 2)]);
  });

  it('a non-empty command runs the job as before', async () => {
    const { id } = await rm.submit({ ...SLEEP, 'application-tags': { tag: ['maps:1', 'reduces:0'] } });
    h.advance(60);
    expect((await rm.app(id)).state).toBe('FINISHED');
  });
});

describe('refusals, as the RM answers them', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  let running: string;
  let finished: string;
  beforeAll(async () => {
    h = await harness();
    rm = rmOf(h);
    finished = (await rm.submit({ ...SLEEP, 'application-tags': { tag: ['maps:1', 'reduces:0'] } })).id;
    h.advance(60);
    running = (
      await rm.submit({ ...SLEEP, 'application-tags': { tag: ['maps:8', `input-bytes:${2 ** 36}`] } })
    ).id;
    h.advance(5);
    expect((await rm.app(finished)).state).toBe('FINISHED');
    expect((await rm.app(running)).state).toBe('RUNNING');
  });
  afterAll(() => h.emu.close());

  const undeclared = {
    RemoteException: {
      exception: 'UndeclaredThrowableException',
      javaClassName: 'java.lang.reflect.UndeclaredThrowableException',
    },
  };

  it('a move to a queue that does not exist (or to root): 503 UndeclaredThrowableException, no message', async () => {
    for (const queue of ['nosuch', 'root']) {
      const r = await rm.put(running, 'queue', { queue });
      expect([r.status, r.headers.get('content-type'), r.json()]).toEqual([503, JSON_TYPE, undeclared]);
    }
    const xml = await rm.put(running, 'queue', { queue: 'nosuch' }, 'application/xml');
    expect([xml.headers.get('content-type'), xml.text]).toEqual([
      XML_TYPE,
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><RemoteException><exception>UndeclaredThrowableException</exception><javaClassName>java.lang.reflect.UndeclaredThrowableException</javaClassName></RemoteException>',
    ]);
    // No queue in the body at all: a move to null, the same refusal.
    expect((await rm.put(running, 'queue', {})).status).toBe(503);
  });

  it('a move to the queue it is in: 200, by leaf or full path', async () => {
    expect((await rm.put(running, 'queue', { queue: 'default' })).json()).toEqual({ queue: 'root.default' });
    expect((await rm.put(running, 'queue', { queue: 'root.default' })).json()).toEqual({
      queue: 'root.default',
    });
  });

  it('a move of a final app: 400 text, with the Content-Type negotiated from Accept', async () => {
    const r = await rm.put(finished, 'queue', { queue: 'besteffort' });
    expect([r.status, r.headers.get('content-type'), r.text]).toEqual([
      400,
      JSON_TYPE,
      'App in FINISHED state cannot be moved.',
    ]);
    expect(
      (await rm.put(finished, 'queue', { queue: 'besteffort' }, 'application/xml')).headers.get(
        'content-type',
      ),
    ).toBe(XML_TYPE);
  });

  it('a kill of a final app: 200 and its state; of the state it is in: 200 too', async () => {
    const r = await rm.put(finished, 'state', { state: 'KILLED' });
    expect([r.status, r.json()]).toEqual([200, { state: 'FINISHED' }]);
    expect((await rm.put(running, 'state', { state: 'RUNNING' })).json()).toEqual({ state: 'RUNNING' });
    const none = await rm.put(running, 'state', {});
    expect([
      none.status,
      none.json<{ RemoteException: { exception: string } }>().RemoteException.exception,
    ]).toEqual([503, 'NullPointerException']);
  });

  it('a timeout: a final app answers its own (200); a past expiry 503; a bad one 503 DateTimeParseException', async () => {
    const fin = await rm.put(finished, 'timeout', { timeout: { type: 'LIFETIME', expiryTime: 'garbage' } });
    expect([fin.status, fin.json()]).toEqual([
      200,
      { timeout: { type: 'LIFETIME', expiryTime: 'UNLIMITED', remainingTimeInSeconds: -1 } },
    ]);
    const past = await rm.put(running, 'timeout', {
      timeout: { type: 'LIFETIME', expiryTime: '2020-01-01T00:00:00.000+0000' },
    });
    expect([past.status, past.json()]).toEqual([503, undeclared]);
    const missing = await rm.put(running, 'timeout', { timeout: { type: 'LIFETIME' } });
    expect([missing.status, missing.json()]).toEqual([
      503,
      {
        RemoteException: {
          exception: 'DateTimeParseException',
          message: "Text 'UNLIMITED' could not be parsed at index 0",
          javaClassName: 'java.time.format.DateTimeParseException',
        },
      },
    ]);
    const bogus = await rm.put(running, 'timeout', {
      timeout: { type: 'BOGUS', expiryTime: '2030-01-01T00:00:00.000+0000' },
    });
    expect([bogus.status, bogus.text]).toEqual([400, 'Timeout type or ExpiryTime is null.']);
  });

  it.each([
    ['state', { state: 'KILLED' }],
    ['queue', { queue: 'default' }],
    ['priority', { priority: 1 }],
    ['timeout', { timeout: { type: 'LIFETIME', expiryTime: '2030-01-01T00:00:00.000+0000' } }],
  ])('a %s write to an unknown app: 404 NotFoundException', async (what, body) => {
    const r = await rm.put('application_1_9999', what, body);
    expect([r.status, r.json()]).toEqual([
      404,
      {
        RemoteException: {
          exception: 'NotFoundException',
          message: 'java.lang.Exception: app with id: application_1_9999 not found',
          javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException',
        },
      },
    ]);
  });

  it('an app id that does not parse: 400 BadRequestException with ApplicationId’s message', async () => {
    const msg = async (id: string) =>
      (await call(`${rm.url}${C}/apps/${id}`, 'GET')).json<{ RemoteException: { message: string } }>()
        .RemoteException.message;
    expect(await msg('foo')).toBe(
      'java.lang.IllegalArgumentException: Invalid ApplicationId prefix: foo. The valid ApplicationId should start with prefix application',
    );
    expect(await msg('application_1_x')).toBe(
      'java.lang.IllegalArgumentException: Invalid ApplicationId: application_1_x',
    );
    expect((await rm.put('application_x', 'state', { state: 'KILLED' })).status).toBe(400);
  });

  it('a label the queue may not use: 400, the queue checked before the cluster’s labels', async () => {
    const q = await rm.submit({ ...SLEEP, queue: 'besteffort', 'app-node-label-expression': 'nosuch' });
    expect(q.r.status).toBe(400);
    expect(q.r.json<{ RemoteException: { message: string } }>().RemoteException.message).toBe(
      "java.lang.Exception: Invalid resource request, queue=besteffort doesn't have permission to access all labels in resource request. labelExpression of resource request=nosuch. Queue labels=gpu",
    );
    // Not created.
    expect((await call(`${rm.url}${C}/apps/${q.id}`, 'GET')).status).toBe(404);
  });

  it('a malformed body: 400 WebApplicationException; a body type it cannot read: 503, charset=null', async () => {
    const bad = await call(`${rm.url}${C}/apps/${running}/queue`, 'PUT', { body: '{"queue":' });
    expect([
      bad.status,
      bad.json<{ RemoteException: { exception: string; javaClassName: string } }>().RemoteException,
    ]).toEqual([
      400,
      expect.objectContaining({
        exception: 'WebApplicationException',
        javaClassName: 'javax.ws.rs.WebApplicationException',
      }),
    ]);
    const plain = await call(`${rm.url}${C}/apps/${running}/queue`, 'PUT', {
      body: 'x',
      contentType: 'text/plain',
      accept: 'application/json',
    });
    expect([plain.status, plain.headers.get('content-type'), plain.json()]).toEqual([
      503,
      'application/json;charset=null',
      {
        RemoteException: {
          exception: 'WebApplicationException',
          javaClassName: 'javax.ws.rs.WebApplicationException',
        },
      },
    ]);
    // Refused before any method ran, the answer is written by the first writer the Accept
    // allows: XML for a wildcard (measured on 3.4.3).
    const wild = await call(`${rm.url}${C}/apps/${running}/queue`, 'PUT', {
      body: 'x',
      contentType: 'text/plain',
      accept: '*/*',
    });
    expect([wild.status, wild.headers.get('content-type'), wild.text]).toEqual([
      503,
      'application/xml;charset=null',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><RemoteException><exception>WebApplicationException</exception><javaClassName>javax.ws.rs.WebApplicationException</javaClassName></RemoteException>',
    ]);
  });

  it('/isActive says it as the RM does', async () => {
    const r = await call(`${rm.url}/isActive`, 'GET');
    expect([r.status, r.headers.get('content-type'), r.text]).toEqual([
      200,
      'text/plain;charset=utf-8',
      'I am Active!',
    ]);
  });
});

describe('ACLs (yarn.acl.enable)', () => {
  let h: Harness;
  let rm: ReturnType<typeof rmOf>;
  let bobs: string;
  beforeAll(async () => {
    const queues = defaultEmulatorConfig().queues.map((q) =>
      q.name === 'realtime' ? { ...q, submitAcl: 'alice' } : q,
    );
    h = await harness({ config: defaultEmulatorConfig({ aclEnabled: true, adminAcl: 'admin', queues }) });
    rm = rmOf(h);
    bobs = (await rm.submit({ ...SLEEP }, '?user.name=bob')).id;
    h.advance(2);
  });
  afterAll(() => h.emu.close());

  const as = (user: string, id: string, what: string, body: unknown) =>
    call(`${rm.url}${C}/apps/${id}/${what}?user.name=${user}`, 'PUT', { body });

  it('a move to a queue the user may not submit to, or that does not exist: 403 text', async () => {
    for (const queue of ['realtime', 'nosuch']) {
      const r = await as('bob', bobs, 'queue', { queue });
      expect([r.status, r.headers.get('content-type'), r.text]).toEqual([
        403,
        JSON_TYPE,
        `Unauthorized attempt to move appid ${bobs} by remote user bob`,
      ]);
    }
    expect((await as('bob', bobs, 'queue', { queue: 'besteffort' })).json()).toEqual({
      queue: 'root.besteffort',
    });
  });

  it('writes by someone other than the owner or an admin: 403, each with its own words', async () => {
    expect((await as('carol', bobs, 'priority', { priority: 3 })).text).toBe(
      `Unauthorized attempt to change priority of appid ${bobs} by remote user carol`,
    );
    expect(
      (
        await as('carol', bobs, 'timeout', {
          timeout: { type: 'LIFETIME', expiryTime: '2030-01-01T00:00:00.000+0000' },
        })
      ).text,
    ).toBe(`Unauthorized attempt to change timeout of app ${bobs} by remote user carol`);
    expect((await as('carol', bobs, 'state', { state: 'KILLED' })).text).toBe(
      `Unauthorized attempt to kill appid ${bobs} by remote user carol`,
    );
    // Reading is not modifying; an admin may modify.
    expect((await call(`${rm.url}${C}/apps/${bobs}?user.name=carol`, 'GET')).status).toBe(200);
    expect((await as('admin', bobs, 'priority', { priority: 0 })).status).toBe(200);
  });

  it('a submission to a queue the user may not submit to: 400, the app not created', async () => {
    const { id, r } = await rm.submit({ ...SLEEP, queue: 'realtime' }, '?user.name=bob');
    expect([r.status, r.json<{ RemoteException: { message: string } }>().RemoteException.message]).toEqual([
      400,
      `java.lang.Exception: org.apache.hadoop.security.AccessControlException: User bob does not have permission to submit ${id} to queue realtime`,
    ]);
    expect((await call(`${rm.url}${C}/apps/${id}`, 'GET')).status).toBe(404);
    expect((await rm.submit({ ...SLEEP, queue: 'realtime' }, '?user.name=alice')).r.status).toBe(202);
  });
});
