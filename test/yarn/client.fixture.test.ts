/**
 * Every client endpoint over real HTTP against the fixture server, in JSON and in XML: the
 * values Hadoop's samples hold come back through the client, and the requests carry what the
 * RM expects (filters, wrapping, the expiry format, user.name, Accept).
 */
import { startFixtureServer, type FixtureServer } from '../fixture-server/server';
import { RmHttpError } from '../../src/errors/rm-http';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { WebHdfsClient } from '../../src/yarn/webhdfs';
import { HttpTransport } from '../../src/yarn/transport';
import { describeRmConformance } from './conformance';
import { amCommand } from '../../src/yarn/submission';

describeRmConformance('fixture server', () => startFixtureServer({ labelledNodes: true }));
describeRmConformance('fixture server, Hadoop nodes sample', () => startFixtureServer());

describe.each(['json', 'xml'] as const)('client against the fixture server (%s)', (format) => {
  let server: FixtureServer;
  let rm: HttpResourceManagerClient;
  const last = () => server.requests[server.requests.length - 1]!;

  beforeAll(async () => {
    server = await startFixtureServer();
    rm = new HttpResourceManagerClient({
      urls: [server.url],
      format,
      user: 'alice',
      maxAttempts: 1,
      timeoutMs: 5_000,
    });
  });
  afterAll(() => server.close());

  it('asks in its format and authenticates with user.name', async () => {
    await rm.clusterMetrics();
    expect(last().accept).toBe(format === 'xml' ? 'application/xml' : 'application/json');
    expect(last().query['user.name']).toBe('alice');
  });

  it('reads cluster info and metrics', async () => {
    expect((await rm.clusterInfo()).id).toBe(format === 'json' ? 1324053971963 : 1476912658570);
    expect((await rm.clusterMetrics()).totalMB).toBe(17408);
  });

  it('reads the capacity scheduler tree', async () => {
    const s = await rm.scheduler();
    expect(s.root.children.map((q) => [q.name, q.absoluteCapacity, q.accessibleNodeLabels])).toEqual([
      ['a', 12.5, ['*']],
      ['b', 50, ['*']],
      ['c', 37.5, ['*']],
    ]);
  });

  it('reads nodes with a states filter, and one node', async () => {
    const nodes = await rm.nodes(['RUNNING', 'UNHEALTHY']);
    expect(last().query.states).toBe('RUNNING,UNHEALTHY');
    expect(nodes).toHaveLength(2);
    expect(nodes.every((n) => n.total.memoryMB === 8192 && n.total.vcores === 8)).toBe(true);
    expect((await rm.node('h2:1235')).host).toBe('host.domain.com');
    expect(last().path).toBe('/ws/v1/cluster/nodes/h2:1235');
  });

  it('reads apps and sends every filter', async () => {
    const apps = await rm.apps({
      states: ['RUNNING', 'ACCEPTED'],
      queue: 'default',
      user: 'user2',
      applicationTags: ['deadline', 'hourly'],
      startedTimeBegin: 1476913457320,
      limit: 10,
      deSelects: ['resourceRequests'],
    });
    expect(last().query).toMatchObject({
      states: 'RUNNING,ACCEPTED',
      queue: 'default',
      user: 'user2',
      applicationTags: 'deadline,hourly',
      startedTimeBegin: '1476913457320',
      limit: '10',
      deSelects: 'resourceRequests',
    });
    // The doc's XML example writes -1 where its JSON example writes 0 for a finished app.
    const none = format === 'json' ? 0 : -1;
    expect(apps.map((a) => [a.id, a.state, a.allocatedMB, a.runningContainers])).toEqual([
      ['application_1476912658570_0002', 'FINISHED', none, none],
      ['application_1476912658570_0001', 'FINISHED', none, none],
    ]);
  });

  it('reads one app, its statistics, attempts, containers, state, queue, priority and timeouts', async () => {
    expect((await rm.app('application_1476912658570_0002')).elapsedTime).toBe(304578);
    expect((await rm.appStatistics(['accepted', 'running'], 'mapreduce')).map((s) => s.count)).toEqual([
      4, 1, 7,
    ]);
    expect(last().query).toMatchObject({ states: 'accepted,running', applicationTypes: 'mapreduce' });
    expect((await rm.appAttempts('application_1326821518301_0005'))[0]!.containerId).toBe(
      'container_1326821518301_0005_01_000001',
    );
    expect(
      (
        await rm.attemptContainers('application_1531404209605_0008', 'appattempt_1531404209605_0008_000001')
      )[0]!.allocatedMB,
    ).toBe(1536);
    expect(await rm.appState('application_1399397633663_0003')).toBe('ACCEPTED');
    expect(await rm.appQueue('application_1399397633663_0003')).toBe('default');
    expect(await rm.appPriority('application_1399397633663_0003')).toBe(0);
    expect((await rm.appTimeouts('application_1399397633663_0003'))[0]!.remainingTimeInSeconds).toBe(27);
    expect((await rm.appTimeout('application_1399397633663_0003')).expiryTime).toBe(
      Date.UTC(2016, 11, 5, 17, 21, 0, 104),
    );
    expect(last().path).toBe('/ws/v1/cluster/apps/application_1399397633663_0003/timeouts/LIFETIME');
  });

  it('turns the 404 RemoteException into a typed error with the RM message', async () => {
    const err = (await rm.app('application_1324057493980_9999').catch((e: unknown) => e)) as RmRemoteError;
    expect(err).toBeInstanceOf(RmRemoteError);
    expect(err.javaClassName).toBe('org.apache.hadoop.yarn.webapp.NotFoundException');
    expect(err.remoteMessage).toBe(
      'java.lang.Exception: app with id: application_1324057493980_9999 not found',
    );
  });

  it('reads node labels, node-to-labels and label mappings (our fixtures)', async () => {
    const labels = await rm.nodeLabels();
    expect(labels.map((l) => [l.name, l.exclusive])).toEqual([
      ['gpu', true],
      ['ssd', false],
    ]);
    expect(labels[0]!.resourceAvailable).toEqual({
      memoryMB: 122880,
      vcores: 60,
      extra: { 'yarn.io/gpu': 6 },
    });
    expect([...(await rm.nodeToLabels()).entries()]).toEqual([
      ['gpu1.example.com:45454', ['gpu']],
      ['gpu2.example.com:45454', ['gpu']],
    ]);
    const mappings = await rm.labelMappings(['gpu', 'ssd']);
    expect(server.requests[server.requests.length - 1]!.query.labels).toEqual(['gpu', 'ssd']);
    expect(mappings[0]!.nodes).toEqual(['gpu1.example.com:45454', 'gpu2.example.com:45454']);
    expect(mappings[0]!.label.resourceAvailable?.extra['yarn.io/gpu']).toBe(6);
  });

  it('reads the reservation list (string numbers, one-element lists) and sends its filters', async () => {
    const [r] = await rm.reservations({
      queue: 'dedicated',
      reservationId: 'reservation_1458852875788_0002',
      includeResourceAllocations: true,
    });
    expect(last().query).toMatchObject({
      queue: 'dedicated',
      'reservation-id': 'reservation_1458852875788_0002',
      'include-resource-allocations': 'true',
    });
    expect(r!.definition.deadline).toBe(1465542252000);
  });

  it('moves an app with an unwrapped body and compares by leaf name', async () => {
    expect(await rm.moveApp('application_1399397633663_0003', 'root.test')).toEqual({
      queue: 'test',
      moved: true,
    });
    const body = last().body;
    if (format === 'json') expect(JSON.parse(body)).toEqual({ queue: 'root.test' });
    else expect(body).toMatch(/<appqueue><queue>root\.test<\/queue><\/appqueue>/);
    expect(last().contentType).toBe(format === 'json' ? 'application/json' : 'application/xml');
  });

  it('sets priority and reads back what the RM set', async () => {
    expect(await rm.setAppPriority('application_1399397633663_0003', 8)).toBe(8);
    if (format === 'json') expect(JSON.parse(last().body)).toEqual({ priority: 8 });
    else expect(last().body).toContain('<applicationpriority><priority>8</priority></applicationpriority>');
  });

  it('kills: 202 while the kill runs, 200 KILLED on the repeat', async () => {
    expect(await rm.killApp('application_1399397633663_0003')).toEqual({ status: 202, state: 'ACCEPTED' });
    expect(await rm.killApp('application_1399397633663_0003')).toEqual({ status: 200, state: 'KILLED' });
  });

  it('sets the lifetime with a wrapped body and the ±HHMM format the RM parses', async () => {
    const expiry = Date.UTC(2016, 10, 27, 4, 6, 16, 678);
    const t = await rm.setAppLifetime('application_1399397633663_0003', expiry);
    expect(t.expiryTime).toBe(expiry);
    if (format === 'json') {
      expect(JSON.parse(last().body)).toEqual({
        timeout: { type: 'LIFETIME', expiryTime: '2016-11-27T04:06:16.678+0000' },
      });
    } else
      expect(last().body).toContain(
        '<timeout><type>LIFETIME</type><expiryTime>2016-11-27T04:06:16.678+0000</expiryTime></timeout>',
      );
  });

  it('writes the expiry in the configured zone, as the RM itself prints it', async () => {
    const ist = new HttpResourceManagerClient({
      urls: [server.url],
      format,
      expiryOffsetMinutes: 330,
      maxAttempts: 1,
    });
    await ist.setAppLifetime('application_1399397633663_0003', Date.UTC(2016, 10, 27, 4, 6, 16, 678));
    expect(last().body).toContain('2016-11-27T09:36:16.678+0530');
  });

  it('submits with queue, priority, tags and both label expressions, unwrapped', async () => {
    const { applicationId } = await rm.newApplication();
    expect(applicationId).toBe('application_1404198295326_0003');
    const res = await rm.submitApp({
      applicationId,
      name: 'hourly-report',
      queue: 'a',
      priority: 3,
      tags: ['deadline=1700000000000', 'sidecar'],
      appNodeLabelExpression: 'gpu',
      amNodeLabelExpression: '',
      amResource: { memoryMB: 2048, vcores: 1 },
      am: { ...amCommand('run.sh'), environment: { A: '1' } },
    });
    expect(res).toEqual({ status: 202, location: `/ws/v1/cluster/apps/${applicationId}` });
    if (format === 'json') {
      const body = JSON.parse(last().body) as Record<string, unknown>;
      expect(body).toMatchObject({
        'application-id': applicationId,
        queue: 'a',
        priority: 3,
        'application-tags': { tag: ['deadline=1700000000000', 'sidecar'] },
        'app-node-label-expression': 'gpu',
        'am-container-node-label-expression': '',
        resource: { memory: 2048, vCores: 1 },
        'am-container-spec': {
          commands: { command: 'run.sh' },
          environment: { entry: [{ key: 'A', value: '1' }] },
        },
      });
    } else {
      expect(last().body).toMatch(/^<\?xml[^>]*\?><application-submission-context>/);
      expect(last().body).toContain(
        '<application-tags><tag>deadline=1700000000000</tag><tag>sidecar</tag></application-tags>',
      );
      expect(last().body).toContain('<app-node-label-expression>gpu</app-node-label-expression>');
    }
  });

  it('runs the reservation writes with their bodies', async () => {
    const id = await rm.newReservation();
    expect(id).toBe('reservation_1404198295326_0003');
    const def = {
      arrival: 1765541532000,
      deadline: 1765542252000,
      name: 'res_1',
      interpreter: 0,
      requests: [
        {
          capability: { memoryMB: 1024, vcores: 1, extra: {} },
          numContainers: 220,
          minConcurrency: 220,
          durationMs: 60000,
        },
      ],
    };
    await rm.submitReservation(id, 'dedicated', def);
    if (format === 'json') {
      expect(JSON.parse(last().body)).toMatchObject({
        queue: 'dedicated',
        'reservation-id': id,
        'reservation-definition': {
          arrival: 1765541532000,
          deadline: 1765542252000,
          'reservation-requests': { 'reservation-request': [{ 'num-containers': 220 }] },
        },
      });
    } else expect(last().body).toContain('<reservation-submission-context><queue>dedicated</queue>');
    await rm.updateReservation(id, def);
    expect(last().path).toBe('/ws/v1/cluster/reservation/update');
    await rm.deleteReservation(id);
    if (format === 'json') expect(JSON.parse(last().body)).toEqual({ 'reservation-id': id });
  });

  it('reads JobHistory tasks, typed by m/r, and maps an app id to its job id', async () => {
    const jhs = JobHistoryClient.forHistoryServer({ urls: [server.url], format, maxAttempts: 1 });
    expect((await jhs.jobs({ user: 'user1', limit: 5 })).length).toBe(2);
    expect(last().query).toMatchObject({ user: 'user1', limit: '5' });
    expect((await jhs.job('job_1326381300833_2_2')).name).toBe('Sleep job');
    const reduces = await jhs.tasksOfApp('application_1326381300833_0002', 'REDUCE');
    expect(last().path).toBe('/ws/v1/history/mapreduce/jobs/job_1326381300833_0002/tasks');
    expect(last().query.type).toBe('r');
    expect(reduces.map((t) => [t.type, t.elapsedTime])).toEqual([['REDUCE', 135559]]);
    expect((await jhs.tasks('job_1326381300833_2_2', 'MAP')).map((t) => t.id)).toEqual([
      'task_1326381300833_2_2_m_0',
    ]);
    expect((await jhs.task('job_1326381300833_2_2', 'task_1326381300833_2_2_m_0')).finishTime).toBe(
      1326381453318,
    );
    expect(
      (await jhs.taskAttempts('job_1326381300833_2_2', 'task_1326381300833_2_2_m_0'))[0]!.assignedContainerId,
    ).toBe('container_1326381300833_0002_01_000002');
    expect(
      (
        await jhs.taskAttempt(
          'job_1326381300833_2_2',
          'task_1326381300833_2_2_m_0',
          'attempt_1326381300833_2_2_m_0_0',
        )
      ).elapsedTime,
    ).toBe(2638);
  });

  it('reads a running job through the RM proxy', async () => {
    const am = JobHistoryClient.forRunningApp(rm.transport, 'application_1326232085508_0004');
    const tasks = await am.tasks('job_1326232085508_4_4');
    expect(last().path).toBe(
      '/proxy/application_1326232085508_0004/ws/v1/mapreduce/jobs/job_1326232085508_4_4/tasks',
    );
    expect(tasks.map((t) => t.state)).toEqual(['SUCCEEDED', 'RUNNING']);
  });

  it('gets a refusal from a server that rejects a wrongly wrapped body', async () => {
    const t = new HttpTransport({ urls: [server.url], format, maxAttempts: 1 });
    const err = await t
      .send({
        method: 'PUT',
        path: '/ws/v1/cluster/apps/application_1_0001/timeout',
        body: {
          contentType: 'application/json',
          data: '{"type":"LIFETIME","expiryTime":"2016-11-27T09:36:16.678+0530"}',
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmHttpError);
    expect(err).toMatchObject({ status: 400, text: 'Timeout type or ExpiryTime is null.' });
  });
});

describe('WebHDFS block locations against the fixture server', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server.close());

  it('reads offset, length and hosts of each block, sending the range', async () => {
    const hdfs = new WebHdfsClient({ urls: [server.url], user: 'hdfs', maxAttempts: 1 });
    const blocks = await hdfs.blockLocations('/user/alice/input part-0', { offset: 0, length: 196817092 });
    const req = server.requests[server.requests.length - 1]!;
    expect(req.path).toBe('/webhdfs/v1/user/alice/input%20part-0');
    expect(req.query).toMatchObject({
      op: 'GETFILEBLOCKLOCATIONS',
      offset: '0',
      length: '196817092',
      'user.name': 'hdfs',
    });
    expect(blocks.map((b) => [b.offset, b.length, b.hosts])).toEqual([
      [0, 134217728, ['host']],
      [134217728, 62599364, ['host']],
    ]);
    expect(blocks[1]!.offset).toBe(blocks[0]!.offset + blocks[0]!.length);
  });

  it('turns the WebHDFS FileNotFoundException into a typed error', async () => {
    const hdfs = new WebHdfsClient({ urls: [server.url], maxAttempts: 1 });
    const err = await hdfs.blockLocations('/missing/file').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRemoteError);
    expect(err).toMatchObject({ status: 404, exception: 'FileNotFoundException' });
  });
});

describe('fixture server variants', () => {
  it.each(['fair', 'fifo', 'node-labels'] as const)(
    'serves the %s scheduler sample in both formats',
    async (scheduler) => {
      const server = await startFixtureServer({ scheduler });
      try {
        for (const format of ['json', 'xml'] as const) {
          const s = await new HttpResourceManagerClient({
            urls: [server.url],
            format,
            maxAttempts: 1,
          }).scheduler();
          expect(s.type).toBe(scheduler === 'node-labels' ? 'capacity' : scheduler);
          if (scheduler === 'node-labels') {
            expect(s.root.children.find((q) => q.name === 'a')!.defaultNodeLabelExpression).toBe(
              'root-a-default-label',
            );
          }
        }
      } finally {
        await server.close();
      }
    },
  );
});
