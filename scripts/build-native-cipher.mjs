// Builds the native AES-256-GCM (src/native-cipher) into out/native-cipher/aes_gcm.node, linking the
// system's static OpenSSL 3 libcrypto into it (Debian: apt-get install libssl-dev). Run by `npm install`
// (postinstall), `npm start` and `npm test`; it does nothing when the module is newer than its sources.
// Without a C compiler or libcrypto.a it builds nothing and says why: the app then seals with
// node:crypto, the same bytes at about a third of the speed (src/node-cipher/aead-native.ts).
//
//   node scripts/build-native-cipher.mjs [--force] [--required]
//     --required  exit 1 when the module cannot be built (npm test under CI; the install never fails)
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const sources = join(root, 'src/native-cipher')
export const NATIVE_CIPHER_MODULE = join(root, 'out/native-cipher/aes_gcm.node')

/** Why the module cannot be built here, or null when it can. */
function missingPrerequisite() {
  // Other systems need a pinned static libcrypto of their own; none is set up (docs/ARCHITECTURE.md).
  if (process.platform !== 'linux') return `it is built on Linux only (this is ${process.platform})`
  const cc = spawnSync('cc', ['-print-file-name=libcrypto.a'], { encoding: 'utf8' })
  if (cc.error || cc.status !== 0) return 'no C compiler (cc): apt-get install build-essential'
  const libcrypto = cc.stdout.trim()
  if (!libcrypto.startsWith('/') || !existsSync(libcrypto))
    return "OpenSSL's static libcrypto.a is missing: apt-get install libssl-dev"
  return null
}

function libcryptoPath() {
  return spawnSync('cc', ['-print-file-name=libcrypto.a'], { encoding: 'utf8' }).stdout.trim()
}

function upToDate() {
  if (!existsSync(NATIVE_CIPHER_MODULE)) return false
  const built = statSync(NATIVE_CIPHER_MODULE).mtimeMs
  return ['aes-gcm.c', 'binding.gyp'].every((name) => statSync(join(sources, name)).mtimeMs <= built)
}

/** node-gyp: npm's own copy (npm sets npm_config_node_gyp for scripts), else the one beside this Node. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
  ]
  return candidates.find((path) => path && existsSync(path)) ?? null
}

/** Builds if needed. Returns { ok, message }: ok false only when the module is absent afterwards. */
export function buildNativeCipher({ force = false } = {}) {
  if (!force && upToDate()) return { ok: true, message: 'native AES-GCM: up to date' }
  const missing = missingPrerequisite()
  if (missing)
    return { ok: false, message: `native AES-GCM not built: ${missing}. node:crypto is used instead.` }
  const gyp = nodeGyp()
  if (!gyp) return { ok: false, message: 'native AES-GCM not built: node-gyp (part of npm) was not found.' }
  // Node-API only, so the headers of the Node that runs this serve Electron too (no per-runtime rebuild).
  const nodedir = process.env.npm_config_nodedir ?? join(dirname(process.execPath), '..')
  const result = spawnSync(
    process.execPath,
    [
      gyp,
      'rebuild',
      `--directory=${sources}`,
      `--nodedir=${nodedir}`,
      '--',
      `-Dlibcrypto=${libcryptoPath()}`,
    ],
    { encoding: 'utf8' },
  )
  const built = join(sources, 'build/Release/aes_gcm.node')
  if (result.status !== 0 || !existsSync(built)) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n')
    return { ok: false, message: `native AES-GCM: the build failed; node:crypto is used instead.\n${output}` }
  }
  mkdirSync(dirname(NATIVE_CIPHER_MODULE), { recursive: true })
  copyFileSync(built, NATIVE_CIPHER_MODULE)
  return { ok: true, message: `native AES-GCM: built ${NATIVE_CIPHER_MODULE}` }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ok, message } = buildNativeCipher({ force: process.argv.includes('--force') })
  console.log(message)
  process.exit(!ok && process.argv.includes('--required') ? 1 : 0)
}
