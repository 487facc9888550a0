import { ruleTable } from './harness';
import { atomicAcquireCases } from './tables/atomic-acquire';

ruleTable('atomic-acquire', atomicAcquireCases);
