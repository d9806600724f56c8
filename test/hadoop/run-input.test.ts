/**
 * `yarn-sched-sidecar run --input` without --maps against the shared real cluster: files of known
 * sizes are written to HDFS in 1 MB blocks (the NameNode's smallest) through WebHDFS; the sidecar
 * derives the maps from them, and Hadoop's own TextInputFormat.getSplits, run on the same files
 * from a small Java program, makes the same splits. The client is MapredTestDriver, a
 * ProgramDriver: the ticket's options must land after its program name (`sleep`), or the
 * driver answers "Unknown program" and exits 255; the app the RM reports carries them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { spawnCli } from '../e2e/support/procs';
import { at, http, list, read, runHadoopClient, sharedCluster, waitFor } from './cluster';
import { killLive, sidecarConfig, TOKEN } from './sidecar-support';

const info = sharedCluster();
const MB = 1024 * 1024;
const DIR = '/user/alice/run-input';
const DRIVER = 'org.apache.hadoop.test.MapredTestDriver';
/** 2.5 MB: 1 + 1 + 0.5 MB; 1.05 MB: one split (within the 1.1 slop); 0 B: one empty split. */
const SLOP_BYTES = 1_101_005;
const FILES = [
  { name: 'part-0', bytes: 2.5 * MB },
  { name: 'part-1', bytes: SLOP_BYTES },
  { name: 'part-2', bytes: 0 },
];
const SPLITS = [MB, MB, 0.5 * MB, SLOP_BYTES, 0];

/** PUT a body with node:http (the DataNode answers 100 Continue first); resolves with the status. */
function putBytes(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function createFile(path: string, bytes: number): Promise<void> {
  const create = await http(`${info.webhdfs}/webhdfs/v1${path}?op=CREATE&overwrite=true&blocksize=${MB}`, {
    method: 'PUT',
    user: 'alice',
  });
  expect(create.status).toBe(307);
  expect(await putBytes(create.location!, Buffer.alloc(bytes, 7))).toBe(201);
}

/** Hadoop's TextInputFormat.getSplits over `dir`, from the client's configuration: each split's length. */
const SPLITTER = `
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;

public class Splits {
  public static void main(String[] args) throws Exception {
    Job job = Job.getInstance(new Configuration());
    FileInputFormat.addInputPath(job, new Path(args[0]));
    StringBuilder out = new StringBuilder("SPLITS");
    for (InputSplit s : new TextInputFormat().getSplits(job)) out.append(' ').append(s.getLength());
    System.out.println(out);
  }
}
`;

let running: RunningSidecar;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'yss-run-input-'));
  for (const f of FILES) await createFile(`${DIR}/${f.name}`, f.bytes);
  await createFile(`${DIR}/_SUCCESS`, 0);
  running = await startSidecar(
    buildConfig(sidecarConfig(info, { user: 'alice', extra: { loop: { pollCron: '* * * * * *' } } })),
    { logger: silentLogger() },
  );
  await waitFor('the sidecar to be ready', async () =>
    (await fetch(`${running.url}/readyz`)).status === 200 ? true : undefined,
  );
}, 120_000);

afterAll(async () => {
  await running?.close();
  await killLive(info.rm);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

it("Hadoop's own TextInputFormat splits the files as the sidecar does: 3 + 1 + 1 splits", async () => {
  const source = join(tmp, 'Splits.java');
  writeFileSync(source, SPLITTER);
  const r = await runHadoopClient(info, [source, DIR], 120_000);
  if (r.code !== 0) throw new Error(`Splits.java exited ${r.code}:\n${r.stderr.slice(-3000)}`);
  const line = /^SPLITS(.*)$/m.exec(r.stdout)?.[1] ?? '';
  expect(line.trim().split(' ').map(Number)).toEqual(SPLITS);
}, 180_000);

it('run --input without --maps: the sidecar derives 5 maps, and MapredTestDriver gets its options after `sleep`', async () => {
  const p = spawnCli(
    'run',
    [
      'run',
      '--deadline',
      '10m',
      '--input',
      DIR,
      '--',
      'java',
      '-cp',
      info.clientClasspath,
      DRIVER,
      'sleep',
      '-Dmapreduce.job.reduces=0',
      '-m',
      '1',
      '-r',
      '0',
      '-mt',
      '500',
    ],
    { YSS_URL: running.url, YSS_TOKEN: TOKEN, HADOOP_USER_NAME: 'alice' },
  );
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 150_000);
  const code = await p.exited;
  clearTimeout(timer);
  const out = p.output();
  // A job this short may end before its client's first status read; the client then asks the
  // JobHistory server, which may not have loaded the job yet and answers "Unknown Job": a race of
  // Hadoop's own client (it exits 255). What is checked below is the app as the RM reports it.
  if (code !== 0 && !out.includes('Unknown Job')) throw new Error(`run exited ${code}:\n${out.slice(-4000)}`);
  expect(out).not.toContain('Unknown program');
  expect(out).toContain('run: maps: 5, one per split of the input (read by the sidecar from WebHDFS)');
  const id = /run: admitted as (dl-[0-9a-f]+)/.exec(out)![1]!;
  const job = (await (
    await fetch(`${running.url}/api/v1/jobs/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as { maps: number; reduces: number; inputBytes: number };
  expect(job).toMatchObject({ maps: 5, reduces: 0, inputBytes: FILES.reduce((a, f) => a + f.bytes, 0) });
  // The RM's report of the app SleepJob submitted: the ticket's queue and tag reached it.
  const apps = list(
    at(
      await read(`${info.rm}/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(`sidecar-id:${id}`)}`),
      'apps.app',
    ),
  ) as Array<Record<string, unknown>>;
  expect(apps).toHaveLength(1);
  expect(apps[0]).toMatchObject({ name: 'Sleep job', queue: 'root.realtime', finalStatus: 'SUCCEEDED' });
}, 240_000);
