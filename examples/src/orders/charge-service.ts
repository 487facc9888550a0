// Charges an order exactly once, even when the checkout API and the retry worker both try.
// The lock here is written the way it often is in real code, and it is wrong in three ways:
// the TTL is set by a second command, the release deletes whatever lock is there, and a failed
// charge leaves the lock held for its whole TTL.
import type { Redis } from 'ioredis';

export interface PaymentGateway {
  charge(orderId: string, amountCents: number): Promise<{ chargeId: string }>;
}

export interface OrderStore {
  isPaid(orderId: string): Promise<boolean>;
  markPaid(orderId: string, chargeId: string): Promise<void>;
}

const LOCK_TTL_SECONDS = 30;

export class ChargeService {
  constructor(
    private readonly redis: Redis,
    private readonly gateway: PaymentGateway,
    private readonly orders: OrderStore,
  ) {}

  /** Returns the charge id, or undefined when another process is charging this order right now. */
  async chargeOrder(orderId: string, amountCents: number): Promise<string | undefined> {
    const lockKey = `lock:order:${orderId}`;
    const acquired = await this.redis.setnx(lockKey, `${process.pid}`);
    if (!acquired) return undefined;
    await this.redis.expire(lockKey, LOCK_TTL_SECONDS);

    if (await this.orders.isPaid(orderId)) {
      await this.redis.del(lockKey);
      return undefined;
    }
    const { chargeId } = await this.gateway.charge(orderId, amountCents);
    await this.orders.markPaid(orderId, chargeId);
    await this.redis.del(lockKey);
    return chargeId;
  }
}
