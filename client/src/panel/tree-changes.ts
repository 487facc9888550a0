// Which tree items the view must re-fetch: only those whose label, description, icon or menus changed
// since VS Code last got them. Re-rendering an item closes its tooltip, so re-rendering every row on
// every refresh and every second (as the countdown used to) meant tooltips never appeared. Tooltips
// are resolved when hovered, so a changed PTTL or history does not re-render a row. vscode-free.
import { renderNode, type PanelTree, type TreeItemData } from './lock-tree-model';

/** 'all': the shape of the tree changed (rows came or went); otherwise the ids to re-render. */
export type TreeChange = 'all' | string[];

/** What the row shows without hovering. The tooltip is resolved on hover (and again after each re-render). */
const signature = ({ tooltip: _tooltip, ...shown }: TreeItemData) => JSON.stringify(shown);

function sameShape(a: PanelTree, b: PanelTree): boolean {
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((id, i) => id === y[i]);
  if (!same(a.roots, b.roots) || a.nodes.size !== b.nodes.size) return false;
  for (const [id, node] of b.nodes) {
    const old = a.nodes.get(id);
    if (!old || old.kind !== node.kind) return false;
    if ((node.kind === 'connection' || node.kind === 'group') && !same((old as typeof node).children, node.children)) return false;
  }
  return true;
}

export class RenderedItems {
  private tree: PanelTree = { roots: [], nodes: new Map(), ticking: [] };
  /** What each item looked like when VS Code last asked for it. */
  private readonly shown = new Map<string, string>();

  get current(): PanelTree {
    return this.tree;
  }

  /** Renders an item for VS Code and remembers what it was given. */
  render(id: string, now: number): TreeItemData | undefined {
    const node = this.tree.nodes.get(id);
    if (!node) return undefined;
    const data = renderNode(node, now);
    this.shown.set(id, signature(data));
    return data;
  }

  /** Takes a new tree; says what the view must re-fetch. */
  replace(tree: PanelTree, now: number): TreeChange {
    const shape = sameShape(this.tree, tree);
    this.tree = tree;
    if (!shape) {
      this.shown.clear();
      return 'all';
    }
    return this.changed([...this.shown.keys()], now);
  }

  /** The time-dependent items whose text changed since they were last rendered. */
  tick(now: number): string[] {
    return this.changed(this.tree.ticking, now);
  }

  private changed(ids: readonly string[], now: number): string[] {
    return ids.filter((id) => {
      const before = this.shown.get(id);
      const node = this.tree.nodes.get(id);
      // Items VS Code never asked for (inside a collapsed group) are rendered when it does.
      return before !== undefined && node !== undefined && signature(renderNode(node, now)) !== before;
    });
  }
}
