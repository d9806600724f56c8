/**
 * The sidecar against the real ResourceManager of the shared cluster (stock configuration:
 * anonymous calls accepted, yarn.cluster.max-application-priority 0). Every assertion reads what
 * the RM itself reports, through its REST API or its audit log, not what the sidecar believes.
 */
import { request } from 'node:http';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { Enforcer } from '../../src/enforce/enforcer';
import { SqliteLedger } from '../../src/store/ledger';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { at, http, list, read, runHadoopClient, sharedCluster, submitSleeper, waitFor } from './cluster';
import { auditOf, killLive, sidecarConfig, TOKEN } from './sidecar-support';

const info = sharedCluster();
const MB = 1024 * 1024;

/** PUT a body with node:http (the DataNode answers 100 Continue first); resolves with the status. */
function putBytes(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let running: RunningSidecar;

async function cycle(): Promise<void> {
  await running.sidecar.runOnce();
  await running.sidecar.runOnceSettled();
}

async function post(
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${running.url}/api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The RM's own report of an app, raw (JSON), so no mapping of ours stands between. */
async function rmApp(id: string): Promise<Record<string, unknown>> {
  return at(await read(`${info.rm}/ws/v1/cluster/apps/${id}`), 'app') as Record<string, unknown>;
}

async function appOfJob(jobId: string): Promise<string> {
  return waitFor(`an app for ${jobId}`, async () => {
    await cycle();
    return running.ledger.getJob(jobId)?.appId ?? undefined;
  });
}

beforeAll(async () => {
  running = await startSidecar(buildConfig(sidecarConfig(info, { user: 'alice' })), {
    logger: silentLogger(),
    manualPolling: true,
  });
  await cycle();
}, 60_000);

afterAll(async () => {
  await running?.close();
  // The shared cluster's queues are small: leave no app of these tests holding a container.
  await killLive(info.rm);
});

describe('the RM client reads every endpoint the sidecar uses, in JSON and in XML', () => {
  it.each(['json', 'xml'] as const)('%s', async (format) => {
    const rm = new HttpResourceManagerClient({ urls: [info.rm], format, user: 'alice', maxAttempts: 1 });
    const cluster = await rm.clusterInfo();
    expect(cluster.haState).toBe('ACTIVE');
    expect(cluster.resourceManagerVersion.startsWith(info.version)).toBe(true);
    const metrics = await rm.clusterMetrics();
    expect(metrics.activeNodes).toBe(2);
    expect(metrics.decommissioningNodes).toBe(0);
    const nodes = await rm.nodes();
    expect(nodes.map((n) => n.nodeLabels).sort()).toEqual([[], ['gpu']]);
    expect(nodes.every((n) => n.total.memoryMB === 16384 && n.total.vcores === 16)).toBe(true);
    const scheduler = await rm.scheduler();
    expect(scheduler.type).toBe('capacity');
    expect(scheduler.root.children.map((q) => q.name)).toEqual([
      'realtime',
      'besteffort',
      'default',
      'reserved',
    ]);
    expect(scheduler.root.children[0]!.partitions.map((p) => [p.partition, p.capacity])).toEqual([
      ['', 50],
      ['gpu', 70],
    ]);
    const labels = await rm.nodeLabels();
    expect(labels.map((l) => [l.name, l.exclusive])).toEqual([['gpu', true]]);
    const byNode = await rm.nodeToLabels();
    expect([...byNode.values()]).toEqual([['gpu']]);
    const mappings = await rm.labelMappings();
    expect(mappings.map((m) => [m.label.name, m.nodes])).toEqual([['gpu', [...byNode.keys()]]]);
    expect(await rm.maxApplicationPriority()).toBe(0);
    const id = await submitSleeper(info.rm, { user: 'alice', queue: 'besteffort', name: `read-${format}` });
    const app = await waitFor('the AM attempt', async () => {
      const a = await rm.app(id);
      return (await rm.appAttempts(id)).length > 0 ? a : undefined;
    });
    expect(app).toMatchObject({
      id,
      name: `read-${format}`,
      queue: 'root.besteffort',
      user: 'alice',
      priority: 0,
    });
    expect((await rm.apps({ states: ['ACCEPTED', 'RUNNING'] })).map((a) => a.id)).toContain(id);
    expect((await rm.appTimeout(id)).type).toBe('LIFETIME');
    expect((await rm.killApp(id)).status).toBe(202);
  });
});

describe('a deadline submission with a full yarnSubmission', () => {
  const yarnSubmission = {
    'am-container-spec': {
      commands: { command: 'sleep 300' },
      environment: { entry: [{ key: 'REPORT_DAY', value: '2026-11-25' }] },
    },
    resource: { memory: 512, vCores: 1 },
    'max-app-attempts': 1,
    'attempt-failures-validity-interval': 60000,
    'keep-containers-across-application-attempts': true,
    'log-aggregation-context': { 'log-include-pattern': 'stdout' },
  };

  it.each([
    ['cpu', undefined],
    ['gpu', 'gpu'],
  ] as const)('a %s job becomes a real app in the realtime queue, as sent', async (jobType, label) => {
    const answer = await post({
      name: `report-${jobType}`,
      user: 'alice',
      deadline: 3600,
      maps: 4,
      reduces: 1,
      inputBytes: 64 * MB,
      jobType,
      tags: ['team:Finance'],
      yarnSubmission,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      decision: 'admitted',
      queue: 'realtime',
      label: label ?? null,
      priority: 0,
    });
    const jobId = answer.body.id as string;
    const appId = await appOfJob(jobId);
    const app = await waitFor('the AM container', async () => {
      const a = await rmApp(appId);
      return Number(a.allocatedMB) > 0 ? a : undefined;
    });
    expect(app).toMatchObject({
      name: `report-${jobType}`,
      user: 'alice',
      queue: 'root.realtime',
      applicationType: 'MAPREDUCE',
      // The RM caps every priority at 0 on a stock cluster; the sidecar knows and sends 0.
      priority: 0,
      unmanagedApplication: false,
      // The AM container's 512 MB, as the submission's resource says.
      allocatedMB: 512,
    });
    const tags = String(app.applicationTags).split(',');
    // The RM lowercases tags.
    expect(tags).toEqual(
      expect.arrayContaining([
        `sidecar-id:${jobId}`,
        'maps:4',
        'reduces:1',
        `type:${jobType}`,
        'team:finance',
      ]),
    );
    expect(tags.find((t) => t.startsWith('deadline:'))).toMatch(/^deadline:\d{4}-\d\d-\d\dt[\d:.]+z$/);
    if (label) {
      expect(app).toMatchObject({ appNodeLabelExpression: 'gpu', amNodeLabelExpression: 'gpu' });
    } else {
      expect(app.appNodeLabelExpression ?? '').toBe('');
    }
    // The RM's audit log: one submission of this app by alice to realtime, nothing else written.
    const audit = auditOf(info, { app: appId });
    const ops = audit.map((a) => [a.operation, a.result, a.user]);
    expect(ops[0]).toEqual(['Submit Application Request', 'SUCCESS', 'alice']);
    // enforcement.lifetimeTimeouts: once a cycle has seen the app accepted, its deadline is set
    // as its lifetime, once. Whether that cycle came before the AM's container, after it, or not
    // yet depends on how fast the RM was; the sidecar reads new apps at once.
    const isLifetime = (o: unknown[]) => o[0] === 'Update Application Timeouts';
    expect(ops.slice(1).filter((o) => !isLifetime(o))).toEqual([
      ['AM Allocated Container', 'SUCCESS', 'alice'],
    ]);
    const lifetime = ops.filter(isLifetime);
    expect(lifetime).toEqual(
      lifetime.length > 0 ? [['Update Application Timeouts', 'SUCCESS', 'alice']] : [],
    );
    expect(audit[0]!.fields.QUEUENAME).toBe('realtime');
    expect(audit[0]!.fields.NODELABEL ?? '').toBe(label ?? '');
    // The whole context reached the AM: its environment holds what was sent.
    const actions = running.ledger.actionsOf(jobId).map((a) => [a.kind, a.status]);
    expect(actions[0]).toEqual(['submit', 'done']);
    // The lifetime write the audit may show, recorded before it was sent: at most that one more.
    const more = actions.slice(1);
    expect(more.length).toBeLessThanOrEqual(1);
    // (Its confirmation may still be on its way when the RM's audit already shows the write.)
    expect(more.map((a) => a[0])).toEqual(more.length > 0 || lifetime.length > 0 ? ['set-lifetime'] : []);
  });

  it('answers a submission without a launch context with a ticket, and submits nothing to the RM', async () => {
    const before = auditOf(info, { operation: 'Submit Application Request' }).length;
    const answer = await post({
      name: 'no-am',
      user: 'alice',
      deadline: 3600,
      maps: 1,
      reduces: 1,
      inputBytes: MB,
    });
    expect(answer.status).toBe(201);
    const body = answer.body as { decision: string; ticket?: { id: string; tags: string[] } };
    expect(body.decision).toBe('admitted');
    expect(body.ticket?.tags).toContain(`sidecar-id:${body.ticket!.id}`);
    // The client submits the app itself with the ticket's tags; the sidecar writes nothing.
    await running.sidecar.enforcer.drain();
    expect(auditOf(info, { operation: 'Submit Application Request' })).toHaveLength(before);
  });
});

describe('an app submitted straight to the RM with deadline tags', () => {
  it('is discovered, admitted, moved to realtime and given a lifetime timeout at its deadline', async () => {
    const deadline = new Date(Date.now() + 3600_000);
    const created = await http(`${info.rm}/ws/v1/cluster/apps/new-application`, {
      method: 'POST',
      user: 'bob',
    });
    const id = (JSON.parse(created.text) as { 'application-id': string })['application-id'];
    const submitted = await http(`${info.rm}/ws/v1/cluster/apps`, {
      method: 'POST',
      user: 'bob',
      body: {
        'application-id': id,
        'application-name': 'tagged',
        queue: 'default',
        'application-type': 'YARN',
        'application-tags': {
          tag: [`deadline:${deadline.toISOString()}`, 'maps:2', 'reduces:1', 'input-bytes:1048576'],
        },
        'am-container-spec': { commands: { command: 'sleep 300' } },
        resource: { memory: 512, vCores: 1 },
      },
    });
    expect(submitted.status).toBe(202);
    await waitFor('the move to realtime', async () => {
      await cycle();
      return (await rmApp(id)).queue === 'root.realtime' ? true : undefined;
    });
    await cycle();
    const job = running.ledger.getJobByAppId(id)!;
    expect(job).toMatchObject({ decision: 'admitted', source: 'discovered', queue: 'realtime' });
    const timeout = await waitFor('the lifetime timeout', async () => {
      await cycle();
      const t = at(await read(`${info.rm}/ws/v1/cluster/apps/${id}/timeouts/LIFETIME`), 'timeout') as {
        expiryTime: string;
      };
      return t.expiryTime === 'UNLIMITED' ? undefined : t;
    });
    expect(Math.abs(Date.parse(timeout.expiryTime) - deadline.getTime())).toBeLessThan(1000);
    expect(running.ledger.actionsOf(job.id).map((a) => [a.kind, a.status])).toEqual([
      ['move-queue', 'done'],
      ['set-lifetime', 'done'],
    ]);
    const writes = auditOf(info, { app: id }).filter((a) => a.user === 'alice');
    expect(writes.map((a) => [a.operation, a.result])).toEqual([
      ['Move Application Request', 'SUCCESS'],
      ['Update Application Timeouts', 'SUCCESS'],
    ]);
  });
});

describe('the stock priority cap of 0', () => {
  it('is read from the RM, and no priority is written over 6 cycles for 3 apps in EDF order', async () => {
    const cluster = (await (await fetch(`${running.url}/api/v1/cluster`)).json()) as {
      rm: { priorityCap: { value: number; source: string } };
    };
    expect(cluster.rm.priorityCap).toEqual({ value: 0, source: 'rm' });
    const ids: string[] = [];
    for (const deadline of [3000, 2000, 2500]) {
      const a = await post({
        name: `edf-${deadline}`,
        user: 'alice',
        deadline,
        maps: 1,
        reduces: 1,
        inputBytes: MB,
        yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
      });
      ids.push(a.body.id as string);
    }
    const apps = await Promise.all(ids.map(appOfJob));
    for (let i = 0; i < 6; i++) await cycle();
    for (const app of apps) {
      expect((await rmApp(app)).priority).toBe(0);
      expect(auditOf(info, { app, operation: 'Update Application Priority' })).toEqual([]);
    }
  });
});

describe('writes the RM refuses', () => {
  it('each ends as a typed failure in the ledger after one request, and is not sent again', async () => {
    const ledger = SqliteLedger.open(':memory:');
    const rm = new HttpResourceManagerClient({ urls: [info.rm], user: 'alice', maxAttempts: 1 });
    const enforcer = new Enforcer({
      rm,
      ledger,
      logger: silentLogger(),
      shadow: false,
      maxWritesPerCycle: 10,
    });
    const live = await submitSleeper(info.rm, { user: 'alice', queue: 'besteffort', name: 'refusals' });
    const gone = live.replace(/_\d+$/, '_9999');
    const job = (id: string) => ({
      id,
      name: id,
      user: 'alice',
      submitter: 'ci',
      source: 'api' as const,
      jobType: 'cpu',
      maps: 1,
      reduces: 1,
      inputBytes: 1,
      arrivalMs: 0,
      deadlineMs: 1,
      decision: 'admitted' as const,
      reason: null,
      estimatedFinishMs: null,
      earliestDeadlineMs: null,
      queue: 'realtime',
      label: null,
      priority: 0,
      appId: null,
      state: 'accepted' as const,
      outcome: null,
      finishedMs: null,
      energyJoules: null,
      spec: {},
    });
    ledger.transaction(() => {
      for (const id of ['move', 'prio', 'label']) ledger.insertJob(job(id));
      Enforcer.enqueue(ledger, 'move', { kind: 'move-queue', payload: { appId: live, queue: 'reserved' } });
      Enforcer.enqueue(ledger, 'prio', { kind: 'set-priority', payload: { appId: gone, priority: 3 } });
      Enforcer.enqueue(ledger, 'label', {
        kind: 'submit',
        payload: {
          sidecarId: 'label',
          name: 'unknown-label',
          user: 'alice',
          queue: 'realtime',
          priority: 0,
          labelExpression: 'nolabel',
          tags: ['sidecar-id:label'],
          applicationType: 'YARN',
          request: {
            am: {
              command: 'sleep 300',
              localResources: {},
              environment: {},
              serviceData: {},
              applicationAcls: {},
            },
          },
        },
      });
    });
    const movesBefore = auditOf(info, { operation: 'Move Application Request' }).filter(
      (a) => a.result === 'FAILURE' && a.line.includes('reserved-default'),
    ).length;
    const priorityRefusals = () =>
      auditOf(info, { operation: 'Update Application Priority' }).filter((a) => a.line.includes(gone)).length;
    const priorityBefore = priorityRefusals();
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 3, skipped: 0, deferred: 0 });
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 0, skipped: 0, deferred: 0 });
    const refusal = (id: string) => ledger.actionsOf(id)[0]!;
    // A move the scheduler refuses: 503 with a bare UndeclaredThrowableException (no message).
    expect(refusal('move')).toMatchObject({
      status: 'failed',
      result: {
        refusal: { code: 'RM_REMOTE_EXCEPTION', status: 503, exception: 'UndeclaredThrowableException' },
      },
    });
    expect(refusal('prio')).toMatchObject({
      status: 'failed',
      result: { refusal: { code: 'RM_REMOTE_EXCEPTION', status: 404, exception: 'NotFoundException' } },
    });
    expect(refusal('label')).toMatchObject({
      status: 'failed',
      result: { refusal: { code: 'RM_REMOTE_EXCEPTION', status: 400, exception: 'BadRequestException' } },
    });
    expect(refusal('label').error).toContain("queue=realtime doesn't have permission to access all labels");
    // The RM saw each write once.
    // A refused move is audited without its app id; its description names the queue.
    const refusedMoves = () =>
      auditOf(info, { operation: 'Move Application Request' }).filter(
        (a) => a.result === 'FAILURE' && a.line.includes('reserved-default'),
      ).length;
    expect(refusedMoves()).toBe(movesBefore + 1);
    expect(priorityRefusals()).toBe(priorityBefore + 1);
    ledger.close();
  });
});

