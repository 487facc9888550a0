// The correct counterpart of workers/email-worker.ts: tryAcquire's answer decides, and a lost
// lock stops the batch between two emails instead of crashing the process from a timer.
import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import type { Mailer, Outbox } from '../workers/email-worker';

export async function sendQueuedEmailsSafely(redis: Redis, mailer: Mailer, outbox: Outbox, customerId: string): Promise<number> {
  let lost: Error | undefined;
  const mutex = new Mutex(redis, `email:${customerId}`, {
    lockTimeout: 30_000,
    // One attempt: a customer whose mutex is taken is being served by another worker right now.
    acquireAttemptsLimit: 1,
    onLockLost: (err) => {
      lost = err;
    },
  });
  if (!(await mutex.tryAcquire())) return 0;
  let sent = 0;
  try {
    for (const email of await outbox.pending(customerId)) {
      if (lost) throw lost;
      await mailer.send(email.to, email.subject, email.body);
      await outbox.markSent(email.id);
      sent++;
    }
    return sent;
  } finally {
    await mutex.release();
  }
}
