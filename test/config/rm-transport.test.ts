import { buildConfig } from '../../src/config/load';
import { rmTransportOptions } from '../../src/config/rm-transport';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_RESPONSE_LIMITS } from '../../src/yarn/limits';
import { DEFAULT_CALL_BUDGET_MS, DEFAULT_MAX_RESPONSE_BYTES } from '../../src/yarn/transport';

describe('rmTransportOptions', () => {
  it('gives the clients every transport setting of rm, with rm.retries + 1 attempts', () => {
    // Passed through as they are: every setting but the addresses, the retries and the limits.
    const settings = {
      format: 'xml',
      user: 'yarn-admin',
      timeoutMs: 2_500,
      firstByteTimeoutMs: 1_200,
      callBudgetMs: 45_000,
      maxResponseBytes: 1_048_576,
      caFile: 'ca.pem',
    } as const;
    const config = buildConfig({
      rm: {
        ...settings,
        addresses: ['https://rm1:8090', 'https://rm2:8090'],
        responseLimits: { apps: { maxBytes: 524_288, maxItems: 2_000 } },
        retries: 0,
      },
    });
    const options = rmTransportOptions(config.rm);
    expect(options).toEqual({ ...settings, responseLimits: config.rm.responseLimits, maxAttempts: 1 });
    expect(options.responseLimits?.apps).toEqual({ maxBytes: 524_288, maxItems: 2_000 });
    expect(options.responseLimits?.info).toEqual(DEFAULT_RESPONSE_LIMITS.info);
    expect(rmTransportOptions(buildConfig({ rm: { retries: 5 } }).rm).maxAttempts).toBe(6);
  });

  it('sends no user when rm.user is empty, and four attempts by default', () => {
    const options = rmTransportOptions(buildConfig({}).rm);
    expect(options.user).toBeUndefined();
    expect(options.caFile).toBeUndefined();
    expect(options.maxAttempts).toBe(4);
    expect(options.format).toBe('json');
    expect(options.timeoutMs).toBe(10_000);
    expect(options.firstByteTimeoutMs).toBe(DEFAULT_FIRST_BYTE_TIMEOUT_MS);
    expect(options.callBudgetMs).toBe(DEFAULT_CALL_BUDGET_MS);
    expect(options.maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(options.responseLimits).toEqual(DEFAULT_RESPONSE_LIMITS);
  });
});
