// Entry of dist/server.js, which plays two roles so the extension ships one server file: on the main
// thread the language server; in a worker thread the large-stack analysis of large-stack.ts.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) require('./server');
else require('./analysis-thread');
