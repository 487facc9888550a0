// A reservation kept when the work is done and rolled back when it fails: a release helper of the file
// called only in catch clauses whose try called the helper that acquires (markers.ts rollbackHelpers).
// Its DEL or Lua delete undoes this request's own hold moments after taking it: no holder's release.
// The caller holds no lock word, so a lean parse blanks it unless the project model keeps the file whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProject, findingList } from './harness';

const PRELUDE = `import Redis from 'ioredis';
const redis = new Redis();
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
`;

/** A quota slot reserved by one method and given back by another, with a lock of its own elsewhere in the file. */
const ROLLED_BACK = PRELUDE + `const RESERVE = \`
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
redis.call("SET", KEYS[1], "1", "EX", ARGV[1])
return 1
\`;
const GIVE_BACK = 'if redis.call("DEL", KEYS[1]) == 1 then redis.call("DECR", KEYS[2]) end return 1';
declare function upload(id: string): Promise<void>;
declare function rebuildIndex(): Promise<void>;
export async function reindex(token: string): Promise<void> {
  if ((await redis.set('lock:export-index', token, 'PX', 60_000, 'NX')) !== 'OK') return;
  try {
    await rebuildIndex();
  } finally {
    await redis.eval(RELEASE, 1, 'lock:export-index', token);
  }
}
export class ExportQuota {
  private async reserveSlot(account: string): Promise<string | undefined> {
    const key = \`quota:export:\${account}\`;
    return Number(await redis.eval(RESERVE, 1, key, 3600)) === 1 ? key : undefined;
  }
  private async releaseSlot(key: string): Promise<void> {
    await redis.eval(GIVE_BACK, 2, key, 'quota:export:count');
  }
  async exportOnce(account: string, id: string): Promise<boolean> {
    let slot: string | undefined;
    try {
      slot = await this.reserveSlot(account);
      if (!slot) return false;
      await upload(id);
      return true;
    } catch (err) {
      if (slot) await this.releaseSlot(slot);
      throw err;
    }
  }
}
`;

/** The same helpers, the slot given back in a finally: after the work too, whoever holds it by then. */
const RELEASED = ROLLED_BACK.replace(
  `    } catch (err) {
      if (slot) await this.releaseSlot(slot);
      throw err;
    }`,
  `    } finally {
      if (slot) await this.releaseSlot(slot);
    }`,
);

test('a release helper called only in the catch of a try that called the acquiring helper rolls a reservation back', () => {
  const found = analyzeProject({ 'src/export-quota.ts': ROLLED_BACK });
  assert.deepEqual(findingList(found), [], found.map((f) => f.message).join('\n'));
});

test('the same release helper called in a finally releases the slot after the work, unchecked', () => {
  assert.notEqual(RELEASED, ROLLED_BACK);
  const found = analyzeProject({ 'src/export-quota.ts': RELEASED });
  assert.ok(findingList(found).includes('src/export-quota.ts: owner-checked-release'), found.map((f) => f.message).join('\n'));
});
