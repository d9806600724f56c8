/**
 * `yarn-sched-sidecar run` end to end: the emulated RM and the sidecar as processes on loopback,
 * `run` as a third, and a fake MapReduce client (test/cli/fake-client/hadoop) that submits an app
 * with the -D options it is given through the RM's REST API, as `hadoop jar` would.
 */
import { join } from 'node:path';
import { AppIdScanner, clientKind, parseDeadline, withTicket, type RunTicket } from '../../src/cli/run';
import { decodeTags } from '../../src/yarn/tags';
import {
  MB,
  REPO,
  spawnCli,
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

const TICKET: RunTicket = {
  id: 'dl-1',
  expiresAt: '2026-11-22T08:10:00.000Z',
  queue: 'realtime',
  priority: 10,
  labelExpression: null,
  tags: ['sidecar-id:dl-1'],
  mapreduce: ['-Dmapreduce.job.queuename=realtime', '-Dmapreduce.job.tags=sidecar-id:dl-1'],
  spark: ['--queue', 'realtime', '--conf', 'spark.yarn.tags=sidecar-id:dl-1'],
  env: { YSS_TICKET_ID: 'dl-1' },
};
const D = TICKET.mapreduce;

describe('where run puts the ticket', () => {
  it('puts generic options after the main class of hadoop jar and yarn jar', () => {
    expect(withTicket(['hadoop', 'jar', 'wc.jar', 'wordcount', '/in', '/out'], TICKET)).toEqual([
      'hadoop',
      'jar',
      'wc.jar',
      'wordcount',
      ...D,
      '/in',
      '/out',
    ]);
    expect(withTicket(['/opt/hadoop/bin/yarn', 'jar', 'x.jar', 'Main'], TICKET)).toEqual([
      '/opt/hadoop/bin/yarn',
      'jar',
      'x.jar',
      'Main',
      ...D,
    ]);
  });

  it('puts them after the main class of a java command, skipping the class path', () => {
    expect(
      withTicket(
        ['java', '-Xmx1g', '-cp', 'conf:jars/*', 'org.apache.hadoop.mapreduce.SleepJob', '-m', '2'],
        TICKET,
      ),
    ).toEqual([
      'java',
      '-Xmx1g',
      '-cp',
      'conf:jars/*',
      'org.apache.hadoop.mapreduce.SleepJob',
      ...D,
      '-m',
      '2',
    ]);
    // A path first: the manifest's Main-Class is a Tool, not a driver (run-input.test.ts).
    expect(withTicket(['java', '-jar', 'job.jar', '/in'], TICKET)).toEqual([
      'java',
      '-jar',
      'job.jar',
      ...D,
      '/in',
    ]);
  });

  it('puts spark-submit options before the application jar, and leaves other commands alone', () => {
    expect(withTicket(['spark-submit', '--class', 'Main', 'app.jar', 'x'], TICKET)).toEqual([
      'spark-submit',
      ...TICKET.spark,
      '--class',
      'Main',
      'app.jar',
      'x',
    ]);
    expect(withTicket(['./my-pipeline.sh', '-x'], TICKET)).toEqual(['./my-pipeline.sh', '-x']);
    expect(clientKind(['hadoop', 'fs', '-ls'])).toBe('other');
  });

  it('reads deadlines as durations or ISO times', () => {
    expect([parseDeadline('90s'), parseDeadline('30m'), parseDeadline('1h'), parseDeadline('2d')]).toEqual([
      90, 1800, 3600, 172_800,
    ]);
    expect(parseDeadline('600')).toBe(600);
    expect(parseDeadline('2026-11-22T09:00:00Z')).toBe('2026-11-22T09:00:00Z');
    expect(() => parseDeadline('soon')).toThrow(/a duration/);
  });
});

describe("the app ids in a client's output", () => {
  it('finds each id once, in the order the output names them', () => {
    const s = new AppIdScanner();
    expect(
      s.scan(
        'INFO impl.YarnClientImpl: Submitted application application_1700000000000_0001\n' +
          'INFO mapreduce.Job: The url to track the job: http://rm:8088/proxy/application_1700000000000_0001/\n',
      ),
    ).toEqual(['application_1700000000000_0001']);
    expect(
      s.scan('Submitted application application_1700000000000_0002 and job_1700000000000_0003\n'),
    ).toEqual(['application_1700000000000_0002']);
  });

  it('keeps an id cut at the end of a chunk until the next chunk ends it', () => {
    const s = new AppIdScanner();
    expect(s.scan('Submitted application applic')).toEqual([]);
    expect(s.scan('ation_1700000000000_00')).toEqual([]);
    expect(s.scan('12 in queue realtime\n')).toEqual(['application_1700000000000_0012']);
    // An id that ends the output is found once the output has ended.
    expect(s.scan('then application_1700000000000_0013')).toEqual([]);
    expect(s.end()).toEqual(['application_1700000000000_0013']);
    expect(s.end()).toEqual([]);
  });
});

describe('run against the emulated RM', () => {
  let emu: EmulatorProc;
  let sc: SidecarProc;
  let tmp: ReturnType<typeof tempDir>;
  const FAKE = join(REPO, 'test', 'cli', 'fake-client', 'hadoop');

  beforeAll(async () => {
    tmp = tempDir('run');
    emu = await startEmulatorProc('emulator', ['--speed', '10', '--seed', '3', '--max-priority', '10']);
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
    tmp?.cleanup();
  });

  const run = (args: string[], command: string[]) =>
    spawnCli('run', ['run', ...args, '--', ...command], {
      YSS_URL: sc.url,
      YSS_TOKEN: TOKEN,
      FAKE_RM_URL: emu.url,
    });
  const ticketOf = (out: string) => /admitted as (dl-[0-9a-f]+)/.exec(out)?.[1];
  type JobDetail = {
    state: string;
    appId: string | null;
    ticket: { status: string; appId: string | null } | null;
    decisions: Array<{ at: string; decision: string; detail: { waitedSeconds?: number; seenBy?: string } }>;
  };
  const job = (id: string) => sc.get<JobDetail>(`/api/v1/jobs/${id}`);

  it('admits, runs the client with the ticket, binds its app and exits with its code', async () => {
    const p = run(
      ['--deadline', '1h', '--maps', '2', '--reduces', '1', '--input-bytes', String(16 * MB)],
      [FAKE, 'jar', 'wc.jar', 'wordcount', '/in', '/out'],
    );
    expect(await p.exited).toBe(0);
    const out = p.output();
    const id = ticketOf(out)!;
    expect(out).toContain(`fake hadoop: jar wc.jar wordcount queue=realtime priority=10 env-ticket=${id}`);
    const appId = /submitted (application_\d+_\d+)/.exec(out)![1]!;
    const app = await emu.rm.app(appId);
    // The RM keeps the tags lower-cased; the ticket's tag still names the job.
    expect(app.applicationTags).toContain(`sidecar-id:${id}`);
    expect(decodeTags(app.applicationTags).sidecarId).toBe(id);
    expect(app.queue).toMatch(/realtime$/);
    const bound = await waitFor('the ticket to be bound', async () => {
      const j = await job(id);
      return j.ticket?.status === 'bound' ? j : undefined;
    });
    expect(bound).toMatchObject({ appId, ticket: { appId } });
    const boundDecision = bound.decisions.find((d) => d.decision === 'ticket-bound')!;
    // The client printed its app's id and run reported it; a poll (every second here) may still
    // have found the app first (test/cli/run-app-report.test.ts checks the report itself).
    const waited = boundDecision.detail.waitedSeconds!;
    // The sidecar polls every second: an app is bound within a couple of polls of appearing.
    expect(waited).toBeLessThan(10);
    process.stdout.write(`admission to binding: ${waited} s (${boundDecision.detail.seenBy})\n`);
    await waitFor('the job to end', async () => ((await job(id)).state === 'finished' ? true : undefined), {
      timeoutMs: 30_000,
    });
  }, 60_000);

  it('prints the reason and the earliest admissible deadline of a rejection and runs nothing', async () => {
    const before = (await emu.rm.apps()).length;
    const p = run(
      ['--deadline', '5s', '--maps', '40', '--reduces', '2', '--input-bytes', String(4096 * MB)],
      [FAKE, 'jar', 'wc.jar', 'wordcount', '/in', '/out'],
    );
    expect(await p.exited).toBe(75);
    expect(p.output()).toMatch(/run: rejected \(dl-[0-9a-f]+\): this job would miss its deadline/);
    expect(p.output()).toMatch(/run: earliest admissible deadline: \d{4}-\d{2}-\d{2}T/);
    expect(p.output()).not.toContain('fake hadoop');
    expect((await emu.rm.apps()).length).toBe(before);
  }, 30_000);

  it('cancels the ticket when the client fails before an app appears', async () => {
    const p = run(
      ['--deadline', '1h', '--maps', '1', '--reduces', '1', '--input-bytes', String(8 * MB)],
      [FAKE, 'jar', 'wc.jar', 'wordcount', 'fail'],
    );
    expect(await p.exited).toBe(3);
    const id = ticketOf(p.output())!;
    expect(p.output()).toContain(`run: the command exited 3: ticket ${id} cancelled`);
    expect(await job(id)).toMatchObject({ state: 'cancelled', ticket: { status: 'cancelled' } });
    // Cancelling again, or without a token, or an unknown job: typed errors.
    const del = (path: string, token: string | null = TOKEN) =>
      fetch(`${sc.url}/api/v1/jobs/${path}`, {
        method: 'DELETE',
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      }).then(async (r) => ({
        status: r.status,
        code: ((await r.json()) as { error: { code: string } }).error.code,
      }));
    expect(await del(id)).toEqual({ status: 409, code: 'TICKET_NOT_WAITING' });
    expect(await del(id, null)).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect(await del('dl-none')).toEqual({ status: 404, code: 'NOT_FOUND' });
  }, 30_000);

  it('forwards Ctrl-C to the client and cancels the ticket', async () => {
    const p = run(
      ['--deadline', '1h', '--maps', '1', '--reduces', '1', '--input-bytes', String(8 * MB)],
      [FAKE, 'jar', 'wc.jar', 'wordcount', 'hang'],
    );
    await waitFor(
      'the client to wait',
      () => (p.output().includes('fake hadoop: waiting') ? true : undefined),
      {
        procs: [p],
      },
    );
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    const id = ticketOf(p.output())!;
    expect(await job(id)).toMatchObject({ state: 'cancelled', ticket: { status: 'cancelled' } });
  }, 30_000);
});
