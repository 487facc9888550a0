// decide-redis-failure: what a failure path answers. Each shape that fails closed (an error response,
// a refusal under any field name, a recorded failure, a retry, a skipped iteration) sits next to the
// shape beside it that still grants the lock.
import type { InvalidCase, ValidCase } from '../harness';
import { io, RELEASE } from './preludes';

const redlockHeader = `import Redis from 'ioredis';
import Redlock from 'redlock';
const redlock = new Redlock([new Redis()], { retryCount: 3 });
`;

const reply = `interface Reply {
  status(code: number): Reply;
  json(body: unknown): Reply;
}
async function importRows(sheet: string): Promise<number> {
  return sheet.length;
}
`;

function importRoute(catchBody: string): string {
  return `${redlockHeader}${reply}export async function importSheet(sheet: string, res: Reply) {
  try {
    const lock = await redlock.acquire([\`lock:sheet:\${sheet}\`], 20000);
    try {
      if (!sheet) return res.status(400).json({ error: 'no sheet given' });
      return res.status(200).json({ rows: await importRows(sheet) });
    } finally {
      await lock.release();
    }
  } catch (err) {
    ${catchBody}
  }
}
`;
}

function seatReservation(catchReturn: string): string {
  return `${io}export async function reserveSeat(seat: string, me: string): Promise<{ usable?: boolean; unavailable?: boolean; why: string }> {
  try {
    if (!(await redis.set(\`lock:seat:\${seat}\`, me, 'EX', 30, 'NX'))) return { usable: false, why: 'taken' };
    return { usable: true, why: 'reserved' };
  } catch {
    return ${catchReturn};
  }
}
`;
}

function recordingGate(catchReturn: string): string {
  return `${io}export class SeatGate {
  failures = 0;
  private note(seat: string, what: string): void {
    this.failures += what === 'failed' ? 1 : 0;
  }
  async take(seat: string, me: string): Promise<{ seat: string; me: string } | null> {
    try {
      if (!(await redis.set(\`lock:seat:\${seat}\`, me, 'PX', 5000, 'NX'))) {
        this.note(seat, 'busy');
        return null;
      }
      this.note(seat, 'taken');
      return { seat, me };
    } catch (err) {
      this.failures++;
      this.note(seat, 'failed');
      return ${catchReturn};
    }
  }
}
`;
}

function campaign(catchBody: string): string {
  return `import { EventEmitter } from 'node:events';
import Redis from 'ioredis';
export class Campaign extends EventEmitter {
  constructor(private readonly redis: Redis, private readonly lockKey: string, private readonly me: string) {
    super();
  }
  async run(): Promise<void> {
    try {
      if (await this.redis.set(this.lockKey, this.me, 'PX', 10000, 'NX')) this.emit('won');
      else setTimeout(() => void this.run(), 1000 + Math.random() * 500);
    } catch (err) {
      ${catchBody}
    }
  }
}
`;
}

function retryLoop(catchBody: string): string {
  return `${io}const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));
export async function takeTurn(job: string, me: string): Promise<string | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      if ((await redis.set(\`lock:job:\${job}\`, me, 'PX', 5000, 'NX')) === 'OK') return me;
      await pause(50 + Math.random() * 50);
    } catch (err) {
      console.error(err);
      ${catchBody}
    }
  }
  return null;
}
`;
}

/** That loop waiting a length a function of the file computes, in the try and in the catch alike. */
const jitteredLoop = `${io}const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));
function jittered(ms: number): number {
  return ms / 2 + Math.random() * ms;
}
export async function takeTurn(job: string, me: string): Promise<string | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      if ((await redis.set(\`lock:job:\${job}\`, me, 'PX', 5000, 'NX')) === 'OK') return me;
      await pause(jittered(50));
    } catch (err) {
      console.error(err);
      await pause(jittered(50));
    }
  }
  return null;
}
`;

function settleLoop(catchBody: string): string {
  return `${redlockHeader}async function settle(id: string): Promise<void> {}
export async function settleAll(ids: string[]) {
  for (const id of ids) {
    let lock;
    try {
      lock = await redlock.acquire([\`lock:settle:\${id}\`], 10000);
    } catch (err) {
      ${catchBody}
    }
    try {
      await settle(id);
    } finally {
      await lock?.release();
    }
  }
}
`;
}

