import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../src/api/openapi';
import { startDemo, type RunningDemo } from '../../src/cli/demo';
import { SLEEP_AM } from '../yarn-submission';

/**
 * `npm start` (the demo) over real HTTP on ephemeral ports: every job of the stream gets a
 * decision (none is refused because the sidecar has not polled yet), and the sidecar's answers
 * carry only fields the OpenAPI document describes, with the statuses it gives them.
 */
describe('demo', () => {
  let demo: RunningDemo;
  const lines: string[] = [];

  beforeAll(async () => {
    demo = await startDemo({
      port: 0,
      rmPort: 0,
      jhsPort: 0,
      speed: 10,
      jobs: 2,
      intervalMs: 10,
      seed: 1,
      out: (line) => lines.push(line),
    });
    await demo.submitted;
  });
  afterAll(async () => {
    await demo.stop();
  });

  it('keeps its ledger in a temporary folder, removed when it stops', async () => {
    expect(existsSync(join(demo.dir, 'ledger.db'))).toBe(true);
    expect(lines).toContain(
      `Ledger:                        ${join(demo.dir, 'ledger.db')} (removed when the demo stops)`,
    );
    // A second demo, stopped at once: its folder is gone when stop() resolves.
    const other = await startDemo({
      port: 0,
      rmPort: 0,
      jhsPort: 0,
      speed: 10,
      jobs: 1,
      intervalMs: 10,
      seed: 2,
      out: () => undefined,
    });
    expect(existsSync(other.dir)).toBe(true);
    await other.stop();
    expect(existsSync(other.dir)).toBe(false);
    expect(await other.submitted).toBeLessThanOrEqual(1);
  });

  it('decides the first job of the stream, instead of answering 503 before the first poll', () => {
    const jobLines = lines.filter((l) => /^\S+-\d+ \(/.test(l));
    expect(jobLines).toHaveLength(2);
    for (const l of jobLines) expect(l).toMatch(/\): (admitted|rejected)/);
    expect(lines.filter((l) => l.includes('NOT_READY'))).toEqual([]);
  });

  const described = Object.keys(openApiDocument.components.schemas.Answer.properties);
  const post = async (job: object) => {
    const res = await fetch(`${demo.sidecar.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'alice', reduces: 1, dryRun: true, ...job }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('answers an admitted dry run 201 with only described fields', async () => {
    const { status, body } = await post({
      name: 'roomy',
      deadline: 7200,
      maps: 2,
      inputBytes: 1 << 20,
      yarnSubmission: SLEEP_AM,
    });
    expect(body.decision).toBe('admitted');
    expect(status).toBe(201);
    expect(openApiDocument.paths['/api/v1/jobs'].post.responses['201'].description).toMatch(/admitted/);
    expect(Object.keys(body).filter((k) => !described.includes(k))).toEqual([]);
  });

  it('answers a rejection 200 with only described fields', async () => {
    const { status, body } = await post({
      name: 'tight',
      deadline: 1,
      maps: 500,
      inputBytes: 500 * 2 ** 27,
      yarnSubmission: SLEEP_AM,
    });
    expect(body.decision).toBe('rejected');
    expect(status).toBe(200);
    expect(openApiDocument.paths['/api/v1/jobs'].post.responses['200'].description).toMatch(/rejected/);
    expect(Object.keys(body).filter((k) => !described.includes(k))).toEqual([]);
  });
});
