/**
 * Contract test: every file Hadoop documents (test/fixtures/yarn-rm-api/) is read by our
 * decoding and mapping, and the values the sidecar uses come out right, in JSON and in XML.
 * A last test walks the folders so that no sample is left without a check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { Node } from '../../src/yarn/coerce';
import { decodeBody, readRemoteException, type Tree } from '../../src/yarn/format';
import * as m from '../../src/yarn/mapping';

const ROOT = path.join(__dirname, '..', 'fixtures', 'yarn-rm-api');
const DIRS = [
  'samples',
  'samples-xml',
  'jhs-samples',
  'jhs-samples-xml',
  'webhdfs-samples',
  'rm-test-resources',
];

function load(rel: string): Tree {
  const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
  return decodeBody(text, rel.endsWith('.xml') ? 'xml' : 'json');
}
const at = (rel: string, ...keys: string[]): Node => keys.reduce((n, k) => n.get(k), Node.root(load(rel)));
const both = (name: string, dir = 'samples'): [string, string] => [
  `${dir}/${name}.json`,
  `${dir === 'samples' ? 'samples-xml' : `${dir}-xml`}/${name}.xml`,
];

const checks: Record<string, (rel: string) => void> = {};
const check = (files: string | string[], fn: (rel: string) => void): void => {
  for (const f of Array.isArray(files) ? files : [files]) checks[f] = fn;
};

// --- cluster ---------------------------------------------------------------------------------
check('samples/cluster-info.response.json', (f) => {
  expect(m.mapClusterInfo(load(f))).toMatchObject({
    id: 1324053971963,
    haState: 'ACTIVE',
    resourceManagerVersion: '3.0.0-SNAPSHOT',
  });
});
check('samples-xml/cluster-info.response.xml', (f) => {
  expect(m.mapClusterInfo(load(f))).toMatchObject({ id: 1476912658570, haState: 'ACTIVE', state: 'STARTED' });
});
check(both('cluster-metrics.response'), (f) => {
  const x = m.mapClusterMetrics(load(f));
  expect(x.totalMB).toBe(17408);
  expect(x.totalVirtualCores).toBe(8);
  expect(x.activeNodes).toBe(1);
  expect(x.allocatedVirtualCores).toBe(1);
});

// --- scheduler -------------------------------------------------------------------------------
check(both('scheduler-capacity.response'), (f) => {
  const s = m.mapScheduler(load(f));
  expect(s.type).toBe('capacity');
  expect(s.root.path).toBe('root');
  expect(s.root.children.map((q) => [q.path, q.kind, q.capacity, q.maxCapacity])).toEqual([
    ['root.a', 'leaf', 12.5, 50],
    ['root.b', 'leaf', 50, 100],
    ['root.c', 'leaf', 37.5, 100],
  ]);
  expect(s.root.children[0]!.accessibleNodeLabels).toEqual(['*']);
  expect(s.root.children[0]!.partitions).toEqual([
    expect.objectContaining({ partition: '', absoluteMaxCapacity: 50 }),
  ]);
  // Leaf capacities of the default partition add up to the root's.
  expect(s.root.children.reduce((a, q) => a + q.absoluteCapacity, 0)).toBe(100);
});
check(both('scheduler-fair.response'), (f) => {
  const s = m.mapScheduler(load(f));
  expect(s.type).toBe('fair');
  const paths = m.flattenQueues(s.root).map((q) => q.path);
  expect(paths).toContain('root.default');
  expect(paths).toContain('root.sample_queue.sample_sub_queue');
  const leaf = m.flattenQueues(s.root).find((q) => q.path === 'root.sample_queue.sample_sub_queue')!;
  expect(leaf).toMatchObject({ name: 'sample_sub_queue', kind: 'leaf' });
  expect(leaf.capacity).toBe(50); // steady fair share 4096 MB of 8192
});
check(both('scheduler-fifo.response'), (f) => {
  const s = m.mapScheduler(load(f));
  expect(s).toMatchObject({ type: 'fifo', root: { capacity: 100, usedCapacity: 0, state: 'RUNNING' } });
});
for (const f of [
  'rm-test-resources/scheduler-response.json',
  'rm-test-resources/scheduler-response.xml',
  'rm-test-resources/scheduler-response-PerUserResources.json',
  'rm-test-resources/scheduler-response-PerUserResources.xml',
]) {
  check(f, (rel) => {
    const s = m.mapScheduler(load(rel));
    expect(s.type).toBe('capacity');
    expect(s.root.children.map((q) => q.path)).toEqual(['root.a', 'root.b', 'root.c']);
    expect(s.root.children.map((q) => q.capacity)).toEqual([12.5, 50, 37.5]);
  });
}
check('rm-test-resources/scheduler-response-NodeLabelDefaultAPI.xml', (f) => {
  const s = m.mapScheduler(load(f));
  const a = s.root.children.find((q) => q.name === 'a')!;
  expect(a.accessibleNodeLabels).toEqual(['root-a-default-label']);
  expect(a.defaultNodeLabelExpression).toBe('root-a-default-label');
  expect(a.partitions.map((p) => p.partition)).toEqual(['', 'root-a-default-label']);
  expect(s.root.children.find((q) => q.name === 'b')!.defaultNodeLabelExpression).toBe('ROOT-INHERITED');
});
for (const f of [
  'rm-test-resources/scheduler-response-AbsoluteModeLegacyAutoCreation.json',
  'rm-test-resources/scheduler-response-PercentageModeLegacyAutoCreation.json',
]) {
  check(f, (rel) => {
    const s = m.mapScheduler(load(rel));
    const all = m.flattenQueues(s.root);
    expect(s.type).toBe('capacity');
    expect(all.length).toBeGreaterThan(2);
    expect(all.every((q) => q.path === 'root' || q.path.startsWith('root.'))).toBe(true);
    expect(all.some((q) => q.path === 'root.managed')).toBe(true);
  });
}

// --- nodes -----------------------------------------------------------------------------------
check('samples/cluster-nodes.response.json', (f) => {
  const nodes = m.mapNodes(load(f));
  expect(nodes).toHaveLength(2);
  expect(nodes[0]).toMatchObject({
    id: 'host.domain.com:54158',
    rack: '/default-rack',
    state: 'RUNNING',
    nodeLabels: [],
  });
  expect(nodes[0]!.total).toEqual({ memoryMB: 8192, vcores: 8, extra: {} });
});
check('samples-xml/cluster-nodes.response.xml', (f) => {
  const nodes = m.mapNodes(load(f));
  expect(nodes.map((n) => n.id)).toEqual(['host1.domain.com:54158', 'host2.domain.com:54158']);
  expect(nodes[1]!.available.memoryMB).toBe(8192);
});
check(both('cluster-node.response'), (f) => {
  const n = m.mapNode(load(f));
  expect(n).toMatchObject({ id: 'host.domain.com:54158', state: 'RUNNING', host: 'host.domain.com' });
  expect(n.total.memoryMB).toBe(n.used.memoryMB + n.available.memoryMB);
});
check(both('node-resource.request'), (f) => {
  const xml = f.endsWith('.xml');
  // Unwrapped in JSON, <resourceOption> in XML; the doc's two examples carry different values.
  const n = at(f, ...(xml ? ['resourceOption'] : []));
  expect(m.mapResource(n.req('resource'))).toEqual(
    xml ? { memoryMB: 8192, vcores: 5, extra: {} } : { memoryMB: 1024, vcores: 3, extra: {} },
  );
  expect(n.req('overCommitTimeout').num()).toBe(xml ? 1000 : -1);
});
check(both('node-resource.response'), (f) => {
  expect(m.mapResource(at(f, 'resourceInfo'))).toEqual({ memoryMB: 8192, vcores: 5, extra: {} });
});

// --- apps ------------------------------------------------------------------------------------
check(both('cluster-apps.response'), (f) => {
  const apps = m.mapApps(load(f));
  expect(apps.map((a) => a.id)).toEqual(['application_1476912658570_0002', 'application_1476912658570_0001']);
  expect(apps[0]).toMatchObject({
    user: 'user2',
    queue: 'default',
    state: 'FINISHED',
    finalStatus: 'SUCCEEDED',
    applicationTags: [],
  });
  expect(apps[0]!.elapsedTime).toBe(apps[0]!.finishedTime - apps[0]!.startedTime);
  expect(apps[0]!.resourceRequests[1]).toMatchObject({
    resourceName: 'host1.domain.com',
    priority: 20,
    capability: { memoryMB: 4096, vcores: 1 },
  });
});
check(both('cluster-app.response'), (f) => {
  const a = m.mapApp(load(f));
  expect(a).toMatchObject({ id: 'application_1476912658570_0002', state: 'FINISHED', name: 'word count' });
  expect(a.elapsedTime).toBe(304578);
});
check('samples/cluster-app.intro-accepted.response.json', (f) => {
  expect(m.mapApp(load(f))).toMatchObject({
    id: 'application_1324057493980_0001',
    state: 'ACCEPTED',
    finishedTime: 0,
  });
});
check('samples/cluster-app.intro-running.response.json', (f) => {
  expect(m.mapApp(load(f))).toMatchObject({
    id: 'application_1326821518301_0010',
    state: 'RUNNING',
    finalStatus: 'UNDEFINED',
  });
});
check('samples/cluster-app.intro-finished.response.json', (f) => {
  const a = m.mapApp(load(f));
  expect(a).toMatchObject({ state: 'FINISHED', finalStatus: 'SUCCEEDED', trackingUI: 'History' });
  expect(a.finishedTime).toBeGreaterThan(a.startedTime);
});
check(both('cluster-appstatistics.response'), (f) => {
  expect(m.mapAppStatistics(load(f))).toEqual([
    { state: 'accepted', type: 'mapreduce', count: 4 },
    { state: 'running', type: 'mapreduce', count: 1 },
    { state: 'finished', type: 'mapreduce', count: 7 },
  ]);
});
check(both('cluster-app-attempts.response'), (f) => {
  expect(m.mapAppAttempts(load(f))).toEqual([
    expect.objectContaining({
      id: 1,
      containerId: 'container_1326821518301_0005_01_000001',
      state: 'RUNNING',
      startTime: 1326381444693,
    }),
  ]);
});
check(both('cluster-app-attempt-containers.response'), (f) => {
  expect(m.mapContainers(load(f))).toEqual([
    expect.objectContaining({
      containerId: 'container_1531404209605_0008_01_000001',
      allocatedMB: 1536,
      allocatedVCores: 1,
      elapsedTime: 4112,
      state: 'RUNNING',
    }),
  ]);
});
check(both('cluster-app-attempt-container.response'), (f) => {
  expect(m.mapContainer(load(f))).toMatchObject({
    allocatedMB: 1536,
    nodeId: 'host.domain.com:37814',
    startedTime: 1531405909444,
  });
});
check(both('app-state.get.response'), (f) => expect(m.mapAppState(load(f))).toBe('ACCEPTED'));
check(both('app-state.put.response-202'), (f) => expect(m.mapAppState(load(f))).toBe('ACCEPTED'));
check(both('app-state.put.response-200'), (f) => expect(m.mapAppState(load(f))).toBe('KILLED'));
check(both('app-state.put.request'), (f) => expect(m.mapAppState(load(f))).toBe('KILLED'));
check('samples-xml/app-state.put.request-invalid-state.xml', (f) =>
  expect(m.mapAppState(load(f))).toBe('RUNNING'),
);
check('samples/delegation-token-auth.app-state.put.request.json', (f) =>
  expect(m.mapAppState(load(f))).toBe('KILLED'),
);
check(both('app-queue.get.response'), (f) => expect(m.mapAppQueue(load(f))).toBe('default'));
check(both('app-queue.put.request'), (f) => expect(m.mapAppQueue(load(f))).toBe('test'));
check(both('app-queue.put.response'), (f) => expect(m.mapAppQueue(load(f))).toBe('test'));
check(both('app-priority.get.response'), (f) => expect(m.mapAppPriority(load(f))).toBe(0));
check(both('app-priority.put.request'), (f) => expect(m.mapAppPriority(load(f))).toBe(8));
check(both('app-priority.put.response'), (f) => expect(m.mapAppPriority(load(f))).toBe(8));
check(both('app-timeouts.response'), (f) => {
  // 2016-12-05T22:51:00.104+0530 = 17:21:00.104 UTC
  expect(m.mapTimeouts(load(f))).toEqual([
    { type: 'LIFETIME', expiryTime: Date.UTC(2016, 11, 5, 17, 21, 0, 104), remainingTimeInSeconds: 27 },
  ]);
});
check(both('app-timeout-lifetime.response'), (f) => {
  expect(m.mapTimeout(load(f))).toEqual({
    type: 'LIFETIME',
    expiryTime: Date.UTC(2016, 11, 5, 17, 21, 0, 104),
    remainingTimeInSeconds: 27,
  });
});
check(both('app-timeout.put.request'), (f) => {
  // The doc's `+05:30` is accepted when reading (the RM itself would refuse it as input).
  expect(m.mapTimeout(load(f))).toMatchObject({
    type: 'LIFETIME',
    expiryTime: Date.UTC(2016, 10, 27, 4, 6, 16, 678),
  });
});
check(both('app-timeout.put.response'), (f) => {
  expect(m.mapTimeout(load(f))).toEqual({
    type: 'LIFETIME',
    expiryTime: Date.UTC(2016, 10, 27, 4, 6, 16, 678),
    remainingTimeInSeconds: 90,
  });
});
check(both('apps-new-application.response'), (f) => {
  expect(m.mapNewApplication(load(f))).toEqual({
    applicationId: 'application_1404198295326_0003',
    maximumResourceCapability: { memoryMB: 8192, vcores: 32, extra: {} },
  });
});
check('samples/apps-submit.request.json', (f) => {
  const n = at(f);
  expect(n.get('application-submission-context').present).toBe(false); // unwrapped
  expect(n.req('application-id').str()).toBe('application_1404203615263_0001');
  expect(m.mapResource(n.req('resource'))).toEqual({ memoryMB: 1024, vcores: 1, extra: {} });
  expect(n.get('am-container-spec').get('commands').req('command').str()).toMatch(/ApplicationMaster/);
});
check('samples-xml/apps-submit.request.xml', (f) => {
  const n = at(f, 'application-submission-context');
  expect(n.req('queue').str()).toBe('testqueue');
  expect(n.req('priority').int()).toBe(3);
  expect(n.get('application-tags').get('tag').strings()).toEqual(['tag 2', 'tag1']);
  expect(
    n
      .get('am-container-spec')
      .get('environment')
      .listOf('entry')
      .map((e) => e.req('key').str()),
  ).toContain('CLASSPATH');
});
check(both('error-remoteexception.response').slice(0, 1), (f) => {
  expect(readRemoteException(fs.readFileSync(path.join(ROOT, f), 'utf8'))).toEqual({
    exception: 'NotFoundException',
    javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException',
    message: 'java.lang.Exception: app with id: application_1324057493980_9999 not found',
  });
});
check('samples-xml/app-state.put.response-400-remoteexception.xml', (f) => {
  expect(readRemoteException(fs.readFileSync(path.join(ROOT, f), 'utf8'))).toMatchObject({
    exception: 'BadRequestException',
    message: "java.lang.Exception: Only 'KILLED' is allowed as a target state.",
  });
});

// --- delegation tokens (read, not used by the sidecar) ------------------------------------------
check(both('delegation-token.request'), (f) => {
  expect(at(f, ...(f.endsWith('.xml') ? ['delegation-token'] : []), 'renewer').str()).toBe('test-renewer');
});
check(both('delegation-token.response'), (f) => {
  const xml = f.endsWith('.xml');
  const n = at(f, ...(xml ? ['delegation-token'] : []));
  expect(n.req('kind').str()).toBe('RM_DELEGATION_TOKEN');
  // The doc's JSON and XML examples are two different tokens.
  expect(n.req('expiration-time').num()).toBe(xml ? 1405153180466 : 1405153616489);
});
check(both('delegation-token-expiration.response'), (f) => {
  const n = at(f, ...(f.endsWith('.xml') ? ['delegation-token'] : []));
  expect(n.req('expiration-time').num()).toBe(1404112520402);
});

// --- reservations ----------------------------------------------------------------------------
check('samples/reservation-list.response.json', (f) => {
  const [r, ...rest] = m.mapReservationList(load(f));
  expect(rest).toHaveLength(0);
  expect(r).toMatchObject({
    id: 'reservation_1458852875788_0002',
    user: 'submitter',
    acceptanceTime: 1455160008442,
  });
  expect(r!.definition).toMatchObject({
    arrival: 1465541532000,
    deadline: 1465542252000,
    name: 'res_1',
    interpreter: 0,
  });
  expect(r!.definition.requests).toEqual([
    {
      capability: { memoryMB: 1024, vcores: 1, extra: {} },
      numContainers: 1,
      minConcurrency: 1,
      durationMs: 60,
    },
  ]);
  expect(r!.allocations.map((a) => a.resource.memoryMB)).toEqual([0, 1024, 0]);
});
check('samples-xml/reservation-list.response.xml', (f) => {
  const [r] = m.mapReservationList(load(f));
  expect(r).toMatchObject({ user: 'dr.who', acceptanceTime: 1455233661003 });
  expect(r!.allocations).toHaveLength(2);
  expect(r!.definition.requests[0]!.numContainers).toBe(1);
});
check(both('reservation-new-reservation.response'), (f) => {
  expect(m.mapNewReservation(load(f))).toBe('reservation_1404198295326_0003');
});
check(both('reservation-submit.request'), (f) => {
  const n = at(f, ...(f.endsWith('.xml') ? ['reservation-submission-context'] : []));
  expect(n.req('queue').str()).toBe('dedicated');
  const reqs = n.req('reservation-definition').req('reservation-requests').listOf('reservation-request');
  expect(reqs.map((r) => r.req('num-containers').num())).toEqual([220, 110]);
  expect(n.req('reservation-definition').req('deadline').num()).toBe(1765542252000);
});
check(both('reservation-update.request'), (f) => {
  const n = at(f, ...(f.endsWith('.xml') ? ['reservation-update-context'] : []));
  expect(n.req('reservation-id').str()).toMatch(/^reservation_/);
  expect(n.req('reservation-definition').req('arrival').num()).toBeGreaterThan(0);
});
check(both('reservation-delete.request'), (f) => {
  const n = at(f, ...(f.endsWith('.xml') ? ['reservation-delete-context'] : []));
  expect(n.req('reservation-id').str()).toMatch(/^reservation_/);
});
check('rm-test-resources/update-reservation.json', (f) => {
  expect(at(f).req('reservation-definition').req('deadline').num()).toBe(1765542252000);
});
check('rm-test-resources/delete-reservation.json', (f) => {
  expect(at(f).req('reservation-id').str()).toBe('reservation_12341234_1');
});
check('rm-test-resources/submit-reservation.template.txt', (f) => {
  const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
  // A printf template, not JSON: as written it is a typed error; filled in, it reads.
  expect(() => decodeBody(text, 'json')).toThrow(RmMalformedResponseError);
  const values = ['reservation_1_0001', '1000', '2000', 'r', ''];
  const filled = text.replace(/%s/g, () => values.shift() ?? '');
  expect(Node.root(decodeBody(filled, 'json')).req('reservation-definition').req('deadline').num()).toBe(
    2000,
  );
});

// --- activities and scheduler-conf (read, not used by the sidecar) -----------------------------
check(both('scheduler-activities.response'), (f) => {
  const n = at(f, 'activities');
  expect(n.req('timestamp').num()).toBe(1562296830912);
  expect(n.listOf('allocations')[0]!.req('finalAllocationState').str()).toBe('ALLOCATED');
});
check('samples/scheduler-activities.groupby-diagnostic.response.json', (f) => {
  expect(at(f, 'activities').listOf('allocations').length).toBeGreaterThan(0);
});
check(both('scheduler-bulk-activities.response'), (f) => {
  const acts = at(f, 'bulkActivities').listOf('activities');
  expect(acts.length).toBeGreaterThan(0);
  expect(acts[0]!.req('nodeId').str()).toBe('127.0.0.1:1234');
});
check(both('app-activities.response'), (f) => {
  expect(at(f, 'appActivities').req('applicationId').str()).toBe('application_1562312049195_0001');
});
check('samples/app-activities.groupby-diagnostic.response.json', (f) => {
  expect(at(f, 'appActivities').req('applicationId').str()).toMatch(/^application_/);
});
check('samples-xml/scheduler-conf.get.response.xml', (f) => {
  const props = at(f, 'configuration').listOf('property');
  expect(
    props
      .find((p) => p.req('name').str() === 'yarn.scheduler.capacity.root.queues')!
      .req('value')
      .str(),
  ).toBe('default');
});
for (const op of [
  'add-node-label-to-queue',
  'add-queue',
  'global-updates',
  'remove-node-label-from-queue',
  'remove-queue',
  'update-queue',
]) {
  check(`samples-xml/scheduler-conf.put.${op}.request.xml`, (f) => {
    const n = at(f, 'sched-conf');
    expect(n.keys().length).toBeGreaterThan(0);
    expect(
      n.keys().every((k) => ['update-queue', 'add-queue', 'remove-queue', 'global-updates'].includes(k)),
    ).toBe(true);
  });
}

// --- JobHistory server and MapReduce AM ------------------------------------------------------
check(both('jhs-info.response', 'jhs-samples'), (f) => {
  expect(at(f, 'historyInfo').req('hadoopVersion').str()).toBe('0.23.1-SNAPSHOT');
});
check(both('jhs-jobs.response', 'jhs-samples'), (f) => {
  const jobs = m.mapJobs(load(f));
  expect(jobs.map((j) => j.id)).toEqual(['job_1326381300833_1_1', 'job_1326381300833_2_2']);
  expect(jobs[1]).toMatchObject({
    name: 'Sleep job',
    state: 'SUCCEEDED',
    mapsTotal: 1,
    finishTime: 1326381582106,
  });
});
check(both('jhs-job.response', 'jhs-samples'), (f) => {
  expect(m.mapJob(load(f))).toMatchObject({
    id: 'job_1326381300833_2_2',
    state: 'SUCCEEDED',
    startTime: 1326381446529,
  });
});
check(both('jhs-job-attempts.response', 'jhs-samples'), (f) => {
  const attempts = at(f, 'jobAttempts').listOf('jobAttempt');
  expect(attempts).toHaveLength(1);
  expect(attempts[0]!.req('containerId').str()).toMatch(/^container_/);
});
check(both('jhs-job-counters.response', 'jhs-samples'), (f) => {
  const groups = at(f, 'jobCounters').listOf('counterGroup');
  expect(groups.length).toBeGreaterThan(1);
  const fs2 = groups.find((g) => g.req('counterGroupName').str() === 'Shuffle Errors');
  expect(fs2!.listOf('counter').map((c) => c.req('name').str())).toContain('BAD_ID');
});
check(both('jhs-job-tasks.response', 'jhs-samples'), (f) => {
  const tasks = m.mapTasks(load(f));
  expect(tasks.map((t) => [t.type, t.state, t.startTime, t.finishTime, t.elapsedTime])).toEqual([
    ['MAP', 'SUCCEEDED', 1326381446541, 1326381453318, 6777],
    ['REDUCE', 'SUCCEEDED', 1326381446544, 1326381582103, 135559],
  ]);
  // INDEX.md section 12: the task elapsedTime is finish − start.
  for (const t of tasks) expect(t.elapsedTime).toBe(t.finishTime - t.startTime);
});
check(both('jhs-job-task.response', 'jhs-samples'), (f) => {
  expect(m.mapTask(load(f))).toMatchObject({
    id: 'task_1326381300833_2_2_m_0',
    type: 'MAP',
    elapsedTime: 6777,
    progress: 100,
  });
});
check(both('jhs-job-task-attempts.response', 'jhs-samples'), (f) => {
  expect(m.mapTaskAttempts(load(f))).toEqual([
    expect.objectContaining({
      id: 'attempt_1326381300833_2_2_m_0_0',
      type: 'MAP',
      state: 'SUCCEEDED',
      elapsedTime: 2638,
      rack: '/98.139.92.0',
    }),
  ]);
});
check(both('jhs-job-task-attempt.response', 'jhs-samples'), (f) => {
  const a = m.mapTaskAttempt(load(f));
  expect(a).toMatchObject({ id: 'attempt_1326381300833_2_2_m_0_0', type: 'MAP', startTime: 1326381450680 });
  expect(a.shuffleFinishTime).toBeUndefined();
});
check(both('am-job-tasks.response', 'jhs-samples'), (f) => {
  const tasks = m.mapTasks(load(f));
  expect(tasks.map((t) => [t.id, t.type, t.state])).toEqual([
    ['task_1326232085508_4_4_m_0', 'MAP', 'SUCCEEDED'],
    ['task_1326232085508_4_4_r_0', 'REDUCE', 'RUNNING'],
  ]);
  expect(tasks[1]!.finishTime).toBe(0); // still running
});
check(both('am-job-task.response', 'jhs-samples'), (f) => {
  expect(m.mapTask(load(f))).toMatchObject({
    id: 'task_1326232085508_4_4_r_0',
    type: 'REDUCE',
    state: 'RUNNING',
    startTime: 1326238777460,
  });
});
check(both('am-job-task-attempts.response', 'jhs-samples'), (f) => {
  const [a] = m.mapTaskAttempts(load(f));
  expect(a).toMatchObject({
    id: 'attempt_1326232085508_4_4_r_0_0',
    type: 'REDUCE',
    state: 'RUNNING',
    shuffleFinishTime: 1326238780052,
  });
});
check(both('am-job-task-attempt.response', 'jhs-samples'), (f) => {
  expect(m.mapTaskAttempt(load(f))).toMatchObject({
    type: 'REDUCE',
    elapsedTime: 0,
    shuffleFinishTime: 1326238780052,
  });
});
check(both('am-job-task-attempt-state.get.response', 'jhs-samples'), (f) => {
  expect(at(f).unwrap('jobTaskAttemptState').req('state').str()).toBe('STARTING');
});
check(both('am-job-task-attempt-state.put.request', 'jhs-samples'), (f) => {
  expect(at(f).unwrap('jobTaskAttemptState').req('state').str()).toBe('KILLED');
});
check(both('am-job-task-attempt-state.put.response', 'jhs-samples'), (f) => {
  expect(at(f).unwrap('jobTaskAttemptState').req('state').str()).toBe('KILLED');
});
check('jhs-samples-xml/am-job-task-attempt-state.put.request-invalid-state.xml', (f) => {
  expect(at(f).unwrap('jobTaskAttemptState').req('state').str()).toBe('RUNNING');
});
check('jhs-samples-xml/am-job-task-attempt-state.put.response-400-remoteexception.xml', (f) => {
  expect(readRemoteException(fs.readFileSync(path.join(ROOT, f), 'utf8'))).toMatchObject({
    exception: 'BadRequestException',
  });
});

// --- WebHDFS ---------------------------------------------------------------------------------
check('webhdfs-samples/webhdfs-getfileblocklocations.response.json', (f) => {
  expect(m.mapBlockLocations(load(f))).toEqual([
    {
      offset: 0,
      length: 134217728,
      hosts: ['host'],
      names: ['host:ip'],
      topologyPaths: ['/default-rack/hostname:ip'],
      storageTypes: ['DISK'],
      cachedHosts: [],
      corrupt: false,
    },
    {
      offset: 134217728,
      length: 62599364,
      hosts: ['host'],
      names: ['host:ip'],
      topologyPaths: ['/default-rack/hostname:ip'],
      storageTypes: ['DISK'],
      cachedHosts: [],
      corrupt: false,
    },
  ]);
});
check('webhdfs-samples/webhdfs-getfilestatus.response.json', (f) => {
  const n = at(f, 'FileStatus');
  expect(n.req('type').str()).toBe('DIRECTORY');
  expect(n.req('permission').str()).toBe('777'); // an octal string, not a number
});
check('webhdfs-samples/webhdfs-liststatus.response.json', (f) => {
  expect(
    at(f, 'FileStatuses')
      .listOf('FileStatus')
      .map((s) => s.req('pathSuffix').str()),
  ).toEqual(['a.patch', 'bar']);
});
check('webhdfs-samples/webhdfs-liststatus.response-file.json', (f) => {
  const list = at(f, 'FileStatuses').listOf('FileStatus');
  expect(list.map((s) => s.req('pathSuffix').str())).toEqual(['']);
});
check('webhdfs-samples/webhdfs-getcontentsummary.response.json', (f) => {
  expect(at(f, 'ContentSummary').req('directoryCount').num()).toBe(2);
});
for (const [status, exception] of [
  [400, 'IllegalArgumentException'],
  [401, 'SecurityException'],
  [403, 'AccessControlException'],
  [404, 'FileNotFoundException'],
] as const) {
  check(`webhdfs-samples/webhdfs-error-remoteexception.response-${status}.json`, (f) => {
    expect(readRemoteException(fs.readFileSync(path.join(ROOT, f), 'utf8'))).toMatchObject({ exception });
  });
}

describe('every Hadoop sample is read, with the values the sidecar uses', () => {
  it.each(Object.keys(checks).sort())('%s', (rel) => {
    checks[rel]!(rel);
  });

  const all = DIRS.flatMap((d) => fs.readdirSync(path.join(ROOT, d)).map((f) => `${d}/${f}`));
  const verbatim = all.filter((f) => f.endsWith('verbatim.txt'));

  it.each(verbatim)('%s: the doc block as written is refused with a typed error', (rel) => {
    const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
    expect(() => decodeBody(text, rel.includes('.xml') ? 'xml' : 'json')).toThrow(RmMalformedResponseError);
  });

  it('leaves no sample file without a check', () => {
    const unchecked = all.filter((f) => !f.endsWith('verbatim.txt') && !(f in checks));
    expect(unchecked).toEqual([]);
    expect(all.length).toBeGreaterThan(170);
  });
});
