// Heir recovery tool: guardians' shares (or the owner's kit) + encrypted files -> original files.
// Offline from .vault files, or straight from a Vault Service with the heir access code from the
// release e-mail (--service, --token), or from Arweave by the vault id inside the kits (--from-arweave)
// when the service is gone. Needs no Electron. Run: npm run recover -- --help, or from the
// heir's package (scripts/pack-recovery.mjs): npx ./vault-recover-<version>.tgz --help
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import type { AeadBackendName } from '../node-cipher/cipher-choice'
import { AppError } from '../shared/app-error'
import { attachDashValues } from '../shared/command-line'
import { isolateName, revealControls, revealSentence } from '../shared/untrusted-text'
import { ENCRYPTED_FILE_SUFFIX } from '../vault-format'
import { ArweaveRecoveryError, checkOwnerAddress, recoverFromArweave } from './arweave-recovery'
import { letHeapGrowForDownloads } from './heap-growth'
import { describeHeirResult, recoverFromService } from './heir-recovery'
import { confirmKitCheck, kitCheckCodeFrom, kitCheckOutcomeText } from './kit-check'
import {
  holdsPracticeKit,
  isPracticeAccessCode,
  REAL_KITS_IN_PRACTICE,
  recoverPracticeFile,
} from './practice-recovery'
import { ProgressLine } from './progress-line'
import { type FileRecoveryResult, manifestNote, recoverRun, runProblems } from './recover-files'
import { RecoveryInputError, recoverVaultKey } from './recovery-key'

// How the heir starts the tool: from the package, whose build sets this, or in a copy of the project.
const PACKAGE_COMMAND = process.env.VAULT_RECOVER_COMMAND
const COMMAND = PACKAGE_COMMAND ?? 'npm run recover --'

