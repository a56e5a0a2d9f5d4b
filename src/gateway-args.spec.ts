import { GatewayArgsError, parseGatewayArgs } from './gateway-args';

describe('parseGatewayArgs', () => {
  it('reads --log-format in both spellings, and --help', () => {
    expect(parseGatewayArgs([])).toEqual({ help: false });
    expect(parseGatewayArgs(['--log-format', 'pretty'])).toEqual({
      help: false,
      logFormat: 'pretty',
    });
    expect(parseGatewayArgs(['--log-format=json'])).toEqual({ help: false, logFormat: 'json' });
    expect(parseGatewayArgs(['--log-format=auto', '-h'])).toEqual({
      help: true,
      logFormat: 'auto',
    });
  });

  it('refuses a wrong value, a missing value and unknown arguments, saying which', () => {
    expect(() => parseGatewayArgs(['--log-format', 'xml'])).toThrow(
      new GatewayArgsError("--log-format: expected one of auto, pretty, json, got 'xml'"),
    );
    expect(() => parseGatewayArgs(['--log-format'])).toThrow(/got nothing/);
    expect(() => parseGatewayArgs(['--port', '80'])).toThrow(/unknown argument '--port'/);
  });
});
