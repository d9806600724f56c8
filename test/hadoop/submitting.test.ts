/**
 * docs/submitting.md's examples of `run` and of a REST submission, run as written against the
 * shared real cluster (the discovery example's path, a real SleepJob found by its tags and
 * moved, is sidecar.test.ts's; test/docs/submitting.test.ts runs all three on the emulator). `hadoop`
 * is what Hadoop's own bin/hadoop runs for `hadoop jar`: org.apache.hadoop.util.RunJar on the
 * cluster's client class path; HADOOP_HOME's share/hadoop/mapreduce holds the cluster's own
 * jobclient tests jar (the `sleep` job). Each check reads what the RM reports.
 */
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { docExamples, exampleBin, runExample, type ExampleBin } from '../docs/examples';
import { at, list, read, sharedCluster, waitFor } from './cluster';
import { killLive, sidecarConfig, TOKEN } from './sidecar-support';

const info = sharedCluster();
const examples = docExamples('docs/submitting.md');
/** The folder of the cluster's jars (the class path's `lib/*`). */
const lib = info.classpath
  .split(':')
  .find((p) => p.endsWith('/*'))!
  .slice(0, -2);

let sidecar: RunningSidecar;
let bin: ExampleBin;

beforeAll(async () => {
  bin = exampleBin(
    {
      script: [
        '#!/bin/sh',
        "# `hadoop jar JAR [MAIN] ARGS` as Hadoop's bin/hadoop runs it.",
        'if [ "$1" != jar ]; then echo "hadoop: only hadoop jar here" >&2; exit 2; fi',
        'shift',
        `exec java -Xmx256m -cp '${info.clientClasspath}' org.apache.hadoop.util.RunJar "$@"`,
        '',
      ].join('\n'),
    },
    [`${lib}/hadoop-mapreduce-client-jobclient-${info.version}-tests.jar`],
  );
  sidecar = await startSidecar(
    buildConfig(sidecarConfig(info, { user: 'alice', extra: { loop: { pollCron: '* * * * * *' } } })),
    { logger: silentLogger() },
  );
  await waitFor('the sidecar to be ready', async () =>
    (await fetch(`${sidecar.url}/readyz`)).status === 200 ? true : undefined,
  );
}, 60_000);

afterAll(async () => {
  await sidecar?.close();
  bin?.cleanup();
  // The shared cluster's queues are small: leave no app of these tests holding a container.
  await killLive(info.rm);
}, 60_000);

const run = async (name: string) => {
  const r = await runExample(examples.get(name)!, bin, { YSS_URL: sidecar.url, YSS_TOKEN: TOKEN }, 170_000);
  if (r.code !== 0) throw new Error(`example ${name} exited ${r.code}:\n${r.stderr.slice(-4000)}`);
  return r;
};

type Job = {
  id: string;
  source: string;
  decision: string;
  queue: string | null;
  appId: string | null;
  outcome: string | null;
  ticket: { status: string; appId: string | null } | null;
};

async function job(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${sidecar.url}/api/v1/jobs${path}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return (await res.json()) as Record<string, unknown>;
}

async function rmApp(id: string): Promise<Record<string, unknown>> {
  return at(await read(`${info.rm}/ws/v1/cluster/apps/${id}`), 'app') as Record<string, unknown>;
}

/** The apps the RM was given since `sinceMs` (the cluster runs one test file at a time). */
async function appsSince(sinceMs: number): Promise<Array<Record<string, unknown>>> {
  return list(
    at(await read(`${info.rm}/ws/v1/cluster/apps?startedTimeBegin=${sinceMs}`), 'apps.app'),
  ) as Array<Record<string, unknown>>;
}

it('run: the sleep job runs under its ticket, in realtime, bound and met', async () => {
  const since = Date.now();
  const r = await run('run');
  const ticket = /run: admitted as (dl-[0-9a-f]+)/.exec(r.stderr)![1]!;
  const apps = await appsSince(since);
  expect(apps).toHaveLength(1);
  const appId = String(apps[0]!.id);
  const app = await rmApp(appId);
  expect(app).toMatchObject({ queue: 'root.realtime', state: 'FINISHED', finalStatus: 'SUCCEEDED' });
  expect(String(app.applicationTags).split(',')).toContain(`sidecar-id:${ticket}`);
  const done = await waitFor('the job to be met', async () => {
    const j = (await job(`/${ticket}`)) as Job;
    return j.outcome !== null ? j : undefined;
  });
  expect(done).toMatchObject({ outcome: 'met', appId, ticket: { status: 'bound', appId } });
}, 240_000);

it('REST with yarnSubmission: the sidecar submits the app into realtime', async () => {
  const r = await run('rest');
  const answer = JSON.parse(r.stdout) as { id: string; decision: string };
  expect(answer.decision).toBe('admitted');
  const appId = await waitFor(
    'the submission',
    async () => ((await job(`/${answer.id}`)) as Job).appId ?? undefined,
  );
  // The app id is recorded before the submission is sent (record before, confirm after): the
  // RM knows the app a moment later.
  const app = await waitFor('the RM to have the app', () => rmApp(appId));
  expect(app).toMatchObject({ name: 'nightly-export', queue: 'root.realtime', user: 'alice' });
  expect(String(app.applicationTags).split(',')).toContain(`sidecar-id:${answer.id}`);
}, 60_000);
