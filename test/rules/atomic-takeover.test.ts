import { ruleTable } from './harness';
import { atomicTakeoverCases } from './tables/atomic-takeover';

ruleTable('atomic-takeover', atomicTakeoverCases);
