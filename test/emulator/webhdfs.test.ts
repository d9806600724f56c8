/**
 * The emulator's WebHDFS: files laid out on the emulated nodes, read with the sidecar's own
 * WebHDFS client, and a live sidecar deciding against the emulator end to end (RM and WebHDFS
 * over real HTTP) with the partition order from those block locations.
 */
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { layOutFile } from '../../src/emulator/webhdfs-app';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { WebHdfsClient } from '../../src/yarn/webhdfs';
import { client, harness, T0, type Harness } from './helpers';

const MB = 1024 * 1024;

describe('layOutFile: blocks of the cluster size, replicas round-robin, never two on one host', () => {
  it('300 MB in 128 MB blocks, 2 replicas over 3 hosts', () => {
    expect(layOutFile('/a', 300 * MB, ['h1', 'h2', 'h3'], { blockBytes: 128 * MB, replication: 2 })).toEqual({
      path: '/a',
      blocks: [
        { bytes: 128 * MB, hosts: ['h1', 'h2'] },
        { bytes: 128 * MB, hosts: ['h3', 'h1'] },
        { bytes: 44 * MB, hosts: ['h2', 'h3'] },
      ],
    });
  });

  it('caps replication at the hosts there are, and an empty file has no block', () => {
    expect(layOutFile('/b', MB, ['h1'], { blockBytes: 128 * MB, replication: 3 }).blocks).toEqual([
      { bytes: MB, hosts: ['h1'] },
    ]);
    expect(layOutFile('/c', 0, [], { blockBytes: 128 * MB, replication: 3 }).blocks).toEqual([]);
    expect(() => layOutFile('/d', MB, [], { blockBytes: MB, replication: 1 })).toThrow(/no node/);
    expect(() => layOutFile('rel', MB, ['h1'], { blockBytes: MB, replication: 1 })).toThrow(/absolute/);
  });
});

describe('the emulated WebHDFS', () => {
  let h: Harness;
  let hdfs: WebHdfsClient;
  beforeAll(async () => {
    h = await harness({
      hdfsFiles: [
        { path: '/data/gpu-input/part-0', bytes: 300 * MB, label: 'gpu' },
        { path: '/data/gpu-input/part-1', bytes: 100 * MB, label: 'gpu' },
        { path: '/data/cpu-input', bytes: 256 * MB, label: '' },
        { path: '/data/anywhere', bytes: 10 * MB },
      ],
    });
    hdfs = new WebHdfsClient({ urls: [h.emu.url], maxAttempts: 1, user: 'alice' });
  });
  afterAll(() => h.emu.close());

  it('lists a directory one level down, and a file as itself', async () => {
    const dir = await hdfs.listStatus('/data');
    expect(dir.map((e) => [e.pathSuffix, e.type, e.length])).toEqual([
      ['anywhere', 'FILE', 10 * MB],
      ['cpu-input', 'FILE', 256 * MB],
      ['gpu-input', 'DIRECTORY', 0],
    ]);
    expect((await hdfs.listStatus('/data/gpu-input/part-1')).map((e) => [e.pathSuffix, e.length])).toEqual([
      ['', 100 * MB],
    ]);
    expect(await hdfs.fileStatus('/data/gpu-input')).toMatchObject({ type: 'DIRECTORY', length: 0 });
    expect(await hdfs.fileStatus('/data/cpu-input')).toMatchObject({
      type: 'FILE',
      length: 256 * MB,
      blockSize: 128 * MB,
      // The cluster's replication, 3, over its 4 CPU nodes (a gpu file gets 2: there are 2 GPU nodes).
      replication: 3,
    });
  });

  it('places a labelled file on the nodes of its partition, with host:port names', async () => {
    const nodes = await client(h.emu.url).nodes();
    const labelOf = new Map(nodes.map((n) => [n.host, n.nodeLabels[0] ?? '']));
    const blocks = await hdfs.blockLocations('/data/gpu-input/part-0');
    expect(blocks.map((b) => [b.offset, b.length])).toEqual([
      [0, 128 * MB],
      [128 * MB, 128 * MB],
      [256 * MB, 44 * MB],
    ]);
    for (const b of blocks) {
      expect(b.hosts.map((x) => labelOf.get(x))).toEqual(['gpu', 'gpu']);
      expect(b.names).toEqual(b.hosts.map((x) => `${x}:9866`));
    }
    for (const b of await hdfs.blockLocations('/data/cpu-input'))
      expect(b.hosts.every((x) => labelOf.get(x) === '')).toBe(true);
    // offset/length select the blocks that overlap the range.
    expect(
      (await hdfs.blockLocations('/data/gpu-input/part-0', { offset: 130 * MB, length: MB })).map(
        (b) => b.offset,
      ),
    ).toEqual([128 * MB]);
  });

  it("answers a missing path and a directory's block locations with 404 FileNotFoundException", async () => {
    for (const [path, message] of [
      ['/data/nope', 'File does not exist: /data/nope'],
      ['/data/gpu-input', 'Path is not a file: /data/gpu-input'],
    ] as const) {
      const err = await hdfs.blockLocations(path).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmRemoteError);
      expect(err).toMatchObject({ status: 404, exception: 'FileNotFoundException', remoteMessage: message });
    }
    await expect(hdfs.listStatus('/nope')).rejects.toMatchObject({ status: 404 });
  });

  it('answers an unknown op with 400 IllegalArgumentException', async () => {
    const res = await fetch(`${h.emu.url}/webhdfs/v1/data?op=MKDIRS`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { RemoteException: { exception: string } }).RemoteException.exception).toBe(
      'IllegalArgumentException',
    );
  });

  it('end to end: the sidecar reads the emulator over HTTP and tries an adaptive job where its data is', async () => {
    const config = buildConfig({
      admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.01, reduceSecondsPerMb: 0.01 } },
    });
    const sidecar = new Sidecar({
      config,
      rm: client(h.emu.url),
      webHdfs: hdfs,
      ledger: SqliteLedger.open(':memory:', { clock: () => T0 }),
      registry: defaultRegistry(),
      metrics: new SidecarMetrics(),
      logger: silentLogger(),
      now: () => T0,
      newId: () => 'dl-e2e',
    });
    await sidecar.runOnce();
    const submit = async (paths: string[]) =>
      (
        await sidecar.submit(
          parseSubmission(
            {
              name: 'md',
              user: 'alice',
              maps: 4,
              reduces: 1,
              deadline: 3600,
              jobType: 'adaptive',
              inputPaths: paths,
              dryRun: true,
            },
            T0,
          ),
          { submitter: 'ci', requestHash: paths.join() },
        )
      ).body as {
        label: string | null;
        inputBytes: number;
        placement: { locality: string; partitions: unknown[] };
      };
    const onGpu = await submit(['/data/gpu-input']);
    expect(onGpu.label).toBe('gpu');
    expect(onGpu.inputBytes).toBe(400 * MB);
    expect(onGpu.placement).toMatchObject({
      locality: 'known',
      partitions: [
        { label: 'gpu', dop: 1, h: 1 },
        { label: null, dop: 0, h: 0 },
      ],
    });
    const onCpu = await submit(['/data/cpu-input']);
    expect(onCpu.label).toBeNull();
    expect(onCpu.placement.partitions).toEqual([
      { label: null, dop: 1, ef: null, h: 1 },
      { label: 'gpu', dop: 0, ef: null, h: 0 },
    ]);
  });
});
