import path from 'node:path';
import { runProbe, type ProbeIo } from '../../src/cli/probe';
import { createLogger } from '../../src/log';
import { FIXTURE_ROOT, startFixtureServer } from './server';

/**
 * A developer demo, run with `npx tsx test/fixture-server/demo.ts`: start the fixture server (an RM stand-in answering with Hadoop's documented samples) on an ephemeral loopback port, probe
 * it as an operator would, say what was done, and stop.
 */
export async function runDemo(io: ProbeIo): Promise<number> {
  const server = await startFixtureServer({ host: '127.0.0.1', port: 0 });
  try {
    io.out(
      `Started the built-in fixture server at ${server.url}: it answers the YARN ResourceManager REST API with ` +
        `Hadoop's documented sample responses (${path.relative(process.cwd(), FIXTURE_ROOT) || '.'}/yarn-rm-api), not a live cluster.\n` +
        `Probing it as an operator would (yarn-sched-sidecar probe --rm ${server.url}):\n\n`,
    );
    const code = await runProbe(
      {
        urls: [server.url],
        format: 'json',
        output: 'text',
        timeoutMs: 5_000,
        logger: createLogger({ level: 'warn', format: 'pretty', stderr: true }),
      },
      io,
    );
    io.out(
      `\nDone: ${server.requests.length} REST calls answered by the fixture server; stopped it. ` +
        'Point the probe at a real RM with: yarn-sched-sidecar probe --rm http://<rm-host>:8088\n',
    );
    return code;
  } finally {
    await server.close();
  }
}

// Run directly (not imported by a test): the demo, its exit code the probe's.
if (require.main === module) {
  void runDemo({
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  }).then((code) => {
    process.exitCode = code;
  });
}
