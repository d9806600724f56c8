/**
 * A submission with input paths and no maps: the sidecar lists the files on WebHDFS (real HTTP,
 * the emulator's WebHDFS routes over a fixed namespace) and derives the maps, and each map's
 * split, as Hadoop's FileInputFormat splits the files; the answer says so, the job is recorded
 * and judged with those maps and splits. What cannot be read is refused with a 400 naming it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { buildWebHdfsApp, EmulatedHdfs, layOutFile } from '../../src/emulator/webhdfs-app';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { ValidationError } from '../../src/errors/validation';
import { WebHdfsClient } from '../../src/yarn/webhdfs';
import { FakeRm } from './fake-rm';

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;
const HOSTS = ['cpu-1', 'cpu-2', 'cpu-3', 'cpu-4'];
const file = (path: string, bytes: number) =>
  layOutFile(path, bytes, HOSTS, { blockBytes: 128 * MB, replication: 2 });

/** 200 MB, 1 MB and an empty file, the marker _SUCCESS and a subdirectory, in 128 MB blocks. */
const FILES = [
  file('/in/a', 200 * MB),
  file('/in/b', 1 * MB),
  file('/in/c', 0),
  file('/in/_SUCCESS', 0),
  file('/in/sub/d', 5 * MB),
  file('/one/slop', 129 * MB),
  file('/only-hidden/_SUCCESS', 0),
];

async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
  const server = await new Promise<Server>((ok) => {
    const s = app.listen(0, '127.0.0.1', () => ok(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Answer {
  id: string;
  decision: string;
  maps?: number;
  mapsFrom?: string;
  inputBytes?: number;
  inputBytesFrom?: string;
}

let hdfs: { url: string; server: Server };
beforeAll(async () => {
  const app = express();
  // A path that answers as a NameNode does to a user it does not let read.
  app.get('/webhdfs/v1/secret', (_req, res) => {
    res.status(403).json({
      RemoteException: {
        exception: 'AccessControlException',
        javaClassName: 'org.apache.hadoop.security.AccessControlException',
        message:
          'Permission denied: user=alice, access=READ_EXECUTE, inode="/secret":hdfs:supergroup:drwx------',
      },
    });
  });
  app.use(buildWebHdfsApp(new EmulatedHdfs(FILES, 0, 128 * MB)));
  hdfs = await listen(app);
});
afterAll(async () => {
  hdfs.server.closeAllConnections();
  await new Promise<void>((ok) => hdfs.server.close(() => ok()));
});

async function setup(webHdfs = true) {
  const config = buildConfig({
    admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.01, reduceSecondsPerMb: 0.01 } },
  });
  const ledger = SqliteLedger.open(':memory:', { clock: () => T0 });
  let n = 0;
  const sidecar = new Sidecar({
    config,
    rm: new FakeRm().api(),
    ...(webHdfs ? { webHdfs: new WebHdfsClient({ urls: [hdfs.url], maxAttempts: 1, timeoutMs: 2000 }) } : {}),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    now: () => T0,
    newId: () => `dl-${++n}`,
  });
  await sidecar.runOnce();
  const submit = async (body: Record<string, unknown>) => {
    const res = await sidecar.submit(
      parseSubmission({ name: 'wc', user: 'alice', reduces: 1, deadline: 3600, ...body }, T0),
      { submitter: 'ci', requestHash: JSON.stringify(body) },
    );
    return { status: res.status, body: res.body as Answer };
  };
  const refusal = async (body: Record<string, unknown>) => {
    const err = await submit(body).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues;
  };
  return { sidecar, ledger, submit, refusal };
}

describe('maps derived from the input paths', () => {
  it('200 MB, 1 MB and 0 B in 128 MB blocks: 2 + 1 + 1 = 4 maps, hidden files and subdirectories skipped', async () => {
    const { submit, ledger, sidecar } = await setup();
    const { status, body } = await submit({ inputPaths: ['/in'] });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      decision: 'admitted',
      maps: 4,
      mapsFrom: 'inputPaths',
      inputBytes: 201 * MB,
      inputBytesFrom: 'inputPaths',
    });
    const job = ledger.getJob(body.id)!;
    expect(job.maps).toBe(4);
    expect((job.spec as { splitBytes?: number[] }).splitBytes).toEqual([128 * MB, 72 * MB, 1 * MB, 0]);
    // The job's view says the same.
    expect(sidecar.getJob(body.id)!.maps).toBe(4);
  });

  it('a 129 MB file is one map (the 1.1 slop); a file and a directory add up', async () => {
    const { submit } = await setup();
    expect((await submit({ inputPaths: ['/one/slop'] })).body).toMatchObject({
      maps: 1,
      mapsFrom: 'inputPaths',
    });
    expect((await submit({ inputPaths: ['/one/slop', '/in'] })).body.maps).toBe(5);
  });

  it('follows the split settings: maxsize 64 MB cuts 200 MB into 64 + 64 + 64 + 8, minsize 256 MB keeps it whole', async () => {
    const { submit, ledger } = await setup();
    const capped = await submit({ inputPaths: ['/in/a'], splitMaxBytes: 64 * MB });
    // 72 MB left is more than 1.1 x 64 MB: one more split of 64, then 8.
    expect(capped.body.maps).toBe(4);
    expect((ledger.getJob(capped.body.id)!.spec as { splitBytes: number[] }).splitBytes).toEqual([
      64 * MB,
      64 * MB,
      64 * MB,
      8 * MB,
    ]);
    const raised = await submit({ inputPaths: ['/in/a'], splitMinBytes: 256 * MB });
    expect(raised.body.maps).toBe(1);
  });

  it('given maps win: no derivation is said, and the splits are not recorded', async () => {
    const { submit, ledger } = await setup();
    const { body } = await submit({ inputPaths: ['/in'], maps: 7 });
    expect(body.maps).toBeUndefined();
    expect(body.mapsFrom).toBeUndefined();
    const job = ledger.getJob(body.id)!;
    expect(job.maps).toBe(7);
    expect((job.spec as { splitBytes?: number[] }).splitBytes).toBeUndefined();
  });

  it('with inputBytes given beside them, the maps are derived but no splits are kept (they would not add up)', async () => {
    const { submit, ledger } = await setup();
    const { body } = await submit({ inputPaths: ['/in'], inputBytes: 10 * MB });
    expect(body).toMatchObject({ maps: 4, mapsFrom: 'inputPaths' });
    expect(body.inputBytesFrom).toBeUndefined();
    expect((ledger.getJob(body.id)!.spec as { splitBytes?: number[] }).splitBytes).toBeUndefined();
  });
});

