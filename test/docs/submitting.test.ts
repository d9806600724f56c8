/**
 * docs/submitting.md's run, discovery and REST examples, run as written against the emulated RM and the sidecar
 * (processes on loopback, as in test/e2e). `hadoop` is test/cli/fake-client/hadoop: it submits an
 * app with the -D options it is given through the RM's REST API, as `hadoop jar` would, and the
 * emulator runs it from its tags. test/hadoop/submitting.test.ts runs them on a real Hadoop.
 */
import { join } from 'node:path';
import { decodeTags } from '../../src/yarn/tags';
import {
  REPO,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  TOKEN,
  waitFor,
  waitReady,
  type EmulatorProc,
  type SidecarProc,
} from '../e2e/support/procs';
import { docExamples, exampleBin, runExample, type ExampleBin } from './examples';

const PAGE = 'docs/submitting.md';
const examples = docExamples(PAGE);

type JobDetail = {
  id: string;
  source: string;
  decision: string;
  queue: string | null;
  appId: string | null;
  reduces: number;
  ticket: { status: string; appId: string | null } | null;
};

it('docs/submitting.md has its four examples, in the order of the page', () => {
  // The Spark example needs a real Spark: test/hadoop/spark.test.ts runs it.
  expect([...examples.keys()]).toEqual(['run', 'spark', 'discovery', 'rest']);
  expect(examples.get('spark')).toMatch(/^yarn-sched-sidecar run --deadline .* -- \\\n {2}spark-submit /);
  expect(examples.get('run')).toMatch(/^yarn-sched-sidecar run --deadline .* -- \\\n {2}hadoop jar /);
  expect(examples.get('discovery')).toContain('-Dmapreduce.job.tags=deadline:$deadline,');
  expect(examples.get('rest')).toContain('"yarnSubmission"');
});

describe('docs/submitting.md against the emulated RM', () => {
  let emu: EmulatorProc;
  let sc: SidecarProc;
  let tmp: ReturnType<typeof tempDir>;
  let bin: ExampleBin;

  beforeAll(async () => {
    tmp = tempDir('submitting');
    bin = exampleBin({ link: join(REPO, 'test', 'cli', 'fake-client', 'hadoop') });
    // At 4 times real speed the discovered app runs for several seconds: the sidecar, polling
    // every second, sees it live even on a busy machine (an app found already ended is history).
    emu = await startEmulatorProc('emulator', ['--speed', '4', '--seed', '5']);
    sc = await startSidecarProc('sidecar', {
      rmUrls: [emu.url],
      jhsUrl: emu.jhsUrl,
      ledgerPath: join(tmp.dir, 'ledger.db'),
      config: {
        admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.5, reduceSecondsPerMb: 0.5 } },
      },
    });
    await waitReady(sc, [sc.proc, emu.proc]);
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    bin?.cleanup();
    tmp?.cleanup();
  });

  const run = (name: string) =>
    runExample(examples.get(name)!, bin, { YSS_URL: sc.url, YSS_TOKEN: TOKEN, FAKE_RM_URL: emu.url }, 60_000);
  const job = async (id: string) => {
    const res = await fetch(`${sc.url}/api/v1/jobs/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return (await res.json()) as JobDetail;
  };
  const jobOfApp = async (appId: string) => {
    const res = await fetch(`${sc.url}/api/v1/jobs?limit=100`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return ((await res.json()) as { jobs: JobDetail[] }).jobs.find((j) => j.appId === appId);
  };

  it('1. run: admitted, the client runs with the ticket, its app is bound in realtime', async () => {
    const r = await run('run');
    expect(r).toMatchObject({ code: 0 });
    const id = /run: admitted as (dl-[0-9a-f]+)/.exec(r.stderr)![1]!;
    const appId = /fake hadoop: submitted (application_\d+_\d+)/.exec(r.stdout)![1]!;
    // The fake client saw the ticket's options after the main class (`sleep`).
    expect(r.stdout).toContain('fake hadoop: jar ');
    expect(r.stdout).toMatch(/ sleep queue=realtime priority=\d+ env-ticket=dl-/);
    const app = await emu.rm.app(appId);
    expect(app.queue).toMatch(/realtime$/);
    expect(decodeTags(app.applicationTags)).toMatchObject({ sidecarId: id, maps: 2, reduces: 1 });
    const bound = await waitFor('the ticket to be bound', async () => {
      const j = await job(id);
      return j.ticket?.status === 'bound' ? j : undefined;
    });
    expect(bound).toMatchObject({ decision: 'admitted', appId, ticket: { appId } });
  }, 90_000);

  it('2. discovery: the tagged app is found, admitted and moved to realtime', async () => {
    const r = await run('discovery');
    expect(r).toMatchObject({ code: 0 });
    const appId = /fake hadoop: submitted (application_\d+_\d+)/.exec(r.stdout)![1]!;
    // Submitted to the default queue with the deadline tag; the sidecar decided it on a poll.
    expect(r.stdout).toContain('queue=undefined');
    const found = await waitFor('the sidecar to discover the app', () => jobOfApp(appId));
    expect(found).toMatchObject({ source: 'discovered', decision: 'admitted', queue: 'realtime' });
    const app = await emu.rm.app(appId);
    expect(app.queue).toMatch(/realtime$/);
    expect(app.applicationTags.find((t) => t.startsWith('deadline:'))).toMatch(/^deadline:\d{4}-\d\d-\d\dt/);
  }, 90_000);

  it('3. REST with yarnSubmission: admitted, and the sidecar submits the app into realtime', async () => {
    const r = await run('rest');
    expect(r).toMatchObject({ code: 0 });
    const answer = JSON.parse(r.stdout) as { id: string; decision: string; queue: string };
    expect(answer).toMatchObject({ decision: 'admitted', queue: 'realtime' });
    const appId = await waitFor(
      'the sidecar to submit the app',
      async () => (await job(answer.id)).appId ?? undefined,
    );
    // The app id is recorded before the submission is sent (record before, confirm after): the
    // RM knows the app a moment later.
    const app = await waitFor('the RM to have the app', () => emu.rm.app(appId));
    expect(app).toMatchObject({ name: 'nightly-export' });
    expect(app.queue).toMatch(/realtime$/);
    expect(decodeTags(app.applicationTags).sidecarId).toBe(answer.id);
  }, 60_000);
});
