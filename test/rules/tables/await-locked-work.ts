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
    { name: 'the work awaited, returned, stored and awaited later, or dropped on purpose with void', code: `${io}${items}${locked(`    await work();
    const pending = work();
    void send('audit');
    await pending;
    await Promise.all(invoices.map((id) => send(id)));
    for (const id of invoices) await send(id);`)}` },
    { name: 'synchronous calls and calls it cannot tell are async (logging, an emitter, a timer, a function of the file)', code: `${io}declare const log: { info(message: string): void };
declare const bus: { emit(event: string): boolean };
function tally(): number { return 1; }
${locked(`    log.info('start');
    bus.emit('nightly');
    tally();
    setTimeout(() => undefined, 10);
    work();
    await work();`)}` },
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
      name: 'work started with a .catch for its errors, not awaited between the acquire and the release',
      message: ['starts a promise chain and is not awaited', "'lock:nightly'"],
      code: `${io}${locked('    work().catch((err) => console.error(err));')}`,
      output: `${io}${locked('    await work().catch((err) => console.error(err));')}`,
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
