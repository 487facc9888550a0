// Cross-checks the panel's package.json contributions against the code: every command is contributed
// and registered, every setting is contributed with type/default/scope/description and read by the
// settings module, every `when` clause names a real contextValue / context key, welcome links work.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Command, ContextKey, ContextValue, PANEL_STATES, VIEW_CONTAINER_ID, VIEW_ID } from '../../client/src/panel/ids';
import { REDIS_SETTINGS, SETTINGS_SECTION } from '../../client/src/panel/settings';

interface MenuEntry {
  command: string;
  when?: string;
  group?: string;
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const contributes = pkg.contributes;
const source = (file: string) => readFileSync(`client/src/panel/${file}`, 'utf8');
const commands = Object.values(Command);
const contextValues = Object.values(ContextValue) as string[];
const panelMenus = (menu: string): MenuEntry[] =>
  (contributes.menus[menu] ?? []).filter((e: MenuEntry) => e.when?.includes(`view == ${VIEW_ID}`));

test('every panel command is contributed under "Lockwise" and registered in code, and nothing else is', () => {
  const registered = [...source('panel-commands.ts').matchAll(/register\(Command\.(\w+)/g)].map(
    (m) => Command[m[1] as keyof typeof Command],
  );
  assert.deepEqual([...registered].sort(), [...commands].sort());
  for (const id of commands) {
    assert.match(id, /^lockwise\.[a-z]+[A-Z][A-Za-z]*$/, `${id} is lockwise.<verbNoun>`);
    const entry = contributes.commands.find((c: { command: string }) => c.command === id);
    assert.ok(entry, `${id} is contributed`);
    assert.equal(entry.category, 'Lockwise');
    assert.ok(entry.title.length > 3);
  }
  const used = [...panelMenus('view/title'), ...panelMenus('view/item/context')].map((e) => e.command);
  for (const id of used) assert.ok(commands.includes(id as Command), `${id} in a panel menu is a panel command`);
});

test('the view container, view and welcome content match the code', () => {
  assert.ok(contributes.viewsContainers.activitybar.some((c: { id: string; title: string }) => c.id === VIEW_CONTAINER_ID));
  const view = contributes.views[VIEW_CONTAINER_ID].find((v: { id: string }) => v.id === VIEW_ID);
  assert.equal(view.name, 'Redis Locks');
  assert.match(source('activate.ts'), /createTreeView\(VIEW_ID,/);
  const welcome = contributes.viewsWelcome.filter((w: { view: string }) => w.view === VIEW_ID);
  assert.deepEqual(
    welcome.map((w: { when: string }) => w.when).sort(),
    PANEL_STATES.filter((s) => s !== 'active').map((s) => `${ContextKey.PanelState} == ${s}`).sort(),
  );
  for (const w of welcome) {
    for (const [, id] of w.contents.matchAll(/\(command:(lockwise\.[A-Za-z]+)/g)) {
      assert.ok(commands.includes(id as Command), `welcome link ${id}`);
    }
  }
});

test('menus: when clauses name real contextValues and context keys; writes only on writable locks, disabled on stale ones', () => {
  const entries = [...panelMenus('view/title'), ...panelMenus('view/item/context'), ...(contributes.menus.commandPalette as MenuEntry[])];
  for (const { command, when = '' } of entries) {
    for (const [, value] of when.matchAll(/viewItem == ([\w.]+)/g)) assert.ok(contextValues.includes(value!), `${command}: ${value}`);
    for (const [, re] of when.matchAll(/viewItem =~ \/(.+?)\/(?:\s|$)/g)) {
      const matched = contextValues.filter((v) => new RegExp(re!).test(v));
      assert.ok(matched.length > 0, `${command}: /${re}/ matches a contextValue`);
    }
    for (const [key] of when.matchAll(/lockwise\.locks\.\w+/g)) {
      assert.ok((Object.values(ContextKey) as string[]).includes(key), `${command}: context key ${key}`);
    }
    for (const [, state] of when.matchAll(/panelState [!=]= (\w+)/g)) {
      assert.ok((PANEL_STATES as readonly string[]).includes(state!), `${command}: panel state ${state}`);
    }
  }
  const item = panelMenus('view/item/context');
  for (const write of [Command.Release, Command.Extend]) {
    const whens = item.filter((e) => e.command === write).map((e) => e.when!);
    assert.equal(whens.length, 1);
    const re = new RegExp(/viewItem =~ \/(.+?)\/$/.exec(whens[0]!)![1]!);
    assert.deepEqual(contextValues.filter((v) => re.test(v)).sort(), [ContextValue.LockStale, ContextValue.LockWritable].sort());
    // Shown on stale rows, but greyed out: the row's tooltip says why.
    const entry = contributes.commands.find((c: { command: string }) => c.command === write);
    assert.equal(entry.enablement, `viewItem != ${ContextValue.LockStale}`);
  }
  const history = item.filter((e) => e.command === Command.ShowHistory).map((e) => new RegExp(/viewItem =~ \/(.+?)\/$/.exec(e.when!)![1]!));
  assert.deepEqual(contextValues.filter((v) => history[0]!.test(v)).sort(), [ContextValue.Lock, ContextValue.LockStale, ContextValue.LockWritable].sort());
  const hidden = (contributes.menus.commandPalette as MenuEntry[])
    .filter((e) => e.when === 'false' && commands.includes(e.command as Command))
    .map((e) => e.command);
  assert.deepEqual(hidden.sort(), [Command.CopyToken, Command.Extend, Command.GoToCode, Command.Release].sort());
});

test('every lockwise.redis.* setting is contributed with type, default, scope, description, read in code, and restricted in untrusted workspaces', () => {
  const properties = Object.assign({}, ...contributes.configuration.map((g: { properties: object }) => g.properties));
  const contributed = Object.keys(properties)
    .filter((k) => k.startsWith(`${SETTINGS_SECTION}.`))
    .map((k) => k.slice(SETTINGS_SECTION.length + 1));
  assert.deepEqual(contributed.sort(), Object.keys(REDIS_SETTINGS).sort());
  const settingsSource = source('settings.ts');
  for (const [key, spec] of Object.entries(REDIS_SETTINGS)) {
    const p = properties[`${SETTINGS_SECTION}.${key}`];
    assert.deepEqual(p.default, spec.default, `${key} default`);
    assert.ok(spec.check(p.default), `${key}: the contributed default passes the code's check`);
    assert.ok(['string', 'number', 'integer', 'boolean', 'array'].includes(p.type), `${key} type`);
    assert.ok(['window', 'machine-overridable', 'resource', 'application', 'machine'].includes(p.scope), `${key} scope`);
    assert.ok((p.markdownDescription ?? p.description).length > 10, `${key} description`);
    assert.ok(settingsSource.includes(`read('${key}')`), `${key} is read by the settings module`);
  }
  const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  for (const key of Object.keys(REDIS_SETTINGS)) assert.ok(restricted.includes(`${SETTINGS_SECTION}.${key}`), key);
});
