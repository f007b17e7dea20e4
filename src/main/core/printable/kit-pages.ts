// Printable kits: one per guardian (their share) and one for the owner (the key itself). Pure
// functions returning complete HTML with inline CSS and the QR as inline SVG, ready for print-to-PDF.
// Written for a person opening a drawer years from now, without assuming any company still exists.

import { isolateName, isolateNameHtml } from '../../../shared/untrusted-text'
import type { GuardianShare } from '../../../vault-format'
import { ENCRYPTED_FILE_SUFFIX, kitCheckCodeOf, vaultFingerprint, wordsFor } from '../../../vault-format'
import { escapeXml, shareQrSvg } from './share-qr'

export interface GuardianKitInput {
  guardianName: string
  share: GuardianShare
  /** Whose vault this is, as the guardian knows them. */
  ownerName?: string
  /** The vault's name as its owner knows it now ("Family papers"), printed with its fingerprint. */
  vaultName?: string
  createdAt?: Date
  /** SHA-256 of the recovery page this app ships (recovery-page-digest.ts); the page is not named without it. */
  recoveryPageSha256?: string
}

export interface OwnerKitInput {
  vaultKey: Uint8Array
  vaultId: string
  ownerName?: string
  /** The vault's name as its owner knows it now. */
  vaultName?: string
  createdAt?: Date
}

const e = escapeXml

