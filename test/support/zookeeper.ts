import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkTools, ensureLauncher } from '../../hadoop/launch';

/**
 * A real ZooKeeper for the tests: ZooKeeper's own standalone server
 * (org.apache.zookeeper.server.ZooKeeperServerMain) on Java 17, from the jars the real-Hadoop
 * launcher's Maven build copies next to it (Hadoop's own zookeeper dependency; nothing else is
 * downloaded). One server per call, on a free loopback port, with its data in a temp folder.
 */
export interface RunningZooKeeper {
  /** host:port, the connection string. */
  connect: string;
  port: number;
  /** Stops the server (SIGKILL: a crash, as far as the clients can tell) and keeps its data. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data (after kill). */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  stop(): Promise<void>;
  output(): string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export async function startZooKeeper(opts: { log?: (m: string) => void } = {}): Promise<RunningZooKeeper> {
  checkTools();
  const jar = await ensureLauncher(undefined, opts.log);
  const classpath = join(dirname(jar), 'lib', '*');
  const dir = mkdtempSync(join(tmpdir(), 'yss-zk-'));
  const port = await freePort();
  // Short ticks: sessions of 2 s and more are accepted (ZooKeeper's floor is two ticks).
  writeFileSync(
    join(dir, 'zoo.cfg'),
    [
      'tickTime=500',
      'minSessionTimeout=1000',
      'maxSessionTimeout=60000',
      `dataDir=${join(dir, 'data')}`,
      `clientPort=${port}`,
      'clientPortAddress=127.0.0.1',
      'admin.enableServer=false',
      '4lw.commands.whitelist=ruok,stat,srvr',
      '',
    ].join('\n'),
  );
  let out = '';
  let child: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    const c = spawn(
      'java',
      ['-Xmx256m', '-cp', classpath, 'org.apache.zookeeper.server.ZooKeeperServerMain', join(dir, 'zoo.cfg')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = c;
    c.stdout!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
    c.stderr!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
    const deadline = Date.now() + 60_000;
    while (!(await portOpen(port))) {
      if (c.exitCode !== null) throw new Error(`ZooKeeper exited (${c.exitCode}):\n${out.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`ZooKeeper did not listen on ${port}:\n${out.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const kill = async (): Promise<void> => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  const onExit = (): void => {
    (child as ChildProcess | null)?.kill('SIGKILL');
  };
  process.once('exit', onExit);
  await launch();
  return {
    connect: `127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    async stop() {
      await kill();
      process.removeListener('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
    output: () => out,
  };
}