function renderJob(catchBody: string): string {
  return `${redlockHeader}async function renderFrames(id: string): Promise<void> {}
async function markFailed(id: string): Promise<void> {}
function notify(id: string, status: string): void {}
export async function render(id: string) {
  const started = Date.now();
  try {
    const lock = await redlock.acquire(['lock:gpu'], 60000);
    try {
      await renderFrames(id);
    } finally {
      await lock.release();
    }
    notify(id, \`done in \${Date.now() - started} ms\`);
  } catch (err) {
    ${catchBody}
  }
}
`;
}

function themeFill(catchReturn: string): string {
  return `${io}async function loadTheme(tenant: string): Promise<string> {
  return tenant.length > 3 ? 'dark' : 'light';
}
export async function themeFor(tenant: string, me: string): Promise<{ theme: string }> {
  try {
    const cached = await redis.get(\`theme:\${tenant}\`);
    if (cached) return { theme: cached };
    if ((await redis.set(\`lock:theme:\${tenant}\`, me, 'EX', 5, 'NX')) !== 'OK') return { theme: 'light' };
    try {
      const theme = await loadTheme(tenant);
      await redis.set(\`theme:\${tenant}\`, theme, 'EX', 300);
      return { theme };
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:theme:\${tenant}\`, me);
    }
  } catch {
    return ${catchReturn};
  }
}
`;
}

function leases(doc: string): string {
  return `import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
export class Leases {
  constructor(private readonly redis: Redis | null) {}
  ${doc}
  async take(name: string): Promise<{ name: string; token: string } | null> {
    const token = randomUUID();
    if (!this.redis) return { name, token };
    return (await this.redis.set(\`lease:\${name}\`, token, 'PX', 10000, 'NX')) === 'OK' ? { name, token } : null;
  }
}
`;
}

/** A claim that is `true` without a client; `onError` is its catch around the acquire. */
function importClaim(onError: string): string {
  return `import Redis from 'ioredis';
export async function claimImport(redis: Redis | null): Promise<boolean> {
  if (!redis) return true;
  try {
    return (await redis.set('lock:catalog-import', String(process.pid) + ':' + crypto.randomUUID(), 'EX', 600, 'NX')) === 'OK';
  } catch (err) {
    ${onError}
  }
}
`;
}

/** A digest throttle answering tagged outcomes; `onError` is what its catch answers. */
const digestThrottle = (onError: string) => `${io}export async function digestGate(topic: string): Promise<{ kind: string; count?: number }> {
  try {
    const count = Number(await redis.incr(\`digest:count:\${topic}\`));
    const gate = await redis.set(\`digest:lock:\${topic}\`, '1', 'EX', 300, 'NX');
    if (gate === 'OK') return { kind: 'flush', count };
    return { kind: 'hold' };
  } catch {
    return ${onError};
  }
}
`;