function formatDate(date: Date): string {
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']
const spell = (n: number) => NUMBER_WORDS[n] ?? String(n)

const STYLE = `
@page { size: auto; margin: 14mm 16mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: #1a1a1a; font: 11pt/1.45 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; }
.page { max-width: 178mm; margin: 0 auto; padding: 2mm 0; }
.page + .page { break-before: page; }
header { display: flex; justify-content: space-between; align-items: flex-end; border-bottom: 2.5pt solid #1a1a1a; padding-bottom: 2.5mm; margin-bottom: 4mm; }
.eyebrow { font-size: 9pt; letter-spacing: .12em; text-transform: uppercase; color: #555; margin: 0 0 1mm; }
h1 { font-size: 20pt; line-height: 1.15; margin: 0; }
h2 { font-size: 13pt; margin: 4mm 0 2mm; }
.badge { font-size: 11pt; font-weight: 700; border: 1.5pt solid #1a1a1a; border-radius: 2mm; padding: 1.5mm 3mm; white-space: nowrap; }
.lead { font-size: 11.5pt; margin: 0 0 3mm; }
.warning { border-left: 4pt solid #b3261e; background: #fbeeed; padding: 2mm 4mm; margin: 3mm 0; }
.identity { display: grid; grid-template-columns: 1fr 46mm; gap: 6mm; align-items: center; margin: 3mm 0; }
.facts { display: grid; grid-template-columns: auto 1fr; gap: .8mm 5mm; margin: 0; padding: 2.5mm 4mm; border: 1pt solid #bbb; border-radius: 2mm; align-content: start; }
.facts dt { color: #555; }
.facts dd { margin: 0; font-weight: 600; }
.facts dd.id { font-size: 8.5pt; word-break: break-all; }
.mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.fingerprint { font-size: 14pt; letter-spacing: .06em; }
ol.words { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(4, 1fr); grid-auto-flow: row; gap: .4mm 5mm; }
ol.words li { display: flex; align-items: baseline; gap: 2mm; border-bottom: .6pt solid #ccc; padding: .1mm 0; break-inside: avoid; }
ol.words .n { font-size: 8.5pt; color: #666; width: 6mm; text-align: right; font-variant-numeric: tabular-nums; }
ol.words .w { font: 600 12.5pt/1.1 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
figure { margin: 0; text-align: center; }
figure svg { width: 46mm; height: 46mm; display: block; margin: 0 auto; }
figcaption { font-size: 8.5pt; color: #555; margin-top: 1mm; }
ol.steps { padding-left: 6mm; margin: 0; }
ol.steps li { margin: 0 0 1.8mm; padding-left: 1mm; }
.check-code { display: flex; align-items: center; gap: 5mm; border: 1pt solid #1a1a1a; border-radius: 2mm; padding: 1.5mm 3mm; margin-top: 2mm; font-size: 8.5pt; line-height: 1.25; break-inside: avoid; }
.check-code .code { font: 700 14pt/1 "DejaVu Sans Mono", Menlo, Consolas, monospace; letter-spacing: .08em; white-space: nowrap; }
.check-code p { margin: 0; }
.helper { border: 1pt dashed #888; border-radius: 2mm; padding: 2.5mm 4mm; margin-top: 3.5mm; font-size: 9pt; line-height: 1.35; }
.helper p { margin: 0 0 1.5mm; }
.helper h2 { margin-top: 0; font-size: 11pt; }
.helper code { font-size: 8.5pt; word-break: break-all; }
.helper code.command { white-space: nowrap; word-break: normal; }
footer { margin-top: 5mm; padding-top: 2mm; border-top: .6pt solid #bbb; font-size: 8.5pt; color: #555; display: flex; justify-content: space-between; }
`

function wordList(words: string[]): string {
  return `<ol class="words">${words
    .map((w, i) => `<li><span class="n">${i + 1}</span><span class="w">${e(w)}</span></li>`)
    .join('')}</ol>`
}

function documentShell(title: string, pages: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${e(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${pages.map((p) => `<section class="page">${p}</section>`).join('\n')}
</body>
</html>
`
}

const FORMAT_NOTE = `The encryption method is public: AES-256-GCM in the "C2SP chunked encryption" layout (Cobblestone-256), with the key derivation, word encoding and share format described in the document FORMAT.md that ships with Vault Desktop's source code. A programmer can rebuild the recovery tool from that description alone, so these files stay readable even if Vault Desktop and the people behind it are gone.`

/**
 * The kit's check code, boxed apart from the words: a one-way function of the share (FORMAT.md 5.5)
 * that proves the guardian still holds the kit and is useless for recovery, so it may be typed online.
 */
function checkCodeBox(share: GuardianShare): string {
  return `<div class="check-code"><span class="code" data-kit-check-code>${e(kitCheckCodeOf(share))}</span><p><strong>Check code</strong> — not needed for recovery; type it on your guardian page once a year to confirm you still have this kit.</p></div>`
}

/** With nothing to install: the recovery page, and how to check that a copy is the genuine one. */
function recoveryPageNote(sha256Hex: string): string {
  const hex = e(sha256Hex)
  return `
  <p><strong>Nothing to install:</strong> the recovery page <span class="mono">vault-recovery.html</span> (in the recovery tool's package, or at the vault service's address followed by <span class="mono">/recover</span>) does the same in a web browser, offline if need be. Use only a copy whose SHA-256 is <span class="mono">${hex.slice(0, 32)} ${hex.slice(32)}</span>: check it with <code class="command">sha256sum vault-recovery.html</code> (Linux), <code class="command">shasum -a 256 vault-recovery.html</code> (Mac) or <code class="command">certutil -hashfile vault-recovery.html SHA256</code> (Windows).</p>`
}

/** The vault's name in the line above the title (" · Family papers"), in its own isolate. */
function vaultOf(vaultName: string | undefined): string {
  return vaultName ? ` · <span class="kit-vault-name">${isolateNameHtml(vaultName)}</span>` : ''
}

export function renderGuardianKitHtml(input: GuardianKitInput): string {
  const { share, guardianName } = input
  const owner = input.ownerName ? isolateNameHtml(input.ownerName) : 'the vault owner'
  const created = formatDate(input.createdAt ?? new Date())
  const words = wordsFor(share)
  const rule = `any ${spell(share.threshold)} of the ${spell(share.shareCount)}`
  const title = `Guardian kit — share ${share.shareIndex} of ${share.shareCount} — ${isolateName(guardianName)}`
  const footer = `<footer><span>Vault ${e(share.fingerprint)} · set ${e(share.splitId)} · share ${share.shareIndex} of ${share.shareCount}</span><span>Made ${e(created)}</span></footer>`

  const page1 = `
<header>
  <div><p class="eyebrow">Digital inheritance · guardian kit${vaultOf(input.vaultName)}</p><h1>Share for ${isolateNameHtml(guardianName)}</h1></div>
  <div class="badge">Share ${share.shareIndex} of ${share.shareCount}</div>
</header>
<p class="lead">${owner === 'the vault owner' ? 'The owner of an encrypted vault' : owner} chose you as a guardian. This paper holds one piece of the key that unlocks their encrypted files for their heirs. On its own it opens nothing: <strong>${rule}</strong> guardians' pieces are needed together.</p>
<div class="warning"><strong>Keep this paper private and safe</strong>, like a passport or a will. Do not photograph it, e-mail it or type its words into any website (only the check code below may be typed). Give it only to the heirs, in person, when the time comes (see page 2).</div>
<div class="identity">
<div>
<dl class="facts">
  <dt>Guardian</dt><dd>${isolateNameHtml(guardianName)}</dd>
  <dt>Vault fingerprint</dt><dd class="mono fingerprint">${e(share.fingerprint)}</dd>
  <dt>Needed to unlock</dt><dd>${rule} shares (this is share ${share.shareIndex})</dd>
  <dt>Share set</dt><dd class="mono">${e(share.splitId)}, made ${e(created)}</dd>
  <dt>Vault id</dt><dd class="mono id">${e(share.vaultId)}</dd>
</dl>
${checkCodeBox(share)}
</div>
<figure>${shareQrSvg(share)}<figcaption>The same words as a QR code: either one is enough.</figcaption></figure>
</div>
<h2>Your ${words.length} words, in this order</h2>
${wordList(words)}
${footer}`

  const page2 = `
<header>
  <div><p class="eyebrow">Guardian kit · share ${share.shareIndex} of ${share.shareCount}</p><h1>The day it is needed</h1></div>
</header>
<ol class="steps">
  <li><strong>Wait to be asked.</strong> ${owner === 'the vault owner' ? 'The owner’s' : `${owner}’s`} heirs or the executor of the estate will contact you when ${owner} has died or can no longer act. Nobody else has any reason to ask for this paper.</li>
  <li><strong>Make sure the request is genuine.</strong> Speak to the person face to face or on the phone at a number you already know. Never send the words in reply to an e-mail or message, even one that seems to come from a company.</li>
  <li><strong>Check the fingerprint.</strong> Every kit for this vault shows the same vault fingerprint, <span class="mono">${e(share.fingerprint)}</span>, and the same share set, <span class="mono">${e(share.splitId)}</span>. Pieces from different sets do not fit together.</li>
  <li><strong>Hand over this paper</strong> (or a copy of it). ${rule[0]!.toUpperCase()}${rule.slice(1)} guardians must do the same; the heirs collect the pieces. Keep a note of whom you gave it to and when.</li>
  <li><strong>The heirs then unlock the files</strong> with the recovery tool${input.recoveryPageSha256 ? ' or the recovery page' : ''} on their own computer, using these pieces and the encrypted files (files whose names end in <span class="mono">${ENCRYPTED_FILE_SUFFIX}</span>, kept by ${owner} or downloaded from the vault). No internet service and no account is needed for this.</li>
</ol>
<p>If this paper is damaged, the words and the QR code carry the same information: either one is enough. If a word is hard to read, the recovery tool names any word that does not fit and suggests the likely one. If you lose this paper, tell ${owner} while they can still make a new set.</p>
<div class="helper">
  <h2>For the person helping with the computer</h2>
  <p>Recovery tool (from the Vault Desktop source code, runs offline with Node.js 20 or later):</p>
  <p><code>npm run recover -- --share-words "word1 word2 …" --share-words "…" --out recovered-files path/to/encrypted-files</code></p>
  <p>Also accepted: <code>--share-file words.txt</code> and <code>--share-qr photo-of-qr.png</code>. The vault id is inside the words. ${FORMAT_NOTE}</p>${input.recoveryPageSha256 ? recoveryPageNote(input.recoveryPageSha256) : ''}
</div>
${footer}`

  return documentShell(title, [page1, page2])
}

export function renderOwnerKitHtml(input: OwnerKitInput): string {
  const fingerprint = vaultFingerprint(input.vaultKey)
  const created = formatDate(input.createdAt ?? new Date())
  const envelope = {
    kind: 'owner-key',
    version: 1,
    vaultKey: input.vaultKey,
    vaultId: input.vaultId,
  } as const
  const words = wordsFor(envelope)
  const owner = input.ownerName ? isolateNameHtml(input.ownerName) : ''
  const footer = `<footer><span>Vault ${e(fingerprint)} · owner recovery kit</span><span>Made ${e(created)}</span></footer>`

  const page1 = `
<header>
  <div><p class="eyebrow">Digital inheritance · owner recovery kit${vaultOf(input.vaultName)}</p><h1>Vault key${owner ? ` of ${owner}` : ''}</h1></div>
  <div class="badge">Keep in your safe</div>
</header>
<p class="lead">These words are the complete key to your encrypted vault. With them you can open every file in it, without any guardian, any company or any internet service.</p>
<div class="warning"><strong>Anyone holding this paper can read all your vault's files.</strong> Keep it where you keep your most valuable papers (a safe, a bank deposit box), never in the same place as an unlocked computer, and never as a photo or online.</div>
<div class="identity">
<dl class="facts">
  <dt>Vault fingerprint</dt><dd class="mono fingerprint">${e(fingerprint)}</dd>
  <dt>Vault id</dt><dd class="mono id">${e(input.vaultId)}</dd>
  <dt>Made</dt><dd>${e(created)}</dd>
</dl>
<figure>${shareQrSvg(envelope)}<figcaption>The same words as a QR code: either one is enough.</figcaption></figure>
</div>
<h2>Your ${words.length} words, in this order</h2>
${wordList(words)}
${footer}`

  const page2 = `
<header>
  <div><p class="eyebrow">Owner recovery kit</p><h1>When to use this</h1></div>
</header>
<ol class="steps">
  <li><strong>You lost your computer</strong> or the key stored on it: use the recovery tool below with these words to turn your encrypted files back into the originals.</li>
  <li><strong>Check the fingerprint.</strong> After the words are entered, the app or tool shows the vault fingerprint. It must read <span class="mono">${e(fingerprint)}</span>, the same as on your guardians' kits.</li>
  <li><strong>Your encrypted files</strong> are the files whose names end in <span class="mono">${ENCRYPTED_FILE_SUFFIX}</span>, in your backups or downloaded from the vault. The recovery tool turns them back into the original files, on your own computer, offline.</li>
  <li><strong>If you decide your heirs should have this paper</strong> (for example in your will), they can use it instead of the guardians' shares. Tell them it exists and where it is.</li>
</ol>
<div class="helper">
  <h2>For the person helping with the computer</h2>
  <p>Recovery tool (from the Vault Desktop source code, runs offline with Node.js 20 or later):</p>
  <p><code>npm run recover -- --owner-kit "word1 word2 …" --out recovered-files path/to/encrypted-files</code></p>
  <p>Also accepted: <code>--owner-kit-file words.txt</code> and <code>--owner-kit-qr photo-of-qr.png</code>. The vault id is inside the words. ${FORMAT_NOTE}</p>
</div>
${footer}`

  return documentShell(`Owner recovery kit — vault ${fingerprint}`, [page1, page2])
}
