import { ruleTable } from './harness';
import { backoffBetweenRetriesCases } from './tables/backoff-between-retries';

ruleTable('backoff-between-retries', backoffBetweenRetriesCases);