const HELP = `Vault recovery tool: turns encrypted vault files back into the original files.

Usage:
  ${COMMAND} <key> --out <folder> --service <address> --token <access code>
  ${COMMAND} <key> --out <folder> --from-arweave <gateway>
  ${COMMAND} --kit-check <one guardian kit> [--guardian-link <link from your guardian e-mail>]
  ${COMMAND} <key> --out <folder> <encrypted file or folder>...${PACKAGE_COMMAND ? '' : '\n  node out/cli/recover.js ...   (the same, without npm)'}

Example, with the e-mail an heir received and two guardians' words:
  ${COMMAND} --service https://vault.example.org --token hk_... \\
    --share-words "1 apple 2 river ..." --share-words "1 stone 2 cloud ..." --out ./recovered

The key, from guardians' shares (give at least as many as the kits say, e.g. "any 2 of 3";
the kinds may be mixed):
  --share-words "<words>"      one guardian's words, in order; repeat the flag for each guardian
  --share-file <file.txt>      a text file holding one guardian's words; repeatable
  --share-qr <image.png>       a PNG photo or scan of a guardian's QR code; repeatable
or from the owner's recovery kit (the vault key itself; enough on its own):
  --owner-kit "<words>"
  --owner-kit-file <file.txt>
  --owner-kit-qr <image.png>

A practice release (the [PRACTICE] e-mail): give its practice access code with --service and --token
and the guardians' PRACTICE kits with --share-words or --share-file. Only the practice file is
recovered, and the owner's service is told that the practice kits worked. Real guardian kits are
refused with a practice code: a practice never uses them.

Words may be typed in any case, with any spacing, with or without their numbers, and abbreviated to
their first four letters. A wrong word is named, with the likely right one.

From the vault service (the heir's e-mail):
  --service <address>          the Vault Service address in the e-mail (http:// or https://...)
  --token <access code>        the heir access code in the e-mail (starts with hk_)
                               Every file of the vault is downloaded, then checked and decrypted. Run
                               the same command again after an interruption: finished files are kept,
                               downloaded ones are not fetched again, a cut-off download continues
                               where it stopped.

From Arweave, the permanent storage network (when the vault service is gone):
  --from-arweave <gateway>     an Arweave gateway address, e.g. https://arweave.net. The vault's files are
                               found by the vault id inside the kits (nothing else is needed), downloaded
                               and decrypted. Arweave keeps everything ever stored: files the owner
                               deleted later come back too. Files there that are not of this vault (anyone
                               can label a file with a vault's reference) are left out and counted;
                               their download ends as soon as its first bytes show it. Run the same
                               command again after an interruption: finished downloads (checked again
                               against the gateway's SHA-256) and recovered files are kept.
  --owner <wallet address>     accept only the transactions this Arweave wallet posted (the vault
                               service's wallet; 43 characters). Without it, every wallet's are read
                               and the report warns when more than one wallet labelled the vault.

From encrypted files you already have:
  --out <folder>               where recovered files are written (created if needed). Existing files
                               are never overwritten; a file appears only once it fully checked out.
  <encrypted file or folder>   files to decrypt, or folders searched (with subfolders) for files
                               ending in "${ENCRYPTED_FILE_SUFFIX}". "report${ENCRYPTED_FILE_SUFFIX}" becomes "report";
                               a file without the suffix gets ".decrypted" added.

A guardian's kit check (do you still have your kit?):
  --kit-check                  read ONE guardian kit (--share-words, --share-file or --share-qr) and
                               print its check code, the short code printed on the kit apart from
                               the words. The code is useless for recovery; the words stay here.
  --guardian-link <link>       also confirm the code with the owner's service: the "check my kit"
                               link (or any guardian page link) from your guardian e-mail. Only the
                               code and the link's token are sent. Exit status 0 once confirmed.

Other options:
  --vault <id>                 the vault id, as a check only: the words already contain it
  --check                      only rebuild and check the key, print the vault fingerprint, and stop
  --backend node|noble         cipher implementation (default node; noble is pure JavaScript, slower)
  --json                       print one JSON object per file instead of text
  -h, --help                   this help

Bundles (many small files in one encrypted file) are unpacked: one line per file inside. Which files
and which copy of each are recovered is decided by the vault's newest list of files (its manifest,
sealed like the files), else by the write time sealed in each copy; never by a service's or a
gateway's dates. Lines: "older" (an older copy, or a file the list no longer names: not a failure),
"newer" (written after the newest list), "MISSING" / "DAMAGED" (a listed file with no copy, or none
intact: nothing written for it).

Exit status: 0 when every file was recovered (or kept from an earlier run); 1 when any file failed,
was skipped, is missing or damaged, a copy is newer than the list, two lists share a number, an older
copy was written for a damaged newest one, no list was found where the files show there is one, no
file at all was recovered (unless the vault's own list of files names none), or a run stopped early
(run it again to continue); 2 when the command line or the key material is wrong (nothing was
decrypted).

The file format is documented in docs/FORMAT.md (C2SP chunked encryption, Cobblestone-256).`

function describe(result: FileRecoveryResult): string {
  // A file inside a bundle is named by the bundle, then its own path.
  // Names come from the blobs and the disk: hidden characters shown, each name's direction isolated,
  // so a name cannot disguise itself, forge a line or send the terminal an escape sequence.
  const input = result.entry
    ? `${isolateName(result.input)} [${isolateName(result.entry)}]`
    : isolateName(result.input)
  const output = result.output === undefined ? '' : isolateName(result.output)
  const note = result.message ? `: ${revealSentence(result.message)}` : ''
  if (result.status === 'recovered') return `ok       ${input} -> ${output} (${result.bytes} bytes)${note}`
  if (result.status === 'kept') return `kept     ${input} -> ${output}${note}`
  if (result.status === 'superseded') return `older    ${input}${note}`
  if (result.status === 'newer') return `newer    ${input}${note}`
  if (result.status === 'missing') {
    return `${result.reason === 'damaged' ? 'DAMAGED' : 'MISSING'}  ${isolateName(result.entry ?? '')}${note}`
  }
  return `${result.status.padEnd(8)} ${input}${note}${result.detail ? ` (${revealSentence(result.detail)})` : ''}`
}

