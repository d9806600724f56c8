/**
 * `npm run hadoop [-- FLAGS]`: a real Hadoop cluster in the foreground, until Ctrl-C or until its
 * standard input closes. Prints the launcher's ready line on stdout:
 *   HADOOP_READY {"rm":"http://127.0.0.1:PORT","jhs":"...","webhdfs":"...",...}
 * and takes commands on stdin (status, kill-rm [ID] [--hard], start-rm [ID], restart-rm [ID], stop).
 * Flags are the launcher's (--auth none|simple, --priority-cap N, --ha, --recovery, --preemption on|off,
 * --nm-vcores N, --nm-memory-mb N, --realtime-capacity PCT, --max-completed-apps N,
 * --am-expiry-s S, --work-dir DIR,
 * --keep, --start-timeout S), plus --hadoop-version V (default $YSS_HADOOP_VERSION, else 3.4.3).
 * See docs/real-hadoop.md.
 */
import { spawn } from 'node:child_process';
import {
  DEFAULT_HADOOP_VERSION,
  HADOOP_VERSION_ENV,
  HadoopLauncherError,
  checkTools,
  ensureLauncher,
  launcherCommand,
} from './launch';

function fail(message: string, code: number): never {
  process.stderr.write(`npm run hadoop: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let version = process.env[HADOOP_VERSION_ENV] || DEFAULT_HADOOP_VERSION;
  const at = args.indexOf('--hadoop-version');
  if (at >= 0) {
    version = args[at + 1] ?? fail('--hadoop-version needs a value', 2);
    args.splice(at, 2);
  }
  try {
    checkTools();
    const jar = await ensureLauncher(version, (m) => process.stderr.write(`${m}\n`));
    const { command, args: javaArgs } = launcherCommand(jar, args);
    // The launcher owns the terminal: its ready and answer lines on stdout, commands from stdin.
    const child = spawn(command, javaArgs, { stdio: 'inherit' });
    let signalled = false;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        signalled = true;
        child.kill(signal);
      });
    }
    child.on('error', (err) => fail(`could not run java: ${err.message}`, 2));
    child.on('exit', (code, signal) => process.exit(signalled ? 0 : (code ?? (signal ? 1 : 0))));
  } catch (e) {
    if (e instanceof HadoopLauncherError) fail(e.message, e.code === 'TOOLS_MISSING' ? 2 : 1);
    throw e;
  }
}

void main();
