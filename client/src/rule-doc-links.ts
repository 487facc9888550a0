// The diagnostic's code link (lockwise(<rule>) in the hover and the Problems view) opens the rule's doc
// as a markdown preview, as "Show rule documentation" does. The server links the bundled doc as a file:
// URI, which VS Code opens as plain text; VS Code (1.100) opens a diagnostic's code target with command
// URIs allowed, in the hover and the Problems view alike, so the client points it at the command.
// Other LSP editors keep the server's file: URI. No 'vscode' import here, so it is unit-tested.
import { SHOW_RULE_DOC_COMMAND } from '../../server/src/protocol';

export const RULE_ID = /^[a-z][a-z0-9-]*$/;

/** `command:lockwise.showRuleDocumentation?["<rule>"]` for a Lockwise diagnostic; undefined for any other. */
export function ruleDocCommandUri(source: string | undefined, rule: string | number): string | undefined {
  if (source !== 'lockwise' || typeof rule !== 'string' || !RULE_ID.test(rule)) return undefined;
  return `command:${SHOW_RULE_DOC_COMMAND}?${encodeURIComponent(JSON.stringify([rule]))}`;
}
