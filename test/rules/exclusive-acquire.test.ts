import { ruleTable } from './harness';
import { exclusiveAcquireCases } from './tables/exclusive-acquire';

ruleTable('exclusive-acquire', exclusiveAcquireCases);
