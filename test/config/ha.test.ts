/** The `ha` section: defaults, the YSS_HA_* overrides, and what HA needs (the shared ledger). */
import { buildConfig } from '../../src/config/load';
import { ValidationError } from '../../src/errors/validation';

const PG = 'postgres://yss:pw@db:5432/yss';

function issuesOf(raw: unknown, env: Record<string, string> = {}) {
  try {
    buildConfig(raw, { env });
  } catch (err) {
    if (err instanceof ValidationError) return err.issues;
    throw err;
  }
  return [];
}

test('HA is off by default, with a 5 s session under /yarn-sched-sidecar', () => {
  expect(buildConfig({}).ha).toEqual({
    enabled: false,
    zookeeper: '127.0.0.1:2181',
    path: '/yarn-sched-sidecar',
    sessionTimeoutMs: 5000,
  });
});

test('the environment sets every HA key', () => {
  const c = buildConfig(
    { ledger: { url: PG } },
    {
      env: {
        YSS_HA_ENABLED: 'true',
        YSS_HA_ZOOKEEPER: 'zk1:2181,zk2:2181/yarn',
        YSS_HA_PATH: '/sidecars/prod',
        YSS_HA_SESSION_TIMEOUT_MS: '8000',
        YSS_HA_ADVERTISE_URL: 'http://sidecar-1:8080',
        YSS_HA_ID: 'sidecar-1',
      },
    },
  );
  expect(c.ha).toEqual({
    enabled: true,
    zookeeper: 'zk1:2181,zk2:2181/yarn',
    path: '/sidecars/prod',
    sessionTimeoutMs: 8000,
    advertiseUrl: 'http://sidecar-1:8080',
    id: 'sidecar-1',
  });
});

test('ha.enabled without the shared ledger is a configuration error naming ledger.url', () => {
  const issues = issuesOf({ ha: { enabled: true } });
  expect(issues).toHaveLength(1);
  expect(issues[0]).toMatchObject({ path: 'ha.enabled' });
  expect(issues[0]!.message).toContain('ledger.url');
  // The same through the environment names the variable.
  expect(issuesOf({}, { YSS_HA_ENABLED: 'yes' })[0]).toMatchObject({
    path: 'ha.enabled',
    env: 'YSS_HA_ENABLED',
  });
  expect(issuesOf({ ha: { enabled: true }, ledger: { url: PG } })).toEqual([]);
});

test('bad HA values are named', () => {
  const paths = (raw: unknown) => issuesOf(raw).map((i) => i.path);
  expect(paths({ ha: { zookeeper: 'zk1' } })).toEqual(['ha.zookeeper']);
  expect(paths({ ha: { path: 'relative' } })).toEqual(['ha.path']);
  expect(paths({ ha: { sessionTimeoutMs: 500 } })).toEqual(['ha.sessionTimeoutMs']);
  expect(paths({ ha: { advertiseUrl: 'sidecar-1:8080' } })).toEqual(['ha.advertiseUrl']);
  expect(paths({ ha: { id: 'has space' } })).toEqual(['ha.id']);
});
