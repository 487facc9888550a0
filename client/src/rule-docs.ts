// Rule documentation inside VS Code: the docs ship in the package (rules/<id>.md), and are opened as a
// markdown preview, offline and in a fork alike.
import { commands, Uri, window, workspace, type ExtensionContext } from 'vscode';
import { RULE_ID } from './rule-doc-links';

export async function showRuleDocumentation(context: ExtensionContext, rule: unknown): Promise<void> {
  const id = typeof rule === 'string' ? rule : await window.showInputBox({ prompt: 'Lockwise rule id', placeHolder: 'owner-checked-release' });
  if (!id) return;
  if (!RULE_ID.test(id)) throw new Error(`"${id}" is not a rule id`);
  const doc = Uri.joinPath(context.extensionUri, 'rules', `${id}.md`);
  try {
    await workspace.fs.stat(doc);
  } catch {
    throw new Error(`no documentation for rule "${id}" in the extension`);
  }
  await commands.executeCommand('markdown.showPreview', doc);
}
