// The TreeDataProvider: a thin adapter from the plain-data model to TreeItems. Elements are node ids
// (strings), so identities stay stable across rebuilds and the countdown can re-render just the
// ticking items each second instead of the whole tree.
import * as vscode from 'vscode';
import { buildTree, childrenOf, renderNode, type PanelNode, type PanelTree } from './lock-tree-model';
import type { PanelView } from './panel-state';

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export class LockTreeProvider implements vscode.TreeDataProvider<string>, vscode.Disposable {
  private tree: PanelTree = { roots: [], nodes: new Map(), ticking: [] };
  private readonly changed = new vscode.EventEmitter<string | string[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  update(view: PanelView): void {
    this.tree = buildTree(view);
    this.changed.fire(undefined);
  }

  /** Shows nothing, so the view's welcome content appears. */
  clear(): void {
    this.tree = { roots: [], nodes: new Map(), ticking: [] };
    this.changed.fire(undefined);
  }

  /** Re-renders the items whose text counts down. */
  tick(): void {
    if (this.tree.ticking.length > 0) this.changed.fire(this.tree.ticking);
  }

  node(id: string): PanelNode | undefined {
    return this.tree.nodes.get(id);
  }

  getChildren(id?: string): string[] {
    return childrenOf(this.tree, id);
  }

  getTreeItem(id: string): vscode.TreeItem {
    const node = this.tree.nodes.get(id);
    if (!node) return new vscode.TreeItem('', vscode.TreeItemCollapsibleState.None);
    const data = renderNode(node, Date.now());
    const item = new vscode.TreeItem(data.label, COLLAPSIBLE[data.collapsible]);
    item.id = data.id;
    item.description = data.description;
    item.contextValue = data.contextValue;
    item.iconPath = new vscode.ThemeIcon(data.icon.id, data.icon.color ? new vscode.ThemeColor(data.icon.color) : undefined);
    if (data.tooltip) {
      // Not trusted: text from Redis must not be able to run commands through links.
      item.tooltip = new vscode.MarkdownString(data.tooltip);
    }
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
