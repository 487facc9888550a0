import { ruleTable } from './harness';
import { stopOnLockLostCases } from './tables/stop-on-lock-lost';

ruleTable('stop-on-lock-lost', stopOnLockLostCases);
