import { launcherArgs, parseEventLine } from '../../hadoop/launch';

/** The flags hadoop/launch.ts gives the Java launcher (hadoop/launcher/.../Options.java reads them). */
describe('launcherArgs', () => {
  it('leaves every option out by default: the launcher keeps Hadoop’s defaults', () => {
    expect(launcherArgs({})).toEqual([]);
  });

  it('names the RM’s ended-app limit and the AM liveness expiry when given', () => {
    expect(launcherArgs({ maxCompletedApps: 20_000, amExpirySeconds: 3600 })).toEqual([
      '--max-completed-apps',
      '20000',
      '--am-expiry-s',
      '3600',
    ]);
    // 0 is a limit of its own (the RM keeps no ended app), not "unset".
    expect(launcherArgs({ maxCompletedApps: 0 })).toEqual(['--max-completed-apps', '0']);
  });

  it('keeps the other flags in their order', () => {
    expect(launcherArgs({ auth: 'simple', nmVcores: 2, maxCompletedApps: 5, keep: true })).toEqual([
      '--auth',
      'simple',
      '--nm-vcores',
      '2',
      '--max-completed-apps',
      '5',
      '--keep',
    ]);
  });
});

describe('parseEventLine', () => {
  it('reads the ready line with the new fields', () => {
    const e = parseEventLine('HADOOP_READY {"maxCompletedApps":20000,"amExpirySeconds":600}');
    expect(e).toEqual({ event: 'HADOOP_READY', data: { maxCompletedApps: 20000, amExpirySeconds: 600 } });
    expect(parseEventLine('not an event')).toBeNull();
  });
});