async function main(argv: string[]): Promise<number> {
  letHeapGrowForDownloads()
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    console.error(`${(error as Error).message}\nRun with --help to see the options.`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    console.log(HELP)
    return 0
  }
  const backend = (values.backend ?? 'node') as AeadBackendName
  if (backend !== 'node' && backend !== 'noble') {
    console.error(`--backend must be 'node' or 'noble', not '${values.backend}'.`)
    return 2
  }
  if (values['kit-check']) return kitCheckRun(values, positionals)
  if (values['guardian-link'] !== undefined) {
    console.error('--guardian-link goes with --kit-check.\nRun with --help to see the options.')
    return 2
  }
  const fromService = values.service !== undefined || values.token !== undefined
  const fromArweave = values['from-arweave'] !== undefined
  if (fromArweave && (fromService || positionals.length > 0)) {
    console.error(
      'Give one place to recover from: --from-arweave <gateway>, or --service and --token, or encrypted files and folders.\nRun with --help to see the options.',
    )
    return 2
  }
  if (values.owner !== undefined) {
    if (!fromArweave) {
      console.error('--owner goes with --from-arweave <gateway>.\nRun with --help to see the options.')
      return 2
    }
    try {
      checkOwnerAddress(values.owner)
    } catch (error) {
      if (!(error instanceof ArweaveRecoveryError)) throw error
      console.error(error.message)
      return 2
    }
  }
  if (fromService && (values.service === undefined || values.token === undefined)) {
    console.error(
      'To recover from the vault service give both --service <address> and --token <access code> (both are in the heir e-mail).\nRun with --help to see the options.',
    )
    return 2
  }
  if (fromService && positionals.length > 0) {
    console.error(
      'Give either --service and --token, or encrypted files and folders, not both.\nRun with --help to see the options.',
    )
    return 2
  }
  if (
    !values.check &&
    (values.out === undefined || (!fromService && !fromArweave && positionals.length === 0))
  ) {
    console.error(
      'Say where the recovered files go (--out <folder>) and which encrypted files or folders to read (or --service and --token, or --from-arweave <gateway>).\nRun with --help to see the options.',
    )
    return 2
  }

  // A practice: practice kits with the [PRACTICE] e-mail's code. Real kits never go into a practice,
  // so with a practice code they are refused before they are combined.
  if (fromService) {
    const kitTexts = [
      ...(values['share-words'] ?? []),
      ...(await Promise.all((values['share-file'] ?? []).map((f) => readFile(f, 'utf8').catch(() => '')))),
    ]
    const access = { serviceUrl: values.service!, accessToken: values.token!.trim(), vaultId: values.vault }
    if (holdsPracticeKit(kitTexts)) return practiceRun(values, access, kitTexts)
    if (await isPracticeAccessCode(access)) {
      console.error(REAL_KITS_IN_PRACTICE)
      return 2
    }
  }

  let key: Awaited<ReturnType<typeof recoverVaultKey>>
  try {
    key = await recoverVaultKey({
      shareWords: values['share-words'],
      shareFiles: values['share-file'],
      shareQrImages: values['share-qr'],
      ownerKitWords: values['owner-kit'],
      ownerKitFile: values['owner-kit-file'],
      ownerKitQrImage: values['owner-kit-qr'],
      vaultId: values.vault,
    })
  } catch (error) {
    if (error instanceof RecoveryInputError) {
      console.error(error.userMessage)
      return 2
    }
    throw error
  }
  const from = key.source === 'owner-kit' ? "the owner's kit" : "the guardians' shares"
  console.error(`Key rebuilt from ${from}: vault ${key.vaultId}, fingerprint ${key.fingerprint}.`)
  console.error('Compare the fingerprint with the one printed on the kits.')
  for (const note of key.kitsSetAside ?? []) console.error(`Left out: ${revealSentence(note)}`)
  if (values.check) {
    key.vaultKey.fill(0)
    return 0
  }

  const progress = process.stderr.isTTY && !values.json ? new ProgressLine(process.stderr) : undefined
  // The vault key serves this run only: zeroed once it ends, whichever way.
  try {
    if (fromService) return await recoverFromTheService(values, key, backend, progress)
    if (fromArweave) return await recoverFromTheNetwork(values, key, backend, progress)
    const run = await recoverRun({
      vaultKey: key.vaultKey,
      vaultId: key.vaultId,
      inputs: positionals,
      outDir: values.out!,
      backend,
      onProgress:
        progress &&
        ((p) => {
          const percent = p.bytesTotal > 0 ? Math.floor((100 * p.bytesDone) / p.bytesTotal) : 100
          progress.show(`[${p.fileNumber}/${p.fileCount}] ${percent}% ${revealControls(p.input)}`)
        }),
    })
    progress?.clear()
    const { results } = run
    for (const result of results) console.log(values.json ? JSON.stringify(result) : describe(result))
    if (results.length === 0) {
      console.error(`No encrypted files found (looked for files ending in "${ENCRYPTED_FILE_SUFFIX}").`)
      return 1
    }
    console.error(revealSentence(manifestNote(run)))
    return summarize(results, `into ${values.out}`, 'Files that failed were not written.', runProblems(run))
  } finally {
    key.vaultKey.fill(0)
    // A run that threw leaves no half-drawn line for its message to follow.
    progress?.clear()
  }
}

