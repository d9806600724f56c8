/**
 * The RM conformance suite (test/yarn/conformance.ts), the same cases the fixture server and the
 * emulated RM pass, run against the real ResourceManager in JSON and in XML. The real cluster's
 * queues stand in for the fixture's: besteffort to move to, the reservable `reserved`.
 */
import { describeAppFilterConformance } from '../yarn/app-filters';
import { describeRmConformance } from '../yarn/conformance';
import { sharedCluster, submitSleeper } from './cluster';
import { killLive } from './sidecar-support';

const info = sharedCluster();

beforeAll(async () => {
  // Live apps for the suite to read, move and kill: one per format.
  for (const name of ['conformance-json', 'conformance-xml'])
    await submitSleeper(info.rm, { user: 'alice', queue: 'besteffort', name });
});

afterAll(() => killLive(info.rm));

describeRmConformance(
  `the real RM ${info.version}`,
  async () => ({ url: info.rm, close: async () => undefined }),
  { moveTo: 'besteffort', reservationQueue: 'reserved', user: 'alice' },
);

describeAppFilterConformance(
  `the real RM ${info.version}`,
  async () => ({ url: info.rm, close: async () => undefined }),
  { user: 'alice' },
);
