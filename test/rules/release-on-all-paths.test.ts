import { ruleTable } from './harness';
import { releaseOnAllPathsCases } from './tables/release-on-all-paths';

ruleTable('release-on-all-paths', releaseOnAllPathsCases);
