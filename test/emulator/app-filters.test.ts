/**
 * The filters of GET /apps (test/yarn/app-filters.ts) on the emulator, as the real RM applies
 * them (test/hadoop/conformance.test.ts runs the same cases against it).
 */
import { RmRemoteError } from '../../src/errors/rm-remote';
import { amCommand } from '../../src/yarn/submission';
import { describeAppFilterConformance } from '../yarn/app-filters';
import { client, defaultEmulatorConfig, harness } from './helpers';

let advance: (seconds: number) => void = () => undefined;

describeAppFilterConformance(
  'emulator',
  async () => {
    const h = await harness();
    advance = h.advance;
    return { url: h.emu.url, close: () => h.emu.close() };
  },
  { tick: () => advance(1) },
);

describe('deSelects on an RM that knows only resourceRequests', () => {
  it('the client asks again without a member the RM refused, and leaves it out of later reads', async () => {
    const h = await harness({ config: defaultEmulatorConfig({ deSelectTypes: ['resourceRequests'] }) });
    const calls: string[] = [];
    const rm = client(h.emu.url, 'json', {
      onCall: (c: { path: string; status?: number }) => calls.push(`${c.status}`),
    });
    try {
      const { applicationId } = await rm.newApplication();
      await rm.submitApp({
        applicationId,
        name: 'old-rm',
        queue: 'default',
        tags: ['old-rm'],
        amResource: { memoryMB: 512, vcores: 1 },
        am: amCommand('sleep 300'),
      });
      h.advance(2);
      calls.length = 0;
      const q = { applicationTags: ['old-rm'], deSelects: ['resourceRequests', 'timeouts', 'resourceInfo'] };
      const first = await rm.apps(q);
      expect(first.map((a) => a.id)).toEqual([applicationId]);
      // timeouts refused, then resourceInfo, then the read with resourceRequests alone.
      expect(calls).toEqual(['400', '400', '200']);
      calls.length = 0;
      expect((await rm.apps(q)).map((a) => a.id)).toEqual([applicationId]);
      expect(calls).toEqual(['200']);
      // A member no RM knows is dropped the same way; any other 400 is the caller's.
      calls.length = 0;
      expect(await rm.apps({ applicationTags: ['old-rm'], deSelects: ['noSuchMember'] })).toHaveLength(1);
      expect(calls).toEqual(['400', '200']);
      const bad = rm.apps({ states: ['NOT_A_STATE'], deSelects: ['resourceRequests'] });
      await expect(bad).rejects.toBeInstanceOf(RmRemoteError);
    } finally {
      await h.emu.close();
    }
  });
});
