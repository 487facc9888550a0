// The large-stack analysis worker (see large-stack.ts): analyses each file it is sent from scratch and
// answers with the findings and lock sites (plain data), or the error the analyzer raised.
import { parentPort } from 'node:worker_threads';
import { parseSource } from '../../rules/analyze';
import { analyzeWithSites } from '../../rules/sites';
import type { LargeStackJob, LargeStackOutcome } from './large-stack';

parentPort?.on('message', (job: LargeStackJob) => {
  let outcome: LargeStackOutcome;
  try {
    const result = analyzeWithSites(parseSource(job.fileName, job.text, job.config.helpers), job.config, { fixes: false });
    outcome = { id: job.id, findings: result.findings, sites: result.sites, ruleFailures: result.ruleFailures };
  } catch (err) {
    outcome = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(outcome);
});
