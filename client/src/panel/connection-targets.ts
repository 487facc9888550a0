// Turns the topology settings (URLs, Cluster seeds, Sentinel) into the connections the view shows,
// one tree node each. A password written into a URL is removed here and reported: passwords live in
// SecretStorage only, never in settings, labels or logs.
import type { ConnectionOptions } from '../locks/types';

export interface ConnectionTarget {
  /** Stable id: tree node id and SecretStorage key. Never contains a password. */
  id: string;
  /** What the connection node shows. */
  label: string;
  kind: 'url' | 'cluster' | 'sentinel';
  /** Everything the core needs except the password, which is added from SecretStorage at connect. */
  options: ConnectionOptions;
}

export interface Topology {
  urls: string[];
  cluster: string[];
  sentinels: string[];
  sentinelMasterName: string;
}

export interface CommonOptions {
  username?: string;
  db: number;
  connectTimeoutMs: number;
  tls: NonNullable<ConnectionOptions['tls']>;
  readOnly: boolean;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/;

function validSeeds(seeds: string[], setting: string, problems: string[]): string[] {
  return seeds.filter((seed) => {
    if (HOST_PORT.test(seed.trim())) return true;
    problems.push(`${setting}: "${seed}" is not host:port; it was skipped.`);
    return false;
  });
}

function tlsFor(common: CommonOptions, forced: boolean): ConnectionOptions['tls'] {
  return common.tls.enabled || forced ? { ...common.tls, enabled: true } : undefined;
}

function urlTarget(raw: string, common: CommonOptions, problems: string[]): ConnectionTarget | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    problems.push(`lockwise.redis.urls: "${raw.replace(/\/\/[^@/]*@/, '//…@')}" is not a URL; it was skipped.`);
    return undefined;
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    problems.push(`lockwise.redis.urls: ${url.protocol} is not redis: or rediss:; "${url.host}" was skipped.`);
    return undefined;
  }
  if (url.password) {
    url.password = '';
    problems.push(
      `lockwise.redis.urls: the URL for ${url.host} contains a password; it was ignored. ` +
        'Store it with "Lockwise: Set Redis Password" instead.',
    );
  }
  const dbInPath = /^\/\d+$/.test(url.pathname);
  const text = url.toString();
  return {
    id: `url:${text}`,
    label: url.host + (dbInPath && url.pathname !== '/0' ? url.pathname : ''),
    kind: 'url',
    options: {
      url: text,
      username: url.username ? undefined : common.username,
      db: dbInPath ? undefined : common.db,
      tls: tlsFor(common, url.protocol === 'rediss:'),
      connectTimeoutMs: common.connectTimeoutMs,
      readOnly: common.readOnly,
    },
  };
}

export function connectionTargets(topology: Topology, common: CommonOptions, problems: string[]): ConnectionTarget[] {
  const targets: ConnectionTarget[] = [];
  for (const raw of topology.urls) {
    const target = urlTarget(raw, common, problems);
    if (target && !targets.some((t) => t.id === target.id)) targets.push(target);
  }

  const seeds = validSeeds(topology.cluster, 'lockwise.redis.cluster', problems);
  if (seeds.length > 0) {
    if (common.db !== 0) problems.push('lockwise.redis.db is ignored for the Cluster: a Redis Cluster only has database 0.');
    targets.push({
      id: `cluster:${seeds.join(',')}`,
      label: `cluster ${seeds[0]}${seeds.length > 1 ? ` +${seeds.length - 1}` : ''}`,
      kind: 'cluster',
      options: {
        cluster: seeds,
        username: common.username,
        tls: tlsFor(common, false),
        connectTimeoutMs: common.connectTimeoutMs,
        readOnly: common.readOnly,
      },
    });
  }

  const sentinels = validSeeds(topology.sentinels, 'lockwise.redis.sentinels', problems);
  if (sentinels.length > 0) {
    const name = topology.sentinelMasterName.trim();
    if (!name) {
      problems.push('lockwise.redis.sentinels is set but lockwise.redis.sentinelMasterName is empty; Sentinel was skipped.');
    } else {
      targets.push({
        id: `sentinel:${name}@${sentinels.join(',')}`,
        label: `sentinel ${name}`,
        kind: 'sentinel',
        options: {
          sentinel: { sentinels, name },
          username: common.username,
          db: common.db,
          tls: tlsFor(common, false),
          connectTimeoutMs: common.connectTimeoutMs,
          readOnly: common.readOnly,
        },
      });
    }
  }
  return targets;
}
