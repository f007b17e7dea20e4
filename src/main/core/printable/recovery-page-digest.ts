// The SHA-256 of the heir's recovery page this app ships (scripts/build-recovery-page.mjs writes
// out/recovery-page/vault-recovery.html and its .sha256 beside it at build time), printed on the
// guardians' kits so an heir can check whichever copy of the page they hold: from the owner's export,
// the recovery tool's package or a Vault Service's /recover.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The page's file name, as the heir's copies carry it. */
export const RECOVERY_PAGE_FILE = 'vault-recovery.html'

const SHA256_HEX = /\b([0-9a-f]{64})\b/i

/** Where the app runs from (out/main, out/cli, src in development) and a packaged app's resources. */
function startFolders(): string[] {
  const resources = (process as { resourcesPath?: string }).resourcesPath
  return [dirname(fileURLToPath(import.meta.url)), ...(resources ? [resources] : [])]
}

/**
 * The shipped page's SHA-256 (lowercase hex): the build's .sha256 file, else computed from the page;
 * undefined when this build has no page. Looked for upward from each start folder, in
 * out/recovery-page/ and recovery-page/.
 */
export async function shippedRecoveryPageSha256(
  starts: readonly string[] = startFolders(),
): Promise<string | undefined> {
  for (const start of starts) {
    let dir = start
    for (let up = 0; up < 6; up++) {
      for (const folder of [join(dir, 'out/recovery-page'), join(dir, 'recovery-page')]) {
        const page = join(folder, RECOVERY_PAGE_FILE)
        const recorded = await readFile(`${page}.sha256`, 'utf8').catch(() => undefined)
        const hex = recorded && SHA256_HEX.exec(recorded)?.[1]
        if (hex) return hex.toLowerCase()
        const html = await readFile(page).catch(() => undefined)
        if (html) return createHash('sha256').update(html).digest('hex')
      }
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  return undefined
}
