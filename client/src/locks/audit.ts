// Audit records for release/extend. The core produces them; the caller decides where they go (the
// panel's output channel, the CLI's stdout). They never contain a password: only the target without
// credentials, the key, the token the operator presented and the holders.
import type { AuditRecord, GuardedResult, Holder } from './types';

export function auditRecord(fields: {
  action: AuditRecord['action'];
  target: string;
  key: string;
  token: string;
  oldHolder: Holder;
  ttlMs?: number;
  result?: GuardedResult;
  error?: string;
}): AuditRecord {
  const record: AuditRecord = {
    time: new Date().toISOString(),
    action: fields.action,
    target: fields.target,
    key: fields.key,
    token: fields.token,
    oldHolder: fields.oldHolder,
    result: fields.result?.outcome ?? 'error',
  };
  if (fields.ttlMs !== undefined) record.ttlMs = fields.ttlMs;
  if (fields.result?.outcome === 'token-changed') record.currentHolder = fields.result.currentHolder;
  if (fields.error !== undefined) record.error = fields.error;
  return record;
}

/** One line per operation, for an output channel or a log file. */
export function formatAuditLine(r: AuditRecord): string {
  const ttl = r.ttlMs !== undefined ? ` to ${r.ttlMs} ms` : '';
  const outcome =
    r.result === 'token-changed'
      ? `token changed, now held by ${r.currentHolder?.label ?? 'someone else'}; nothing done`
      : r.result === 'error'
        ? `failed: ${r.error ?? 'unknown error'}`
        : r.result === 'gone'
          ? 'already gone'
          : r.result;
  return `${r.time} ${r.action}${ttl} ${r.key} on ${r.target} (holder ${r.oldHolder.label}, token ${r.token}): ${outcome}`;
}
