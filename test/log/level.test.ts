import { sidecarLogCapture } from '../log-capture';

/** A record field that counts how often the format reads it. */
function watched(): { field: { readonly detail: string }; reads: () => number } {
  let n = 0;
  return {
    field: {
      get detail() {
        n++;
        return 'http://user:pw@rm:8088/ws/v1/cluster';
      },
    },
    reads: () => n,
  };
}

describe('the sidecar logger', () => {
  it('drops a record below its level before redacting or serialising it', () => {
    const { logger, lines } = sidecarLogCapture('warn');
    const below = watched();
    logger.child({ component: 'sidecar' }).info('decided', { job: 'dl-1', extra: below.field });
    expect(below.reads()).toBe(0);
    expect(lines).toEqual([]);

    const at = watched();
    logger.child({ component: 'sidecar' }).warn('slow', { extra: at.field });
    expect(at.reads()).toBeGreaterThan(0);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'warn',
      message: 'slow',
      component: 'sidecar',
      extra: { detail: 'http://[redacted]@rm:8088/ws/v1/cluster' },
    });
  });

  it("returns from a level method below the level before winston's stream sees the record", () => {
    const { logger, lines } = sidecarLogCapture('info');
    const write = jest.spyOn(logger, 'write');
    logger.debug('dropped', { job: 'dl-1' });
    logger.child({ component: 'sidecar' }).debug('dropped too');
    expect(write).not.toHaveBeenCalled();
    expect(logger.debug('chained')).toBe(logger);
    logger.info('kept', { job: 'dl-2' });
    expect(write).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['kept']);
  });

  it('follows a level changed at run time, children included', () => {
    const { logger, lines } = sidecarLogCapture('warn');
    const child = logger.child({ component: 'enforcer' });
    child.info('before');
    logger.level = 'info';
    child.info('after');
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['after']);
    logger.level = 'debug';
    child.debug('at debug');
    logger.debug('root at debug');
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual([
      'after',
      'at debug',
      'root at debug',
    ]);
  });
});
