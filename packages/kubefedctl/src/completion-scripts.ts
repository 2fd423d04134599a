/**
 * The bash and zsh completion scripts `kubefedctl completion` prints: @pnpm/tabtab's templates
 * with the program's name filled in. Normally the templates are read from the installed
 * @pnpm/tabtab; in a Node single executable application (the single-file kubefedctl,
 * `tools/package/kubefedctl.js`) from its embedded assets, under the keys
 * {@link completionTemplateFiles} gives, since no file sits next to that executable.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The shells whose completion script comes from a @pnpm/tabtab template. */
export type TemplateShell = 'bash' | 'zsh';

const TEMPLATE_SHELLS: readonly TemplateShell[] = ['bash', 'zsh'];

/** The SEA asset key of a shell's template (apart from the dashboard's `/assets/`, `/vendor/` keys). */
function assetKey(shell: TemplateShell): string {
  return `kubefedctl/completion.${shell}`;
}

/**
 * Every template: SEA asset key → file on disk. What the single executable embeds
 * (tools/package/kubefedctl.js imports it at build time).
 *
 * @public
 */
export function completionTemplateFiles(): Map<string, string> {
  const require = createRequire(import.meta.url);
  return new Map(TEMPLATE_SHELLS.map((shell) => [assetKey(shell), require.resolve(`@pnpm/tabtab/lib/templates/completion.${shell}`)]));
}

function template(shell: TemplateShell): string {
  const sea = process.getBuiltinModule('node:sea');
  if (sea.isSea()) return sea.getAsset(assetKey(shell), 'utf8');
  const file = completionTemplateFiles().get(assetKey(shell));
  if (file === undefined) throw new Error(`no completion template for ${shell}`);
  return readFileSync(file, 'utf8');
}

/**
 * The completion script for `shell`, completing `name` by running `name completion-server`
 * (what @pnpm/tabtab's `getCompletionScript` returns, without its read of a file beside itself).
 *
 * @throws Error when the template cannot be read (a broken install or executable).
 */
export function completionScript(shell: TemplateShell, name: string): string {
  return template(shell).replaceAll('{pkgname}', name).replaceAll('{completer}', name).replaceAll(/\r?\n/g, '\n');
}
