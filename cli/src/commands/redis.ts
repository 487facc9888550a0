// Entry of dist/cli-redis.js: the commands that talk to Redis, bundled with the Redis clients that
// `lockwise check` never loads.
export { command as extend } from './extend';
export { command as locks } from './locks';
export { command as release } from './release';
