// The TreeDataProvider: a thin adapter from the plain-data model to TreeItems. Elements are node ids
// (strings), so identities stay stable across rebuilds, and only items whose text changed are
// re-rendered (on a refresh and on the countdown tick), so tooltips stay open.
import * as vscode from 'vscode';
import { buildTree, childrenOf, renderNode, type PanelNode } from './lock-tree-model';
import type { PanelView } from './panel-state';
import { RenderedItems, type TreeChange } from './tree-changes';

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export class LockTreeProvider implements vscode.TreeDataProvider<string>, vscode.Disposable {
  private readonly items = new RenderedItems();
  private readonly changed = new vscode.EventEmitter<string | string[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  update(view: PanelView): void {
    this.fire(this.items.replace(buildTree(view), Date.now()));
  }

  /** Shows nothing, so the view's welcome content appears. */
  clear(): void {
    this.fire(this.items.replace({ roots: [], nodes: new Map(), ticking: [] }, Date.now()));
  }

  /** Re-renders the time-dependent items whose text changed. */
  tick(): void {
    this.fire(this.items.tick(Date.now()));
  }

  node(id: string): PanelNode | undefined {
    return this.items.current.nodes.get(id);
  }

  getChildren(id?: string): string[] {
    return childrenOf(this.items.current, id);
  }

  getTreeItem(id: string): vscode.TreeItem {
    const data = this.items.render(id, Date.now());
    if (!data) return new vscode.TreeItem('', vscode.TreeItemCollapsibleState.None);
    const item = new vscode.TreeItem(data.label, COLLAPSIBLE[data.collapsible]);
    item.id = data.id;
    item.description = data.description;
    item.contextValue = data.contextValue;
    item.iconPath = new vscode.ThemeIcon(data.icon.id, data.icon.color ? new vscode.ThemeColor(data.icon.color) : undefined);
    return item;
  }

  /** The tooltip, computed when the row is hovered: current, and never the reason for a re-render. */
  resolveTreeItem(item: vscode.TreeItem, id: string): vscode.TreeItem {
    const node = this.items.current.nodes.get(id);
    const tooltip = node ? renderNode(node, Date.now()).tooltip : undefined;
    // Not trusted: text from Redis must not be able to run commands through links.
    if (tooltip) item.tooltip = new vscode.MarkdownString(tooltip);
    return item;
  }

  private fire(change: TreeChange): void {
    if (change === 'all') this.changed.fire(undefined);
    else if (change.length > 0) this.changed.fire(change);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
