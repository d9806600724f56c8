/**
 * The filters of GET /apps (test/yarn/app-filters.ts) on the emulator, as the real RM applies
 * them (test/hadoop/conformance.test.ts runs the same cases against it).
 */
import { describeAppFilterConformance } from '../yarn/app-filters';
import { harness } from './helpers';

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
