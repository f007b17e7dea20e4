// `npm run pack:recovery`: the heir's recovery tool as one npm package, out/recovery-package/vault-recover-<version>.tgz.
// An heir needs only Node and that file (`npx ./vault-recover-<version>.tgz --help`): no app, no copy of the
// project, no registry. So everything is bundled into the package's one script and it declares no dependencies.
// The package also carries the recovery page (vault-recovery.html, for an heir with only a browser), built
// afresh here; its SHA-256 is computed from the packed file, printed, written beside it and into the packed
// RECOVERY.md.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { NODE_CIPHER_WORKERS } from './node-cipher-workers.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// `--out <folder>` packs elsewhere (the package test uses a folder of its own).
const outFlag = process.argv.indexOf('--out')
const outDir = resolve(outFlag >= 0 ? process.argv[outFlag + 1] : join(root, 'out/recovery-package'))
const stage = join(outDir, 'stage')
const project = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const BIN = 'bin/vault-recover.js'
const PAGE = 'vault-recovery.html'

// Packages that carry native code or need the app: the tool must never pull them in. One of them in the
// bundle means an import in src/recovery reaches past what the heir's tool may use (the import rules).
const FORBIDDEN = ['better-sqlite3', 'keytar', 'electron', 'bindings', 'node-gyp-build']

rmSync(stage, { recursive: true, force: true })
mkdirSync(join(stage, 'docs'), { recursive: true })

const bundled = await build({
  // The worker threads' modules go beside the tool, which starts them from there.
  entryPoints: { 'vault-recover': 'src/recovery/cli.ts', ...NODE_CIPHER_WORKERS },
  outdir: join(stage, 'bin'),
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  metafile: true,
  // The bundled CommonJS packages (pngjs, jsqr) call require() for Node's own modules, which an ES module
  // lacks.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  // The help names the command the heir types: the package file itself, never a name npx would look up in
  // the registry (someone else's package could hold it).
  define: {
    'process.env.VAULT_RECOVER_COMMAND': JSON.stringify(`npx ./vault-recover-${project.version}.tgz`),
  },
  legalComments: 'none',
  logLevel: 'warning',
})

const inputs = Object.keys(bundled.metafile.inputs)
// The folder of the package an input comes from (the innermost node_modules, for nested copies).
const packageDirOf = (input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]
const nameOf = (dir) => dir.slice(dir.lastIndexOf('node_modules/') + 'node_modules/'.length)
const packageDirs = [...new Set(inputs.map(packageDirOf).filter(Boolean))].sort()
const forbidden = inputs.filter((input) => {
  const dir = packageDirOf(input)
  return input.endsWith('.node') || (dir !== undefined && FORBIDDEN.includes(nameOf(dir)))
})
if (forbidden.length > 0) {
  console.error(
    `pack-recovery: the recovery tool would bundle ${forbidden.join(', ')}, which needs native code or the app. ` +
      'Find the import in src/recovery (or what it imports) that reaches it and cut it.',
  )
  process.exit(1)
}

const manifest = {
  name: 'vault-recover',
  version: project.version,
  description:
    'Recover the files of a Vault Desktop vault with the guardians’ kits (or the owner’s kit): from the encrypted .vault files, or from the Vault Service with the heir access code. Needs only Node.js.',
  license: project.license,
  homepage: project.homepage,
  author: project.author,
  type: 'module',
  bin: { 'vault-recover': BIN },
  files: ['bin/', 'docs/', 'THIRD-PARTY-NOTICES.md', PAGE, `${PAGE}.sha256`],
  engines: project.engines,
  keywords: ['vault-desktop', 'recovery', 'inheritance', 'shamir', 'aes-gcm'],
}
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
// The README's commands name the file the heir has.
const readme = readFileSync(join(root, 'src/recovery/npm-package/README.md'), 'utf8')
writeFileSync(join(stage, 'README.md'), readme.replaceAll('<version>', project.version))
copyFileSync(join(root, 'docs/FORMAT.md'), join(stage, 'docs/FORMAT.md'))
const pageSha256 = packRecoveryPage()
// RECOVERY.md tells the heir the page's SHA-256: the packed copy says it with the value of the packed page.
const guide = readFileSync(join(root, 'docs/RECOVERY.md'), 'utf8')
const filled = guide.replace(
  /<!-- recovery-page-sha256 -->[\s\S]*?<!-- \/recovery-page-sha256 -->/,
  `\`${pageSha256}\``,
)
if (filled === guide) {
  console.error(
    "pack-recovery: docs/RECOVERY.md lost its <!-- recovery-page-sha256 --> marks; the page's SHA-256 has nowhere to go.",
  )
  process.exit(1)
}
writeFileSync(join(stage, 'docs/RECOVERY.md'), filled)
// The project's licence text, once the project carries one; the manifest names the licence either way.
if (existsSync(join(root, 'LICENSE'))) copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'))
writeFileSync(join(stage, 'THIRD-PARTY-NOTICES.md'), thirdPartyNotices(packageDirs))

