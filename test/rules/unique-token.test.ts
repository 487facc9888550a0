import { ruleTable } from './harness';
import { uniqueTokenCases } from './tables/unique-token';

ruleTable('unique-token', uniqueTokenCases);
