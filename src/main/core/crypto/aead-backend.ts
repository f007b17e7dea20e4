// Per-chunk AES-256-GCM with the message key and the chunk's nonce; AAD is always empty.
// Backends differ only in speed and where they run; both must give identical bytes.

export type AeadBackendName = 'node' | 'noble'

export interface ChunkAead {
  /** Seals chunk `index`: writes ciphertext || tag (plaintext.length + 16 bytes) at out[offset]. */
  sealInto(index: number, plaintext: Uint8Array, out: Uint8Array, offset: number): void
  /** Opens chunk `index` (ciphertext || tag); null when it does not authenticate. */
  open(index: number, sealed: Uint8Array): Uint8Array | null
}

export interface AeadBackend {
  readonly name: AeadBackendName
  /** Trial decryptions the failure diagnosis may spend, in bytes (pure JS is ~40x slower). */
  readonly diagnosisBudgetBytes: number
  create(key: Uint8Array, baseNonce: Uint8Array): ChunkAead
}
