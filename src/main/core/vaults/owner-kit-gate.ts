// The owner kit is the whole vault key in words: it is shown (or printed) only just after the owner
// confirmed they mean it, as password managers ask again before showing a secret. Where the system
// offers a check of its own (Touch ID on a Mac, through the Electron shell) that is used; elsewhere the
// owner types the vault's name. Enforced here in the main process, not only by the window.
import { AppError } from '../../../shared/app-error'
import type { OwnerKitGateInfo } from '../../../shared/ipc/vault-types'

/** A check the operating system runs itself (the app never sees what the owner gave it). */
export interface SystemConfirm {
  /** As the window names it: "Touch ID". */
  name: string
  /** Resolves true once the owner passed the check, false when they did not. */
  confirm(reason: string): Promise<boolean>
}

/** How long a confirmation opens the kit for: long enough to read, print and save it. */
export const OWNER_KIT_OPEN_MS = 5 * 60_000

/** How a name is compared: spaces, case and Unicode forms aside. */
function comparable(name: string): string {
  return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase()
}

export class OwnerKitGate {
  readonly #openUntil = new Map<string, number>()

  constructor(
    private readonly now: () => number = Date.now,
    private readonly system: SystemConfirm | null = null,
  ) {}

  info(vaultId: string, vaultLabel: string): OwnerKitGateInfo {
    return {
      vaultId,
      method: this.system ? 'system' : 'typed',
      systemName: this.system?.name ?? null,
      typeThis: vaultLabel,
      open: this.isOpen(vaultId),
    }
  }

  /** Opens the kit of this vault for a while, once the owner passed the check; else a clear AppError. */
  async open(vaultId: string, vaultLabel: string, typed?: string): Promise<OwnerKitGateInfo> {
    if (this.system) {
      const passed = await this.system
        .confirm(`show the owner kit of ${vaultLabel}: the vault key itself`)
        .catch(() => false)
      if (!passed) {
        throw new AppError({
          code: 'OWNER_KIT_NOT_CONFIRMED',
          userMessage: `${this.system.name} did not confirm it was you, so the owner kit stays hidden. Try again.`,
        })
      }
    } else if (typed === undefined || comparable(typed) !== comparable(vaultLabel)) {
      throw new AppError({
        code: 'OWNER_KIT_NOT_CONFIRMED',
        userMessage: `Type the vault's name exactly as shown (“${vaultLabel}”) to show its owner kit.`,
      })
    }
    this.#openUntil.set(vaultId, this.now() + OWNER_KIT_OPEN_MS)
    return this.info(vaultId, vaultLabel)
  }

  isOpen(vaultId: string): boolean {
    return (this.#openUntil.get(vaultId) ?? 0) > this.now()
  }

  /** Before the words are shown or printed. */
  assertOpen(vaultId: string): void {
    if (this.isOpen(vaultId)) return
    throw new AppError({
      code: 'OWNER_KIT_LOCKED',
      userMessage:
        'The owner kit is the vault key itself, so it is shown only right after you confirm it is you. Open it again from Vault key → Owner recovery kit and confirm.',
    })
  }

  /** The kit goes back behind the check (the dialog closed). */
  close(vaultId: string): void {
    this.#openUntil.delete(vaultId)
  }
}
