import { ruleTable } from './harness';
import { awaitLockedWorkCases } from './tables/await-locked-work';

ruleTable('await-locked-work', awaitLockedWorkCases);
