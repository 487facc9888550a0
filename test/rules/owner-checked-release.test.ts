import { ruleTable } from './harness';
import { ownerCheckedReleaseCases } from './tables/owner-checked-release';

ruleTable('owner-checked-release', ownerCheckedReleaseCases);
