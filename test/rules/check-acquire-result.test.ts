import { ruleTable } from './harness';
import { checkAcquireResultCases } from './tables/check-acquire-result';

ruleTable('check-acquire-result', checkAcquireResultCases);
