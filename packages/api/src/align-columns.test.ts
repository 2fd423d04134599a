import { describe, expect, it } from 'vitest';
import { alignColumns } from './align-columns.js';

describe('alignColumns', () => {
  it.each([
    ['no rows', [], ''],
    ['one cell', [['NAME']], 'NAME\n'],
    [
      'columns padded to the widest cell, three spaces apart',
      [
        ['NAME', 'READY'],
        ['member1', '4'],
      ],
      'NAME      READY\nmember1   4\n',
    ],
    [
      'colour codes not counted in the width',
      [
        ['\x1b[32mOK\x1b[0m', 'x'],
        ['Pending', 'y'],
      ],
      '\x1b[32mOK\x1b[0m        x\nPending   y\n',
    ],
    [
      'no trailing blanks after an empty last cell',
      [
        ['a', ''],
        ['bbb', 'c'],
      ],
      'a\nbbb   c\n',
    ],
  ])('%s', (_title, rows: string[][], expected) => {
    expect(alignColumns(rows)).toBe(expected);
  });
});
