// The Vault-Ref tag that finds a vault's blobs on Arweave (docs/FORMAT.md, "Finding a vault on
// Arweave"): derived from the vault id, which is inside every kit, so the kits alone find the blobs.
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/** SHA-256("vault-desktop/arweave/v1" || 0x00 || UTF-8(vault id)) in lowercase hex. */
export function arweaveVaultRef(vaultId: string): string {
  const label = utf8ToBytes('vault-desktop/arweave/v1')
  const id = utf8ToBytes(vaultId)
  const input = new Uint8Array(label.length + 1 + id.length)
  input.set(label, 0)
  input.set(id, label.length + 1)
  return bytesToHex(sha256(input))
}

/** A running SHA-256 of a blob as it streams, for the Content-SHA256 tag its transaction carries. */
export function contentHash(): { update(bytes: Uint8Array): void; hex(): string } {
  const hash = sha256.create()
  return {
    update: (bytes) => {
      hash.update(bytes)
    },
    hex: () => bytesToHex(hash.digest()),
  }
}
