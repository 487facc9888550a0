import { ruleTable } from './harness';
import { rollbackPartialAcquireCases } from './tables/rollback-partial-acquire';

ruleTable('rollback-partial-acquire', rollbackPartialAcquireCases);
