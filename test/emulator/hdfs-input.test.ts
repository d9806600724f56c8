/**
 * One HDFS: the emulator's WebHDFS files are placed in the simulation, WebHDFS answers from
 * that placement, and an app tagged `input:PATH` runs its maps on the file's blocks, so its
 * maps are local where WebHDFS says the data is. Also: a running task's progress through the
 * AM proxy is the share of its run time elapsed.
 */
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { attemptProgress } from '../../src/emulator/am-proxy';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { WebHdfsClient } from '../../src/yarn/webhdfs';
import { client, harness, T0, type Harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';
import { SLEEP_AM } from '../yarn-submission';

const MB = 1024 * 1024;
const FILES = [
  { path: '/data/events', bytes: 1000 * MB, label: '' },
  { path: '/data/gpu-input', bytes: 300 * MB, label: 'gpu' },
];

async function submit(rm: ReturnType<typeof client>, tags: string[]): Promise<string> {
  const { applicationId } = await rm.newApplication();
  await rm.submitApp({
    applicationId,
    name: 'reader',
    queue: 'default',
    priority: 0,
    applicationType: 'MAPREDUCE',
    tags,
    appNodeLabelExpression: '',
    amNodeLabelExpression: '',
    amResource: { memoryMB: 1024, vcores: 1 },
    am: amCommand('true'),
  });
  return applicationId;
}

describe('the emulated WebHDFS files are the simulated jobs’ input', () => {
  let h: Harness;
  let rm: ReturnType<typeof client>;
  beforeAll(async () => {
    h = await harness({ hdfsFiles: FILES });
    rm = client(h.emu.url);
  });
  afterAll(() => h.emu.close());

  it('answers GETFILEBLOCKLOCATIONS with the engine’s replica placement, ceil(bytes / blockSize) blocks', async () => {
    const hdfs = new WebHdfsClient({ urls: [h.emu.url], maxAttempts: 1, user: 'alice' });
    const engine = h.emu.rm.engine;
    for (const f of FILES) {
      const located = await hdfs.blockLocations(f.path);
      expect(located).toHaveLength(Math.ceil(f.bytes / (128 * MB)));
      located.forEach((b, i) => {
        expect(b.hosts).toEqual(engine.replicasOf(`${f.path}#${i}`).map((n) => engine.nodeId(n)));
      });
    }
    // The default partition has 4 nodes: 3 replicas a block; the gpu one 2 nodes: 2 replicas.
    expect(engine.replicasOf('/data/events#0')).toHaveLength(3);
    expect(engine.replicasOf('/data/gpu-input#0')).toEqual([4, 5]);
  });

  it('an app tagged input:PATH runs one map per block, local on the replica holders', async () => {
    const appId = await submit(rm, ['input:/data/events', 'reduces:1', 'type:cpu']);
    const rec = h.emu.rm.mustApp(appId);
    expect([rec.maps, rec.inputBytes]).toEqual([8, 1000 * MB]);
    h.advance(600);
    expect((await rm.app(appId)).state).toBe('FINISHED');
    const jhs = JobHistoryClient.forHistoryServer({ urls: [h.emu.jhsUrl], maxAttempts: 1, timeoutMs: 5_000 });
    const jobId = `job_${appId.slice('application_'.length)}`;
    const maps = await jhs.tasks(jobId, 'MAP');
    expect(maps).toHaveLength(8);
    const engine = h.emu.rm.engine;
    let onHolder = 0;
    for (const t of maps) {
      const i = Number(t.id.slice(t.id.lastIndexOf('_') + 1));
      const attempts = await jhs.taskAttempts(jobId, t.id);
      const ok = attempts.find((a) => a.state === 'SUCCEEDED')!;
      const host = ok.nodeHttpAddress.split(':')[0]!;
      const holders = engine.replicasOf(`/data/events#${i}`).map((n) => engine.nodeId(n));
      if (holders.includes(host)) onHolder++;
    }
    const outcome = engine.outcomes().find((o) => o.id === appId)!;
    // The engine's own local count is exactly the attempts that ran on a WebHDFS replica holder.
    expect(outcome.localMaps).toBe(onHolder);
    // 3 replicas on 4 nodes and a locality-first scheduler: most maps read locally.
    expect(onHolder / 8).toBeGreaterThanOrEqual(0.75);
  });

  it('data only on the gpu nodes is never local to a default-partition app', async () => {
    const appId = await submit(rm, ['input:/data/gpu-input', 'reduces:0', 'type:cpu']);
    expect(h.emu.rm.mustApp(appId).maps).toBe(3);
    h.advance(600);
    expect((await rm.app(appId)).state).toBe('FINISHED');
    const outcome = h.emu.rm.engine.outcomes().find((o) => o.id === appId)!;
    expect([outcome.status, outcome.localMaps]).toEqual(['finished', 0]);
  });

  it('maps: overrides one-map-per-block; a directory reads every file under it', async () => {
    const three = h.emu.rm.mustApp(await submit(rm, ['input:/data/events', 'maps:3', 'reduces:0']));
    expect([three.maps, three.inputBytes]).toEqual([3, 1000 * MB]);
    const all = h.emu.rm.mustApp(await submit(rm, ['input:/data/', 'reduces:0']));
    expect([all.maps, all.inputBytes]).toEqual([8 + 3, 1300 * MB]);
  });

  it('a path that is not an emulated file: the app runs as without the tag', async () => {
    const rec = h.emu.rm.mustApp(await submit(rm, ['input:/data/nope', 'maps:2', `input-bytes:${64 * MB}`]));
    expect([rec.maps, rec.inputBytes]).toEqual([2, 64 * MB]);
    // Its blocks are its own generated ones.
    expect(h.emu.rm.engine.replicasOf(`${rec.id}/blk_1`)).toHaveLength(3);
  });

  it('end to end: the sidecar tags a submission with its input paths and the app reads them', async () => {
    const sidecar = new Sidecar({
      config: buildConfig({
        admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.01, reduceSecondsPerMb: 0.01 } },
      }),
      rm,
      webHdfs: new WebHdfsClient({ urls: [h.emu.url], maxAttempts: 1, user: 'alice' }),
      ledger: SqliteLedger.open(':memory:', { clock: () => T0 }),
      registry: defaultRegistry(),
      metrics: new SidecarMetrics(),
      logger: silentLogger(),
      now: () => h.emu.time.nowEpochMs(),
      newId: () => 'dl-input',
    });
    await sidecar.runOnce();
    const res = await sidecar.submit(
      parseSubmission(
        {
          name: 'events',
          user: 'alice',
          yarnSubmission: SLEEP_AM,
          maps: 8,
          reduces: 1,
          deadline: 36000,
          jobType: 'cpu',
          inputPaths: ['/data/events'],
        },
        h.emu.time.nowEpochMs(),
      ),
      { submitter: 'ci', requestHash: 'events' },
    );
    expect(res.status).toBe(201);
    await sidecar.enforcer.drain();
    const apps = await rm.apps({ applicationTags: ['sidecar-id:dl-input'] });
    expect(apps).toHaveLength(1);
    const rec = h.emu.rm.mustApp(apps[0]!.id);
    expect(rec.tags).toContain('input:/data/events');
    expect([rec.maps, rec.inputBytes]).toEqual([8, 1000 * MB]);
  });
});

