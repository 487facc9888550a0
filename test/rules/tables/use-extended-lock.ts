import type { RuleCases } from '../harness';

const rl = `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()]);
async function work(): Promise<void> {}
`;

export const useExtendedLockCases: RuleCases = {
  valid: [
    {
      name: "redlock v4's acquire of one resource string: its extend() updates that lock in place",
      typecheck: false,
      code: `${rl}export async function refreshAll(resource: string) {
  const lock = await redlock.acquire(\`locks:\${resource}\`, 3000);
  const timer = setInterval(async () => {
    await lock.extend(3000);
  }, 1000);
  try {
    await work();
  } finally {
    clearInterval(timer);
    await lock.unlock();
  }
}
`,
    },
    { name: 'a callback-style extend (redlock v4, or a look-alike library named redlock) hands the lock to its callback', typecheck: false, code: `const RedLock = require('./index');
const redlock = new RedLock(require('redis').createClient());
let lock;
redlock.lock('report', 3, (err, acquired) => { lock = acquired; });
function renew(done) {
  redlock.extend(lock, 3, (err) => done(err));
  lock.extend(3, (err) => done(err));
}
module.exports = { renew };
` },
    { name: 'extended lock kept', code: `${rl}export async function run() {
  let lock = await redlock.acquire(['report'], 5000);
  try {
    await work();
    lock = await lock.extend(5000);
    await work();
  } finally {
    await lock.release();
  }
}
` },
    { name: 'extend result returned', code: `${rl}export async function renew(lock: Awaited<ReturnType<typeof redlock.acquire>>) {
  return lock.extend(5000);
}
` },
  ],
  invalid: [
    {
      name: 'discarded extend on a const handle',
      message: ['is discarded', 'Cannot extend an already-expired lock'],
      code: `${rl}export async function run() {
  const lock = await redlock.acquire(['report'], 5000);
  try {
    await work();
    await lock.extend(5000);
    await work();
  } finally {
    await lock.release();
  }
}
`,
      output: `${rl}export async function run() {
  let lock = await redlock.acquire(['report'], 5000);
  try {
    await work();
    lock = await lock.extend(5000);
    await work();
  } finally {
    await lock.release();
  }
}
`,
    },
    {
      name: 'redlock.extend(lock, ms) discarded',
      code: `${rl}export async function run() {
  let lock = await redlock.acquire(['report'], 5000);
  await redlock.extend(lock, 5000);
  await lock.release();
}
`,
      output: `${rl}export async function run() {
  let lock = await redlock.acquire(['report'], 5000);
  lock = await redlock.extend(lock, 5000);
  await lock.release();
}
`,
    },
  ],
};
