// The user settings every e2e workbench starts with: nothing of VS Code's own (welcome pages, tips,
// telemetry, updates, TypeScript's errors on a fixture without node_modules) gets between the test and
// what Lockwise shows.
export const QUIET_WORKBENCH: Record<string, unknown> = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'chat.commandCenter.enabled': false,
  'editor.minimap.enabled': false,
  'typescript.validate.enable': false,
};
