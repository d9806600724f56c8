/**
 * Map-only jobs (no reduce stage: distcp, Sqoop imports, SleepJob -r 0) through every live
 * path, the emulated RM and the sidecar as separate processes on loopback: a REST submission
 * with reduces 0 is admitted as RTMR with an empty reduce stage, runs on the RM as a 0-reduce
 * job and is met; one with a deadline below its maps' estimate is refused with the earliest
 * deadline that admits it; an app a user submitted with `reduces:0` among its deadline tags is
 * discovered, admitted and moved to the real-time queue.
 *
 * Estimates as in deadlines.test.ts (0.5 s per MB, no floor), at or above the emulator's worst
 * map time for 8 MB splits: a map of 8 MB is estimated at 4 s.
 */
import { join } from 'node:path';
import { amCommand } from '../../src/yarn/submission';
import { encodeTags } from '../../src/yarn/tags';
import { SLEEP_AM } from '../yarn-submission';
import {
  MB,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  waitFor,
  waitReady,
  type EmulatorProc,
  type SidecarProc,
} from './support/procs';

const ESTIMATES = {
  eta: 1,
  mapSecondsPerMb: 0.5,
  reduceSecondsPerMb: 0.5,
  mapTaskSeconds: 0,
  reduceTaskSeconds: 0,
  // The emulated RM's apps spend nothing outside their tasks and run no AM in a container.
  setupSeconds: 0,
  commitSeconds: 0,
};

interface Detail {
  id: string;
  source: string;
  decision: string;
  outcome: string | null;
  maps: number;
  reduces: number;
  appId: string | null;
}

let emu: EmulatorProc;
let sc: SidecarProc;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('map-only');
  emu = await startEmulatorProc('emulator', ['--speed', '1', '--seed', '7']);
  sc = await startSidecarProc('sidecar', {
    rmUrls: [emu.url],
    jhsUrl: emu.jhsUrl,
    ledgerPath: join(tmp.dir, 'ledger.db'),
    config: { admission: { initialEstimates: ESTIMATES, amContainers: 0, profiles: { enabled: false } } },
  });
  await waitReady(sc, [sc.proc, emu.proc]);
}, 60_000);

afterAll(async () => {
  await stopAll();
  tmp?.cleanup();
});

describe('map-only jobs against the emulated RM', () => {
  it('a REST submission with reduces 0 is admitted, runs on the RM without reduces and is met', async () => {
    const before = Date.now();
    const a = await sc.submit({
      name: 'distcp-like',
      user: 'alice',
      deadline: 60,
      maps: 2,
      reduces: 0,
      inputBytes: 2 * 8 * MB,
      yarnSubmission: SLEEP_AM,
    });
    expect(a.status).toBe(201);
    expect(a.body.decision).toBe('admitted');
    // Two maps of 4 s side by side on an idle lane, no reduce after them: done 4 s after arrival.
    const finishS = (Date.parse(a.body.estimatedFinish!) - before) / 1000;
    expect(finishS).toBeGreaterThanOrEqual(4 - 0.01);
    expect(finishS).toBeLessThan(4 + (Date.now() - before) / 1000 + 0.01);

    const id = a.body.id!;
    const done = await waitFor(
      'the map-only job to end',
      async () => {
        const d = await sc.get<Detail>(`/api/v1/jobs/${id}`);
        return d.outcome !== null ? d : undefined;
      },
      { procs: [sc.proc, emu.proc], timeoutMs: 40_000, intervalMs: 500 },
    );
    expect(done).toMatchObject({ maps: 2, reduces: 0, outcome: 'met' });
    const app = await emu.rm.app(done.appId!);
    expect(app).toMatchObject({ state: 'FINISHED', finalStatus: 'SUCCEEDED' });
    expect(app.applicationTags).toEqual(expect.arrayContaining(['maps:2', 'reduces:0']));
  });

  it('a map-only job whose maps cannot end by its deadline is refused with the earliest deadline', async () => {
    // 4 maps of 16 MB: 8 s each; a 3 s deadline is below even one map.
    const r = await sc.submit({
      name: 'sqoop-like',
      user: 'bob',
      deadline: 3,
      maps: 4,
      reduces: 0,
      inputBytes: 4 * 16 * MB,
      yarnSubmission: SLEEP_AM,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decision: 'rejected' });
    const earliest = r.body.earliestAdmissibleDeadline as string;
    // At least one round of maps (8 s) from now.
    expect(Date.parse(earliest) - Date.now()).toBeGreaterThan(8_000 - 2_000);
  });

  it('an app tagged reduces:0 on the RM is discovered as a map-only job and admitted', async () => {
    const { applicationId } = await emu.rm.newApplication();
    await emu.rm.submitApp({
      applicationId,
      name: 'found-map-only',
      queue: 'default',
      applicationType: 'MAPREDUCE',
      tags: encodeTags({
        sidecarId: 'user-map-only',
        deadlineMs: Date.now() + 120_000,
        maps: 2,
        reduces: 0,
        inputBytes: 2 * 8 * MB,
        jobType: 'cpu',
      }).filter((t) => !t.startsWith('sidecar-id:')),
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('sleep 1'),
    });
    const found = await waitFor(
      'the app to be discovered',
      async () => {
        const list = await sc.get<{ jobs: Array<{ id: string }> }>('/api/v1/jobs?limit=1000');
        const d = await Promise.all(list.jobs.map((j) => sc.get<Detail>(`/api/v1/jobs/${j.id}`)));
        return d.find((j) => j.appId === applicationId);
      },
      { procs: [sc.proc, emu.proc], timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(found).toMatchObject({ source: 'discovered', decision: 'admitted', maps: 2, reduces: 0 });
    const moved = await waitFor(
      'the app moved to the real-time queue',
      async () => {
        const app = await emu.rm.app(applicationId);
        return app.queue.split('.').pop() === 'realtime' ? app : undefined;
      },
      { procs: [sc.proc, emu.proc], timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(moved.applicationTags).toEqual(expect.arrayContaining(['reduces:0']));
  });
});
