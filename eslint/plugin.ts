// `lockwise/eslint-plugin`: an ESLint 9+ flat-config plugin with one ESLint rule per Lockwise rule, same
// ids and messages. Related locations are appended to the message (ESLint has no field for them);
// Lockwise's fixes are offered as suggestions, never as autofixes, since each changes what a lock does.
import type { ESLint, Linter, Rule } from 'eslint';
import { allRules } from '../rules/index';
import { ruleDocUrl, type Rule as LockwiseRule } from '../rules/rule';
import { analyzeForEslint } from './analyze-for-eslint';
import { messageWithRelated } from './messages';

function eslintRule(rule: LockwiseRule): Rule.RuleModule {
  return {
    meta: {
      type: 'problem',
      docs: { description: rule.summary, recommended: true, url: ruleDocUrl(rule.id) },
      hasSuggestions: true,
      schema: [],
    },
    create(context) {
      return {
        Program() {
          const source = context.sourceCode;
          const locOf = (offset: number) => source.getLocFromIndex(Math.max(0, Math.min(offset, source.text.length)));
          const analysed = analyzeForEslint(context.filename, source.text);
          const failed = analysed.ruleFailures.find((f) => f.rule === rule.id);
          if (failed || (analysed.failure && !analysed.failureReported)) {
            analysed.failureReported ||= !failed;
            const reason = failed ? `Lockwise rule ${rule.id} failed on this file: ${failed.message}` : `Lockwise could not analyse this file: ${analysed.failure}`;
            context.report({ loc: { line: 1, column: 0 }, message: reason });
          }
          for (const finding of analysed.findings) {
            if (finding.rule !== rule.id) continue;
            context.report({
              loc: { start: locOf(finding.span.start), end: locOf(finding.span.end) },
              message: messageWithRelated(finding, locOf, context.filename),
              suggest: finding.fixes.map((fix) => ({
                desc: fix.title,
                fix: (fixer) => fix.edits.map((edit) => fixer.replaceTextRange([edit.start, edit.end], edit.newText)),
              })),
            });
          }
        },
      };
    },
  };
}

const rules: Record<string, Rule.RuleModule> = Object.fromEntries(allRules.map((r) => [r.id, eslintRule(r)]));

const recommendedRules: Linter.RulesRecord = Object.fromEntries(
  allRules.map((r) => [`lockwise/${r.id}`, r.defaultSeverity === 'error' ? 'error' : 'warn']),
);

const plugin = {
  meta: { name: 'lockwise/eslint-plugin', version: process.env.LOCKWISE_VERSION ?? '0.0.0' },
  rules,
  configs: {} as Record<'recommended', Linter.Config>,
} satisfies ESLint.Plugin;

plugin.configs.recommended = { name: 'lockwise/recommended', plugins: { lockwise: plugin }, rules: recommendedRules };

// CommonJS `module.exports = plugin`, so both `import lockwise from` and `require()` get the plugin itself.
export = plugin;
