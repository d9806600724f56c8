/**
 * Our tags are ours: an app on the RM whose `sidecar-id:` tag names a job that is not its own
 * (a user's tag from before they were refused, or an app submitted straight to YARN claiming
 * one of ours) is never attached to that job. Tracking goes on for every other app, nothing
 * loops on a UNIQUE failure, and each oddity is logged once, not every cycle.
 */
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { JOB_LIMITS } from '../../src/core/limits';
import { defaultRegistry } from '../../src/core/registry';
import { Sidecar } from '../../src/loop/sidecar';
import { decodeTags } from '../../src/yarn/tags';
import { SqliteLedger } from '../../src/store/ledger';
import { sidecarLogCapture } from '../log-capture';
import { SLEEP_AM } from '../yarn-submission';
import { FakeRm } from './fake-rm';

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;

function setup() {
  let now = T0;
  const { logger, lines } = sidecarLogCapture();
  /** The log records so far. */
  const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const rm = new FakeRm();
  const ledger = SqliteLedger.open(':memory:', { clock: () => now });
  let n = 0;
  const sidecar = new Sidecar({
    config: buildConfig({
      admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    }),
    rm: rm.api(),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger,
    now: () => now,
    newId: () => `dl-${++n}`,
  });
  const submit = (body: Record<string, unknown>) =>
    sidecar.submit(
      parseSubmission(
        {
          name: 'r',
          user: 'alice',
          yarnSubmission: SLEEP_AM,
          maps: 1,
          reduces: 1,
          inputBytes: 128 * MB,
          ...body,
        },
        now,
      ),
      { submitter: 'ci', requestHash: JSON.stringify(body) },
    );
  const cycles = async (k: number) => {
    for (let i = 0; i < k; i++) {
      now += 5000;
      await sidecar.runOnce();
    }
  };
  const problems = () =>
    logged().filter(
      (r) => r.level === 'error' || /UNIQUE/.test(JSON.stringify(r)) || r.message === 'cycle step failed',
    );
  return { sidecar, rm, ledger, submit, cycles, logged, problems, at: () => now };
}

describe('tag collisions on the RM', () => {
  it("an app of ours that also carries a user's sidecar-id naming a rejected job stays ours; the other stays untouched", async () => {
    const { sidecar, rm, ledger, submit, cycles, problems } = setup();
    await sidecar.runOnce();
    expect((await submit({ deadline: 5 })).status).toBe(200); // dl-1: rejected, no app
    expect((await submit({ deadline: 600 })).status).toBe(201); // dl-2: admitted
    await sidecar.enforcer.drain();
    const appId = ledger.getJob('dl-2')!.appId!;
    // The app as a submission with a user tag `sidecar-id:dl-1` had it (YARN keeps no order).
    const app = rm.apps.get(appId)!;
    rm.apps.set(appId, { ...app, applicationTags: ['sidecar-id:dl-1', ...app.applicationTags] });
    await cycles(3);
    // And with the user's tag alone (ours lost): the recorded app id still decides.
    const others = app.applicationTags.filter((t) => !t.startsWith('sidecar-id:'));
    rm.apps.set(appId, { ...app, applicationTags: ['sidecar-id:dl-1', ...others] });
    await cycles(3);
    rm.run(appId);
    await cycles(1);
    expect(ledger.getJob('dl-2')).toMatchObject({ appId, state: 'running' });
    rm.finish(appId, T0 + 60_000);
    await cycles(2);
    expect(ledger.getJob('dl-2')).toMatchObject({ appId, state: 'finished' });
    expect(ledger.getJob('dl-1')).toMatchObject({ appId: null, decision: 'rejected', state: 'rejected' });
    expect(problems()).toEqual([]);
  });

  it('an app submitted straight to YARN naming one of our jobs is not attached to it: found as its own, warned once', async () => {
    const { sidecar, rm, ledger, submit, cycles, logged, problems, at } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 600 }); // dl-1
    await sidecar.enforcer.drain();
    const ours = ledger.getJob('dl-1')!.appId!;
    const spoof = rm.external(
      ['sidecar-id:dl-1', `deadline:${new Date(at() + 3_600_000).toISOString()}`, 'maps:1', 'reduces:1'],
      'default',
      at(),
    );
    await cycles(4);
    expect(ledger.getJobByAppId(spoof)).toMatchObject({ source: 'discovered' });
    expect(ledger.getJob('dl-1')!.appId).toBe(ours);
    // The spoof ending does not end our job.
    rm.finish(spoof, at(), 'KILLED');
    await cycles(1);
    expect(ledger.getJob('dl-1')!.state).toBe('submitted');
    const warnings = logged().filter((r) => String(r.message).includes('names a job that is not its own'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ app: spoof, job: 'dl-1', jobApp: ours });
    expect(problems()).toEqual([]);
  });

  it("one app's row failing is logged once and leaves every other app tracked", async () => {
    const { sidecar, rm, ledger, submit, cycles, logged } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 600 }); // dl-1
    await submit({ deadline: 900 }); // dl-2
    await sidecar.enforcer.drain();
    const [a1, a2] = [ledger.getJob('dl-1')!.appId!, ledger.getJob('dl-2')!.appId!];
    const real = ledger.getJobByAppId.bind(ledger);
    ledger.getJobByAppId = (id: string) => {
      if (id === a1) throw new Error('UNIQUE constraint failed: jobs.app_id');
      return real(id);
    };
    rm.run(a1);
    rm.run(a2);
    await cycles(3);
    expect(ledger.getJob('dl-2')!.state).toBe('running');
    const failures = logged().filter((r) => r.message === 'could not track an app; left as it is');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ app: a1, level: 'warn' });
    expect(logged().filter((r) => r.message === 'cycle step failed')).toEqual([]);
  });
});

describe('decodeTags', () => {
  it('reads a key given twice with different values as no value: the app names no job', () => {
    expect(decodeTags(['sidecar-id:dl-1', 'sidecar-id:dl-2']).sidecarId).toBeUndefined();
    expect(decodeTags(['sidecar-id:dl-1', 'Sidecar-ID:DL-1']).sidecarId).toBe('dl-1');
    expect(decodeTags(['maps:4', 'maps:5', 'reduces:2']).maps).toBeUndefined();
  });

  it('holds counts and bytes from tags to the bounds the API holds them to', () => {
    const t = decodeTags([
      'maps:99999999999999999999',
      'reduces:1000000000',
      `input-bytes:${'9'.repeat(40)}`,
    ]);
    expect(t).toMatchObject({
      maps: JOB_LIMITS.maxMaps,
      reduces: JOB_LIMITS.maxReduces,
      inputBytes: JOB_LIMITS.maxInputBytes,
    });
  });
});
