// The rule registry, sorted by id. Adding a rule: one file here, its doc, its test, a README row.
import type { Rule } from './rule';

export const allRules: readonly Rule[] = [];

export const ruleIds: readonly string[] = allRules.map((r) => r.id);