// --ignore-scripts: packing runs nothing from the manifest (it has no scripts; this keeps it so).
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const packed = spawnSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
  cwd: stage,
  encoding: 'utf8',
  shell: process.platform === 'win32',
})
if (packed.status !== 0) {
  console.error(`pack-recovery: npm pack failed (exit ${packed.status}):\n${packed.stderr}`)
  process.exit(1)
}
const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(packed.stdout)
const tarball = join(outDir, filename)
console.log(
  `${relative(process.cwd(), tarball)}: ${(size / 1024).toFixed(0)} KiB packed, ${(unpackedSize / 1024).toFixed(0)} KiB unpacked, ${entryCount} files, bundling ${packageDirs.length} packages`,
)
console.log(`recovery page ${PAGE} SHA-256 ${pageSha256}`)

/**
 * Builds the recovery page (scripts/build-recovery-page.mjs, into out/recovery-page), copies it into the
 * package with a sha256sum-style file beside it, and returns the SHA-256 of the copy packed. The build's
 * own .sha256 must agree: a difference means the page changed between the build and the copy.
 */
function packRecoveryPage() {
  const builder = join(root, 'scripts/build-recovery-page.mjs')
  if (!existsSync(builder)) {
    console.error(
      'pack-recovery: scripts/build-recovery-page.mjs is missing, so the recovery page cannot be built into the package.',
    )
    process.exit(1)
  }
  const built = spawnSync(process.execPath, [builder], { cwd: root, encoding: 'utf8' })
  if (built.status !== 0) {
    console.error(`pack-recovery: building the recovery page failed (exit ${built.status}):\n${built.stderr}`)
    process.exit(1)
  }
  const source = join(root, 'out/recovery-page', PAGE)
  copyFileSync(source, join(stage, PAGE))
  const sha = createHash('sha256')
    .update(readFileSync(join(stage, PAGE)))
    .digest('hex')
  const recorded = existsSync(`${source}.sha256`)
    ? /[0-9a-f]{64}/i.exec(readFileSync(`${source}.sha256`, 'utf8'))?.[0]
    : undefined
  if (recorded !== undefined && recorded.toLowerCase() !== sha) {
    console.error(
      `pack-recovery: ${relative(root, source)} is not the page its .sha256 describes (${recorded}); build it again.`,
    )
    process.exit(1)
  }
  // `sha256sum -c vault-recovery.html.sha256` checks it.
  writeFileSync(join(stage, `${PAGE}.sha256`), `${sha}  ${PAGE}\n`)
  return sha
}

/** Each bundled package's name, version, licence and licence text: the package redistributes their code. */
function thirdPartyNotices(dirs) {
  const sections = dirs.map((relativeDir) => {
    const dir = join(root, relativeDir)
    const name = nameOf(relativeDir)
    const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const licenceFile = readdirSync(dir).find((file) => /^(licen[cs]e|copying)(\.|$)/i.test(file))
    const text = licenceFile
      ? readFileSync(join(dir, licenceFile), 'utf8').trim()
      : `(no licence file in the package; its manifest says ${meta.license})`
    return `## ${name} ${meta.version} (${meta.license})\n\n\`\`\`text\n${text}\n\`\`\`\n`
  })
  return `# Third-party code in vault-recover\n\nbin/vault-recover.js bundles these packages.\n\n${sections.join('\n')}`
}
