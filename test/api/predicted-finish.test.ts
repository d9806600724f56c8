/**
 * A job's predicted finish through the HTTP API: GET /api/v1/jobs/{id}, the job list and the
 * plain page at `/`, from the rows of a real SQLite ledger (the views the live sidecar answers
 * with), and the fields as the OpenAPI document describes them.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiApp } from '../../src/api/app';
import { SidecarMetrics } from '../../src/metrics';
import type { JobView } from '../../src/model/job-views';
import { silentLogger } from '../../src/log';
import { SqliteLedger } from '../../src/store/ledger';
import { LedgerService } from '../dashboard/ledger-service';
import { jobRecord } from '../store/builders';

const NOW = Date.parse('2026-11-22T08:00:00Z');
const at = (minutes: number): number => NOW + minutes * 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** Each job's row, and what the API must say of it: [predictedFinish, predictedMiss]. */
const CASES: Array<[string, Parameters<typeof jobRecord>[1], string | null, boolean]> = [
  // Running, no task read yet: the estimate is the prediction.
  ['unread', { state: 'running', estimatedFinishMs: at(20), deadlineMs: at(30) }, iso(at(20)), false],
  // Running, its tasks past their estimates: predicted 8 minutes after its deadline.
  [
    'late',
    { state: 'running', estimatedFinishMs: at(20), predictedFinishMs: at(38), deadlineMs: at(30) },
    iso(at(38)),
    true,
  ],
  // Running ahead of its estimate.
  [
    'early',
    { state: 'running', estimatedFinishMs: at(20), predictedFinishMs: at(12), deadlineMs: at(30) },
    iso(at(12)),
    false,
  ],
  // Queued (no promise made: an admit-all policy) with an estimate after its deadline.
  ['queued-late', { state: 'accepted', estimatedFinishMs: at(40), deadlineMs: at(35) }, iso(at(40)), true],
  // Rejected: no prediction.
  [
    'refused',
    { decision: 'rejected', state: 'rejected', estimatedFinishMs: at(42), deadlineMs: at(30), queue: null },
    null,
    false,
  ],
  // Ended: its last prediction is kept, and its outcome says the rest.
  [
    'ended',
    {
      state: 'finished',
      outcome: 'missed',
      estimatedFinishMs: at(-20),
      predictedFinishMs: at(-5),
      finishedMs: at(-4),
      deadlineMs: at(-10),
    },
    iso(at(-5)),
    false,
  ],
];

let server: Server;
let base: string;
let ledger: SqliteLedger;

beforeAll(async () => {
  ledger = SqliteLedger.open(':memory:', { clock: () => NOW });
  for (const [id, over] of CASES) ledger.insertJob(jobRecord(id, { arrivalMs: at(-30), ...over }));
  const app = createApiApp({
    service: new LedgerService(ledger, () => NOW),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'ci', token: 'predicted-token-0123456789' }],
    protectReads: false,
    maxBodyBytes: 1_048_576,
    now: () => NOW,
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  ledger.close();
});

describe('predictedFinish and predictedMiss in the API', () => {
  it.each(CASES)('GET /api/v1/jobs/%s', async (id, over, predictedFinish, predictedMiss) => {
    const res = await fetch(`${base}/api/v1/jobs/${id}`);
    expect(res.status).toBe(200);
    const job = (await res.json()) as JobView;
    expect(job).toMatchObject({ id, predictedFinish, predictedMiss });
    // The admission's estimate is answered as it was recorded, beside the prediction.
    expect(job.estimatedFinish).toBe(iso(over!.estimatedFinishMs!));
  });

  it('the job list carries both fields for every job', async () => {
    const { jobs } = (await fetch(`${base}/api/v1/jobs?limit=100`).then((r) => r.json())) as {
      jobs: JobView[];
    };
    expect(Object.fromEntries(jobs.map((j) => [j.id, [j.predictedFinish, j.predictedMiss]]))).toEqual(
      Object.fromEntries(CASES.map(([id, , finish, miss]) => [id, [finish, miss]])),
    );
  });

  it('the plain page shows a running job’s predicted finish, and says when it is predicted to miss', async () => {
    const html = await fetch(`${base}/`).then((r) => r.text());
    expect(html).toContain('<th>estimated finish</th><th>predicted finish</th><th>finished</th>');
    const row = (id: string) => html.split('<tr class=').find((r) => r.includes(`>${id}</a>`))!;
    expect(row('late')).toContain('<td class="miss">2026-11-22T08:38:00Z (predicted to miss)</td>');
    // Deadline, estimate, prediction.
    expect(row('early')).toContain(
      '<td>2026-11-22T08:30:00Z</td><td>2026-11-22T08:20:00Z</td><td>2026-11-22T08:12:00Z</td>',
    );
    expect(row('queued-late')).toContain('<td class="miss">2026-11-22T08:40:00Z (predicted to miss)</td>');
    expect(row('refused')).not.toContain('predicted to miss');
  });

  it('the OpenAPI document describes both as required fields of a job', async () => {
    const doc = (await fetch(`${base}/api/v1/openapi.json`).then((r) => r.json())) as {
      components: {
        schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required: string[] }>;
      };
    };
    for (const name of ['Job', 'JobDetail']) {
      const s = doc.components.schemas[name]!;
      expect(s.required).toEqual(
        expect.arrayContaining(['estimatedFinish', 'predictedFinish', 'predictedMiss']),
      );
      expect(s.properties.predictedMiss).toMatchObject({ type: 'boolean' });
      expect(JSON.stringify(s.properties.predictedFinish)).toContain('date-time');
    }
  });
});
