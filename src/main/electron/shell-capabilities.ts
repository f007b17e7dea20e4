// What only the desktop shell can do for the core: native pickers, printing kits (to paper or
// PDF) and opening a decrypted file with the system's default app. Kits are printed from a hidden,
// sandboxed window with JavaScript off and no preload.
import { writeFile } from 'node:fs/promises'
import { type BaseWindow, BrowserWindow, dialog, shell, systemPreferences } from 'electron'
import { AppError } from '../../shared/app-error'
import { desktopText } from '../core/desktop-text'
import type { ShellCapabilities } from '../core/vault-app'

export function desktopShellCapabilities(parent: () => BaseWindow | undefined): Required<ShellCapabilities> {
  return {
    // Touch ID on a Mac that has it; elsewhere Electron offers no system check, and the owner types
    // the vault's name instead (vaults/owner-kit-gate.ts).
    systemConfirm:
      process.platform === 'darwin' && systemPreferences.canPromptTouchID()
        ? {
            name: 'Touch ID',
            confirm: (reason) =>
              systemPreferences.promptTouchID(reason).then(
                () => true,
                () => false,
              ),
          }
        : null,

    openFile: {
      kind: 'default-app',
      open: async (path) => {
        // openPath answers with an error message, or '' once the default app was asked to open it.
        const problem = await shell.openPath(path)
        if (problem) {
          throw new AppError({
            code: 'OPEN_FAILED',
            userMessage: `The file was decrypted, but no app on this computer opened it (${problem}). Save it into a folder instead and open it from there.`,
          })
        }
      },
    },

    pickPaths: async (kind) => {
      const window = parent()
      const t = desktopText().pickers
      const options: Electron.OpenDialogOptions =
        kind === 'files'
          ? { title: t.filesToBackUp, properties: ['openFile', 'multiSelections'] }
          : kind === 'folder'
            ? { title: t.folderToBackUp, properties: ['openDirectory', 'multiSelections'] }
            : kind === 'output-folder'
              ? { title: t.recoveryFolder, properties: ['openDirectory', 'createDirectory'] }
              : {
                  title: t.qrPhoto,
                  properties: ['openFile'],
                  filters: [{ name: t.images, extensions: ['png', 'jpg', 'jpeg', 'webp'] }],
                }
      const result = window
        ? await dialog.showOpenDialog(window, options)
        : await dialog.showOpenDialog(options)
      return result.canceled ? [] : result.filePaths
    },

    printHtml: async (html, as, suggestedName) => {
      const printer = new BrowserWindow({
        show: false,
        webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false },
      })
      try {
        await printer.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`)
        if (as === 'print') {
          await new Promise<void>((resolve, reject) =>
            printer.webContents.print({ printBackground: true }, (success, reason) =>
              success || reason === 'cancelled' ? resolve() : reject(new Error(`Printing failed: ${reason}`)),
            ),
          )
          return null
        }
        const window = parent()
        const target = window
          ? await dialog.showSaveDialog(window, {
              title: desktopText().pickers.saveKitPdf,
              defaultPath: suggestedName,
            })
          : await dialog.showSaveDialog({
              title: desktopText().pickers.saveKitPdf,
              defaultPath: suggestedName,
            })
        if (target.canceled || !target.filePath) return null
        const pdf = await printer.webContents.printToPDF({ printBackground: true, pageSize: 'A4' })
        await writeFile(target.filePath, pdf, { mode: 0o600 })
        return target.filePath
      } finally {
        printer.destroy()
      }
    },
  }
}
