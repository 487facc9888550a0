import { ruleTable } from './harness';
import { requireTtlCases } from './tables/require-ttl';

ruleTable('require-ttl', requireTtlCases);
