/**
 * The sidecar and the probe against a real RM with simple authentication and anonymous calls
 * refused (every call without user.name gets 401): without rm.user they say at once what is
 * wrong and how to fix it, and send nothing more than their reads; with it, every write carries
 * the user and the RM runs the app as that user.
 */
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { EXIT } from '../../src/cli/exit-codes';
import { runProbe } from '../../src/cli/probe';
import { buildConfig } from '../../src/config/load';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { capturingLogger } from '../log-capture';
import { at, read, waitFor } from './cluster';
import { auditOf, killLive, sidecarConfig, TOKEN } from './sidecar-support';

let hadoop: RunningHadoop;

beforeAll(async () => {
  hadoop = await startHadoop({ auth: 'simple' });
}, 300_000);

afterAll(async () => {
  if (hadoop) await killLive(`${hadoop.info.rm}`).catch(() => undefined);
  await hadoop?.stop();
});

async function cycles(running: RunningSidecar, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await running.sidecar.runOnce();
    await running.sidecar.runOnceSettled();
  }
}

describe('without rm.user', () => {
  it('probe fails at once with the 401 and how to fix it', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runProbe(
      { urls: [hadoop.info.rm], format: 'json', output: 'text', timeoutMs: 10_000 },
      { out: (t) => out.push(t), err: (t) => err.push(t) },
    );
    // docs/cli.md's table: an RM that answered an error is something probe needs being unavailable.
    expect(code).toBe(EXIT.unavailable);
    expect(out).toEqual([]);
    expect(err.join('')).toMatch(
      /^probe failed: RM_AUTH_REQUIRED: RM refused an anonymous call with 401 \(authentication required\): set rm\.user/,
    );
  });

  it('start warns at once, /readyz names the authentication problem, and nothing is written over 5 cycles', async () => {
    const log = capturingLogger('info');
    const running = await startSidecar(buildConfig(sidecarConfig(hadoop.info)), {
      logger: log.logger,
      manualPolling: true,
    });
    try {
      expect(log.records.find((r) => r.level === 'warn')?.message).toMatch(/^rm\.user is not set/);
      const writesBefore = auditOf(hadoop.info).filter(
        (a) => a.operation !== 'Get Applications Request',
      ).length;
      await cycles(running, 5);
      const ready = await fetch(`${running.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { reason: string };
      expect(body.reason).toMatch(
        /^RM refuses the sidecar \(authentication\): RM refused an anonymous call with 401/,
      );
      // A submission is not decided blind: the sidecar has not seen the cluster.
      const answer = await fetch(`${running.url}/api/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'x',
          user: 'alice',
          deadline: 600,
          maps: 1,
          reduces: 1,
          inputBytes: 1,
          dryRun: true,
        }),
      });
      expect(answer.status).toBe(503);
      expect(auditOf(hadoop.info).filter((a) => a.operation !== 'Get Applications Request')).toHaveLength(
        writesBefore,
      );
    } finally {
      await running.close();
    }
  });
});

describe('with rm.user', () => {
  it('reads and writes as that user: the RM runs the submitted app as alice', async () => {
    const running = await startSidecar(buildConfig(sidecarConfig(hadoop.info, { user: 'alice' })), {
      logger: capturingLogger('info').logger,
      manualPolling: true,
    });
    try {
      await cycles(running, 1);
      expect(((await (await fetch(`${running.url}/readyz`)).json()) as { ready: boolean }).ready).toBe(true);
      const res = await fetch(`${running.url}/api/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'as-alice',
          user: 'alice',
          deadline: 3600,
          maps: 2,
          reduces: 1,
          inputBytes: 16 << 20,
          yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
        }),
      });
      expect(res.status).toBe(201);
      const id = ((await res.json()) as { id: string }).id;
      const appId = await waitFor('the app', async () => {
        await cycles(running, 1);
        return running.ledger.getJob(id)?.appId ?? undefined;
      });
      const app = await read(`${hadoop.info.rm}/ws/v1/cluster/apps/${appId}`, 'json', 'alice');
      expect(at(app, 'app.user')).toBe('alice');
      expect(at(app, 'app.queue')).toBe('root.realtime');
      expect(
        auditOf(hadoop.info, { app: appId, operation: 'Submit Application Request' }).map((a) => a.user),
      ).toEqual(['alice']);
    } finally {
      await running.close();
    }
  });
});
