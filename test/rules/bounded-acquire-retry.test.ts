import { ruleTable } from './harness';
import { boundedAcquireRetryCases } from './tables/bounded-acquire-retry';

ruleTable('bounded-acquire-retry', boundedAcquireRetryCases);
