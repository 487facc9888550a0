// The correct counterpart of orders/charge-service.ts (ioredis): one atomic SET NX PX with a random
// token, a bounded retry with a deadline and jittered backoff, and a compare-and-delete release in
// finally so that a failed charge frees the lock at once and never frees someone else's.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { OrderStore, PaymentGateway } from '../orders/charge-service';

const LOCK_TTL_MS = 30_000;
const ACQUIRE_DEADLINE_MS = 2_000;
const RELEASE_SCRIPT = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
else
  return 0
end`;

export class SafeChargeService {
  constructor(
    private readonly redis: Redis,
    private readonly gateway: PaymentGateway,
    private readonly orders: OrderStore,
  ) {}

  /** Returns the charge id, or undefined when the order was already paid. */
  async chargeOrder(orderId: string, amountCents: number): Promise<string | undefined> {
    const lockKey = `lock:order:${orderId}`;
    const token = randomUUID();
    const deadline = Date.now() + ACQUIRE_DEADLINE_MS;
    let backoffMs = 25;
    while ((await this.redis.set(lockKey, token, 'PX', LOCK_TTL_MS, 'NX')) === null) {
      if (Date.now() + backoffMs > deadline) throw new Error(`order ${orderId} is being charged by another process`);
      // Random delay so that competing callers do not retry in lockstep.
      await delay(backoffMs / 2 + Math.random() * backoffMs);
      backoffMs = Math.min(backoffMs * 2, 400);
    }
    try {
      if (await this.orders.isPaid(orderId)) return undefined;
      const { chargeId } = await this.gateway.charge(orderId, amountCents);
      await this.orders.markPaid(orderId, chargeId);
      return chargeId;
    } finally {
      await this.redis.eval(RELEASE_SCRIPT, 1, lockKey, token);
    }
  }
}