describe('a real MapReduce job with a deadline', () => {
  it('runs, its tasks are read from the AM and the JobHistory server, and its outcome comes from the RM', async () => {
    const deadline = new Date(Date.now() + 20 * 60_000).toISOString();
    const learnedBefore = running.sidecar.taskCosts();
    const job = runHadoopClient(
      info,
      [
        'org.apache.hadoop.mapreduce.SleepJob',
        `-Dmapreduce.job.tags=deadline:${deadline},maps:2,reduces:1,input-bytes:${64 * MB}`,
        '-Dmapreduce.job.queuename=default',
        '-m',
        '2',
        '-r',
        '1',
        '-mt',
        '4000',
        '-rt',
        '2000',
      ],
      240_000,
    );
    // Discovered while it runs, and moved into realtime.
    const appId = await waitFor(
      'the SleepJob on the RM',
      async () => {
        await cycle();
        const apps = list(
          at(
            await read(`${info.rm}/ws/v1/cluster/apps?applicationTypes=MAPREDUCE&states=RUNNING`),
            'apps.app',
          ),
        );
        const mine = apps.find((a) =>
          String(at(a, 'applicationTags')).includes(deadline.toLowerCase().slice(0, 16)),
        );
        return mine === undefined ? undefined : String(at(mine, 'id'));
      },
      120_000,
    );
    // The running job's tasks from its AM, through the RM's proxy, in JSON and in XML.
    const amTasks = async (format: 'json' | 'xml') =>
      JobHistoryClient.forRunningApp(
        new HttpResourceManagerClient({ urls: [info.rm], user: 'alice', format }).transport,
        appId,
      ).tasksOfApp(appId);
    const tasks = await waitFor(
      'the AM task list',
      async () => {
        const [json, xml] = await Promise.all([amTasks('json'), amTasks('xml')]);
        return json.length > 0 && xml.length > 0 ? { json, xml } : undefined;
      },
      120_000,
    );
    expect(tasks.xml.map((t) => [t.id, t.type])).toEqual(tasks.json.map((t) => [t.id, t.type]));
    const run = await job;
    expect(run.code).toBe(0);
    await waitFor(
      'the job to end in the ledger',
      async () => {
        await cycle();
        const j = running.ledger.getJobByAppId(appId);
        return j && j.state !== 'submitted' && j.state !== 'running' ? j : undefined;
      },
      120_000,
    );
    const rmReport = await rmApp(appId);
    const recorded = running.ledger.getJobByAppId(appId)!;
    expect(rmReport.finalStatus).toBe('SUCCEEDED');
    expect(recorded).toMatchObject({
      state: 'finished',
      outcome: 'met',
      finishedMs: Number(rmReport.finishedTime),
    });
    expect(rmReport.queue).toBe('root.realtime');
    for (const t of tasks.json) expect(['MAP', 'REDUCE']).toContain(t.type);
    // Then from the JobHistory server, in JSON and in XML alike: 2 maps of about 4 s, 1 reduce.
    for (const format of ['json', 'xml'] as const) {
      const jhs = JobHistoryClient.forHistoryServer({ urls: [info.jhs], user: 'alice', format });
      const history = await jhs.tasksOfApp(appId);
      expect(history.map((t) => [t.type, t.state]).sort()).toEqual([
        ['MAP', 'SUCCEEDED'],
        ['MAP', 'SUCCEEDED'],
        ['REDUCE', 'SUCCEEDED'],
      ]);
      for (const t of history.filter((x) => x.type === 'MAP'))
        expect(t.finishTime - t.startTime).toBeGreaterThanOrEqual(4000);
      const jobs = await jhs.jobs();
      expect(jobs.find((x) => x.id === appId.replace('application_', 'job_'))).toMatchObject({
        state: 'SUCCEEDED',
        mapsTotal: 2,
        reducesTotal: 1,
      });
    }
    // Learning used those real task times: the cpu class (a discovered job without a type: tag)
    // observed one more job, with its 2 maps and 1 reduce, each map at least its 4 s sleep over
    // the 32 MB split its tags give it.
    const cpu = (v: typeof learnedBefore) => v.classes.find((c) => c.workloadClass === 'cpu');
    const before = cpu(learnedBefore);
    const after = cpu(running.sidecar.taskCosts())!;
    expect(after.jobs).toBe((before?.jobs ?? 0) + 1);
    expect(after.map.observed.count).toBe((before?.map.observed.count ?? 0) + 2);
    expect(after.reduce.observed.count).toBe((before?.reduce.observed.count ?? 0) + 1);
    expect(after.map.observed.max!).toBeGreaterThanOrEqual(4 / 32);
    const dashboard = await fetch(`${running.url}/api/v1/jobs/${recorded.id}`);
    expect(((await dashboard.json()) as { outcome: string }).outcome).toBe('met');
  });
});

