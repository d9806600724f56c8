/**
 * The RM conformance suite (test/yarn/conformance.ts), the one the fixture server passes, run
 * against the emulator in JSON and XML: the client sees the same shapes from both.
 */
import { describeRmConformance } from '../yarn/conformance';
import { client, conformanceQueues, defaultEmulatorConfig, harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';

describeRmConformance('emulator', async () => {
  const h = await harness({ config: defaultEmulatorConfig({ queues: conformanceQueues() }) });
  const rm = client(h.emu.url);
  // Apps in several states. The suite moves and kills the first app listed, so the first one
  // (80 GB in 8 maps) is still running when the later, small one has finished.
  const seeds = [
    ['maps:8', `input-bytes:${80 * 2 ** 30}`],
    ['maps:2', 'reduces:1'],
    ['maps:4', 'type:gpu'],
  ];
  for (const [i, tags] of seeds.entries()) {
    const { applicationId } = await rm.newApplication();
    await rm.submitApp({
      applicationId,
      name: `seed-${i}`,
      queue: i === 2 ? 'realtime' : 'default',
      tags,
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('sleep 1'),
    });
    h.advance(i === 1 ? 120 : 1);
  }
  return { url: h.emu.url, close: () => h.emu.close() };
});
