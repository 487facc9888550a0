// Least-privilege ACL rules for the Redis user Lockwise connects as (quoted by the README and proven by
// test/locks/acl.test.ts against a real server):
//   ACL SETUSER lockwise on >PASSWORD <BROWSE_ACL_RULES>                      browse only
//   ACL SETUSER lockwise on >PASSWORD <BROWSE_ACL_RULES> <RELEASE_ACL_RULES>  browse + guarded release/extend
// Browsing can read the lock keys (%R~: read-only) and run only the reads the listing sends; KEYS and every
// write are refused by the server itself. On Redis 7.2+ also grant +client|no-touch so a listing does not
// refresh the keys' LRU clocks (7.0 does not know that subcommand and rejects the rule). +eval_ro lets a
// listing read a whole SCAN batch in one read-only script (the server refuses any write in it, and checks
// its commands and keys against these same rules), +evalsha_ro lets it send that script by its SHA1 once
// the server has it; Redis 6 does not know EVAL_RO: leave both out there, the listing then reads key by key. Add one %R~<glob>
// (and %RW~<glob> for release) per extra lock pattern you configure. Redis checks a script's commands against
// the caller's own ACL, so the release rules also let that user run DEL/PEXPIRE... directly on lock keys:
// give them only to the people who may free stuck locks.

export const BROWSE_ACL_RULES =
  'resetkeys %R~lock:* %R~mutex:* %R~semaphore:* %R~redlock:* %R~fence:* %R~*:fence %R~redisson_lock_token:* ' +
  'resetchannels -@all +ping +info +scan +type +exists +pttl +get +strlen +getrange +hlen +hrandfield +hget +zcard +zrange +eval_ro +evalsha_ro +cluster|slots';

/** What the guarded release/extend scripts need on top: EVAL(SHA), the writes inside them, the unlock channels. */
export const RELEASE_ACL_RULES =
  '%RW~lock:* %RW~mutex:* %RW~semaphore:* %RW~redlock:* %RW~lock-signal:* %RW~*:rwlock_timeout:* ' +
  '&redisson_lock__channel:* &redisson_rwlock:* ' +
  '+evalsha +eval +del +pexpire +hgetall +hdel +hset +zscore +zrem +zadd +lpush +publish +time';
