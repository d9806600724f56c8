/**
 * `run` passes its command's output on and reports the app ids it names (PUT .../client with
 * appId), so that the sidecar binds the ticket at once: in-process, the sidecar a fetch stub.
 */
import { PassThrough } from 'node:stream';
import { runWithTicket, type RunOptions } from '../../src/cli/run';

const TICKET = {
  id: 'dl-7',
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
  queue: 'realtime',
  priority: 3,
  labelExpression: null,
  tags: ['sidecar-id:dl-7'],
  mapreduce: ['-Dmapreduce.job.queuename=realtime'],
  spark: [],
  env: { YSS_TICKET_ID: 'dl-7' },
};

/** The sidecar as a fetch: admits with the ticket, takes every report, shows the ticket waiting. */
function sidecar() {
  const calls: Array<{ method: string; path: string; body: unknown }> = [];
  const f = (async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method: init.method ?? 'GET', path, body });
    if (init.method === 'POST')
      return new Response(JSON.stringify({ id: 'dl-7', decision: 'admitted', ticket: TICKET }), {
        status: 201,
      });
    return new Response(JSON.stringify({ id: 'dl-7', ticket: { status: 'waiting' } }), { status: 200 });
  }) as unknown as typeof fetch;
  return { f, calls };
}

const options: RunOptions = { sidecar: 'http://sc:8080', token: 't', deadline: 600, maps: 1, reduces: 0 };

/** A stream that keeps what is written to it. */
function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

test("reports the app ids the command's output names, once each, between its running and exited reports", async () => {
  const { f, calls } = sidecar();
  const out = sink();
  const err = sink();
  const script = [
    'echo "INFO impl.YarnClientImpl: Submitted application application_1700000000000_0007" >&2',
    'echo "INFO mapreduce.Job: Running job: job_1700000000000_0007"',
    'echo "INFO mapreduce.Job: tracking http://rm:8088/proxy/application_1700000000000_0007/" >&2',
    'printf "then application_1700000000000_0008"',
  ].join('; ');
  const code = await runWithTicket(options, ['sh', '-c', script], {
    err: () => {},
    fetch: f,
    stdout: out.stream,
    stderr: err.stream,
  });
  expect(code).toBe(0);
  const reports = calls.filter((c) => c.method === 'PUT').map((c) => c.body);
  expect(reports[0]).toEqual({ state: 'running' });
  // stdout and stderr are two pipes: which of their ids comes first is not fixed.
  expect(reports.slice(1, -1)).toEqual(
    expect.arrayContaining([
      { state: 'running', appId: 'application_1700000000000_0007' },
      { state: 'running', appId: 'application_1700000000000_0008' },
    ]),
  );
  expect(reports).toHaveLength(4);
  expect(reports.at(-1)).toEqual({ state: 'exited', exitCode: 0 });
  expect(calls.every((c) => c.method !== 'PUT' || c.path === '/api/v1/jobs/dl-7/client')).toBe(true);
  // The output is passed on as it was, each stream to its own.
  expect(out.text()).toBe(
    'INFO mapreduce.Job: Running job: job_1700000000000_0007\nthen application_1700000000000_0008',
  );
  expect(err.text()).toContain('Submitted application application_1700000000000_0007\n');
});

test('reports nothing more for a command whose output names no app', async () => {
  const { f, calls } = sidecar();
  const code = await runWithTicket(options, ['sh', '-c', 'echo quiet'], {
    err: () => {},
    fetch: f,
    stdout: sink().stream,
    stderr: sink().stream,
  });
  expect(code).toBe(0);
  const puts = calls.filter((c) => c.method === 'PUT').map((c) => c.body);
  expect(puts).toEqual([{ state: 'running' }, { state: 'exited', exitCode: 0 }]);
});
