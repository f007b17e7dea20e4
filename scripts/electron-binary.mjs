// Finds the Electron binary without triggering its download (requiring 'electron' would try to fetch it).
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export function electronBinaryPath() {
  if (process.env.ELECTRON_EXEC_PATH && existsSync(process.env.ELECTRON_EXEC_PATH)) {
    return process.env.ELECTRON_EXEC_PATH
  }
  try {
    const packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'))
    const relative = readFileSync(join(packageDir, 'path.txt'), 'utf8').trim()
    const binary = join(packageDir, 'dist', relative)
    return existsSync(binary) ? binary : undefined
  } catch {
    return undefined
  }
}
