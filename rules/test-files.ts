// Test code is not where lock misuse does harm: a test takes a lock twice without checking the first
// answer, or releases another holder's lock, on purpose. Test files are left out unless the config
// says `"tests": "check"`. Only names that say "test" without doubt count: `*.test.ts`, `*.spec.ts`,
// `*.e2e-spec.ts`, and files under `__tests__` / `__mocks__`; a folder merely called `test` may hold
// anything, so it is not enough. Inside a `spec` or `test(s)` folder, the names Jasmine, Mocha and Go-style
// suites give their files count too (`lockSpec.js`, `lock_spec.js`, `lock-test.ts`, `LockTests.js`): an `apiSpec.ts`
// elsewhere may be an OpenAPI document. Anywhere, a file whose name starts with `test-` or `test_`
// (`test-lock.ts`, a script run by hand to try the lock) is one. Once read, a file in a `test(s)` or
// `spec(s)` folder whose text is a suite (`describe(` and `it('...')`) is one too.
import type { LockwiseConfig } from './config';

const TEST_NAME = /\.(?:test|spec|e2e-spec|e2e-test)\.[cm]?[jt]sx?$/i;
const TEST_FOLDER = /(?:^|[\\/])(?:__tests__|__mocks__)[\\/]/;
const SUITE_IN_TEST_FOLDER = /(?:^|[\\/])(?:specs?|tests?)[\\/](?:[^\\/]+[\\/])*[^\\/]*(?:[_-](?:specs?|tests?)|Specs?|Tests?)\.[cm]?[jt]sx?$/;

const TEST_PREFIX = /(?:^|[\\/])test[-_][^\\/]*\.[cm]?[jt]sx?$/i;

export function isTestFile(path: string): boolean {
  return TEST_NAME.test(path) || TEST_FOLDER.test(path) || SUITE_IN_TEST_FOLDER.test(path) || TEST_PREFIX.test(path);
}

const TEST_DIR = /(?:^|[\\/])(?:tests?|specs?)[\\/]/;
// A Mocha/Jest/Jasmine suite by its text: a `describe(` (or `context(`, `suite(`) opening a line, and a
// named case (`it('sets a lock', ...)`).
const SUITE = /^[ \t]*(?:describe|context|suite)\s*\(/m;
const CASE = /\b(?:it|test|specify)\s*\(\s*['"`]/;

/**
 * A file in a `test(s)` or `spec(s)` folder whose text is a test suite (`test/redis.js` with
 * `describe(...)` and `it('...')`): the folder alone is not enough (it may hold fixtures or seed
 * scripts), the folder and the suite together are.
 */
export function isTestSuite(path: string, text: string): boolean {
  return TEST_DIR.test(path) && SUITE.test(text) && CASE.test(text);
}

/** Is this file, read, a test suite the config does not ask to check? */
export function skipsAsTestSuite(path: string, text: string, config: LockwiseConfig): boolean {
  return config.tests !== 'check' && isTestSuite(path, text);
}

/** Is this file left out because it is test code the config does not ask to check? */
export function skipsAsTest(path: string, config: LockwiseConfig): boolean {
  return config.tests !== 'check' && isTestFile(path);
}
