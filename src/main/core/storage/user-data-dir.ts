// Where Electron's app.getPath('userData') points for this app, computed without Electron so
// browser mode and the desktop app share settings and keys.
import { homedir } from 'node:os'
import { join } from 'node:path'

export const PRODUCT_NAME = 'Vault Desktop'

export function defaultUserDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME)
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME)
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), PRODUCT_NAME)
}
