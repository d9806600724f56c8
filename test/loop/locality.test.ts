/**
 * Data locality in the live sidecar: a submission's input paths are read from WebHDFS over
 * real HTTP (a small WebHDFS server built from the emulator's routes, and the fixture server's
 * Hadoop samples), dop per partition is computed from the block replicas and the RM's node list,
 * and the partitions an adaptive job may use are tried in the order of h = ef * dop. Every way
 * the read can fail leaves dop uniform, says so in the answer, and still decides the job; a
 * missing input path is refused with a 400 naming it.
 *
 * The RM is the in-memory FakeRm: hosts cpu-1..cpu-4 (default partition) and gpu-1 (`gpu`);
 * the real-time queue holds 8 containers in the default partition and 4 in `gpu`.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { buildWebHdfsApp, EmulatedHdfs, type HdfsFile } from '../../src/emulator/webhdfs-app';
import { ValidationError } from '../../src/errors/validation';
import { startFixtureServer, type FixtureServer } from '../fixture-server/server';
import { Sidecar } from '../../src/loop/sidecar';
import { loadEnergyProfile } from '../../src/service/start';
import { SqliteLedger } from '../../src/store/ledger';
import { WebHdfsClient } from '../../src/yarn/webhdfs';
import { FakeRm } from './fake-rm';
import { capturingLogger } from '../log-capture';
import { SLEEP_AM } from '../yarn-submission';

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;
const block = (mb: number, ...hosts: string[]) => ({ bytes: mb * MB, hosts });

/**
 * /data/events: part-0 has three 128 MB blocks, all with a replica on gpu-1 (one also on
 * cpu-2); part-1 one 128 MB block on cpu-3; _SUCCESS is empty and hidden. 512 MB in all:
 * dop(gpu) = 384/512 = 0.75, dop(default) = (128 + 128)/512 = 0.5.
 * /data/cpu-heavy: four 128 MB blocks on CPU hosts, one also on gpu-1: dop 1 and 0.25.
 */
const FILES: HdfsFile[] = [
  {
    path: '/data/events/part-0',
    blocks: [block(128, 'gpu-1'), block(128, 'gpu-1', 'cpu-2'), block(128, 'gpu-1')],
  },
  { path: '/data/events/part-1', blocks: [block(128, 'cpu-3')] },
  { path: '/data/events/_SUCCESS', blocks: [] },
  {
    path: '/data/cpu-heavy',
    blocks: [block(128, 'cpu-1'), block(128, 'cpu-2'), block(128, 'cpu-3', 'gpu-1'), block(128, 'cpu-4')],
  },
];

