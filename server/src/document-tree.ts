// The syntax tree of one open document, kept between analyses so that an edit re-parses only what it
// touched (a few milliseconds instead of 10-30 ms for a full parse of a 5,000-line file). The span to
// re-parse is found by comparing the new text with the tree's (rules/analyze.ts reparseSource), so no
// bookkeeping of the editor's changes is needed and none can be missed; a failed re-parse is a full one.
import type { ts } from 'ts-morph';
import type { HelperNames } from '../../rules/config';
import { nextTreeText, parseSource, reparseSource, type AnalyzeOptions } from '../../rules/analyze';
import { KeptAnalysis } from '../../rules/kept-analysis';

export class DocumentTree {
  private tree: ts.SourceFile | undefined;
  /** The name `tree` was parsed under (TypeScript normalises the one it stores). */
  private fileName = '';
  /**
   * The text `tree` is of (the tree's own text has the statements without lock code blanked). An edit
   * the kept analysis takes without a tree leaves the tree behind the document: it is re-parsed across
   * every edit since when it is next needed.
   */
  private text = '';
  /** The helper names the lean parse kept declarations for: other names, another blanking. */
  private helpersKey = '';
  /** The findings of `tree`, re-used by the next edit where it changed no token. */
  readonly analysis = new KeptAnalysis();

  /** Forgets the tree: the next parse is a full one. */
  drop(): void {
    this.tree = undefined;
  }

  /** The findings (without fixes) of `text`, the document's current text: without a tree where the kept analysis can. */
  analyze(fileName: string, text: string, helpers: HelperNames, options: Omit<AnalyzeOptions, 'fixes' | 'only'>): ReturnType<KeptAnalysis['analyze']> {
    const tree = this.tree;
    if (tree && this.fileName === fileName && this.helpersKey === keyOf(helpers) && this.text !== text) {
      const next = nextTreeText(tree, text, helpers);
      const result = next && this.analysis.analyzeEdit(fileName, next, options, tree);
      if (result) return result;
    }
    return this.analysis.analyze(this.parse(fileName, text, helpers), options);
  }

  /** A tree of `text`, which must be the document's current text; kept for the next edit. */
  parse(fileName: string, text: string, helpers: HelperNames): ts.SourceFile {
    const key = keyOf(helpers);
    // Other project helper names: the file's calls may mean something else now.
    if (key !== this.helpersKey) this.analysis.forget();
    const previous = this.tree && this.fileName === fileName && this.helpersKey === key ? this.tree : undefined;
    this.drop(); // `previous` is consumed below whatever happens; a throw leaves no tree behind
    let tree: ts.SourceFile | undefined;
    if (previous && this.text === text) tree = previous;
    else if (previous) {
      try {
        tree = reparseSource(previous, text, helpers);
      } catch {
        tree = undefined; // an incremental re-parse that fails is retried as a full parse
      }
    }
    tree ??= parseSource(fileName, text, helpers);
    this.tree = tree;
    this.fileName = fileName;
    this.text = text;
    this.helpersKey = key;
    return tree;
  }

  /**
   * The kept tree, re-parsed to `text` (the document's current text) if it is behind; a fresh parse that is
   * not kept when there is none of this name and helpers.
   */
  treeOf(fileName: string, text: string, helpers: HelperNames): ts.SourceFile {
    return this.tree && this.fileName === fileName && this.helpersKey === keyOf(helpers) ? this.parse(fileName, text, helpers) : parseSource(fileName, text, helpers);
  }
}

function keyOf(helpers: HelperNames): string {
  return [...helpers.acquire, '\0', ...helpers.release, '\0', ...helpers.extend].join(',');
}
