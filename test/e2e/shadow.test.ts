/**
 * Shadow mode (YSS_SHADOW=true). A full run — submissions through the
 * API, deadline-tagged apps found on the RM, their completion read from the JobHistory server —
 * is decided and recorded, and the emulator's write counter stays at zero.
 *
 * The deadline-tagged apps are put on the RM by the test itself (as a user's `yarn jar` would)
 * before the sidecar starts; the counter is cleared after that, so every write it could count
 * from then on would be the sidecar's.
 */
import { join } from 'node:path';
import { encodeTags } from '../../src/yarn/tags';
import {
  MB,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  waitFor,
  waitReady,
  type EmulatorProc,
} from './support/procs';
import { amCommand } from '../../src/yarn/submission';
import { SLEEP_AM } from '../yarn-submission';

let emu: EmulatorProc;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('shadow');
  emu = await startEmulatorProc('emulator', ['--speed', '1']);
}, 60_000);

afterAll(async () => {
  await stopAll();
  tmp?.cleanup();
});

type Detail = {
  id: string;
  source: string;
  decision: string;
  state: string;
  outcome: string | null;
  appId: string | null;
  actions: Array<{ kind: string; status: string }>;
};

describe('shadow mode', () => {
  it('decides, records and follows everything, and writes nothing to the RM', async () => {
    // The sidecar starts first: an app the emulator has already run to its end before the first
    // poll (a loaded machine took over 5 s to start the sidecar) is not discovered.
    const sc = await startSidecarProc('sidecar', {
      rmUrls: [emu.url],
      jhsUrl: emu.jhsUrl,
      ledgerPath: join(tmp.dir, 'ledger.db'),
      config: {
        admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.5, reduceSecondsPerMb: 0.5 } },
        // Everything switched on that could write.
        enforcement: { priorities: true, lifetimeTimeouts: true, reservations: true },
      },
      env: { YSS_SHADOW: 'true' },
    });
    await waitReady(sc, [sc.proc, emu.proc]);
    expect((await emu.writes()).log).toEqual([]);
    // Three apps a user submitted with deadline tags: feasible in the default queue (to be
    // admitted and moved to realtime), feasible in realtime, and hopeless (to be moved to
    // besteffort).
    const now = Date.now();
    const userApps = [
      { queue: 'default', deadlineS: 300, name: 'found-default' },
      { queue: 'realtime', deadlineS: 300, name: 'found-realtime' },
      { queue: 'default', deadlineS: 4, name: 'found-hopeless' },
    ];
    for (const [i, u] of userApps.entries()) {
      const { applicationId } = await emu.rm.newApplication();
      await emu.rm.submitApp({
        applicationId,
        name: u.name,
        queue: u.queue,
        applicationType: 'MAPREDUCE',
        tags: encodeTags({
          sidecarId: `user-${i}`,
          deadlineMs: now + u.deadlineS * 1000,
          maps: 2,
          reduces: 1,
          inputBytes: 2 * 8 * MB,
          jobType: 'cpu',
        }).filter((t) => !t.startsWith('sidecar-id:')),
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('sleep 1'),
      });
    }
    // The user's own writes: a new application and a submission for each.
    const userWrites = (await emu.writes()).log.map((w) => `${w.method} ${w.path}`);
    expect(userWrites.sort()).toEqual([
      ...Array(userApps.length).fill('POST /ws/v1/cluster/apps'),
      ...Array(userApps.length).fill('POST /ws/v1/cluster/apps/new-application'),
    ]);
    await emu.control('DELETE', '/writes');
    expect(await sc.get('/api/v1/cluster')).toMatchObject({ admission: { shadow: true } });

    const answers = [];
    for (let i = 0; i < 12; i++) {
      answers.push(
        await sc.submit({
          name: `shadow-${i}`,
          user: 'dave',
          deadline: i % 4 === 3 ? 3 : 120 + i * 10,
          maps: 2 + (i % 3),
          reduces: 1,
          inputBytes: (2 + (i % 3)) * 8 * MB,
          yarnSubmission: SLEEP_AM,
          jobType: (['cpu', 'gpu', 'adaptive'] as const)[i % 3],
        }),
      );
    }
    const admitted = answers.filter((a) => a.body.decision === 'admitted');
    expect(admitted.length).toBeGreaterThanOrEqual(6);
    expect(answers.filter((a) => a.body.decision === 'rejected').length).toBeGreaterThanOrEqual(3);

    // The run goes on until the discovered apps have ended and the sidecar recorded their outcome.
    const details = await waitFor(
      'the discovered apps to be decided, followed and finished',
      async () => {
        const list = await sc.get<{ jobs: Array<{ id: string }> }>('/api/v1/jobs?limit=1000');
        const d = await Promise.all(list.jobs.map((j) => sc.get<Detail>(`/api/v1/jobs/${j.id}`)));
        const found = d.filter((j) => j.source === 'discovered');
        const ended = found.filter((j) => j.decision === 'rejected' || j.outcome !== null);
        return found.length === userApps.length && ended.length === found.length ? d : undefined;
      },
      // About 10 s on an idle machine; a loaded 2-core one (CI beside other jobs) took over 40.
      { procs: [sc.proc, emu.proc], timeoutMs: 120_000, intervalMs: 500 },
    );
    const found = details.filter((j) => j.source === 'discovered');
    expect(found.filter((j) => j.decision === 'admitted')).toHaveLength(2);
    expect(found.filter((j) => j.decision === 'rejected')).toHaveLength(1);
    expect(found.filter((j) => j.decision === 'admitted').every((j) => j.outcome === 'met')).toBe(true);

    // Every action the sidecar would have taken is recorded as skipped, none is pending or done.
    const actions = details.flatMap((j) => j.actions);
    const kinds = new Set(actions.map((a) => a.kind));
    for (const k of ['submit', 'move-queue', 'reserve']) expect(kinds.has(k)).toBe(true);
    expect(actions.filter((a) => a.status !== 'skipped')).toEqual([]);
    // Admitted API jobs stay "accepted": they never reached the RM.
    for (const a of admitted) expect(details.find((j) => j.id === a.body.id)?.state).toBe('accepted');

    // Two more poll cycles, then the counter.
    const mark = Date.now();
    await waitFor(
      'two more poll cycles',
      async () => {
        const c = await sc.get<{ polledAt: string | null }>('/api/v1/cluster');
        return c.polledAt !== null && Date.parse(c.polledAt) > mark + 1000 ? true : undefined;
      },
      { procs: [sc.proc], timeoutMs: 10_000 },
    );
    const writes = await emu.writes();
    expect(writes.counts).toEqual({});
    expect(writes.log).toEqual([]);
    process.stdout.write(
      `shadow: ${answers.length} submissions (${admitted.length} admitted), ${found.length} apps discovered, ` +
        `${actions.length} actions recorded as skipped, RM writes: ${writes.log.length}\n`,
    );
  }, 180_000);
});
