import type { RuleCases } from '../harness';
import { io, RELEASE } from './preludes';

// A lock taken with SET NX and released with a compare-and-delete in `finally`, around `body`.
const locked = (body: string, fn = 'export async function nightly(token: string)') => `${fn} {
  if ((await redis.set('lock:nightly', token, 'PX', 60000, 'NX')) !== 'OK') return;
  try {
${body}
  } finally {
    await redis.eval(${RELEASE}, 1, 'lock:nightly', token);
  }
}
`;

const items = `declare const invoices: string[];
async function send(id: string): Promise<void> {}
`;

export const awaitLockedWorkCases: RuleCases = {
  valid: [
    { name: 'a chain that only reacts to the work settling (`promise.finally(cleanup)`), the work itself awaited before the release', code: `${io}declare function generate(id: string): Promise<string>;
const inflight = new Map<string, Promise<string>>();
export async function image(id: string, token: string) {
  if (!(await redis.set(\`lock:image:\${id}\`, token, 'PX', 15000, 'NX'))) return undefined;
  const promise = generate(id);
  inflight.set(id, promise);
  promise.finally(() => {
    inflight.delete(id);
  });
  try {
    return await promise;
  } finally {
    await redis.eval(${RELEASE}, 1, \`lock:image:\${id}\`, token);
  }
}
` },
    { name: 'the work awaited, returned, stored and awaited later, or dropped on purpose with void', code: `${io}${items}${locked(`    await work();
    const pending = work();
    void send('audit');
    await pending;
    await Promise.all(invoices.map((id) => send(id)));
    for (const id of invoices) await send(id);`)}` },
    { name: 'synchronous calls and calls it cannot tell are async (logging, an emitter, a timer, a plain function of the file)', code: `${io}declare const log: { info(message: string): void };
declare const bus: { emit(event: string): boolean };
function tally(): number { return 1; }
${locked(`    log.info('start');
    bus.emit('nightly');
    tally();
    setTimeout(() => undefined, 10);
    await work();`)}` },
    { name: 'a watchdog of this file started beside the work, to renew the lock while it runs', code: `${io}async function keepAlive(token: string): Promise<void> {
  await redis.pexpire('lock:nightly', 60000);
}
${locked(`    keepAlive(token);
    await work();`)}` },
    { name: 'a notice of this file sent off beside the work (an alert to admins, a user notification): it changes nothing the lock guards', code: `${io}async function alertAdmins(text: string): Promise<void> {
  await fetch('https://chat.example/hook', { method: 'POST', body: text }).catch(() => undefined);
}
async function notifyUser(id: string): Promise<void> {}
${locked(`    alertAdmins('large payout started');
    notifyUser('u1');
    await work();`)}` },
    { name: 'a side task sent off with a .catch for its errors (a webhook, a background check) is detached on purpose', code: `${io}${locked('    work().catch((err) => console.error(err));\n    work().then(() => undefined).catch(() => undefined);')}` },
    { name: 'an async call after the release is not under the lock', code: `${io}export async function nightly(token: string) {
  if ((await redis.set('lock:nightly', token, 'PX', 60000, 'NX')) !== 'OK') return;
  await work();
  await redis.eval(${RELEASE}, 1, 'lock:nightly', token);
  work();
}
` },
  ],
  invalid: [
    {
      name: 'work started with .then and not awaited between the acquire and the release',
      message: ['starts a promise chain and is not awaited', "'lock:nightly'"],
      code: `${io}${locked('    work().then(() => console.log(\'sent\'));')}`,
      output: `${io}${locked('    await work().then(() => console.log(\'sent\'));')}`,
    },
    {
      name: 'the routine a lock helper was given, started with a .catch and not awaited: the locked work itself is detached',
      message: ['starts a promise chain and is not awaited'],
      code: `${io}export async function exclusive(key: string, token: string, job: () => Promise<void>) {
  if ((await redis.set(key, token, 'PX', 30000, 'NX')) !== 'OK') return false;
  try {
    job().catch((err) => console.error(err));
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
  return true;
}
`,
    },
    {
      name: 'an async function of this file called without await under the lock',
      message: ['starts an async function of this file and is not awaited'],
      code: `${io}${locked('    work();')}`,
      output: `${io}${locked('    await work();')}`,
    },
    {
      name: "a method decorator that runs the method it wraps with original.apply(this, args) and does not await it",
      message: ['the method the decorator wraps'],
      code: `${io}export function Exclusive(token: string) {
  return function (_target: object, _name: string, descriptor: PropertyDescriptor) {
    const original = descriptor.value as (...args: unknown[]) => Promise<void>;
    descriptor.value = async function (this: unknown, ...args: unknown[]) {
      if ((await redis.set('lock:nightly', token, 'PX', 60000, 'NX')) !== 'OK') return;
      try {
        original.apply(this, args);
      } finally {
        await redis.eval(${RELEASE}, 1, 'lock:nightly', token);
      }
    };
  };
}
`,
    },
    {
      name: 'an async method of the class called on this without await under the lock',
      message: ['starts an async function of this file'],
      code: `${io}export class Rebuilder {
  private async rebuild(): Promise<void> {
    await work();
  }
${locked('    this.rebuild();', '  async run(token: string)').replace(/^/gm, '  ').replace(/^  $/gm, '')}}
`,
    },
    {
      name: 'forEach with an async callback under the lock: the release runs before any callback ends',
      message: ['forEach with an async callback'],
      code: `${io}${items}${locked('    invoices.forEach(async (id) => {\n      await send(id);\n    });')}`,
      output: `${io}${items}${locked('    await Promise.all(invoices.map(async (id) => {\n      await send(id);\n    }));')}`,
    },
    {
      name: 'a promise chain and Promise.all in a method, not awaited',
      message: ['a promise'],
      count: 2,
      code: `${io}export class Exporter {
${locked(`    work().then(() => console.log('done'));
    Promise.all([work(), work()]);`, '  async run(token: string)').replace(/^/gm, '  ').replace(/^  $/gm, '')}}
`,
    },
    {
      name: 'a routine typed as returning a Promise, called without await in a lock helper',
      message: ['work typed as returning a Promise'],
      code: `${io}export async function exclusive(key: string, token: string, job: () => Promise<void>) {
  if ((await redis.set(key, token, 'PX', 30000, 'NX')) !== 'OK') return false;
  try {
    job();
  } finally {
    await redis.eval(${RELEASE}, 1, key, token);
  }
  return true;
}
`,
    },
  ],
};
