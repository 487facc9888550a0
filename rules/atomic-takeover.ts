// Breaking a stale lock in several round trips: GET the holder (or its timestamp), decide in the client
// that it is stale, then DEL or SET it. Two breakers, or the holder coming back, race in between.
import { describeKey } from './engine/keys';
import { spanOf } from './engine/nodes';
import { takeovers } from './engine/takeover';
import type { Rule } from './rule';

export const atomicTakeover: Rule = {
  id: 'atomic-takeover',
  defaultSeverity: 'error',
  summary: 'A stale lock broken in several round trips (GET, decide it is stale, then DEL or SET), so two breakers race.',
  check({ model, report }) {
    for (const found of takeovers(model)) {
      const get = found.get;
      const name = describeKey(model.keyOf(get.keys[0]));
      const write = found.write.name === 'SET' ? 'SET' : found.write.name;
      report({
        span: spanOf(found.write.call),
        message: `This ${write} breaks a stale lock on ${name} after a separate GET and a decision in the client: between them another breaker can take the lock (and this ${write} ${write === 'SET' ? 'overwrites' : 'deletes'} its fresh lock), or the holder can come back and renew it. Both then believe they hold it. Make the takeover one atomic step: a Lua script that re-reads the value and replaces it only if it is still the stale one, or SET key token IFEQ staleValue PX ttl (Redis 8.4+); better, give every lock a TTL so it never needs breaking.`,
        related: [
          { span: spanOf(get.call), message: 'the separate GET of the holder' },
          { span: spanOf(found.test.expression), message: 'the staleness decision made in the client' },
        ],
      });
    }
  },
};