describe('what cannot be derived is refused, naming it', () => {
  it('a missing path', async () => {
    const { refusal } = await setup();
    expect(await refusal({ inputPaths: ['/in', '/nope'] })).toEqual([
      { path: 'inputPaths', message: '/nope does not exist (WebHDFS: FileNotFoundException)' },
    ]);
  });

  it('a path the NameNode does not let the sidecar read', async () => {
    const { refusal } = await setup();
    const issues = await refusal({ inputPaths: ['/secret'], inputBytes: MB });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('maps');
    expect(issues[0]!.message).toMatch(
      /^is required: the input paths' splits could not be read \(LISTSTATUS \/secret: .*AccessControlException.*Permission denied/,
    );
    // Without inputBytes either, the size is what is asked for first, naming the path the same way.
    const both = await refusal({ inputPaths: ['/secret'] });
    expect(both.map((i) => i.path)).toEqual(['inputBytes']);
    expect(both[0]!.message).toMatch(/\(LISTSTATUS \/secret: .*Permission denied/);
  });

  it('input paths holding no file', async () => {
    const { refusal } = await setup();
    expect(await refusal({ inputPaths: ['/only-hidden'] })).toEqual([
      {
        path: 'inputPaths',
        message:
          'hold no input file (directories are read one level down, without hidden files and subdirectories): /only-hidden',
      },
    ]);
  });

  it('more splits than a job may have maps', async () => {
    const { refusal } = await setup();
    const issues = await refusal({ inputPaths: ['/in/a'], splitMaxBytes: 1 });
    expect(issues).toEqual([
      {
        path: 'maps',
        message: `the input paths make ${200 * MB} splits, more than the 1000000 maps a job may have; give maps, or a larger split size (splitMinBytes)`,
      },
    ]);
  });

  it('no WebHDFS configured', async () => {
    const { refusal } = await setup(false);
    expect(await refusal({ inputPaths: ['/in'], inputBytes: MB })).toEqual([
      {
        path: 'maps',
        message:
          "is required: the input paths' splits could not be read (rm.webHdfsAddress is not configured)",
      },
    ]);
  });

  it('the request itself: maps without input paths, split settings beside maps', () => {
    const issues = (body: Record<string, unknown>) => {
      try {
        parseSubmission({ name: 'wc', user: 'alice', reduces: 1, deadline: 60, ...body }, T0);
        return [];
      } catch (e) {
        return (e as ValidationError).issues;
      }
    };
    expect(issues({ inputBytes: 5 })).toEqual([
      {
        path: 'maps',
        message: "is required unless inputPaths are given (the maps are then the files' splits)",
      },
    ]);
    expect(issues({ inputPaths: ['/in'], maps: 2, splitMinBytes: 5 })).toEqual([
      {
        path: 'splitMinBytes',
        message: 'applies only when the maps are derived from inputPaths (no maps given)',
      },
    ]);
    expect(issues({ inputPaths: ['/in'], splitMaxBytes: -1 })).toEqual([
      { path: 'splitMaxBytes', message: 'must be at least 0' },
    ]);
  });
});
