import { ruleTable } from './harness';
import { releaseOnlyAcquiredCases } from './tables/release-only-acquired';

ruleTable('release-only-acquired', releaseOnlyAcquiredCases);