async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
  const server = await new Promise<Server>((ok) => {
    const s = app.listen(0, '127.0.0.1', () => ok(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
}

interface Placement {
  locality: string;
  partitions: Array<{ label: string | null; dop: number; ef: number | null; h: number }>;
  input?: { files: number; bytes: number; blocks?: number; locatedBytes?: number };
}
interface Answer {
  id: string;
  decision: string;
  label?: string | null;
  placement: Placement;
  inputBytes?: number;
  inputBytesFrom?: string;
}

async function setup(
  opts: {
    webHdfsUrl?: string;
    energy?: boolean;
    locality?: { localityTimeoutMs?: number; localityMaxFiles?: number; localityMaxBlocks?: number };
  } = {},
) {
  const config = buildConfig({
    admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    placement: { ...opts.locality },
  });
  const ledger = SqliteLedger.open(':memory:', { clock: () => T0 });
  const { logger, records } = capturingLogger('info');
  let n = 0;
  const sidecar = new Sidecar({
    config,
    rm: new FakeRm().api(),
    ...(opts.webHdfsUrl
      ? {
          webHdfs: new WebHdfsClient({
            urls: [opts.webHdfsUrl],
            maxAttempts: 1,
            timeoutMs: config.placement.localityTimeoutMs,
          }),
        }
      : {}),
    ...(opts.energy ? { energyProfile: loadEnergyProfile(config) } : {}),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger,
    now: () => T0,
    newId: () => `dl-${++n}`,
  });
  await sidecar.runOnce();
  const submit = async (body: Record<string, unknown>) => {
    const res = await sidecar.submit(
      parseSubmission(
        {
          name: 'scoring',
          user: 'alice',
          yarnSubmission: SLEEP_AM,
          maps: 8,
          reduces: 1,
          deadline: 600,
          jobType: 'adaptive',
          ...body,
        },
        T0,
      ),
      { submitter: 'ci', requestHash: JSON.stringify(body) },
    );
    return { status: res.status, body: res.body as Answer };
  };
  const unavailableLogs = () =>
    records.filter((r) => r.message === 'input locality unavailable; dop is uniform');
  return { sidecar, ledger, submit, unavailableLogs };
}

describe('dop from WebHDFS block locations orders the partitions (h = ef * dop)', () => {
  let hdfs: { url: string; server: Server };
  beforeAll(async () => {
    const app = express();
    app.use(buildWebHdfsApp(new EmulatedHdfs(FILES)));
    hdfs = await listen(app);
  });
  afterAll(() => close(hdfs.server));

  it('an adaptive job whose blocks sit mostly on gpu hosts is tried in gpu first (no energy profile: dop alone)', async () => {
    const { submit, sidecar } = await setup({ webHdfsUrl: hdfs.url });
    const { status, body } = await submit({ inputBytes: 512 * MB, inputPaths: ['/data/events'] });
    expect(status).toBe(201);
    expect(body.label).toBe('gpu');
    expect(body.placement).toEqual({
      locality: 'known',
      partitions: [
        { label: 'gpu', dop: 0.75, ef: null, h: 0.75 },
        { label: null, dop: 0.5, ef: null, h: 0.5 },
      ],
      input: { files: 2, bytes: 512 * MB, blocks: 4, locatedBytes: 512 * MB },
    });
    // The decision record keeps why the partition was chosen.
    const detail = sidecar.getJob(body.id)!.decisions[0]!.detail as { placement: Placement; lane: string };
    expect(detail.lane).toBe('realtime|gpu');
    expect(detail.placement).toEqual(body.placement);
  });

  it("without input paths the same job goes by today's order, the default partition first", async () => {
    const { submit } = await setup({ webHdfsUrl: hdfs.url });
    const { body } = await submit({ inputBytes: 512 * MB });
    expect(body.label).toBeNull();
    expect(body.placement).toEqual({
      locality: 'uniform (no input paths)',
      partitions: [
        { label: null, dop: 1, ef: null, h: 1 },
        { label: 'gpu', dop: 1, ef: null, h: 1 },
      ],
    });
  });

  it('with the energy profile, data on the CPU nodes outweighs the GPU energy advantage', async () => {
    const { submit } = await setup({ webHdfsUrl: hdfs.url, energy: true });
    // Uniform dop: the md-simulation map task costs 0.01908 kWh on gpu, 0.0269 kWh on cpu.
    const plain = await submit({ inputBytes: 512 * MB });
    expect(plain.body.label).toBe('gpu');
    const { body } = await submit({ inputBytes: 512 * MB, inputPaths: ['/data/cpu-heavy'] });
    expect(body.label).toBeNull();
    const [first, second] = body.placement.partitions;
    expect(first).toMatchObject({ label: null, dop: 1 });
    expect(first!.ef).toBeCloseTo(1 / 0.0269, 9);
    expect(first!.h).toBeCloseTo(1 / 0.0269, 9);
    expect(second).toMatchObject({ label: 'gpu', dop: 0.25 });
    expect(second!.h).toBeCloseTo(0.25 / 0.01908, 9);
  });

  it('derives inputBytes from the files when it is left out, and says so', async () => {
    const { submit, ledger } = await setup({ webHdfsUrl: hdfs.url });
    const { status, body } = await submit({ inputPaths: ['/data/events/'] });
    expect(status).toBe(201);
    expect(body).toMatchObject({ inputBytes: 512 * MB, inputBytesFrom: 'inputPaths', label: 'gpu' });
    expect(ledger.getJob(body.id)!.inputBytes).toBe(512 * MB);
    // Given, it is kept as given and the answer carries no derivation.
    const given = await submit({ inputBytes: 100 * MB, inputPaths: ['/data/events'] });
    expect(given.body.inputBytesFrom).toBeUndefined();
    expect(ledger.getJob(given.body.id)!.inputBytes).toBe(100 * MB);
  });

  it('refuses a missing input path with a 400 naming it, and records nothing', async () => {
    const { submit, ledger } = await setup({ webHdfsUrl: hdfs.url });
    const err = await submit({ inputBytes: MB, inputPaths: ['/data/events', '/data/nope'] }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).httpStatus).toBe(400);
    expect((err as ValidationError).issues).toEqual([
      { path: 'inputPaths', message: '/data/nope does not exist (WebHDFS: FileNotFoundException)' },
    ]);
    expect(ledger.listJobs({}).total).toBe(0);
  });

  it('a rejected job carries the same placement in its answer and decision record', async () => {
    const { submit, sidecar } = await setup({ webHdfsUrl: hdfs.url });
    // 8 maps of 64 MB (6.4 s each) and a 512 MB reduce (51.2 s) cannot finish within 10 s.
    const { status, body } = await submit({
      inputBytes: 512 * MB,
      inputPaths: ['/data/events'],
      deadline: 10,
    });
    expect(status).toBe(200);
    expect(body.decision).toBe('rejected');
    expect(body.placement.partitions.map((p) => [p.label, p.dop])).toEqual([
      ['gpu', 0.75],
      [null, 0.5],
    ]);
    const detail = sidecar.getJob(body.id)!.decisions[0]!.detail as { placement: Placement };
    expect(detail.placement).toEqual(body.placement);
  });

  it('past the file bound dop is uniform, but the listed lengths still give inputBytes', async () => {
    const { submit, unavailableLogs } = await setup({
      webHdfsUrl: hdfs.url,
      locality: { localityMaxFiles: 1 },
    });
    const { status, body } = await submit({ inputPaths: ['/data/events'] });
    expect(status).toBe(201);
    expect(body.placement.locality).toBe('unavailable (2 input files, more than the 1 read at most)');
    expect(body.placement.partitions.map((p) => p.dop)).toEqual([1, 1]);
    expect(body).toMatchObject({ inputBytes: 512 * MB, inputBytesFrom: 'inputPaths', label: null });
    expect(unavailableLogs()).toHaveLength(1);
  });

  it('past the block bound dop is uniform', async () => {
    const { submit } = await setup({ webHdfsUrl: hdfs.url, locality: { localityMaxBlocks: 3 } });
    const { body } = await submit({ inputBytes: MB, inputPaths: ['/data/events'] });
    expect(body.placement.locality).toBe('unavailable (more than the 3 blocks read at most)');
  });
});

describe('when WebHDFS fails, dop is uniform and the job is still decided', () => {
  it('WebHDFS down (connection refused): the answer says so, logged once, job admitted', async () => {
    const gone = await listen(express());
    await close(gone.server);
    const { submit, unavailableLogs } = await setup({ webHdfsUrl: gone.url });
    const { status, body } = await submit({ inputBytes: 512 * MB, inputPaths: ['/data/events'] });
    expect(status).toBe(201);
    expect(body.label).toBeNull();
    expect(body.placement.locality).toMatch(
      /^unavailable \(LISTSTATUS \/data\/events: RM_UNAVAILABLE: cannot reach .*ECONNREFUSED/,
    );
    expect(body.placement.partitions).toEqual([
      { label: null, dop: 1, ef: null, h: 1 },
      { label: 'gpu', dop: 1, ef: null, h: 1 },
    ]);
    expect(unavailableLogs()).toEqual([
      expect.objectContaining({ level: 'info', component: 'sidecar', job: body.id }),
    ]);
  });

  it('WebHDFS down and inputBytes left out: a 400 asks for inputBytes', async () => {
    const gone = await listen(express());
    await close(gone.server);
    const { submit } = await setup({ webHdfsUrl: gone.url });
    const err = (await submit({ inputPaths: ['/data/events'] }).catch((e: unknown) => e)) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues[0]!.path).toBe('inputBytes');
    expect(err.issues[0]!.message).toMatch(
      /^is required: the input paths' lengths could not be read \(LISTSTATUS/,
    );
  });

  it('a NameNode that never answers: the answer comes within the time budget', async () => {
    const app = express();
    const hung: express.Response[] = [];
    app.use((_req, res) => void hung.push(res));
    const slow = await listen(app);
    try {
      const { submit } = await setup({ webHdfsUrl: slow.url, locality: { localityTimeoutMs: 200 } });
      const started = performance.now();
      const { status, body } = await submit({ inputBytes: 512 * MB, inputPaths: ['/data/events'] });
      const tookMs = performance.now() - started;
      expect(status).toBe(201);
      expect(body.placement.locality).toBe('unavailable (WebHDFS did not answer within 200 ms)');
      expect(hung.length).toBeGreaterThanOrEqual(1);
      expect(tookMs).toBeLessThan(2_000);
    } finally {
      await close(slow.server);
    }
  });

  it('without rm.webHdfsAddress, input paths leave dop uniform and the answer says why', async () => {
    const { submit } = await setup();
    const { body } = await submit({ inputBytes: MB, inputPaths: ['/data/events'] });
    expect(body.placement.locality).toBe('unavailable (rm.webHdfsAddress is not configured)');
  });
});

describe("against the fixture server's Hadoop WebHDFS samples", () => {
  let fixture: FixtureServer;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterAll(() => fixture.close());

  it('reads the LISTSTATUS and GETFILEBLOCKLOCATIONS samples; their host "host" is no RM node: uniform', async () => {
    const { submit } = await setup({ webHdfsUrl: fixture.url });
    const { status, body } = await submit({ inputPaths: ['/user/alice/input'] });
    expect(status).toBe(201);
    // The LISTSTATUS sample: a.patch (24930 bytes) and the directory bar, skipped.
    expect(body).toMatchObject({ inputBytes: 24930, inputBytesFrom: 'inputPaths' });
    expect(body.placement).toMatchObject({
      locality: 'uniform (no replica on a node the RM reports)',
      input: { files: 1, bytes: 24930, blocks: 2, locatedBytes: 0 },
    });
    const paths = fixture.requests.filter((r) => r.path.startsWith('/webhdfs/v1/'));
    expect(paths.map((r) => [r.path, r.query.op])).toEqual([
      ['/webhdfs/v1/user/alice/input', 'LISTSTATUS'],
      ['/webhdfs/v1/user/alice/input/a.patch', 'GETFILEBLOCKLOCATIONS'],
    ]);
  });

  it('the 404 FileNotFoundException sample becomes a 400 naming the path', async () => {
    const { submit } = await setup({ webHdfsUrl: fixture.url });
    const err = (await submit({ inputBytes: MB, inputPaths: ['/missing/input'] }).catch(
      (e: unknown) => e,
    )) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues).toEqual([
      { path: 'inputPaths', message: '/missing/input does not exist (WebHDFS: FileNotFoundException)' },
    ]);
  });

  it('a 403 AccessControlException is a WebHDFS failure: uniform dop, job decided', async () => {
    const { submit } = await setup({ webHdfsUrl: fixture.url });
    const { status, body } = await submit({ inputBytes: MB, inputPaths: ['/forbidden/input'] });
    expect(status).toBe(201);
    expect(body.placement.locality).toMatch(
      /^unavailable \(LISTSTATUS \/forbidden\/input: RM_REMOTE_EXCEPTION: NameNode answered 403 AccessControlException/,
    );
  });
});
