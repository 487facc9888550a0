// `lockwise check [paths...]`: runs the analyzer over files and folders and reports in one of three
// formats. Exit codes: 0 clean, 1 findings at warning/error (beyond --max-warnings), 2 usage errors,
// broken configs and files that could not be checked (an unchecked file must not pass CI silently).
import { existsSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { BaselineError } from '../../../rules/baseline';
import { ConfigError } from '../../../rules/config';
import { mightHoldLockCode } from '../../../rules/engine/prefilter';
import { skipsAsTestSuite } from '../../../rules/test-files';
import type { SeveritySetting } from '../../../rules/types';
import { overflowed, type AnalysisJob, type AnalysisOutcome } from '../analysis-worker';
import { AnalysisPool, analyzeWithLargeStack } from '../analysis-pool';
import { analyzerManifest } from '../analyzer-manifest';
import { applyBaseline } from '../baseline';
import { ConfigResolver } from '../check-config';
import type { Command } from '../command';
import { formatJson } from '../format/json';
import { isTerminal, write } from '../output';
import { formatPretty } from '../format/pretty';
import { severityCounts, type CheckReport, type CheckedFile, type RunProblem } from '../format/report';
import { formatSarif } from '../format/sarif';
import { unifiedDiff } from '../format/diff';
import { readSource, walk, type SourceFileEntry } from '../walk';
import { mayCallLockHelpers } from '../../../rules/project/pre-checks';

const FORMATS = ['pretty', 'json', 'sarif'] as const;
type Format = (typeof FORMATS)[number];
const SEVERITY_SETTINGS: readonly string[] = ['off', 'info', 'warning', 'error'];
const DEFAULT_BASELINE = 'lockwise-baseline.json';
/**
 * The walk's file at which the analysis worker starts even if no file has needed it yet: on a tree this
 * large the walk usually finds lock code, and the worker loads the analyzer (a fifth of a second) on
 * the other core meanwhile. A smaller tree starts it at its first lock file, or never.
 */
const EARLY_START_FILES = 100;

const help = (ruleIds: readonly string[]): string => `Usage: lockwise check [paths...] [options]

Finds Redis lock misuse in JavaScript and TypeScript files. Folders are walked
(default: the current folder), honouring .gitignore files and the config's
"ignore" globs, and skipping node_modules, dist, build, .git, declaration
files, binary files, files over 2 MB, and test files (*.test.*, *.spec.*,
__tests__/, test-*, test_*: see the config's "tests"; a file named here is
always checked).

Options:
  -f, --format <pretty|json|sarif>  output format (default: pretty)
  --rule <id>=<off|info|warning|error>
                                    override a rule's severity (repeatable)
  --max-warnings <n>                exit 1 only when there are more than n warnings
  -c, --config <file>               use this config file for every file
                                    (default: the nearest lockwise.config.json or
                                    package.json "lockwise" key of each folder)
  --baseline <file>                 leave out the findings recorded in this file
                                    (see --update-baseline); the report counts
                                    them and the entries that no longer match
  --update-baseline                 record every current finding in the baseline
                                    file (--baseline, default lockwise-baseline.json)
  --show-fixes                      show each finding's fixes (pretty format)
  -j, --jobs <n>                    analysis workers (default: one per core but one)
  --no-project                      analyse each file alone: faster, but calls to
                                    the project's own lock helpers in other files
                                    mean nothing
  --fix                             apply the fixes that are safe unattended (see
                                    the README), write the files, then report what
                                    is left
  --fix-dry-run                     like --fix, but print a unified diff instead
                                    of writing the files
  --unsafe                          with --fix/--fix-dry-run: apply every finding's
                                    preferred fix, also those that change what the
                                    lock does (review the diff)
  -q, --quiet                       report errors only, ignore warnings and info
  -h, --help                        show this help

Exit codes: 0 no findings at warning or error severity, 1 findings, 2 usage or
config error, or a file that could not be checked (see "errors" in the report).

Rules: ${ruleIds.join(', ') || '(none)'}
`;

class UsageError extends Error {}

interface Options {
  paths: string[];
  format: Format;
  overrides: Record<string, SeveritySetting>;
  maxWarnings?: number;
  config?: string;
  baseline?: string;
  updateBaseline: boolean;
  showFixes: boolean;
  fix?: 'write' | 'dry-run';
  unsafe: boolean;
  quiet: boolean;
  project: boolean;
  jobs?: number;
  help: boolean;
}

function parseOptions(argv: string[], ruleIds: readonly string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', short: 'f' },
        rule: { type: 'string', multiple: true },
        'max-warnings': { type: 'string' },
        config: { type: 'string', short: 'c' },
        baseline: { type: 'string' },
        'update-baseline': { type: 'boolean' },
        'show-fixes': { type: 'boolean' },
        'no-project': { type: 'boolean' },
        jobs: { type: 'string', short: 'j' },
        fix: { type: 'boolean' },
        'fix-dry-run': { type: 'boolean' },
        unsafe: { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;

  const format = values.format ?? 'pretty';
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`unknown format "${format}" (use ${FORMATS.join(', ')})`);
  }

  const overrides: Record<string, SeveritySetting> = {};
  for (const setting of values.rule ?? []) {
    const match = /^([^=]+)=(.*)$/.exec(setting);
    if (!match) throw new UsageError(`--rule expects <id>=<severity>, got "${setting}"`);
    const [, id, severity] = match;
    if (!ruleIds.includes(id)) throw new UsageError(`unknown rule "${id}" (known rules: ${ruleIds.join(', ') || 'none'})`);
    if (!SEVERITY_SETTINGS.includes(severity)) {
      throw new UsageError(`--rule ${id}: unknown severity "${severity}" (use ${SEVERITY_SETTINGS.join(', ')})`);
    }
    overrides[id] = severity as SeveritySetting;
  }

  let maxWarnings: number | undefined;
  if (values['max-warnings'] !== undefined) {
    maxWarnings = Number(values['max-warnings']);
    if (!/^\d+$/.test(values['max-warnings']) || !Number.isSafeInteger(maxWarnings)) {
      throw new UsageError(`--max-warnings expects a whole number >= 0, got "${values['max-warnings']}"`);
    }
  }

  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && (!/^\d+$/.test(values.jobs!) || !Number.isSafeInteger(jobs) || jobs < 1)) {
    throw new UsageError(`--jobs expects a whole number >= 1, got "${values.jobs}"`);
  }

  if (values.fix && values['fix-dry-run']) throw new UsageError('use --fix or --fix-dry-run, not both');
  if (values.unsafe && !values.fix && !values['fix-dry-run']) throw new UsageError('--unsafe only applies with --fix or --fix-dry-run');
  if (values['fix-dry-run'] && format !== 'pretty') throw new UsageError('--fix-dry-run prints a diff: it cannot be combined with --format');

  return {
    paths: positionals.length > 0 ? positionals : ['.'],
    format: format as Format,
    overrides,
    maxWarnings,
    config: values.config,
    baseline: values.baseline ?? (values['update-baseline'] ? DEFAULT_BASELINE : undefined),
    updateBaseline: values['update-baseline'] ?? false,
    showFixes: values['show-fixes'] ?? false,
    project: !values['no-project'],
    jobs,
    fix: values.fix ? 'write' : values['fix-dry-run'] ? 'dry-run' : undefined,
    unsafe: values.unsafe ?? false,
    quiet: values.quiet ?? false,
    help: values.help ?? false,
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function displayName(cwd: string, path: string): string {
  const rel = relative(cwd, path) || '.';
  return sep === '/' ? rel : rel.split(sep).join('/');
}

async function check(options: Options, cwd: string, ruleIds: readonly string[]): Promise<CheckReport> {
  // Not performance.now(): its first use loads perf_hooks, a tenth of the start of a check with nothing to do.
  const started = Date.now();
  const paths = options.paths.map((p) => resolve(cwd, p));
  const named = new Set(paths);
  const missing = options.paths.filter((_, i) => !existsSync(paths[i]));
  if (missing.length > 0) throw new UsageError(`no such file or folder: ${missing.join(', ')}`);

  const configs = new ConfigResolver(ruleIds, options.overrides, options.config && resolve(cwd, options.config));
  // Problems of single files are kept in walk order, whenever they are found.
  const fileProblems: (RunProblem & { order: number })[] = [];
  const problem = (order: number, path: string, message: string, kind: RunProblem['kind'] = 'error') =>
    fileProblems.push({ order, file: displayName(cwd, path), message, kind });
  const jobs: AnalysisJob[] = [];
  const outcomes: Promise<AnalysisOutcome>[] = [];
  // The pretty report shows fixes only when asked; JSON and SARIF always carry them.
  const withFixes = options.format !== 'pretty' || options.showFixes;
  const pool = new AnalysisPool({ singleFile: !options.project, size: options.jobs });
  const submit = (job: AnalysisJob) => {
    jobs.push(job);
    outcomes.push(pool.analyze(job));
  };

  // Each file is read and pre-checked as the walk finds it, so that the analysis workers start with
  // the first file that can hold lock code, not once the whole tree is listed.
  const readFile = ({ path, scope }: SourceFileEntry, order: number): void => {
    if (order === EARLY_START_FILES) pool.prepare();
    let source;
    try {
      source = readSource(path);
    } catch (err) {
      problem(order, path, `cannot read the file (${(err as NodeJS.ErrnoException).code ?? describe(err)})`);
      return;
    }
    if ('skipped' in source) {
      problem(order, path, source.skipped, 'skipped');
      return;
    }
    // A suite in a test folder, known only once read; a file named on the command line is checked.
    if (!named.has(path) && skipsAsTestSuite(path, source.text, scope.config)) return;
    const job: AnalysisJob = { id: order, path, text: source.text, config: scope.config, fix: options.fix && (options.unsafe ? 'all' : 'unattended'), withFixes };
    // The analyzer runs the same pre-check; asking it here first means TypeScript is loaded (in the
    // worker) only when some file can hold lock code, or may call a project lock helper.
    if (mightHoldLockCode(source.text, scope.config.helpers)) submit(job);
    else if (options.project && mayCallLockHelpers(source.text)) submit({ ...job, maybe: true });
  };

  try {
    const walked = walk(paths, configs, readFile);
    const analysed = await Promise.all(outcomes);
    const tooDeep = jobs.filter((_, i) => overflowed(analysed[i]));
    const reanalysed = new Map((tooDeep.length > 0 ? await analyzeWithLargeStack(tooDeep, !options.project) : []).map((o) => [o.id, o]));

    let files: CheckedFile[] = [];
    const diffs: string[] = [];
    let fixesApplied = 0;
    let filesAnalyzed = 0;
    jobs.forEach((job, i) => {
      const outcome = reanalysed.get(job.id) ?? analysed[i];
      if ('error' in outcome) {
        problem(job.id, job.path, `analysis failed: ${outcome.error}`);
        return;
      }
      if (outcome.result.parsed) filesAnalyzed++;
      let text = job.text;
      if (outcome.fixed && outcome.fixed.text !== job.text) {
        fixesApplied += outcome.fixed.applied;
        if (options.fix === 'dry-run') diffs.push(unifiedDiff(displayName(cwd, job.path), job.text, outcome.fixed.text));
        else {
          try {
            writeFileSync(job.path, outcome.fixed.text);
            text = outcome.fixed.text;
          } catch (err) {
            problem(job.id, job.path, `cannot write the fixed file (${(err as NodeJS.ErrnoException).code ?? describe(err)})`);
          }
        }
      }
      for (const failure of outcome.result.ruleFailures) problem(job.id, job.path, `rule ${failure.rule} failed: ${failure.message}`);
      // After a dry run the findings are those of the fixed text, which was not written: report them on it.
      if (outcome.fixed && options.fix === 'dry-run') text = outcome.fixed.text;
      if (outcome.result.findings.length > 0) files.push({ name: displayName(cwd, job.path), text, findings: outcome.result.findings });
    });
    // The baseline records and matches every finding; --quiet only shortens what is shown.
    const baseline = options.baseline
      ? applyBaseline(files, cwd, options.baseline, displayName(cwd, resolve(cwd, options.baseline)), options.updateBaseline)
      : undefined;
    if (baseline) files = baseline.files;
    if (options.quiet) files = files.map((f) => ({ ...f, findings: f.findings.filter((x) => x.severity === 'error') })).filter((f) => f.findings.length > 0);

    return {
      cwd,
      files,
      ...(baseline ? { baseline: baseline.summary } : {}),
      problems: [
        ...walked.errors.map((p) => ({ file: displayName(cwd, p.path), message: p.message, kind: 'error' as const })),
        ...walked.skipped.map((p) => ({ file: displayName(cwd, p.path), message: p.message, kind: 'skipped' as const })),
        ...fileProblems.sort((a, b) => a.order - b.order).map(({ file, message, kind }) => ({ file, message, kind })),
      ],
      filesScanned: walked.files.length,
      filesAnalyzed,
      durationMs: Date.now() - started,
      ...(options.fix ? { fixes: { applied: fixesApplied, written: options.fix === 'write', diff: diffs.join('') } } : {}),
    };
  } finally {
    await pool.close();
  }
}


function exitCode(report: CheckReport, maxWarnings: number | undefined): number {
  if (report.problems.some((p) => p.kind === 'error')) return 2;
  const counts = severityCounts(report);
  return counts.error > 0 || counts.warning > (maxWarnings ?? 0) ? 1 : 0;
}

/** The rule's doc shipped with the CLI (dist/cli.js -> rules/<id>.md): relative when under cwd, else absolute. */
function localDoc(cwd: string, rule: string): string | undefined {
  const doc = join(__dirname, '..', 'rules', `${rule}.md`);
  if (!existsSync(doc)) return undefined;
  const rel = relative(cwd, doc);
  return rel.startsWith('..') ? doc : displayName(cwd, doc);
}

function render(report: CheckReport, options: Options): string {
  switch (options.format) {
    case 'json':
      return formatJson(report);
    case 'sarif':
      return formatSarif(report, analyzerManifest().rules);
    case 'pretty': {
      const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
      return formatPretty(report, { color: isTerminal(1) && !noColor, showFixes: options.showFixes, docPath: (rule) => localDoc(report.cwd, rule) });
    }
  }
}

export const command: Command = {
  summary: 'find Redis lock misuse in JavaScript and TypeScript files',
  async run(argv) {
    try {
      const ruleIds = analyzerManifest().rules.map((r) => r.id);
      const options = parseOptions(argv, ruleIds);
      if (options.help) {
        write(1, help(ruleIds));
        return 0;
      }
      const report = await check(options, process.cwd(), ruleIds);
      if (report.fixes?.diff) write(1, report.fixes.diff);
      if (report.fixes) {
        const verb = report.fixes.written ? 'applied' : 'would apply';
        write(2, `lockwise check: ${verb} ${report.fixes.applied} fix${report.fixes.applied === 1 ? '' : 'es'}${options.unsafe ? '' : ' (unattended-safe only; --unsafe for all)'}; what is left:\n`);
      }
      // A dry run's stdout is the patch alone (`> fixes.patch`); the report goes to stderr.
      write(options.fix === 'dry-run' ? 2 : 1, render(report, options));
      return exitCode(report, options.maxWarnings);
    } catch (err) {
      if (err instanceof UsageError) {
        write(2, `lockwise check: ${err.message}\nRun "lockwise check --help" for usage.\n`);
        return 2;
      }
      if (err instanceof ConfigError) {
        write(2, `lockwise check: invalid configuration: ${err.message}\n`);
        return 2;
      }
      if (err instanceof BaselineError) {
        write(2, `lockwise check: baseline: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  },
};
