/**
 * The walk-through of docs/user-guide.md as data, so that a test runs the page itself
 * (test/e2e/user-guide-walkthrough.test.ts): `parseWalkthrough` reads its numbered steps into
 * the commands, files and expected outputs they contain, in order, and `normaliseOutput` removes
 * from a command's output only what differs from run to run.
 *
 * The conventions of the page that the parser reads:
 * - a step starts with a paragraph `**N. Title.**`; everything before step 1 is not a step;
 * - a ```sh block holds commands, one a line (a line ending in `\` continues on the next);
 *   `# ...` lines right after a command are what it prints;
 * - a plain ``` block right after a ```sh block is what the last command of that block prints;
 * - a ```yaml block is a file, named by the `Save as `name`:` that ends the prose before it.
 * Anything else (another language, a plain block after prose, a yaml block nobody names) is an
 * error naming the line, so that the page cannot say more than the test runs.
 */

/** A file the reader saves before the commands that follow it use it. */
export interface WalkthroughFile {
  readonly kind: 'file';
  /** The name given by `Save as `name`:`, relative to the directory the commands run in. */
  readonly name: string;
  readonly content: string;
  /** 1-based line of the page where the block starts. */
  readonly line: number;
}

/** A shell command, with what the page says it prints. */
export interface WalkthroughCommand {
  readonly kind: 'command';
  /** As written, continuation lines (`\` + newline) included: what a shell runs. */
  readonly command: string;
  /** What it prints, line by line without the final newline; undefined when the page shows nothing. */
  readonly expected: string | undefined;
  /** 1-based line of the page where the command starts. */
  readonly line: number;
}

export type WalkthroughItem = WalkthroughFile | WalkthroughCommand;

/** One numbered step: `**N. Title.**` and the blocks up to the next step. */
export interface WalkthroughStep {
  readonly number: number;
  readonly title: string;
  readonly items: readonly WalkthroughItem[];
}

const STEP = /^\*\*(\d+)\.\s+(.+?)\*\*/;
const FENCE = /^```(\S*)\s*$/;
const SAVE_AS = /Save as `([^`]+)`:\s*$/;

/** A command as one line, for messages: continuation lines joined. */
export function oneLine(command: string): string {
  return command.replace(/\s*\\\n\s*/g, ' ');
}

/**
 * The numbered steps of the section `## <heading>` of a Markdown page, in order.
 *
 * @throws Error when the section is missing, has no steps, numbers them out of order, or holds
 *   a block the conventions above do not cover (the message names the line).
 */
export function parseWalkthrough(markdown: string, heading = 'Walk-through'): WalkthroughStep[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const steps: { number: number; title: string; items: WalkthroughItem[] }[] = [];
  // Prose since the last block, to find `Save as`; and whether the last block was sh (for an output block).
  let prose: string[] = [];
  let lastShell: { commands: WalkthroughCommand[]; blankOnlySince: boolean } | undefined;
  const at = (i: number): string => `line ${i + 1}`;

  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^## /.test(line)) break;
    const step = STEP.exec(line);
    if (step !== null) {
      const number = Number(step[1]);
      if (number !== steps.length + 1) throw new Error(`${at(i)}: step ${number} follows step ${steps.length}`);
      steps.push({ number, title: (step[2] ?? '').replace(/\.$/, ''), items: [] });
      prose = [line];
      lastShell = undefined;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence === null) {
      if (line.trim() !== '') {
        prose.push(line);
        if (lastShell !== undefined) lastShell.blankOnlySince = false;
      }
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${at(i)}: a code block that never ends`);
    const body = lines.slice(i + 1, end);
    const current = steps.at(-1);
    if (current !== undefined) {
      const language = fence[1] ?? '';
      switch (language) {
        case 'sh': {
          const commands = parseShellBlock(body, i + 1);
          current.items.push(...commands);
          lastShell = { commands, blankOnlySince: true };
          break;
        }
        case 'yaml': {
          const name = SAVE_AS.exec(prose.join(' '))?.[1];
          if (name === undefined) throw new Error(`${at(i)}: a yaml block without "Save as \`<file>\`:" before it`);
          current.items.push({ kind: 'file', name, content: `${body.join('\n')}\n`, line: i + 1 });
          lastShell = undefined;
          break;
        }
        case '': {
          const command = lastShell?.blankOnlySince === true ? lastShell.commands.at(-1) : undefined;
          if (command === undefined) throw new Error(`${at(i)}: an output block that does not follow a sh block`);
          if (command.expected !== undefined) throw new Error(`${at(i)}: a second expected output for \`${oneLine(command.command)}\``);
          const index = current.items.lastIndexOf(command);
          current.items[index] = { ...command, expected: trimBlankLines(body).join('\n') };
          lastShell = undefined;
          break;
        }
        default:
          throw new Error(`${at(i)}: a \`\`\`${language} block in a step (the walk-through knows sh, yaml and output blocks)`);
      }
    }
    prose = [];
    i = end;
  }
  if (steps.length === 0) throw new Error(`section "## ${heading}" has no steps **1.** ...`);
  return steps;
}

