import { prettyLine, resolveLogFormat } from './log-format';

describe('resolveLogFormat', () => {
  it('auto is pretty on a terminal and JSON otherwise; explicit settings win', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });
});

describe('prettyLine', () => {
  const time = Date.UTC(2026, 10, 27, 10, 41, 7, 512);

  it('writes time, level, context, message and the other fields as key=value', () => {
    const line = prettyLine(
      {
        level: 40,
        time,
        service: 'tape-gateway',
        context: 'key-balance',
        msg: 'the key is short',
        lamports: 5000,
        key: 'Abc',
        note: 'two words',
        ok: false,
        detail: { a: 1 },
        missing: undefined,
      },
      { colour: false, utc: true },
    );
    expect(line).toBe(
      '10:41:07.512 WARN  key-balance  the key is short lamports=5000 key=Abc ' +
        'note="two words" ok=false detail={"a":1}\n',
    );
  });

  it('a record without a message shows its fields, and a trace goes below, indented', () => {
    const line = prettyLine(
      { level: 50, time, context: 's3', event: 'failed', trace: 'Error: x\n    at f' },
      { colour: false, utc: true },
    );
    expect(line).toBe('10:41:07.512 ERROR s3  event=failed\n    Error: x\n        at f\n');
  });

  it('the ready line is its message alone', () => {
    const msg = 'tape-gateway 1.0.0 ready: http://127.0.0.1:8080 (…)';
    expect(
      prettyLine(
        { level: 30, time, context: 'gateway', event: 'ready', msg, url: 'x' },
        { colour: true },
      ),
    ).toBe(`${msg}\n`);
  });

  it('colours the level and dims the time only when asked', () => {
    const line = prettyLine({ level: 50, time, msg: 'boom' }, { colour: true, utc: true });
    expect(line).toBe('\x1b[2m10:41:07.512\x1b[0m \x1b[31mERROR\x1b[0m boom\n');
    expect(prettyLine({ level: 30, time, msg: 'ok' }, { colour: true, utc: true })).toBe(
      '\x1b[2m10:41:07.512\x1b[0m INFO  ok\n',
    );
  });
});
