// The TypeScript compiler API the analyzer runs on: the one ts-morph ships, so one parser serves the
// analyzer and ts-morph alike. Re-bound here once because a bundled `import { ts }` reads it through
// a getter on every `ts.x` access, which showed up in the profile of the hot recognisers.
import { ts as compiler } from 'ts-morph';

export import ts = compiler;
