import { ruleTable } from './harness';
import { decideRedisFailureCases } from './tables/decide-redis-failure';

ruleTable('decide-redis-failure', decideRedisFailureCases);
