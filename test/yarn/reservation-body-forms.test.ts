/**
 * Reservation bodies in JSON: Hadoop 3.4 reads them unwrapped, 3.5 only wrapped in their root
 * (measured on real RMs of both lines, test/hadoop). The client tries unwrapped, falls back to
 * wrapped on the 3.5 refusal, and keeps the form that worked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpResourceManagerClient } from '../../src/yarn/client';

const DEF = {
  arrival: Date.UTC(2030, 0, 1),
  deadline: Date.UTC(2030, 0, 1, 1),
  name: 'r',
  interpreter: 0,
  requests: [
    {
      capability: { memoryMB: 1024, vcores: 1, extra: {} },
      numContainers: 1,
      minConcurrency: 1,
      durationMs: 60_000,
    },
  ],
};

function rm(wrappedOnly: boolean): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push(text);
      const body = JSON.parse(text) as Record<string, unknown>;
      const wrapped = Object.keys(body).length === 1 && Object.keys(body)[0]!.endsWith('-context');
      res.setHeader('content-type', 'application/json;charset=utf-8');
      if (wrapped !== wrappedOnly) {
        res.statusCode = 400;
        res.end(
          JSON.stringify({
            RemoteException: {
              exception: 'BadRequestException',
              message: 'Input ReservationDefinition should not be null',
              javaClassName: 'org.apache.hadoop.yarn.webapp.BadRequestException',
            },
          }),
        );
        return;
      }
      res.statusCode = 202;
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies }),
    ),
  );
}

it.each([
  ['3.4 (unwrapped)', false, 2, ['queue', 'reservation-id']],
  ['3.5 (wrapped)', true, 3, ['reservation-submission-context']],
] as const)(
  'an RM that reads %s bodies gets them, and keeps getting that form',
  async (_what, wrappedOnly, calls, firstKeys) => {
    const s = await rm(wrappedOnly);
    try {
      const client = new HttpResourceManagerClient({ urls: [s.url], maxAttempts: 1 });
      await client.submitReservation('reservation_1_0001', 'reserved', DEF);
      await client.deleteReservation('reservation_1_0001');
      expect(s.bodies).toHaveLength(calls);
      const last = JSON.parse(s.bodies.at(-1)!) as Record<string, unknown>;
      expect(Object.keys(last)).toEqual(wrappedOnly ? ['reservation-delete-context'] : ['reservation-id']);
      const sent = JSON.parse(s.bodies.at(wrappedOnly ? 1 : 0)!) as Record<string, unknown>;
      expect(Object.keys(sent).slice(0, firstKeys.length)).toEqual(firstKeys);
    } finally {
      await new Promise((r) => s.server.close(r));
    }
  },
);
