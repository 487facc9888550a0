// Every piece of code the project knows to be lock code: each rule table case (input and fixed
// output), each file of examples/ and each ```ts/```js block of rules/*.md. Tests that must hold for
// all lock code (the pre-check, the lean parse) read them from here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyConfig, type LockwiseConfig } from '../../../rules/config';
import { tables } from '../tables/index';

export interface Input {
  where: string;
  fileName: string;
  code: string;
  config: LockwiseConfig;
}

export function tableInputs(): Input[] {
  return Object.entries(tables).flatMap(([ruleId, cases]) =>
    [...cases.valid, ...cases.invalid].flatMap((c) => {
      const config = { ...emptyConfig(), ...c.config };
      const fileName = c.fileName ?? 'case.ts';
      const output = 'output' in c && typeof c.output === 'string' ? [{ where: `${ruleId} table, fixed "${c.name}"`, fileName, code: c.output, config }] : [];
      return [{ where: `${ruleId} table, "${c.name}"`, fileName, code: c.code, config }, ...output];
    }),
  );
}

export function exampleInputs(dir = 'examples'): Input[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : exampleInputs(path);
    if (!/\.[cm]?[jt]sx?$/.test(e.name) || /\.d\.[cm]?ts$/.test(e.name)) return [];
    return [{ where: path, fileName: path, code: readFileSync(path, 'utf8'), config: emptyConfig() }];
  });
}

/** The ```ts and ```js blocks of the rule docs (docs.test.ts runs the same blocks; its reader is its own). */
export function docInputs(): Input[] {
  return readdirSync('rules')
    .filter((f) => f.endsWith('.md'))
    .flatMap((doc) => {
      const blocks: Input[] = [];
      let fence: { lang: string; line: number; body: string[] } | undefined;
      readFileSync(join('rules', doc), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.startsWith('```')) fence?.body.push(line);
          else if (!fence) fence = { lang: line.slice(3).trim(), line: i + 2, body: [] };
          else {
            if (fence.lang === 'ts' || fence.lang === 'js') {
              blocks.push({ where: `rules/${doc}:${fence.line}`, fileName: `example.${fence.lang}`, code: `${fence.body.join('\n')}\n`, config: emptyConfig() });
            }
            fence = undefined;
          }
        });
      return blocks;
    });
}