/** One guardian's kit: its check code, and with --guardian-link its confirmation by the service. */
async function kitCheckRun(
  values: ReturnType<typeof parse>['values'],
  positionals: string[],
): Promise<number> {
  const other = [
    'owner-kit',
    'owner-kit-file',
    'owner-kit-qr',
    'out',
    'service',
    'token',
    'from-arweave',
    'owner',
    'check',
  ] as const
  const extra = other.filter((name) => values[name] !== undefined)
  if (extra.length > 0 || positionals.length > 0) {
    console.error(
      `--kit-check reads one guardian kit and nothing else (not ${[...extra.map((n) => `--${n}`), ...positionals].join(', ')}).\nRun with --help to see the options.`,
    )
    return 2
  }
  let checked: Awaited<ReturnType<typeof kitCheckCodeFrom>>
  try {
    checked = await kitCheckCodeFrom({
      shareWords: values['share-words'],
      shareFiles: values['share-file'],
      shareQrImages: values['share-qr'],
    })
  } catch (error) {
    if (error instanceof RecoveryInputError) {
      console.error(error.userMessage)
      return 2
    }
    throw error
  }
  const { kit, code } = checked
  const link = values['guardian-link']
  if (values.json && !link)
    console.log(JSON.stringify({ code, shareIndex: kit.shareIndex, fingerprint: kit.fingerprint }))
  else if (!values.json) {
    console.log(`Check code: ${code}`)
    console.error(
      `Share ${kit.shareIndex} of ${kit.shareCount}, vault fingerprint ${kit.fingerprint}, set ${kit.splitId}. The code must match the one printed on the kit.`,
    )
  }
  if (!link) return 0
  try {
    const result = await confirmKitCheck(link, code)
    if (values.json) console.log(JSON.stringify({ code, ...result }))
    const say = result.outcome === 'confirmed' && !values.json ? console.log : console.error
    say(kitCheckOutcomeText(result))
    return result.outcome === 'confirmed' ? 0 : 1
  } catch (error) {
    if (error instanceof AppError) {
      console.error(error.userMessage)
      return 1
    }
    throw error
  }
}

/** A practice release from the heir's side: the practice file from the practice kits, then the proof. */
async function practiceRun(
  values: ReturnType<typeof parse>['values'],
  access: { serviceUrl: string; accessToken: string; vaultId?: string },
  kits: string[],
): Promise<number> {
  console.error('Practice kits given: this is a practice. It opens only the practice file, never the vault.')
  let report: Awaited<ReturnType<typeof recoverPracticeFile>>
  try {
    report = await recoverPracticeFile({ ...access, kits, outDir: values.out! })
  } catch (error) {
    if (error instanceof AppError) {
      console.error(error.userMessage)
      return 2
    }
    throw error
  }
  for (const note of report.kitsSetAside) console.error(`Left out: ${revealSentence(note)}`)
  if (report.file) {
    const line = { name: report.file.name, output: report.file.output, bytes: report.file.bytes }
    const shown = { name: isolateName(line.name), output: isolateName(line.output) }
    console.log(
      values.json
        ? JSON.stringify({ practice: true, ...line, passed: report.passed })
        : `${report.file.status === 'kept' ? 'kept' : 'ok'}       practice file ${shown.name} -> ${shown.output} (${line.bytes} bytes)`,
    )
  }
  console.error(
    `${report.passed ? 'Practice passed' : 'Practice not passed'}: ${revealSentence(report.message)}`,
  )
  return report.passed ? 0 : 1
}

