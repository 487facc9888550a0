// Installs the tools that packaging and the end-to-end test need into .e2e/tools (git-ignored), never
// into the extension's own dependencies: @vscode/vsce, code-server (a full VS Code) and playwright-core.
// Idempotent: each step leaves a marker and is skipped when done. Usage: node scripts/e2e-tools.mjs [vsce|all]
// code-server's own install script cannot run here (root, and it downloads ripgrep), so the steps of
// ../shared/docs/vscode-e2e.md are done by hand: rebuild the native modules, link Debian's rg, make the links.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VERSIONS = { vsce: '3.9.2', codeServer: '4.100.3', playwright: '1.56.1' };
export const TOOLS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '.e2e', 'tools');
export const CODE_SERVER_DIR = join(TOOLS_DIR, 'node_modules', 'code-server');
export const VSCODE_DIR = join(CODE_SERVER_DIR, 'lib', 'vscode');
export const VSCE_BIN = join(TOOLS_DIR, 'node_modules', '@vscode', 'vsce', 'vsce');

function run(cmd, args, cwd) {
  console.log(`[e2e-tools] ${cwd}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd} (exit ${r.status})`);
}

const marker = (name) => join(TOOLS_DIR, `.done-${name}`);
const done = (name) => existsSync(marker(name)) && readFileSync(marker(name), 'utf8') === JSON.stringify(VERSIONS);

/** Runs `step` once per `name`: the marker records the versions it was done for. */
function once(name, step) {
  if (done(name)) return;
  step();
  writeFileSync(marker(name), JSON.stringify(VERSIONS));
}

function link(target, path) {
  rmSync(path, { force: true, recursive: false });
  symlinkSync(target, path);
}

function writeToolPackage() {
  mkdirSync(TOOLS_DIR, { recursive: true });
  const pkg = {
    name: 'lockwise-e2e-tools',
    private: true,
    description: 'Tools for packaging and the end-to-end test; installed by scripts/e2e-tools.mjs.',
    dependencies: {
      '@vscode/vsce': VERSIONS.vsce,
      'code-server': VERSIONS.codeServer,
      'playwright-core': VERSIONS.playwright,
    },
  };
  writeFileSync(join(TOOLS_DIR, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

export function installVsce() {
  if (done('npm')) return; // the full install includes vsce
  writeToolPackage();
  once('vsce', () => run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', `@vscode/vsce@${VERSIONS.vsce}`], TOOLS_DIR));
}

export function installAll() {
  writeToolPackage();
  once('npm', () => run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], TOOLS_DIR));
  // npm hoists argon2 next to code-server, so it is rebuilt from the tool folder.
  once('argon2', () => {
    run('npm', ['rebuild', 'argon2'], TOOLS_DIR);
    if (!existsSync(join(TOOLS_DIR, 'node_modules', 'argon2', 'lib', 'binding', 'napi-v3', 'argon2.node'))) {
      throw new Error('argon2 did not build (see the npm rebuild output above)');
    }
  });
  once('vscode-modules', () => {
    run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], VSCODE_DIR);
    // node-pty's post-build helper fails after its .node file is built; the module itself works.
    const natives = ['kerberos', 'node-pty', '@parcel/watcher', '@vscode/spdlog', 'native-watchdog', '@vscode/deviceid'];
    spawnSync('npm', ['rebuild', ...natives], { cwd: VSCODE_DIR, stdio: 'inherit' });
    if (!existsSync(join(VSCODE_DIR, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node'))) {
      throw new Error('node-pty did not build (see the npm rebuild output above)');
    }
    const rgDir = join(VSCODE_DIR, 'node_modules', '@vscode', 'ripgrep', 'bin');
    mkdirSync(rgDir, { recursive: true });
    link('/usr/bin/rg', join(rgDir, 'rg'));
    link('node_modules', join(VSCODE_DIR, 'node_modules.asar'));
    link('code-linux.sh', join(VSCODE_DIR, 'bin', 'remote-cli', 'code-server'));
    link('browser-linux.sh', join(VSCODE_DIR, 'bin', 'helpers', 'browser.sh'));
  });
  once('builtin-extensions', () =>
    run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], join(VSCODE_DIR, 'extensions')),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const what = process.argv[2] ?? 'all';
  if (what === 'vsce') installVsce();
  else installAll();
}