export const answerValidCases: ValidCase[] = [
  { name: 'the catch answers a tagged outcome that neither the acquired nor the busy answer carries', code: digestThrottle(`{ kind: 'direct' }`) },
  { name: 'the catch answers an HTTP error response', code: importRoute(`return res.status(503).json({ error: 'the sheet is locked, or the lock store is down' });`) },
  {
    name: 'the catch answers a fetch Response with an error status',
    code: `${io}async function publish(slug: string): Promise<void> {}
export async function POST(slug: string): Promise<Response> {
  const me = crypto.randomUUID();
  try {
    if ((await redis.set(\`lock:publish:\${slug}\`, me, 'PX', 30000, 'NX')) !== 'OK') return Response.json({ ok: false }, { status: 409 });
    try {
      await publish(slug);
      return Response.json({ ok: true });
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:publish:\${slug}\`, me);
    }
  } catch {
    return Response.json({ ok: false, message: 'could not publish' }, { status: 500 });
  }
}
`,
  },
  {
    name: 'the catch answers a handler result with an error status code',
    code: `${io}async function resize(image: string): Promise<string> {
  return image;
}
export async function handler(event: { image: string }, me: string): Promise<{ statusCode: number; body: string }> {
  try {
    if (!(await redis.set(\`lock:resize:\${event.image}\`, me, 'PX', 30000, 'NX'))) return { statusCode: 409, body: 'busy' };
    try {
      return { statusCode: 200, body: await resize(event.image) };
    } finally {
      await redis.eval(${RELEASE}, 1, \`lock:resize:\${event.image}\`, me);
    }
  } catch {
    return { statusCode: 503, body: 'lock store unavailable' };
  }
}
`,
  },
  { name: 'the catch says "no" under another field name', code: seatReservation(`{ usable: false, why: 'store down' }`) },
  { name: 'the catch answers with a flag that says why it refused', code: seatReservation(`{ unavailable: true, why: 'store down' }`) },
  {
    name: 'the catch answers an error state',
    code: `${io}async function rebuild(): Promise<number> {
  return 1;
}
export async function rebuildIndex(me: string): Promise<{ state: string; took?: number; n?: number }> {
  const started = Date.now();
  try {
    if (!(await redis.set('lock:index:rebuild', me, 'PX', 60000, 'NX'))) return { state: 'busy' };
    return { state: 'done', n: await rebuild(), took: Date.now() - started };
  } catch {
    return { state: 'error', took: Date.now() - started };
  }
}
`,
  },
  { name: 'the catch records the failure, then answers null', code: recordingGate('null') },
  { name: "the catch emits 'error', not the event that starts the work", code: campaign(`this.emit('error', err);`) },
  { name: 'a catch in a bounded retry loop waits and lets the loop try again', code: retryLoop('await pause(50 + Math.random() * 50);') },
  { name: 'a catch in a bounded retry loop waits a length a function computes, as the try does', code: jitteredLoop },
  { name: 'the catch skips this iteration of the loop', code: settleLoop('continue;') },
  { name: 'the catch stops the loop', code: settleLoop('break;') },
  { name: 'a function-wide catch marks the job failed and says so', code: renderJob(`await markFailed(id);\n    notify(id, 'failed');`) },
  { name: 'the catch answers what the busy branch answers', code: themeFill(`{ theme: 'light' }`) },
  {
    name: 'a "not configured" branch of a function whose catch around the acquire says failing open is intended',
    code: importClaim(`// Coordination is best-effort: the import itself is idempotent.
    console.warn('claim failed, importing anyway', err);
    return true;`),
  },
  {
    name: 'a catch whose function doc says the lock is skipped and the job proceeds when Redis is unavailable',
    code: importClaim(`console.warn('claim failed', err);
    return true;`).replace('export async function claimImport', `/**
 * Claims the hourly import. If Redis is unavailable the lock is skipped and the import proceeds: its
 * writes are idempotent upserts.
 */
export async function claimImport`).replace('  if (!redis) return true;\n', '').replace('redis: Redis | null', 'redis: Redis'),
  },
  {
    name: 'a "not configured" branch documented as such',
    code: leases('/** Without a Redis client (local development) every caller gets a lease: there is no coordination between instances. */'),
  },
];

export const answerInvalidCases: InvalidCase[] = [
  { name: 'the catch answers the tagged outcome of the acquired path', message: ["returns `{ kind: 'flush' }`"], output: null, code: digestThrottle(`{ kind: 'flush' }`) },
  { name: 'the catch runs the work, then answers', message: ['runs `importRows`'], output: null, code: importRoute(`return res.status(200).json({ rows: await importRows(sheet) });`) },
  { name: 'the catch says "yes" under another field name', message: ['returns `{ usable: true'], output: null, code: seatReservation(`{ usable: true, why: 'store down, letting it through' }`) },
  {
    name: 'the catch records the failure, then hands back the lock',
    message: ['returns `{ seat, me }`'],
    code: recordingGate('{ seat, me }'),
    output: recordingGate('{ seat, me }').replace(/return \{ seat, me \};(?![^]*return \{ seat, me \};)/, 'throw err;'),
  },
  { name: 'the catch emits the event that starts the work', message: ['runs `emit`'], output: null, code: campaign(`this.emit('won');`) },
  { name: 'a catch in a retry loop hands back the token', message: ['returns `me`'], code: retryLoop('return me;'), output: retryLoop('throw err;') },
  { name: 'the catch lets the loop go on to the work', message: ['lets the function go on to run `settle`'], output: null, code: settleLoop('console.warn(err);') },
  { name: 'a function-wide catch marks the job failed, then renders anyway', message: ['runs `renderFrames`'], output: null, code: renderJob(`await markFailed(id);\n    await renderFrames(id);`) },
  { name: 'the catch fills the cache as if it held the lock', message: ['runs `loadTheme`'], output: null, code: themeFill(`{ theme: await loadTheme(tenant) }`) },
  { name: 'a "not configured" branch whose catch rethrows and says nothing', message: ['not configured'], code: importClaim('throw err;'), output: null },
  { name: 'a "not configured" branch whose doc says nothing about it', message: ['not configured'], code: leases('/** Takes the lease for `name`. */') },
];