describe('progress of a running task through the AM proxy', () => {
  it('is the share of the attempt’s run time elapsed: 50 at half way, 100 once SUCCEEDED', async () => {
    const h = await harness({ speed: 1 });
    try {
      const rm = client(h.emu.url);
      const appId = await submit(rm, ['maps:4', 'reduces:1', `input-bytes:${4 * 64 * MB}`, 'type:cpu']);
      const engine = h.emu.rm.engine;
      let running = engine.runningTasksOf(appId);
      for (let s = 0; s < 20 && running.length === 0; s++) {
        h.advance(0.5);
        h.emu.rm.sync();
        running = engine.runningTasksOf(appId);
      }
      const a = running.find((r) => r.kind === 'map')!;
      expect(a.due).toBeGreaterThan(a.start);
      h.advance((a.start + a.due) / 2 - h.emu.time.seconds());
      const am = JobHistoryClient.forRunningApp(rm.transport, appId);
      const taskId = `task_${appId.slice('application_'.length)}_m_${String(a.index).padStart(6, '0')}`;
      const mid = (await am.tasksOfApp(appId)).find((t) => t.id === taskId)!;
      expect(mid.state).toBe('RUNNING');
      expect(mid.progress).toBeCloseTo(50, 1);
      h.advance(a.due - h.emu.time.seconds() + 0.001);
      const done = (await am.tasksOfApp(appId)).find((t) => t.id === taskId)!;
      expect([done.state, done.progress]).toEqual(['SUCCEEDED', 100]);
    } finally {
      await h.emu.close();
    }
  });

  it('attemptProgress: 0 at the start, 25 a quarter in, never past 100', () => {
    expect(attemptProgress({ start: 10, due: 30 }, 10)).toBe(0);
    expect(attemptProgress({ start: 10, due: 30 }, 15)).toBe(25);
    expect(attemptProgress({ start: 10, due: 13 }, 11)).toBe(33.33);
    expect(attemptProgress({ start: 10, due: 30 }, 31)).toBe(100);
    expect(attemptProgress({ start: 10, due: 10 }, 10)).toBe(100);
  });
});
