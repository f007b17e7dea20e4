// Dropping real files on the browser-mode window, as a drag from the file manager does: Playwright
// hands the files to a file input by path (nothing is read into the test) and the drop carries those
// File objects; a folder keeps its relative paths.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from '@playwright/test'

export async function dropFiles(page: Page, paths: string | string[], options: { folder?: boolean } = {}) {
  const input = await page.evaluateHandle((folder) => {
    const el = document.createElement('input')
    el.type = 'file'
    el.multiple = true
    if (folder) el.webkitdirectory = true
    el.style.display = 'none'
    document.body.append(el)
    return el
  }, options.folder ?? false)
  await input.asElement()!.setInputFiles(paths)
  await input.evaluate((el: HTMLInputElement) => {
    const data = new DataTransfer()
    for (const file of Array.from(el.files ?? [])) data.items.add(file)
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(
        new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }),
      )
    }
    el.remove()
  })
}

/** Files left in the backend's folder of dropped files (under its user-data directory). */
export async function droppedFilesLeft(userDataDir: string): Promise<string[]> {
  const entries = await readdir(join(userDataDir, 'dropped'), { recursive: true, withFileTypes: true }).catch(
    () => [],
  )
  return entries.filter((e) => e.isFile()).map((e) => e.name)
}
