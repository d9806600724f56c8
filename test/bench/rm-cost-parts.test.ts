import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { idleWindowMs, perRead, type Block } from '../../bench/rm-cost/cost';
import { requestKind, startRecorder } from '../../bench/rm-cost/recorder';
import { ENDPOINT, endpointTable } from '../../bench/rm-cost/report';

describe('bench/rm-cost: the idle RM taken out of each block', () => {
  it("sizes the idle window as the reader's last block, within 1 to 10 s; the first as asked", () => {
    expect(idleWindowMs(undefined, 3000)).toBe(3000);
    expect(idleWindowMs(120.4, 3000)).toBe(1000);
    expect(idleWindowMs(4321.6, 3000)).toBe(4322);
    expect(idleWindowMs(60_000, 3000)).toBe(10_000);
  });

  it("takes the idle rate over the block's wall time out of its CPU, per read", () => {
    // 900 ms of RM CPU over 2 s of three reads, the RM idle at 150 ms a second: 600 ms of reads.
    expect(perRead(900, 2000, 150, 3)).toBeCloseTo(200, 9);
    expect(() => perRead(900, 2000, 150, 0)).toThrow(/a block of 0 reads/);
  });
});

describe("bench/rm-cost: the sidecar's requests by kind", () => {
  it('names a request by its path without ids and, for apps, by the filters it carries', () => {
    expect(requestKind('/ws/v1/cluster/metrics')).toBe('/ws/v1/cluster/metrics');
    expect(requestKind('/ws/v1/cluster/apps/application_1795926921648_0042')).toBe(
      '/ws/v1/cluster/apps/{id}',
    );
    expect(requestKind('/ws/v1/cluster/apps?deSelects=resourceRequests')).toBe('/ws/v1/cluster/apps');
    expect(
      requestKind('/ws/v1/cluster/apps?startedTimeBegin=17&deSelects=resourceRequests,timeouts,resourceInfo'),
    ).toBe('/ws/v1/cluster/apps?startedTimeBegin');
    expect(
      requestKind('/ws/v1/cluster/apps?applicationTags=a,b&states=NEW,RUNNING&deSelects=resourceRequests'),
    ).toBe('/ws/v1/cluster/apps?applicationTags&states=2');
  });

  it('passes requests through to the RM and counts them by kind, keeping the last URL of each', async () => {
    const rm = http.createServer((req, res) => {
      res.writeHead(req.url?.includes('missing') ? 404 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url: req.url, accept: req.headers.accept }));
    });
    await new Promise<void>((r) => rm.listen(0, '127.0.0.1', r));
    const recorder = await startRecorder(`http://127.0.0.1:${(rm.address() as AddressInfo).port}`);
    try {
      const get = async (p: string) => {
        const res = await fetch(`${recorder.url}${p}`, { headers: { Accept: 'application/json' } });
        return { status: res.status, body: (await res.json()) as { url: string; accept: string } };
      };
      await get('/ws/v1/cluster/metrics');
      await get('/ws/v1/cluster/apps?startedTimeBegin=1');
      const last = await get('/ws/v1/cluster/apps?startedTimeBegin=2');
      expect(last).toEqual({
        status: 200,
        body: { url: '/ws/v1/cluster/apps?startedTimeBegin=2', accept: 'application/json' },
      });
      expect((await get('/ws/v1/cluster/apps/missing')).status).toBe(404);
      expect(recorder.kinds().map((k) => [k.kind, k.requests, k.lastUrl])).toEqual([
        ['/ws/v1/cluster/apps?startedTimeBegin', 2, '/ws/v1/cluster/apps?startedTimeBegin=2'],
        ['/ws/v1/cluster/metrics', 1, '/ws/v1/cluster/metrics'],
        ['/ws/v1/cluster/apps/missing', 1, '/ws/v1/cluster/apps/missing'],
      ]);
      recorder.reset();
      expect(recorder.kinds()).toEqual([]);
    } finally {
      await recorder.close();
      await new Promise((r) => rm.close(r));
    }
  });

  it("splits a cycle's RM CPU by request: count a cycle times the request's median", () => {
    const block = (reader: string, cpuMsPerRead: number, round: number): Block => ({
      reader,
      apps: 1000,
      round,
      reads: 3,
      wallMs: 100,
      rawCpuMs: cpuMsPerRead * 3,
      idleMsPerS: 0,
      idleWallMs: 1000,
      cpuMsPerRead,
      youngGcs: 0,
      youngGcMs: 0,
    });
    const blocks = [
      block(`${ENDPOINT}/ws/v1/cluster/metrics`, 1, 0),
      block(`${ENDPOINT}/ws/v1/cluster/metrics`, 3, 1),
      block(`${ENDPOINT}/ws/v1/cluster/metrics`, 2, 2),
      block(`${ENDPOINT}/ws/v1/cluster/apps?applicationTags`, 120, 0),
    ];
    const table = endpointTable(blocks, [
      { apps: 1000, kind: '/ws/v1/cluster/metrics', requests: 61, cycles: 61 },
      { apps: 1000, kind: '/ws/v1/cluster/apps?applicationTags', requests: 6, cycles: 61 },
    ]).split('\n');
    // 6 / 61 of a 120 ms read is 11.80 ms a cycle, before the metrics' 2 ms; 13.80 in all.
    expect(table.slice(2)).toEqual([
      '| 1,000 | `/ws/v1/cluster/apps?applicationTags` | 0.098 | 120.0 | 11.80 |',
      '| 1,000 | `/ws/v1/cluster/metrics` | 1.000 | 2.0 | 2.00 |',
      '| 1,000 | all | | | 13.80 |',
    ]);
  });
});