/** The commands of a sh block whose first line is line `firstLine` (0-based) of the page. */
function parseShellBlock(body: readonly string[], firstLine: number): WalkthroughCommand[] {
  const commands: { command: string; expected: string[]; line: number }[] = [];
  for (let j = 0; j < body.length; j++) {
    const text = body[j] ?? '';
    if (text.trim() === '') continue;
    if (text.startsWith('#')) {
      const last = commands.at(-1);
      if (last === undefined) throw new Error(`line ${firstLine + j + 1}: a comment before any command of the block`);
      last.expected.push(text.replace(/^# ?/, ''));
      continue;
    }
    const line = firstLine + j + 1;
    let command = text;
    while (command.endsWith('\\') && j + 1 < body.length) command += `\n${body[++j] ?? ''}`;
    commands.push({ command, expected: [], line });
  }
  return commands.map(({ command, expected, line }) => ({
    kind: 'command',
    command,
    expected: expected.length === 0 ? undefined : expected.join('\n'),
    line,
  }));
}

function trimBlankLines(lines: readonly string[]): string[] {
  let from = 0;
  let to = lines.length;
  while (from < to && (lines[from] ?? '').trim() === '') from++;
  while (to > from && (lines[to - 1] ?? '').trim() === '') to--;
  return lines.slice(from, to);
}

// apimachinery's rand.String alphabet (no vowels, no 0, 1, 3), which generateName suffixes use.
const GENERATED_SUFFIX = /(?<=[a-z0-9]-)[bcdfghjklmnpqrstvwxz2456789]{5}\b/g;
// kubectl's age: 15s, 2m10s, 3h, 12d, 2y45d.
const AGE = /^(\d+[smhdy]){1,2}$/;

/**
 * A command's output with only what legitimately differs between runs replaced, for comparing
 * what the page shows with what a run printed. Applied to both sides. Kubernetes versions stay
 * as they are: kube-sim serves the `v1.31.0` the page shows, and a change of it should show there.
 */
export function normaliseOutput(output: string): string {
  const lines = trimBlankLines(output.split('\n').map((l) => l.trimEnd()));
  const header = lines[0]?.split(/\s{2,}/) ?? [];
  const ageColumn = header.indexOf('AGE');
  return lines
    .map((line) => {
      // The random suffix of a generated name (the token Secret of join: `member1-ns64r`).
      let out = line.replace(GENERATED_SUFFIX, '<random>');
      // The AGE column of a kubectl table: how long ago the object was created. The columns of
      // such a table are separated by two or more spaces, and no cell is empty.
      if (ageColumn >= 0 && line !== lines[0]) {
        const cells = out.split(/\s{2,}/);
        if (AGE.test(cells[ageColumn] ?? '')) cells[ageColumn] = '<age>';
        out = cells.join('   ');
      }
      // Column widths follow the widest cell, and the AGE cell varies: compare the cells, not
      // the padding (a run of two or more spaces is one column gap).
      return out.replace(/ {2,}/g, '   ');
    })
    .join('\n');
}
