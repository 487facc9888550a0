import { ruleTable } from './harness';
import { useExtendedLockCases } from './tables/use-extended-lock';

ruleTable('use-extended-lock', useExtendedLockCases);
