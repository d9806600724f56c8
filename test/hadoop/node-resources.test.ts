/**
 * What the NodeManagers advertise (--nm-vcores, --nm-memory-mb) and Hadoop's example jobs in the
 * launcher's build (examplesJar): the shared cluster keeps the defaults (16 vcores, 16 GB), a
 * cluster of its own gets what it was given, as the RM's /ws/v1/cluster/nodes reports it, and a
 * bad value stops the launcher at once naming the flag.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ensureLauncher,
  examplesVersion,
  launcherCommand,
  startHadoop,
  type RunningHadoop,
} from '../../hadoop/launch';
import { at, EXPECTED_VERSION, list, read, runHadoopClient, runProcess, sharedCluster } from './cluster';

const shared = sharedCluster();

async function rmNodes(rm: string): Promise<Array<{ id: string; memory: number; vcores: number }>> {
  return list(at(await read(`${rm}/ws/v1/cluster/nodes`), 'nodes.node')).map((n) => ({
    id: String(at(n, 'id')),
    memory: Number(at(n, 'totalResource.memory')),
    vcores: Number(at(n, 'totalResource.vCores')),
  }));
}

describe('the shared cluster (default node resources)', () => {
  it('advertises 16 vcores and 16 GB per NodeManager, as the ready line says', async () => {
    expect(shared.nmVcores).toBe(16);
    expect(shared.nmMemoryMb).toBe(16384);
    const nodes = await rmNodes(shared.rm);
    expect(nodes).toHaveLength(2);
    for (const n of nodes) expect(n).toMatchObject({ memory: 16384, vcores: 16 });
  });

  it("names Hadoop's example jobs jar, which runs against the cluster", async () => {
    expect(shared.examplesVersion).toBe(examplesVersion(EXPECTED_VERSION));
    expect(shared.examplesJar).not.toBeNull();
    expect(path.basename(shared.examplesJar!)).toBe(
      `hadoop-mapreduce-examples-${shared.examplesVersion}.jar`,
    );
    expect(fs.statSync(shared.examplesJar!).size).toBeGreaterThan(100_000);
    // pi with 1 map of 100 samples: the classes load from the client class path and the job runs.
    const pi = await runHadoopClient(
      shared,
      ['org.apache.hadoop.examples.QuasiMonteCarlo', '-Dmapreduce.job.queuename=realtime', '1', '100'],
      150_000,
    );
    expect(`${pi.code}\n${pi.stdout}`).toMatch(/^0\n[\s\S]*Estimated value of Pi is 3\./);
  }, 180_000);
});

describe('--nm-vcores 2 --nm-memory-mb 4096', () => {
  let hadoop: RunningHadoop;
  beforeAll(async () => {
    hadoop = await startHadoop({ nmVcores: 2, nmMemoryMb: 4096 });
  }, 300_000);
  afterAll(async () => {
    await hadoop?.stop();
  });

  it('is what the RM reports for every node, and what the ready line says', async () => {
    expect(hadoop.info.nmVcores).toBe(2);
    expect(hadoop.info.nmMemoryMb).toBe(4096);
    for (const n of hadoop.info.nodes) expect(n).toMatchObject({ vcores: 2, memoryMb: 4096 });
    const nodes = await rmNodes(hadoop.info.rm);
    expect(nodes.map((n) => n.id).sort()).toEqual(hadoop.info.nodes.map((n) => n.id).sort());
    for (const n of nodes) expect(n).toMatchObject({ memory: 4096, vcores: 2 });
  });

  it('caps the largest container at the node (4 GB, and 2 vcores instead of 4)', async () => {
    const value = async (name: string) =>
      String(at(await read(`${hadoop.info.rm}/conf?name=${name}`), 'property.value'));
    expect(await value('yarn.scheduler.maximum-allocation-vcores')).toBe('2');
    expect(await value('yarn.scheduler.maximum-allocation-mb')).toBe('4096');
  });
});

describe('bad node resources', () => {
  it.each([
    [['--nm-vcores', '0'], '--nm-vcores needs an integer >= 1, not 0'],
    [['--nm-vcores', 'many'], '--nm-vcores needs an integer >= 1, not many'],
    [['--nm-memory-mb', '512'], '--nm-memory-mb needs an integer >= 1024, not 512'],
    [['--nm-memory-mb'], '--nm-memory-mb needs a value'],
  ])(
    '%j stops the launcher with exit 2: %s',
    async (args, message) => {
      const { command, args: javaArgs } = launcherCommand(await ensureLauncher(), args);
      const r = await runProcess(command, javaArgs, { timeoutMs: 60_000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`hadoop launcher: ${message}\n`);
      expect(r.stdout).toBe('');
    },
    90_000,
  );
});