async function recoverFromTheService(
  values: ReturnType<typeof parse>['values'],
  key: { vaultKey: Uint8Array; vaultId: string },
  backend: AeadBackendName,
  progress: ProgressLine | undefined,
): Promise<number> {
  const report = await recoverFromService({
    serviceUrl: values.service!,
    accessToken: values.token!.trim(),
    vaultId: key.vaultId,
    vaultKey: key.vaultKey,
    outDir: values.out!,
    backend,
    onProgress:
      progress &&
      ((p) => {
        const percent = p.totalBytes > 0 ? Math.floor((100 * p.doneBytes) / p.totalBytes) : 100
        // The service names the files: their hidden characters shown, as everywhere else.
        progress.show(`[${p.fileNumber}/${p.fileCount}] ${percent}% ${p.phase} ${revealControls(p.name)}`)
      }),
  })
  progress?.clear()
  for (const result of report.results) {
    // The service names the files: shown like the names in describe().
    console.log(
      values.json
        ? JSON.stringify(result)
        : revealSentence(describeHeirResult({ ...result, name: isolateName(result.name) })),
    )
  }
  const older = report.results.filter((r) => r.status === 'superseded').length
  const total = report.results.length - older
  const done = report.results.filter((r) => r.status === 'recovered' || r.status === 'kept').length
  const olderNote =
    older > 0
      ? ` ${older} older cop${older === 1 ? 'y' : 'ies'} of files left out (a newer copy was recovered).`
      : ''
  if (report.stopped) {
    console.error(revealSentence(report.stopped.message))
    if (report.results.length > 0) console.error(`${done} of ${total} file(s) recovered so far.`)
    return 1
  }
  console.error(revealSentence(manifestNote(report)))
  if (total === 0) {
    return nothingRecovered(
      report,
      `No file was recovered: the vault service at ${values.service} handed over no file of vault ${key.vaultId}, and no list of the vault's files says that the vault is empty. The service may have lost or withheld the files. If there is another copy of the vault's encrypted files (a backup, or Arweave: --from-arweave), recover from it, or ask whoever runs the service.`,
    )
  }
  console.error(
    done === total
      ? `All ${done} file(s) recovered into ${values.out}.${olderNote}`
      : `${done} of ${total} file(s) recovered into ${values.out}; the others were not (see above). Nothing was written for a file that failed.${olderNote}`,
  )
  return problemsExit(runProblems(report), done === total ? 0 : 1)
}

async function recoverFromTheNetwork(
  values: ReturnType<typeof parse>['values'],
  key: { vaultKey: Uint8Array; vaultId: string },
  backend: AeadBackendName,
  progress: ProgressLine | undefined,
): Promise<number> {
  const gateway = values['from-arweave']!
  const report = await recoverFromArweave({
    gateway,
    vaultId: key.vaultId,
    vaultKey: key.vaultKey,
    outDir: values.out!,
    backend,
    ...(values.owner !== undefined ? { owner: values.owner } : {}),
    onProgress:
      progress &&
      ((p) => {
        const percent = p.totalBytes > 0 ? Math.floor((100 * p.doneBytes) / p.totalBytes) : 0
        progress.show(
          p.phase === 'looking'
            ? `Looking for the vault's files on ${p.name}...`
            : `[${p.fileNumber}/${p.fileCount}] ${percent}% ${p.phase} ${revealControls(p.name)}`,
        )
      }),
  })
  progress?.clear()
  for (const result of report.results) console.log(values.json ? JSON.stringify(result) : describe(result))
  if (report.foreign.length > 0) {
    console.error(
      `${report.foreign.length} file(s) on Arweave carry this vault's label but are not files of this vault (the kits' key does not open them); they were left out: ${report.foreign.map((f) => f.txId).join(', ')}.`,
    )
  }
  if (report.owners.length > 1) {
    console.error(
      `Warning: ${report.owners.length} different Arweave wallets posted transactions with this vault's label: ${report.owners.map((o) => `${o.address} (${o.count})`).join(', ')}. Only one of them is the vault's service; anyone can label a transaction with a vault's reference, for example to post an old copy of a file again. Ask whoever ran the vault's service for its wallet address and run again with --owner <address> to read only its transactions.`,
    )
  }
  if (report.stopped) {
    console.error(revealSentence(report.stopped.message))
    return 1
  }
  if (report.found.length > 0) console.error(revealSentence(manifestNote(report)))
  if (report.found.length === 0 && values.owner !== undefined) {
    console.error(
      `No files of vault ${key.vaultId} posted by the wallet ${values.owner} were found on Arweave through ${gateway} (searched for the tag Vault-Ref = ${report.vaultRef}). Check the address with whoever ran the vault's service, or run without --owner to see which wallets posted transactions with this vault's label.`,
    )
    return 1
  }
  if (report.found.length === 0) {
    console.error(
      `No files of vault ${key.vaultId} were found on Arweave through ${gateway} (searched for the tag Vault-Ref = ${report.vaultRef}). The vault's service may not have stored it on Arweave, or its newest uploads are not indexed yet: try again later or with another gateway.`,
    )
    return 1
  }
  if (report.results.every((r) => r.status === 'superseded')) {
    return nothingRecovered(
      report,
      `No file was recovered: none of the ${report.found.length} transaction(s) labelled with vault ${key.vaultId} that ${gateway} lists is a file of this vault (see above), and no list of the vault's files says that the vault is empty. The vault's own files may not be indexed yet, or this gateway withholds them: try again later or with another gateway.`,
    )
  }
  return summarize(
    report.results,
    `from Arweave into ${values.out}`,
    'Files that failed were not written; run the command again to retry them.',
    runProblems(report),
  )
}

