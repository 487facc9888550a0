// Entry of dist/cli-worker.js, the script of the analysis worker (analysis-worker.ts): loads the analyzer
// bundle through its code cache and answers each job with the file's analysis, or the error it raised.
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { CLAIM_CHUNK_BITS, type AnalysisJob, type AnalysisOutcome, type ClaimsMessage, type WorkerOptions } from './analysis-worker';
import type * as Analyzer from './analyzer';
import { requireWithCodeCache } from './code-cache';

/** A stack overflow, also when the analyzer wrapped it in an error of its own (matched by V8's message). */
function isStackOverflow(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (/maximum call stack size exceeded/i.test(e.message)) return true;
  }
  return false;
}

const port = parentPort;
if (port) {
  const options = workerData as WorkerOptions;
  const analyzer = requireWithCodeCache<typeof Analyzer>(join(__dirname, 'cli-analyzer.js'));
  const project = analyzer.exports.createProjectAnalyzer();
  const analyze = (job: AnalysisJob): AnalysisOutcome => {
    try {
      if (job.fix) {
        // Fixes are applied file by file; what remains is reported with the project's helpers.
        const fixed = analyzer.exports.fixAll(job.path, job.text, { config: job.config, unattendedOnly: job.fix === 'unattended' });
        const remaining = options.singleFile ? { findings: fixed.remaining, ruleFailures: [], parsed: true } : project.analyze(job.path, fixed.text, job.config, job.maybe === true, job.withFixes);
        return { id: job.id, result: remaining, fixed: { text: fixed.text, applied: fixed.applied } };
      }
      if (options.singleFile) return { id: job.id, result: analyzer.exports.analyzeText(job.path, job.text, { config: job.config, fixes: job.withFixes }) };
      return { id: job.id, result: project.analyze(job.path, job.text, job.config, job.maybe === true, job.withFixes) };
    } catch (err) {
      return { id: job.id, error: err instanceof Error ? err.message : String(err), stackOverflow: isStackOverflow(err) };
    }
  };
  // Every worker of the pool gets every job: the one that claims it first analyses it (analysis-pool.ts).
  const claims: Int8Array[] = [];
  const claimed = (id: number) => {
    const flags = claims[id >> CLAIM_CHUNK_BITS];
    return !flags || Atomics.compareExchange(flags, id & ((1 << CLAIM_CHUNK_BITS) - 1), 0, 1) === 0;
  };
  port.on('message', (message: AnalysisJob | ClaimsMessage | 'finish') => {
    if (message === 'finish') {
      if (options.saveCodeCache) analyzer.saveCache();
      port.close();
      return;
    }
    if ('claims' in message) claims[message.chunk] = new Int8Array(message.claims);
    else if (claimed(message.id)) port.postMessage(analyze(message));
  });
}

