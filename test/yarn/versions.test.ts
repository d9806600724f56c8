/**
 * The RM's answers across Hadoop versions: our version-shaped fixtures (test/fixtures/ours/,
 * see its README) read with the values they hold. A field an RM version does not send stays
 * undefined (never a default), a field it sends is read, in either of the RM's notations
 * (numbers and booleans as strings, a one-element list as a bare object, the root element
 * kept or dropped). A last test walks the folder so that no fixture is left without a check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { Node } from '../../src/yarn/coerce';
import { decodeBody, type Tree } from '../../src/yarn/format';
import * as m from '../../src/yarn/mapping';
import type { QueueInfo, Resource } from '../../src/yarn/model';

const ROOT = path.join(__dirname, '..', 'fixtures', 'ours');

function load(file: string): Tree {
  return decodeBody(fs.readFileSync(path.join(ROOT, file), 'utf8'), file.endsWith('.xml') ? 'xml' : 'json');
}

const res = (memoryMB: number, vcores: number, extra: Record<string, number> = {}): Resource => ({
  memoryMB,
  vcores,
  extra,
});

function queue(root: QueueInfo, p: string): QueueInfo {
  const q = m.flattenQueues(root).find((x) => x.path === p);
  if (!q) throw new Error(`no queue ${p}`);
  return q;
}

const checks: Record<string, (file: string) => void> = {};
const check = (files: string | string[], fn: (file: string) => void): void => {
  for (const f of Array.isArray(files) ? files : [files]) checks[f] = fn;
};

// --- cluster info ---------------------------------------------------------------------------

check('cluster-info.response-hadoop-2.7.json', (f) => {
  expect(m.mapClusterInfo(load(f))).toEqual({
    id: 1700000000000,
    startedOn: 1700000000000,
    state: 'STARTED',
    haState: 'ACTIVE',
    resourceManagerVersion: '2.7.7',
    hadoopVersion: '2.7.7',
    haZooKeeperConnectionState: 'ResourceManager HA is not enabled.',
  });
});

check('cluster-info.response-before-2.4.json', (f) => {
  const info = m.mapClusterInfo(load(f));
  expect(info).toMatchObject({ id: 1390000000000, state: 'STARTED', resourceManagerVersion: '2.3.0' });
  expect(info.haState).toBeUndefined();
  expect(info.haZooKeeperConnectionState).toBeUndefined();
});

// --- metrics --------------------------------------------------------------------------------

check('cluster-metrics.response-hadoop-2.7.json', (f) => {
  const x = m.mapClusterMetrics(load(f));
  expect(x).toMatchObject({
    appsSubmitted: 2,
    appsRunning: 1,
    totalMB: 16384,
    allocatedMB: 3072,
    availableMB: 13312,
    reservedVirtualCores: 0,
    totalVirtualCores: 16,
    totalNodes: 3,
    activeNodes: 2,
    lostNodes: 1,
    decommissionedNodes: 0,
  });
  // Since 2.8: absent from this answer, so absent from the model, not 0.
  expect(x.decommissioningNodes).toBeUndefined();
  expect(x.shutdownNodes).toBeUndefined();
  expect('decommissioningNodes' in x).toBe(false);
});

// --- nodes ----------------------------------------------------------------------------------

check('cluster-nodes.response-hadoop-2.7.json', (f) => {
  const nodes = m.mapNodes(load(f));
  expect(nodes.map((n) => [n.id, n.state, n.nodeLabels, n.total, n.used, n.available])).toEqual([
    ['nm1.example.com:45454', 'RUNNING', [], res(8192, 8), res(3072, 2), res(5120, 6)],
    ['nm2.example.com:45454', 'RUNNING', ['fast'], res(8192, 8), res(0, 0), res(8192, 8)],
    ['nm3.example.com:45454', 'LOST', [], res(0, 0), res(0, 0), res(0, 0)],
  ]);
  expect(nodes[0]).toMatchObject({
    host: 'nm1.example.com',
    rack: '/rack-1',
    version: '2.7.7',
    numContainers: 2,
  });
});

check('cluster-nodes-labelled.response.json', (f) => {
  const gpu1 = m.mapNodes(load(f)).find((n) => n.id === 'gpu1.example.com:45454')!;
  expect(gpu1.nodeLabels).toEqual(['gpu']);
  expect(gpu1.used.extra['yarn.io/gpu']).toBe(2);
});
check('cluster-nodes-labelled.response.xml', (f) => {
  expect(m.mapNodes(load(f))).toEqual(m.mapNodes(load('cluster-nodes-labelled.response.json')));
});

// --- apps -----------------------------------------------------------------------------------

check('cluster-apps.response-hadoop-2.7.json', (f) => {
  const [running, finished] = m.mapApps(load(f));
  expect(running).toMatchObject({
    id: 'application_1700000000000_0002',
    state: 'RUNNING',
    queue: 'default',
    progress: 35.5,
    allocatedMB: 3072,
    allocatedVCores: 2,
    // Kept as the RM reports them: lower-cased.
    applicationTags: ['deadline:2026-11-24t19:48:22z', 'sidecar:job-7'],
  });
  expect(running!.resourceRequests).toEqual([
    { resourceName: '*', numContainers: 1, capability: res(2048, 1), priority: 20, relaxLocality: true },
  ]);
  expect(running!.resourceRequests[0]!.nodeLabelExpression).toBeUndefined();
  expect(finished).toMatchObject({ state: 'FINISHED', finalStatus: 'SUCCEEDED', applicationTags: [] });
  for (const app of [running!, finished!]) {
    // Since 2.8: unknown on 2.7, not priority 0 or label ''.
    expect(app.priority).toBeUndefined();
    expect(app.appNodeLabelExpression).toBeUndefined();
    expect(app.amNodeLabelExpression).toBeUndefined();
  }
});

// --- scheduler ------------------------------------------------------------------------------

check('scheduler-capacity.response-hadoop-2.7.json', (f) => {
  const s = m.mapScheduler(load(f));
  expect(s.type).toBe('capacity');
  expect(
    m
      .flattenQueues(s.root)
      .map((q) => [q.path, q.kind, q.capacity, q.absoluteCapacity, q.usedCapacity, q.numApplications]),
  ).toEqual([
    ['root', 'parent', 100, 100, 18.75, 0],
    ['root.default', 'leaf', 70, 70, 26.785713, 1],
    ['root.research', 'parent', 30, 30, 0, 0],
    ['root.research.fast', 'leaf', 50, 15, 0, 0],
    ['root.research.batch', 'leaf', 50, 15, 0, 0],
  ]);
  expect(queue(s.root, 'root.research.fast').accessibleNodeLabels).toEqual(['fast']);
  expect(queue(s.root, 'root.default').resourcesUsed).toEqual(res(3072, 2));
  for (const q of m.flattenQueues(s.root)) {
    // 2.7 has no per-partition capacities or resources and none of 3.x's capacity members.
    expect(q.partitions).toEqual([]);
    expect(q).toMatchObject({
      resourcesByPartition: undefined,
      defaultNodeLabelExpression: undefined,
      capacityMode: undefined,
      weight: undefined,
      normalizedWeight: undefined,
      capacityVector: undefined,
      effectiveMinResource: undefined,
      effectiveMaxResource: undefined,
    });
  }
});

const FAIR_TREE = [
  ['root', 'parent', 100, 100, 18.75, 0],
  ['root.default', 'leaf', 50, 100, 18.75, 1],
  ['root.team', 'parent', 50, 75, 0, 0],
  ['root.team.alpha', 'leaf', 25, 100, 0, 0],
  ['root.team.beta', 'leaf', 25, 100, 0, 1],
];
check(['scheduler-fair.response-hadoop-2.7.json', 'scheduler-fair.response-hadoop-2.7.xml'], (f) => {
  const s = m.mapScheduler(load(f));
  expect(s.type).toBe('fair');
  // Before 2.8 childQueues is the list of queues itself: every queue is there, none dropped.
  expect(
    m
      .flattenQueues(s.root)
      .map((q) => [q.path, q.kind, q.capacity, q.maxCapacity, q.usedCapacity, q.numApplications]),
  ).toEqual(FAIR_TREE);
  expect(queue(s.root, 'root.default').resourcesUsed).toEqual(res(3072, 2));
});

check('scheduler-fair.response-hadoop-3.json', (f) => {
  const s = m.mapScheduler(load(f));
  expect(s.type).toBe('fair');
  expect(
    m
      .flattenQueues(s.root)
      .map((q) => [q.path, q.kind, q.capacity, q.maxCapacity, q.usedCapacity, q.numApplications]),
  ).toEqual([
    ['root', 'parent', 100, 100, 25, 0],
    ['root.default', 'leaf', 50, 100, 25, 1],
    ['root.team', 'parent', 50, 75, 0, 0],
    ['root.team.alpha', 'leaf', 25, 100, 0, 2],
  ]);
  // Extra resource types of the current shape are read.
  expect(queue(s.root, 'root.default').resourcesUsed).toEqual(res(4096, 3, { 'yarn.io/gpu': 1 }));
  expect(queue(s.root, 'root.default').capacityMode).toBeUndefined();
});

check('scheduler-capacity.response-hadoop-3.4.json', (f) => {
  const s = m.mapScheduler(load(f));
  expect(s.type).toBe('capacity');
  expect(
    m
      .flattenQueues(s.root)
      .map((q) => [
        q.path,
        q.kind,
        q.capacity,
        q.capacityMode,
        q.weight,
        q.normalizedWeight,
        q.numApplications,
      ]),
  ).toEqual([
    ['root', 'parent', 100, 'percentage', -1, 0, 0],
    ['root.prod', 'leaf', 50, 'absolute', -1, 0, 1],
    ['root.dev', 'leaf', 30, 'weight', 3, 0.75, 0],
    ['root.adhoc', 'leaf', 10, 'weight', 1, 0.25, 0],
    ['root.batch', 'leaf', 10, 'percentage', -1, 0, 0],
  ]);
  // The root carries its capacity vector itself; the other queues per partition.
  expect(s.root.capacityVector).toEqual({
    text: '[memory-mb=100.0%,vcores=100.0%]',
    entries: [
      { resource: 'memory-mb', value: '100.0%' },
      { resource: 'vcores', value: '100.0%' },
    ],
  });
  expect(s.root.effectiveMinResource).toBeUndefined();

  const prod = queue(s.root, 'root.prod');
  expect(prod.capacityVector).toBeUndefined();
  expect(prod.defaultNodeLabelExpression).toBe('gpu');
  expect(prod.accessibleNodeLabels).toEqual(['gpu']);
  expect(prod.effectiveMinResource).toEqual(res(16384, 16));
  expect(prod.effectiveMaxResource).toEqual(res(32768, 32));
  expect(prod.resourcesUsed).toEqual(res(12288, 6, { 'yarn.io/gpu': 2 }));
  expect(prod.partitions).toEqual([
    {
      partition: '',
      capacity: 50,
      usedCapacity: 25,
      maxCapacity: 100,
      absoluteCapacity: 50,
      absoluteUsedCapacity: 12.5,
      absoluteMaxCapacity: 100,
      maxAMLimitPercentage: 10,
      weight: -1,
      normalizedWeight: 0,
      capacityVector: {
        text: '[memory-mb=16384,vcores=16]',
        entries: [
          { resource: 'memory-mb', value: '16384' },
          { resource: 'vcores', value: '16' },
        ],
      },
      configuredMinResource: res(16384, 16),
      configuredMaxResource: res(0, 0),
      effectiveMinResource: res(16384, 16),
      effectiveMaxResource: res(32768, 32),
    },
    expect.objectContaining({
      partition: 'gpu',
      capacity: 75,
      absoluteUsedCapacity: 50,
      capacityVector: expect.objectContaining({ text: '[memory-mb=75.0%,vcores=75.0%]' }),
      effectiveMinResource: res(12288, 12, { 'yarn.io/gpu': 3 }),
      effectiveMaxResource: res(16384, 16, { 'yarn.io/gpu': 4 }),
    }),
  ]);
  expect(prod.resourcesByPartition).toEqual([
    {
      partition: '',
      used: res(4096, 2),
      reserved: res(0, 0),
      pending: res(2048, 1),
      amUsed: res(1024, 1),
      amLimit: res(4096, 1),
      userAmLimit: res(4096, 1),
    },
    expect.objectContaining({ partition: 'gpu', used: res(8192, 4, { 'yarn.io/gpu': 2 }) }),
  ]);

  const dev = queue(s.root, 'root.dev');
  expect(
    dev.partitions.map((p) => [p.partition, p.capacityVector?.text, p.weight, p.normalizedWeight]),
  ).toEqual([
    ['', '[memory-mb=3.0w,vcores=3.0w]', 3, 0.75],
    ['gpu', '[memory-mb=25.0%,vcores=25.0%]', -1, 0],
  ]);
  expect(queue(s.root, 'root.batch').defaultNodeLabelExpression).toBeUndefined();
});

// --- node labels ----------------------------------------------------------------------------

check('get-node-labels.response-hadoop-3.4.3.json', (f) => {
  // One label, no root element, every number and boolean a string: read all the same.
  expect(m.mapNodeLabels(load(f))).toEqual([
    { name: 'gpu', exclusive: true, resourceAvailable: res(16384, 16, { 'yarn.io/gpu': 4 }), activeNMs: 1 },
  ]);
});
check('get-node-labels.response-hadoop-3.5.json', (f) => {
  expect(m.mapNodeLabels(load(f))).toEqual([
    { name: 'gpu', exclusive: true, resourceAvailable: res(16384, 16, { 'yarn.io/gpu': 4 }), activeNMs: 1 },
    { name: 'ssd', exclusive: false, resourceAvailable: res(0, 0), activeNMs: 0 },
  ]);
});
check('get-node-labels.response-hadoop-2.7.json', (f) => {
  expect(m.mapNodeLabels(load(f))).toEqual([
    { name: 'fast', exclusive: true, resourceAvailable: undefined, activeNMs: undefined },
    { name: 'gpu', exclusive: true, resourceAvailable: undefined, activeNMs: undefined },
  ]);
});
check(['get-node-labels.response.json', 'get-node-labels.response.xml'], (f) => {
  const labels = m.mapNodeLabels(load(f));
  expect(labels.map((l) => [l.name, l.exclusive, l.resourceAvailable?.memoryMB, l.activeNMs])).toEqual([
    ['gpu', true, 122880, undefined],
    ['ssd', false, 0, undefined],
  ]);
  expect(labels[0]!.resourceAvailable!.extra).toEqual({ 'yarn.io/gpu': 6 });
});
check(['get-node-to-labels.response.json', 'get-node-to-labels.response.xml'], (f) => {
  expect(m.mapNodeToLabels(load(f))).toEqual(
    new Map([
      ['gpu1.example.com:45454', ['gpu']],
      ['gpu2.example.com:45454', ['gpu']],
    ]),
  );
});
check(['label-mappings.response.json', 'label-mappings.response.xml'], (f) => {
  const [gpu] = m.mapLabelMappings(load(f));
  expect(gpu!.label.name).toBe('gpu');
  expect(gpu!.nodes).toEqual(['gpu1.example.com:45454', 'gpu2.example.com:45454']);
});

describe('every fixture of test/fixtures/ours is read, with the values it holds', () => {
  it.each(Object.keys(checks).sort())('%s', (file) => {
    checks[file]!(file);
  });

  it('leaves no fixture file without a check', () => {
    const files = fs.readdirSync(ROOT).filter((f) => f.endsWith('.json') || f.endsWith('.xml'));
    expect(files.filter((f) => !(f in checks))).toEqual([]);
    expect(Object.keys(checks).filter((f) => !files.includes(f))).toEqual([]);
  });
});

// --- the same rules on small bodies ---------------------------------------------------------

describe('optional values: absent stays undefined, present is read in either notation', () => {
  it.each([
    ['a number', 4096, 4096],
    ['a number as a string', '4096', 4096],
    ['a fraction as a string', '12.5', 12.5],
    ['a negative number as a string', '-1', -1],
    ['a missing member', undefined, undefined],
    ['null', null, undefined],
    ['an empty XML element', '', undefined],
  ] as const)('optNum: %s', (_name, value, expected) => {
    const body: Record<string, Tree> = value === undefined ? {} : { x: value };
    expect(Node.root(body).get('x').optNum()).toBe(expected);
  });

  it.each([
    ['true', true, true],
    ['false', false, false],
    ['"true"', 'true', true],
    ['"false"', 'false', false],
    ['"TRUE"', 'TRUE', true],
    ['a missing member', undefined, undefined],
    ['an empty XML element', '', undefined],
  ] as const)('optBool: %s', (_name, value, expected) => {
    const body: Record<string, Tree> = value === undefined ? {} : { x: value };
    expect(Node.root(body).get('x').optBool()).toBe(expected);
  });

  it('a value of the wrong kind is still a typed error naming the field', () => {
    expect(() =>
      Node.root({ a: { b: 'many' } })
        .get('a')
        .get('b')
        .optNum(),
    ).toThrow(/a\.b should be a number/);
    expect(() => Node.root({ a: 'yes' }).get('a').optBool()).toThrow(RmMalformedResponseError);
  });
});

describe('fields newer than the RM', () => {
  const metrics = (extra: Record<string, Tree>): Tree => ({
    clusterMetrics: Object.fromEntries(
      [
        'appsSubmitted',
        'appsCompleted',
        'appsPending',
        'appsRunning',
        'appsFailed',
        'appsKilled',
        'totalMB',
        'availableMB',
        'allocatedMB',
        'reservedMB',
        'totalVirtualCores',
        'availableVirtualCores',
        'allocatedVirtualCores',
        'containersAllocated',
        'containersPending',
        'containersReserved',
        'totalNodes',
        'activeNodes',
        'lostNodes',
        'unhealthyNodes',
        'decommissionedNodes',
        'rebootedNodes',
      ]
        .map((k): [string, Tree] => [k, 1])
        .concat(Object.entries(extra)),
    ),
  });

  it.each([
    ['a 2.7 RM: absent', {}, undefined, undefined],
    ['a 2.8+ RM: read', { decommissioningNodes: 2, shutdownNodes: 3 }, 2, 3],
    ['Jersey default notation: strings', { decommissioningNodes: '2', shutdownNodes: '0' }, 2, 0],
  ] as const)('decommissioning and shutdown nodes from %s', (_name, extra, decommissioning, shutdown) => {
    const x = m.mapClusterMetrics(metrics(extra));
    expect(x.decommissioningNodes).toBe(decommissioning);
    expect(x.shutdownNodes).toBe(shutdown);
    expect(x.activeNodes).toBe(1);
  });

  it('a metric every RM since 2.7 sends stays required', () => {
    const body = metrics({}) as { clusterMetrics: Record<string, Tree> };
    delete body.clusterMetrics.activeNodes;
    expect(() => m.mapClusterMetrics(body)).toThrow(/clusterMetrics\.activeNodes should be present/);
  });

  it.each([
    ['absent (2.7)', {}, undefined, undefined, undefined],
    [
      'present (2.8+)',
      { priority: 5, appNodeLabelExpression: 'gpu', amNodeLabelExpression: '' },
      5,
      'gpu',
      '',
    ],
    ['as strings', { priority: '0', appNodeLabelExpression: 'gpu' }, 0, 'gpu', undefined],
  ] as const)('app priority and label expressions %s', (_name, extra, priority, appExpr, amExpr) => {
    const [app] = m.mapApps({ apps: { app: { id: 'application_1_0001', state: 'RUNNING', ...extra } } });
    expect(app!.priority).toBe(priority);
    expect(app!.appNodeLabelExpression).toBe(appExpr);
    expect(app!.amNodeLabelExpression).toBe(amExpr);
  });

  it.each([
    ['id', { state: 'RUNNING' }, /apps\.app\[0\]\.id should be present/],
    ['state', { id: 'application_1_0001' }, /apps\.app\[0\]\.state should be present/],
  ])('an app without its %s is malformed', (_name, app, message) => {
    expect(() => m.mapApps({ apps: { app: [app] } })).toThrow(message);
  });

  it('a node without its id is malformed; one without labels is in the default partition', () => {
    expect(() => m.mapNodes({ nodes: { node: [{ state: 'RUNNING' }] } })).toThrow(
      /nodes\.node\[0\]\.id should be present/,
    );
    expect(m.mapNode({ node: { id: 'h:1', state: 'RUNNING' } }).nodeLabels).toEqual([]);
    expect(m.mapNode({ node: { id: 'h:1', state: 'RUNNING', nodeLabels: 'gpu' } }).nodeLabels).toEqual([
      'gpu',
    ]);
  });
});

describe('fair-scheduler child queues in every shape', () => {
  const leaf = (name: string): Record<string, Tree> => ({
    type: 'fairSchedulerLeafQueueInfo',
    queueName: name,
    numActiveApps: 0,
    numPendingApps: 0,
  });
  const fair = (childQueues: Tree): Tree => ({
    scheduler: { schedulerInfo: { type: 'fairScheduler', rootQueue: { queueName: 'root', childQueues } } },
  });
  const paths = (tree: Tree) => m.flattenQueues(m.mapScheduler(tree).root).map((q) => [q.path, q.kind]);

  it.each([
    ['2.8+: {"queue":[…]}', fair({ queue: [leaf('root.a'), leaf('root.b')] })],
    ['before 2.8: a plain list', fair([leaf('root.a'), leaf('root.b')])],
  ])('%s', (_name, tree) => {
    expect(paths(tree)).toEqual([
      ['root', 'parent'],
      ['root.a', 'leaf'],
      ['root.b', 'leaf'],
    ]);
  });

  it.each([
    ['2.8+: {"queue":{…}}', fair({ queue: leaf('root.a') })],
    ['before 2.8: one bare queue', fair(leaf('root.a'))],
  ])('one child, %s', (_name, tree) => {
    expect(paths(tree)).toEqual([
      ['root', 'parent'],
      ['root.a', 'leaf'],
    ]);
  });

  it.each([
    ['null', null],
    ['{}', {}],
    ['[]', []],
    ['an empty XML element', ''],
  ])('no children: %s', (_name, childQueues) => {
    expect(paths(fair(childQueues))).toEqual([['root', 'parent']]);
  });

  it('a leaf without a type is known by its app counts', () => {
    const { type: _type, ...untyped } = leaf('root.a');
    expect(paths(fair([untyped]))).toEqual([
      ['root', 'parent'],
      ['root.a', 'leaf'],
    ]);
  });
});

describe('node-label answers with or without their root element', () => {
  const label = { name: 'gpu', exclusivity: 'false', activeNMs: '2' };
  it.each([
    ['wrapped, a list', { nodeLabelsInfo: { nodeLabelInfo: [label] } }],
    ['wrapped, one object', { nodeLabelsInfo: { nodeLabelInfo: label } }],
    ['unwrapped, a list', { nodeLabelInfo: [label] }],
    ['unwrapped, one object', { nodeLabelInfo: label }],
  ])('get-node-labels %s', (_name, tree) => {
    expect(m.mapNodeLabels(tree)).toEqual([
      { name: 'gpu', exclusive: false, resourceAvailable: undefined, activeNMs: 2 },
    ]);
  });

  it.each([
    ['2.7, one bare name', { nodeLabels: 'gpu' }, ['gpu']],
    ['2.7, names', { nodeLabels: ['gpu', 'ssd'] }, ['gpu', 'ssd']],
    ['no labels', {}, []],
  ])('get-node-labels %s', (_name, tree, names) => {
    expect(m.mapNodeLabels(tree).map((l) => l.name)).toEqual(names);
  });

  it.each([
    [
      'wrapped',
      { nodeToLabelsInfo: { nodeToLabels: { entry: { key: 'h:1', value: { nodeLabelInfo: label } } } } },
    ],
    ['unwrapped', { nodeToLabels: { entry: [{ key: 'h:1', value: { nodeLabelInfo: [label] } }] } }],
    ['2.7 label names', { nodeToLabels: { entry: { key: 'h:1', value: { nodeLabels: 'gpu' } } } }],
  ])('get-node-to-labels %s', (_name, tree) => {
    expect(m.mapNodeToLabels(tree)).toEqual(new Map([['h:1', ['gpu']]]));
  });

  it('label-mappings unwrapped, one entry, numbers as strings', () => {
    const tree = {
      labelsToNodes: {
        entry: {
          key: label,
          value: { nodes: 'h:1', partitionInfo: { resourceAvailable: { memory: '8192', vCores: '4' } } },
        },
      },
    };
    expect(m.mapLabelMappings(tree)).toEqual([
      {
        label: { name: 'gpu', exclusive: false, resourceAvailable: res(8192, 4), activeNMs: 2 },
        nodes: ['h:1'],
      },
    ]);
  });

  it('a body that is neither form is still malformed', () => {
    expect(() => m.mapNodeToLabels({ other: 1 })).toThrow(/nodeToLabelsInfo should be present/);
    expect(() => m.mapLabelMappings({ other: 1 })).toThrow(/labelsToNodesInfo should be present/);
  });
});