const OPTIONS = {
  'share-words': { type: 'string', multiple: true },
  'share-file': { type: 'string', multiple: true },
  'share-qr': { type: 'string', multiple: true },
  'owner-kit': { type: 'string' },
  'owner-kit-file': { type: 'string' },
  'owner-kit-qr': { type: 'string' },
  vault: { type: 'string' },
  out: { type: 'string' },
  service: { type: 'string' },
  token: { type: 'string' },
  'from-arweave': { type: 'string' },
  owner: { type: 'string' },
  backend: { type: 'string' },
  check: { type: 'boolean' },
  'kit-check': { type: 'boolean' },
  'guardian-link': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function parse(argv: string[]) {
  return parseArgs({
    args: attachDashValues(argv, OPTIONS),
    allowPositionals: true,
    strict: true,
    options: OPTIONS,
  })
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(`Unexpected failure: ${(error as Error).stack ?? error}`)
    process.exitCode = 2
  },
)

/** The closing line of a run on stderr, and its exit code (1 when any file failed). */
function summarize(
  results: readonly { status: string }[],
  where: string,
  afterFailure: string,
  problems: readonly string[],
): number {
  // Older copies of files whose newer copy was recovered are neither files to count nor failures.
  const older = results.filter((r) => r.status === 'superseded').length
  const files = results.length - older
  const failed = results.filter((r) => !['recovered', 'kept', 'superseded'].includes(r.status)).length
  const olderNote =
    older > 0
      ? ` ${older} older cop${older === 1 ? 'y' : 'ies'} of files left out (a newer copy was recovered).`
      : ''
  console.error(
    failed === 0
      ? `All ${files} file(s) recovered ${where}.${olderNote}`
      : `${files - failed} of ${files} file(s) recovered; ${failed} not (see above). ${afterFailure}${olderNote}`,
  )
  return problemsExit(problems, failed === 0 ? 0 : 1)
}

/**
 * No file to recover: exit status 0 only when the vault's newest list of files (authenticated, unlike
 * any listing) names none; else `why` is said and the status is 1, as an heir cannot tell an empty
 * vault from a source that withholds it.
 */
function nothingRecovered(run: Parameters<typeof runProblems>[0], why: string): number {
  if (run.manifest?.listed !== 0) {
    console.error(why)
    return 1
  }
  console.error("The vault's newest list of files names no file: the vault holds no files.")
  return problemsExit(runProblems(run), 0)
}

/** The exit status with the run's other problems (FORMAT.md 3.11): said on stderr, and 1 if any. */
function problemsExit(problems: readonly string[], code: number): number {
  if (problems.length > 0) console.error(`Exit status 1: ${problems.join('; ')} (see above).`)
  return problems.length > 0 ? 1 : code
}
