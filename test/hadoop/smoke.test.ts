/**
 * What the real ResourceManager, JobHistory server and NameNode of the shared cluster report,
 * read in JSON and in XML: the facts the sidecar's client and the emulator must agree with.
 */
import { EXPECTED_VERSION, at, http, list, read, sharedCluster } from './cluster';

const hadoop = sharedCluster();
const formats = ['json', 'xml'] as const;

describe.each(formats)('the real RM and JHS in %s', (format) => {
  it(`says it is ACTIVE and runs Hadoop ${EXPECTED_VERSION}`, async () => {
    const t = await read(`${hadoop.rm}/ws/v1/cluster/info`, format);
    expect(at(t, 'clusterInfo.haState')).toBe('ACTIVE');
    expect(at(t, 'clusterInfo.state')).toBe('STARTED');
    expect(String(at(t, 'clusterInfo.resourceManagerVersion'))).toMatch(
      new RegExp(`^${EXPECTED_VERSION.split('.').slice(0, 2).join('\\.')}\\.`),
    );
    expect(at(t, 'clusterInfo.resourceManagerVersion')).toBe(EXPECTED_VERSION);
    expect(hadoop.version).toBe(EXPECTED_VERSION);
  });

  it('lists two RUNNING nodes of 16 GB / 16 vcores, the second labelled gpu', async () => {
    const t = await read(`${hadoop.rm}/ws/v1/cluster/nodes`, format);
    const nodes = list(at(t, 'nodes.node'));
    expect(nodes).toHaveLength(2);
    const byId = new Map(nodes.map((n) => [String(at(n, 'id')), n]));
    const [nm1, nm2] = hadoop.nodes;
    expect(nm1!.id).toMatch(/^localhost:\d+$/);
    for (const n of nodes) {
      expect(at(n, 'state')).toBe('RUNNING');
      // Totals, not what is available: other test files' apps may still hold containers.
      expect(Number(at(n, 'totalResource.memory'))).toBe(16384);
      expect(Number(at(n, 'totalResource.vCores'))).toBe(16);
    }
    expect(list(at(byId.get(nm2!.id), 'nodeLabels'))).toEqual(['gpu']);
    // An unlabelled node has no nodeLabels member at all (not an empty list).
    expect(at(byId.get(nm1!.id), 'nodeLabels')).toBeUndefined();
  });

  it('has the queues realtime, besteffort, default and the reservable reserved', async () => {
    const t = await read(`${hadoop.rm}/ws/v1/cluster/scheduler`, format);
    const info = at(t, 'scheduler.schedulerInfo');
    if (format === 'json') expect(at(info, 'type')).toBe('capacityScheduler');
    const queues = list(at(info, 'queues.queue'));
    const capacities = Object.fromEntries(
      queues.map((q) => [String(at(q, 'queueName')), Number(at(q, 'capacity'))]),
    );
    expect(Object.keys(capacities)).toEqual(['realtime', 'besteffort', 'default', 'reserved']);
    // The RM computes capacities in floats: besteffort's 30 reads back as 30.000002.
    expect(capacities['realtime']).toBeCloseTo(50, 4);
    expect(capacities['besteffort']).toBeCloseTo(30, 4);
    expect(capacities['default']).toBeCloseTo(10, 4);
    expect(capacities['reserved']).toBeCloseTo(10, 4);
    const realtime = queues.find((q) => at(q, 'queueName') === 'realtime');
    expect(list(at(realtime, 'nodeLabels'))).toEqual(expect.arrayContaining(['gpu']));
    // A reservable queue becomes a plan queue; apps without a reservation run in its child
    // reserved-default, whose name and path the RM writes with the plan's full path inside.
    const reserved = queues.find((q) => at(q, 'queueName') === 'reserved');
    const children = list(at(reserved, 'queues.queue'));
    expect(children.map((q) => [at(q, 'queueName'), at(q, 'queuePath')])).toEqual([
      ['root.reserved-default', 'root.reserved.root.reserved-default'],
    ]);
  });

  it('knows the exclusive label gpu', async () => {
    const t = await read(`${hadoop.rm}/ws/v1/cluster/get-node-labels`, format);
    // 3.4.3's JSON: one label is an object, not a list, and its values are strings.
    const labels = list(at(t, format === 'json' ? 'nodeLabelInfo' : 'nodeLabelsInfo.nodeLabelInfo'));
    expect(labels.map((l) => at(l, 'name'))).toEqual(['gpu']);
    expect(String(at(labels[0], 'exclusivity'))).toBe('true');
    expect(Number(at(labels[0], 'partitionInfo.resourceAvailable.memory'))).toBe(16384);
  });

  it('has a JobHistory server of the same version', async () => {
    const t = await read(`${hadoop.jhs}/ws/v1/history/info`, format);
    expect(at(t, 'historyInfo.hadoopVersion')).toBe(EXPECTED_VERSION);
    expect(Number(at(t, 'historyInfo.startedOn'))).toBeGreaterThan(0);
  });
});

describe('WebHDFS', () => {
  const root = `${hadoop.webhdfs}/webhdfs/v1/?op=GETFILESTATUS`;

  it('answers GETFILESTATUS on / in JSON', async () => {
    const t = await read(root, 'json');
    expect(at(t, 'FileStatus.type')).toBe('DIRECTORY');
    expect(at(t, 'FileStatus.permission')).toBe('755');
  });

  it('speaks JSON only: asked for XML it fails with a JSON RemoteException', async () => {
    const a = await http(root, { accept: 'xml' });
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect(a.contentType).toMatch(/^application\/json/);
    expect(at(JSON.parse(a.text), 'RemoteException')).toBeDefined();
  });
});
