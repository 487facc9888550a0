// The Redis clients a file's package depends on, read from package.json through the host: a file
// handed its client as a parameter does not show which client it is, but the package does.
import { dirname, join } from 'node:path';
import type { ProjectHost } from './host';

/** Client package -> its major version (undefined when the range names none: `latest`, a git URL). */
export type ClientPackages = ReadonlyMap<string, number | undefined>;

// Packages whose client a project may call Redis through; the queue and lock libraries bring ioredis
// (or node_redis 3) along, whose set() takes positional option words.
const CLIENTS = new Set([
  'redis', '@redis/client', '@node-redis/client', 'ioredis', 'iovalkey', 'ioredis-mock', 'redis-mock',
  '@upstash/redis', '@vercel/kv', '@valkey/valkey-glide', 'bullmq', 'bull', 'bee-queue', 'redlock', 'redis-semaphore',
]);
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
/** How far up a monorepo the package.json declaring the client may be. */
const MAX_LEVELS = 8;

function clientsIn(text: string): Map<string, number | undefined> {
  const found = new Map<string, number | undefined>();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return found;
  }
  for (const field of DEPENDENCY_FIELDS) {
    const deps = json[field];
    if (!deps || typeof deps !== 'object') continue;
    for (const [name, range] of Object.entries(deps as Record<string, unknown>)) {
      if (!CLIENTS.has(name)) continue;
      const major = typeof range === 'string' ? /^[\^~>=v\s]*(\d+)/.exec(range)?.[1] : undefined;
      found.set(name, major === undefined ? undefined : Number(major));
    }
  }
  return found;
}

/**
 * The Redis clients of the nearest package.json above `path` that declares any (a workspace package
 * may list none and leave them to the root). Read through the host every time, so an edited
 * package.json counts at once; parsed once per text.
 */
export class PackageClients {
  private readonly parsed = new Map<string, ClientPackages>();
  /** folder -> the package.json paths above it, nearest first (only the texts are read again). */
  private readonly candidates = new Map<string, string[]>();
  constructor(private readonly host: ProjectHost) {}

  of(path: string): ClientPackages {
    for (const manifest of this.manifestsAbove(dirname(path))) {
      const text = this.host.readFile(manifest);
      if (text === undefined) continue;
      let clients = this.parsed.get(text);
      if (!clients) this.parsed.set(text, (clients = clientsIn(text)));
      if (clients.size > 0) return clients;
    }
    return new Map();
  }

  private manifestsAbove(folder: string): string[] {
    let paths = this.candidates.get(folder);
    if (paths) return paths;
    paths = [];
    for (let dir = folder, level = 0; level <= MAX_LEVELS; level++) {
      paths.push(join(dir, 'package.json'));
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    this.candidates.set(folder, paths);
    return paths;
  }
}
