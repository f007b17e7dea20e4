// Finding a vault's blobs on Arweave through any gateway's GraphQL (docs/FORMAT.md, "Finding a vault on
// Arweave"), as pure steps: the query, and the checks every page of answers goes through. Shared by the
// recovery tool (recovery/arweave-recovery.ts) and the heir's recovery page, which do the fetching.
// The gateway is trusted for nothing: ids and owners must have their exact shape, sizes must be whole,
// only transactions carrying the vault's reference (and the owner's, when given) are kept, and a cursor
// seen before ends the search as untrustworthy.
import type { GatewayOddity } from './heir-source-text'

/** The App-Name tag of the vault's transactions. */
export const VAULT_APP_NAME = 'Vault-Desktop'

/** An Arweave transaction id or wallet address: exactly 43 base64url characters (32 bytes). */
export const ARWEAVE_ID = /^[A-Za-z0-9_-]{43}$/

/** Pages of 100 followed at most (100 000 transactions) unless told otherwise. */
export const DEFAULT_MAX_PAGES = 1000

/** The most a gateway's answer to one page may weigh: 100 transactions take well under 1 MB. */
export const MAX_PAGE_BYTES = 8 << 20

const SHA256_HEX = /^[0-9a-f]{64}$/

/** One transaction tagged with the vault's reference. */
export interface ArweaveBlob {
  txId: string
  /** The wallet that posted it (the vault service's operator, for genuine blobs). */
  owner: string
  size: number
  /** The Content-SHA256 tag, when present and well formed. */
  sha256Hex?: string
  /**
   * When its block was mined (ms); undefined while it waits for a block. For information only: anyone
   * can post an old blob again later, so it never decides which copy is the newest.
   */
  minedAtMs?: number
}

const QUERY = `query($tags: [TagFilter!]!, $owners: [String!], $after: String) {
  transactions(tags: $tags, owners: $owners, first: 100, after: $after, sort: HEIGHT_ASC) {
    pageInfo { hasNextPage }
    edges { cursor node { id owner { address } data { size } block { timestamp } tags { name value } } }
  }
}`

/** The JSON body of the search for one page (`after`: the last page's cursor). */
export function searchBody(vaultRef: string, owner: string | undefined, after: string | undefined): string {
  // op EQ is every gateway's default, but arlocal applies it only when given.
  const tags = [
    { name: 'App-Name', values: [VAULT_APP_NAME], op: 'EQ' },
    { name: 'Vault-Ref', values: [vaultRef], op: 'EQ' },
  ]
  return JSON.stringify({ query: QUERY, variables: { tags, after, ...(owner ? { owners: [owner] } : {}) } })
}

/** A gateway address as given, without trailing slash, query or fragment; null when not http(s). */
export function gatewayAddress(gateway: string): URL | null {
  const url = URL.parse(gateway.trim())
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null
  url.pathname = url.pathname.replace(/\/+$/, '')
  url.search = ''
  url.hash = ''
  return url
}

/** `path` under the gateway ("graphql", a transaction id). */
export function gatewayEndpoint(gateway: URL, path: string): string {
  return `${gateway.href.replace(/\/$/, '')}/${path}`
}

/** Gateways give a block's time in seconds; arlocal (the local test network) gives milliseconds. */
export function blockTimeMs(timestamp: number): number {
  return timestamp < 1e11 ? timestamp * 1000 : timestamp
}

export type SearchPage =
  /** The gateway did not answer the search (HTTP status, and its first error message if any). */
  | { kind: 'failed'; detail?: string }
  | { kind: 'untrustworthy'; oddity: GatewayOddity }
  /** This page's transactions of the vault (and owner); `after` is the next page's cursor, or none. */
  | { kind: 'page'; blobs: ArweaveBlob[]; after?: string }

/**
 * One page of the search, checked. `text` is the body as received (at most MAX_PAGE_BYTES), `ok` whether
 * its HTTP status was; `cursors` collects the cursors followed, so a gateway paging in a circle is caught.
 */
export function readSearchPage(
  text: string,
  ok: boolean,
  vaultRef: string,
  owner: string | undefined,
  cursors: Set<string>,
): SearchPage {
  let body: { data?: { transactions?: unknown }; errors?: { message?: unknown }[] } = {}
  try {
    body = JSON.parse(text) ?? {}
  } catch {
    body = {}
  }
  const transactions = body?.data?.transactions as
    | { pageInfo?: { hasNextPage?: unknown }; edges?: unknown }
    | undefined
  if (!ok || !transactions) {
    const first = Array.isArray(body?.errors) ? body.errors[0]?.message : undefined
    return { kind: 'failed', ...(typeof first === 'string' ? { detail: first.slice(0, 200) } : {}) }
  }
  const { edges, pageInfo } = transactions
  if (!Array.isArray(edges)) return { kind: 'untrustworthy', oddity: { kind: 'no-list' } }
  const blobs: ArweaveBlob[] = []
  for (const edge of edges) {
    const node = edge?.node
    if (!node || typeof node.id !== 'string' || !ARWEAVE_ID.test(node.id)) {
      return {
        kind: 'untrustworthy',
        oddity: { kind: 'bad-id', shown: JSON.stringify(String(node?.id)).slice(0, 60) },
      }
    }
    const address = node.owner?.address
    if (typeof address !== 'string' || !ARWEAVE_ID.test(address)) {
      return { kind: 'untrustworthy', oddity: { kind: 'no-owner', txId: node.id } }
    }
    const size = Number(node.data?.size)
    if (!Number.isSafeInteger(size) || size < 0) {
      return { kind: 'untrustworthy', oddity: { kind: 'bad-size', txId: node.id } }
    }
    const tags: { name?: unknown; value?: unknown }[] = Array.isArray(node.tags) ? node.tags : []
    // Whatever the gateway's filter did, only this vault's transactions (of this owner) are downloaded.
    if (!tags.some((t) => t?.name === 'Vault-Ref' && t.value === vaultRef)) continue
    if (owner && address !== owner) continue
    const sha = tags.find((t) => t?.name === 'Content-SHA256')?.value
    const sha256Hex = typeof sha === 'string' ? sha.toLowerCase() : undefined
    const timestamp = node.block?.timestamp
    blobs.push({
      txId: node.id,
      owner: address,
      size,
      ...(sha256Hex && SHA256_HEX.test(sha256Hex) ? { sha256Hex } : {}),
      ...(Number.isFinite(timestamp) ? { minedAtMs: blockTimeMs(timestamp) } : {}),
    })
  }
  if (pageInfo?.hasNextPage !== true || edges.length === 0) return { kind: 'page', blobs }
  const cursor = edges[edges.length - 1]?.cursor
  // A cursor seen before would page in a circle.
  if (typeof cursor !== 'string' || cursors.has(cursor)) {
    return { kind: 'untrustworthy', oddity: { kind: 'same-page' } }
  }
  cursors.add(cursor)
  return { kind: 'page', blobs, after: cursor }
}
