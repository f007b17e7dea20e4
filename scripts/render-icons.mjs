// Renders the app icon and tray icons from their SVG sources into the PNGs that are packaged.
//   node scripts/render-icons.mjs           write resources/icons/*.png, resources/icon.png, resources/tray/*.png
//   node scripts/render-icons.mjs --sheet   also write test-results/icons-sheet.png (light/dark, 1x and zoomed)
// Uses Debian Chromium through playwright-core: the browser's SVG renderer gives clean anti-aliasing
// without a native image library.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const resources = join(root, 'resources')

const APP_ICON_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024]
const TRAY_STATES = ['ok', 'due-soon', 'overdue', 'releasing']
const TRAY_SIZES = [16, 32]
// At these sizes and below, bolts, hinges and the rim highlight only add blur, so they are hidden.
const SMALL_ICON_MAX = 48

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

function svgPage(svg, size, hideDetail) {
  const detailRule = hideDetail ? '.detail{display:none}' : ''
  return `<!doctype html><html><head><style>
html,body{margin:0;padding:0;background:transparent}
svg{display:block;width:${size}px;height:${size}px}${detailRule}
</style></head><body>${svg}</body></html>`
}

async function renderSvg(page, svg, size, hideDetail) {
  await page.setViewportSize({ width: size, height: size })
  await page.setContent(svgPage(svg, size, hideDetail))
  return page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } })
}

function pngSize(buffer) {
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) }
}

async function writePng(path, buffer, size) {
  const actual = pngSize(buffer)
  if (actual.width !== size || actual.height !== size) {
    throw new Error(`${path}: rendered ${actual.width}x${actual.height}, expected ${size}x${size}`)
  }
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, buffer)
  return path
}

function sheetHtml(appIcons, trayIcons) {
  const img = (buf, px) =>
    `<img src="data:image/png;base64,${buf.toString('base64')}" width="${px}" height="${px}">`
  const cell = (label, html) => `<figure>${html}<figcaption>${label}</figcaption></figure>`
  const panel = (theme) => {
    const apps = APP_ICON_SIZES.filter((s) => s <= 256)
      .map((s) => cell(`${s}`, img(appIcons.get(s), s)))
      .join('')
    const appZoom = [16, 32, 48].map((s) => cell(`${s} x8`, img(appIcons.get(s), s * 8))).join('')
    const tray1x = TRAY_STATES.map((st) =>
      cell(st, `${img(trayIcons.get(`${st}-16`), 16)} ${img(trayIcons.get(`${st}-32`), 32)}`),
    ).join('')
    const trayZoom = TRAY_STATES.map((st) => cell(`${st} 16 x8`, img(trayIcons.get(`${st}-16`), 128))).join(
      '',
    )
    const trayZoom32 = TRAY_STATES.map((st) => cell(`${st} 32 x4`, img(trayIcons.get(`${st}-32`), 128))).join(
      '',
    )
    return `<section class="${theme}"><h2>${theme}</h2>
<div class="row">${apps}</div><div class="row">${appZoom}</div>
<div class="row">${tray1x}</div><div class="row">${trayZoom}</div><div class="row">${trayZoom32}</div></section>`
  }
  return `<!doctype html><html><head><style>
body{margin:0;display:flex;font:12px sans-serif}
section{padding:16px;flex:1}
.light{background:#F3F4F6;color:#222}.dark{background:#1E1F22;color:#ddd}
h2{margin:0 0 8px;font-size:14px}
.row{display:flex;align-items:flex-end;gap:18px;margin-bottom:14px;flex-wrap:wrap}
figure{margin:0;text-align:center}
img{image-rendering:pixelated;display:block;margin:0 auto 4px}
</style></head><body>${panel('light')}${panel('dark')}</body></html>`
}

async function main() {
  const wantSheet = process.argv.includes('--sheet')
  const appSvg = await readFile(join(resources, 'icon.svg'), 'utf8')
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const written = []
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 })
    const appIcons = new Map()
    for (const size of APP_ICON_SIZES) {
      const png = await renderSvg(page, appSvg, size, size <= SMALL_ICON_MAX)
      appIcons.set(size, png)
      written.push(await writePng(join(resources, 'icons', `${size}x${size}.png`), png, size))
    }
    written.push(await writePng(join(resources, 'icon.png'), appIcons.get(512), 512))

    const trayIcons = new Map()
    for (const state of TRAY_STATES) {
      const svg = await readFile(join(resources, 'tray', `${state}.svg`), 'utf8')
      for (const size of TRAY_SIZES) {
        const png = await renderSvg(page, svg, size, false)
        trayIcons.set(`${state}-${size}`, png)
        written.push(await writePng(join(resources, 'tray', `${state}-${size}.png`), png, size))
      }
    }

    if (wantSheet) {
      const sheetPath = join(root, 'test-results', 'icons-sheet.png')
      await mkdir(dirname(sheetPath), { recursive: true })
      await page.setViewportSize({ width: 1400, height: 800 })
      await page.setContent(sheetHtml(appIcons, trayIcons))
      await page.screenshot({ path: sheetPath, fullPage: true })
      written.push(sheetPath)
    }
  } finally {
    await browser.close()
  }
  for (const path of written) console.log(path.slice(root.length + 1))
}

main().catch((error) => {
  console.error(`render-icons failed: ${error.message}`)
  console.error('Check that Chromium is installed at /usr/bin/chromium (or set CHROMIUM_PATH).')
  process.exit(1)
})
