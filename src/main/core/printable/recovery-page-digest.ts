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

/**
 * Where to look for what the app ships beside its code: where it runs from (out/main, out/cli, src in
 * development) and a packaged app's resources.
 */
export function shippedFileRoots(): string[] {
  const resources = (process as { resourcesPath?: string }).resourcesPath
  return [dirname(fileURLToPath(import.meta.url)), ...(resources ? [resources] : [])]
}

/** The shipped page: its file and SHA-256 (lowercase hex). */
export interface ShippedRecoveryPage {
  path: string
  sha256: string
}

/**
 * The page this build ships, looked for upward from each start folder in out/recovery-page/ and
 * recovery-page/ (a packaged app's resources). Its SHA-256 is computed from the page itself, never
 * taken from the .sha256 file beside it: a stale record would put on the kits a value the page the
 * heir holds does not match. Undefined when this build has no page.
 */
export async function findShippedRecoveryPage(
  starts: readonly string[] = shippedFileRoots(),
): Promise<ShippedRecoveryPage | undefined> {
  for (const start of starts) {
    let dir = start
    for (let up = 0; up < 6; up++) {
      for (const folder of [join(dir, 'out/recovery-page'), join(dir, 'recovery-page')]) {
        const path = join(folder, RECOVERY_PAGE_FILE)
        const html = await readFile(path).catch(() => undefined)
        if (html) return { path, sha256: createHash('sha256').update(html).digest('hex') }
      }
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  return undefined
}

/** The shipped page's SHA-256 (lowercase hex), undefined when this build has no page. */
export async function shippedRecoveryPageSha256(
  starts: readonly string[] = shippedFileRoots(),
): Promise<string | undefined> {
  return (await findShippedRecoveryPage(starts))?.sha256
}

/** The marks in docs/RECOVERY.md where a copy beside a page names that page's SHA-256 (pack:recovery fills them too). */
const PAGE_SHA256_MARKS = /<!-- recovery-page-sha256 -->[\s\S]*?<!-- \/recovery-page-sha256 -->/

/** The recovery guide with the page's SHA-256 written in; unchanged when the guide has no marks. */
export function guideNamingPage(guide: string, sha256: string): string {
  return guide.replace(PAGE_SHA256_MARKS, `\`${sha256}\``)
}
