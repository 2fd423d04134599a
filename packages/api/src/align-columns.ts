/** SGR escape sequences (colours, bold): they take no room on a terminal. */
const SGR = new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g');

/**
 * Rows as kubectl prints them: every column padded to its widest cell (colour codes do not
 * count), three spaces between columns, no trailing blanks. Returns one line per row, each
 * ending in a newline.
 */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const width = (cell: string): number => cell.replace(SGR, '').length;
  const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, width(cell))), []);
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
        .join('   ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
