import { keyValueLines, tableLines } from './key-value-lines';

describe('output lines', () => {
  it('aligns values after `key:` with one space after the longest key', () => {
    expect(
      keyValueLines([
        ['tape address', 'A'],
        ['label', 'b'],
        ['epoch duration', '1h'],
      ]),
    ).toEqual(['tape address:   A', 'label:          b', 'epoch duration: 1h']);
  });

  it('prints a table with two spaces between columns, counting characters not bytes', () => {
    expect(
      tableLines(
        ['TYPE', 'SIZE', 'CONTENT-TYPE', 'NAME'],
        [
          ['object', '12', 'text/html; charset=utf-8', 'index.html'],
          ['object', '1048576', 'image/png', 'café/ünïcode name.png'],
        ],
      ),
    ).toEqual([
      'TYPE    SIZE     CONTENT-TYPE              NAME',
      'object  12       text/html; charset=utf-8  index.html',
      'object  1048576  image/png                 café/ünïcode name.png',
    ]);
  });
});
