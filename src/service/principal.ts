// Who presented a key: an account's key, an heir's access token or a live practice token.
// Its own module because accounts (which authenticates) and rehearsal (which issues practice tokens) both need it.

export type Principal =
  | { kind: 'human' | 'agent'; keyId: string; accountId: string }
  | { kind: 'heir'; keyId: string; vaultId: string; heirId: string }
  | PracticePrincipal

/** Who presented a live practice token. */
export interface PracticePrincipal {
  kind: 'practice'
  keyId: string
  rehearsalId: string
  vaultId: string
  heirId: string
}
