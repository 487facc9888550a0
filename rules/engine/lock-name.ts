// What a name that means "lock" looks like. Its own module, free of parser imports, because the
// CLI's text pre-check uses it before deciding whether to load TypeScript at all.

/**
 * Names that say "lock": `lock:x`, `orderLock`, `LOCK_KEY`, `unlock`, `mutexName`, `leader`; not `block`,
 * `clock`, `Blocking`, `BLOCK` or a `leaderboard`.
 */
export const LOCK_NAME = /(?<![a-zA-Z])(?:[uU]n)?lock|Lock|(?<![A-Z])(?:UN)?LOCK|mutex|Mutex|MUTEX|mtx|MTX|semaphore|Semaphore|SEMAPHORE|(?:leader|Leader|LEADER)(?![_-]?[bB]oard|BOARD)|latch|Latch|LATCH/;
