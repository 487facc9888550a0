import { ruleTable } from './harness';
import { handleLockLostCases } from './tables/handle-lock-lost';

ruleTable('handle-lock-lost', handleLockLostCases);