describe('locality from a real file in HDFS', () => {
  it("reads the file's block locations through WebHDFS and says which partition holds them", async () => {
    const path = '/user/alice/events.bin';
    const create = await http(`${info.webhdfs}/webhdfs/v1${path}?op=CREATE&overwrite=true`, {
      method: 'PUT',
      user: 'alice',
    });
    expect(create.status).toBe(307);
    // The DataNode's answer (100 Continue, then 201) is read with node:http: fetch refuses it.
    expect(await putBytes(create.location!, Buffer.alloc(3 * MB, 7))).toBe(201);
    const answer = await post({
      name: 'events',
      user: 'alice',
      deadline: 3600,
      maps: 1,
      reduces: 1,
      inputPaths: [path],
      jobType: 'adaptive',
      dryRun: true,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ inputBytes: 3 * MB, inputBytesFrom: 'inputPaths' });
    const placement = answer.body.placement as { locality: string; input: Record<string, number> };
    expect(placement.input).toMatchObject({ files: 1, bytes: 3 * MB, blocks: 1, locatedBytes: 0 });
    // On one machine the DataNode is 127.0.0.1 and both NodeManagers are localhost (one of them
    // gpu): no replica is on a host the RM names, so dop stays uniform, as the answer says.
    expect(placement.locality).toBe('uniform (no replica on a node the RM reports)');
    const blocks = at(
      await read(`${info.webhdfs}/webhdfs/v1${path}?op=GET_BLOCK_LOCATIONS`, 'json', 'alice'),
      'LocatedBlocks.locatedBlocks',
    );
    expect(list(blocks).map((b) => at(list(at(b, 'locations'))[0], 'hostName'))).toEqual(['127.0.0.1']);
  });
});
