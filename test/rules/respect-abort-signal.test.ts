import { ruleTable } from './harness';
import { respectAbortSignalCases } from './tables/respect-abort-signal';

ruleTable('respect-abort-signal', respectAbortSignalCases);
