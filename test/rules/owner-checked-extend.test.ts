import { ruleTable } from './harness';
import { ownerCheckedExtendCases } from './tables/owner-checked-extend';

ruleTable('owner-checked-extend', ownerCheckedExtendCases);
