import { GatewayConfig } from '../config/app-config';
import { AccessLog } from './access-log';

function accessLog(access_log: boolean, access_log_sample: number): AccessLog {
  return new AccessLog(Object.assign(new GatewayConfig(), { access_log, access_log_sample }));
}

describe('AccessLog', () => {
  afterEach(() => jest.restoreAllMocks());

  it('logs nothing when off, whatever the sample', () => {
    expect(accessLog(false, 1).sampled()).toBe(false);
  });

  it('logs every request at sample 1 and none at 0', () => {
    expect(accessLog(true, 1).sampled()).toBe(true);
    expect(accessLog(true, 0).sampled()).toBe(false);
  });

  it('logs about the configured fraction of requests', () => {
    const log = accessLog(true, 0.25);
    const draws = [0.1, 0.3, 0.24, 0.9];
    jest.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? 1);
    expect([log.sampled(), log.sampled(), log.sampled(), log.sampled()]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
