/**
 * The sidecar is killed with SIGKILL in the middle of a stream of
 * submissions and restarted on the same ledger. Afterwards every job the API answered "admitted"
 * is on the RM exactly once (counted by its sidecar-id tag, and by the submissions the RM
 * accepted), every "rejected" one is not, and the ledger agrees with the RM.
 *
 * The emulator adds 150 ms to every answer, so enforcement runs behind the answers and the kill
 * lands with RM writes pending, some of them in flight.
 */
import { join } from 'node:path';
import { decodeTags } from '../../src/yarn/tags';
import type { AppReport } from '../../src/yarn/model';
import {
  MB,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  waitFor,
  waitReady,
  type Answer,
  type EmulatorProc,
  type SidecarProc,
} from './support/procs';
import { SLEEP_AM } from '../yarn-submission';

let emu: EmulatorProc;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('crash');
  emu = await startEmulatorProc('emulator', ['--speed', '1', '--latency-ms', '150']);
}, 60_000);

afterAll(async () => {
  await stopAll();
  tmp?.cleanup();
});

let n = 0;
/** Small jobs; every third one with a deadline no estimate can meet. */
function nextJob() {
  const i = n++;
  return {
    name: `stream-${i}`,
    user: 'carol',
    deadline: i % 3 === 2 ? 3 : 300 + i,
    maps: 2,
    reduces: 1,
    inputBytes: 2 * 8 * MB,
    yarnSubmission: SLEEP_AM,
    jobType: (['cpu', 'gpu', 'adaptive'] as const)[i % 3],
  };
}

describe('SIGKILL in the middle of a submission stream', () => {
  it('loses no admitted job and submits none twice after a restart on the same ledger', async () => {
    const ledgerPath = join(tmp.dir, 'ledger.db');
    const settings = { rmUrls: [emu.url], jhsUrl: emu.jhsUrl, ledgerPath };
    const first: SidecarProc = await startSidecarProc('sidecar-1', settings);
    await waitReady(first, [first.proc, emu.proc]);

    // Three clients submit concurrently. Once 10 answers have arrived, the sidecar is killed at
    // the moment the emulator has received a submission it has not answered yet (it is held by
    // the 150 ms latency): the RM will carry it out, and the sidecar never hears back.
    const answered: Answer[] = [];
    let failed = 0;
    let killed: Promise<void> | undefined;
    const client = async () => {
      while (killed === undefined) {
        try {
          const a = await first.submit(nextJob());
          if (a.status === 200 || a.status === 201) answered.push(a);
          else throw new Error(`unexpected ${a.status}: ${JSON.stringify(a.body)}`);
        } catch (err) {
          if (killed === undefined) throw err;
          failed++;
        }
      }
    };
    const killer = async () => {
      await waitFor('10 answers', () => (answered.length >= 10 ? true : undefined), { procs: [first.proc] });
      await waitFor(
        'a submission in flight at the RM',
        async () =>
          (await emu.writes()).log.some(
            (w) => w.method === 'POST' && w.endpoint === '/ws/v1/cluster/apps' && w.status === undefined,
          )
            ? true
            : undefined,
        { procs: [first.proc], intervalMs: 10 },
      );
      killed = first.proc.kill9();
    };
    await Promise.all([client(), client(), client(), killer()]);
    await killed;
    const appsAtKill = (await emu.rm.apps()).length;
    process.stdout.write(
      `killed after ${answered.length} answers (${failed} requests cut off); RM had ${appsAtKill} app(s)\n`,
    );

    const second = await startSidecarProc('sidecar-2', settings);
    await waitReady(second, [second.proc, emu.proc]);
    // The stream goes on against the restarted sidecar.
    for (let i = 0; i < 6; i++) answered.push(await second.submit(nextJob()));

    const admitted = answered.filter((a) => a.body.decision === 'admitted').map((a) => a.body.id!);
    const rejected = answered.filter((a) => a.body.decision === 'rejected').map((a) => a.body.id!);
    expect(admitted.length).toBeGreaterThan(5);
    expect(rejected.length).toBeGreaterThan(3);

    // Every admitted job in the ledger (answered or not) ends up with a done submit action.
    type Detail = {
      id: string;
      decision: string;
      appId: string | null;
      actions: Array<{ kind: string; status: string; attempts: number; result: unknown }>;
    };
    const ledgerJobs = await waitFor(
      'every admitted job enforced',
      async () => {
        const list = await second.get<{ jobs: Array<{ id: string }> }>('/api/v1/jobs?limit=1000');
        const details = await Promise.all(list.jobs.map((j) => second.get<Detail>(`/api/v1/jobs/${j.id}`)));
        const open = details.filter(
          (d) =>
            d.decision === 'admitted' && !d.actions.some((a) => a.kind === 'submit' && a.status === 'done'),
        );
        return open.length === 0 ? details : undefined;
      },
      { procs: [second.proc, emu.proc], timeoutMs: 30_000, intervalMs: 300 },
    );

    const onRm = new Map<string, AppReport[]>();
    for (const app of await emu.rm.apps()) {
      const id = decodeTags(app.applicationTags).sidecarId;
      if (id !== undefined) onRm.set(id, [...(onRm.get(id) ?? []), app]);
    }
    const accepted = (await emu.writes()).log.filter(
      // Handled by the RM: answered 202, or still unanswered when the sidecar died (that one
      // has no status, and the RM carried it out all the same).
      (w) =>
        w.method === 'POST' &&
        w.endpoint === '/ws/v1/cluster/apps' &&
        !w.injected &&
        (w.status === 202 || w.status === undefined),
    );
    const acceptedFor = (id: string) => accepted.filter((w) => w.body.includes(`sidecar-id:${id}`)).length;

    for (const id of admitted) {
      expect(onRm.get(id)).toHaveLength(1);
      expect(acceptedFor(id)).toBe(1);
    }
    for (const id of rejected) {
      expect(onRm.has(id)).toBe(false);
      expect(acceptedFor(id)).toBe(0);
    }
    // The ledger agrees: every answer is recorded with its decision, every app on the RM is an
    // admitted job of the ledger with that app id, and nothing else is there.
    const byId = new Map(ledgerJobs.map((d) => [d.id, d]));
    for (const a of answered) expect(byId.get(a.body.id!)?.decision).toBe(a.body.decision);
    for (const [id, apps] of onRm) {
      expect(byId.get(id)).toMatchObject({ decision: 'admitted', appId: apps[0]!.id });
    }
    const ledgerAdmitted = ledgerJobs.filter((d) => d.decision === 'admitted').map((d) => d.id);
    expect(new Set(onRm.keys())).toEqual(new Set(ledgerAdmitted));
    expect(accepted).toHaveLength(ledgerAdmitted.length);
    const retried = ledgerJobs.flatMap((d) => d.actions).filter((a) => a.kind === 'submit' && a.attempts > 1);
    const reconciled = ledgerJobs
      .flatMap((d) => d.actions)
      .filter((a) => (a.result as { reconciled?: boolean } | null)?.reconciled === true);
    // The submission in flight at the kill was found on the RM and not sent again.
    expect(reconciled.length).toBeGreaterThanOrEqual(1);
    process.stdout.write(
      `submit actions attempted more than once: ${retried.length}; found already done on the RM: ${reconciled.length}\n`,
    );
    process.stdout.write(
      `after restart: ${admitted.length} admitted answers, ${rejected.length} rejected, ` +
        `${ledgerAdmitted.length} admitted in the ledger, ${onRm.size} apps on the RM, ${accepted.length} submissions handled by the RM\n`,
    );
  });
});
