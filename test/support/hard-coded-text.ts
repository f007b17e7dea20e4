// What looks like user-facing text written in place in a source file, read with the TypeScript
// compiler: JSX text, string values of attributes a person sees or hears (aria-label, title,
// placeholder, alt, label, …Label, …Text), strings inside JSX expressions, messages of thrown errors,
// and sentence-like strings anywhere else. The window's and the desktop's catalogue tests use it.
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

export const ROOT = join(__dirname, '..', '..')
const RENDERER = join(ROOT, 'src', 'renderer')

const VISIBLE_ATTRIBUTE =
  /^(aria-label|aria-description|aria-roledescription|aria-valuetext|title|placeholder|alt|label|[a-z]+(Label|Text|Title))$/
const HAS_WORD = /\p{L}{2}/u
/** Reads like a phrase: a capitalised word followed by more, or ends like a sentence. */
const SENTENCE = /(^\p{Lu}\p{Ll}+\s\S)|(\p{L}[.…:?!]$)|(\p{L}+\s+\p{L}+\s+\p{L}+)/u
/** Code, not words: a single token (an id, a state), MIME types, URLs, paths, `a:b` keys. */
const CODE_LIKE = /^([\w-]+|[a-z]+\/[\w.*+-]+|https?:\/\/\S*|[./][\w./-]*|[\w-]+:[\w-]+)$/
/** The class names styles.css defines: a string made only of them is a className, not words. */
const CSS_CLASSES = new Set(
  [...readFileSync(join(RENDERER, 'styles.css'), 'utf8').matchAll(/\.([a-zA-Z][\w-]*)/g)].map((m) => m[1]),
)
const isClassList = (text: string) =>
  text
    .split(/\s+|…/)
    .filter(Boolean)
    .every((token) => CSS_CLASSES.has(token))

export interface Finding {
  file: string
  line: number
  text: string
  why: string
}

function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text
  if (ts.isTemplateExpression(node)) {
    return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' … ')
  }
  return undefined
}

/** A string used as a value to compare or look up, not to show: `x === 'failed'`, `map['key']`, a `case`. */
function isComparisonOrKey(node: ts.Node): boolean {
  const parent = node.parent
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind
    return (
      op === ts.SyntaxKind.EqualsEqualsEqualsToken ||
      op === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
      op === ts.SyntaxKind.EqualsEqualsToken ||
      op === ts.SyntaxKind.ExclamationEqualsToken ||
      op === ts.SyntaxKind.InKeyword
    )
  }
  return (
    ts.isCaseClause(parent) ||
    (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) ||
    (ts.isPropertyAssignment(parent) && parent.name === node) ||
    ts.isLiteralTypeNode(parent) ||
    ts.isImportDeclaration(parent) ||
    ts.isExportDeclaration(parent) ||
    ts.isExternalModuleReference(parent) ||
    // The developer's console, not the user's window.
    (ts.isCallExpression(parent) && /^console\./.test(parent.expression.getText())) ||
    (ts.isCallExpression(parent) && ts.isIdentifier(parent.expression) && parent.expression.text === 'import')
  )
}

function attributeName(node: ts.JsxAttribute): string {
  return node.name.getText()
}

/** Inside an attribute nobody sees or hears (className, id, type, data-*…). */
function inHiddenAttribute(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n && !ts.isJsxElement(n); n = n.parent) {
    if (ts.isJsxAttribute(n)) return !VISIBLE_ATTRIBUTE.test(attributeName(n))
  }
  return false
}

/** Strings an expression can evaluate to, stopping at nested JSX (visited on its own) and at calls. */
function shownStrings(expression: ts.Node, report: (node: ts.Node, why: string) => void, why: string) {
  const visit = (node: ts.Node): void => {
    if (ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node) || ts.isJsxFragment(node)) return
    const text = literalText(node)
    if (text !== undefined) {
      if (HAS_WORD.test(text) && !isComparisonOrKey(node)) report(node, why)
      if (!ts.isTemplateExpression(node)) return
    }
    // A call's arguments are its own business (`go('settings')`); what it returns comes from elsewhere.
    if (ts.isCallExpression(node)) return
    ts.forEachChild(node, visit)
  }
  visit(expression)
}

export function scan(file: string, content = readFileSync(file, 'utf8')): Finding[] {
  const source = ts.createSourceFile(file, content, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX)
  const findings: Finding[] = []
  const seen = new Set<ts.Node>()
  const report = (node: ts.Node, why: string) => {
    if (seen.has(node)) return
    seen.add(node)
    const text = literalText(node) ?? node.getText().trim()
    findings.push({
      file: relative(ROOT, file),
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      text: text.replace(/\s+/g, ' ').slice(0, 80),
      why,
    })
  }

  const visit = (node: ts.Node): void => {
    // Numbers and dates go through the one layer (`format`, catalogue functions), never around it.
    if (
      (ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        /^toLocale(Date|Time)?String$/.test(node.expression.name.text)) ||
      (ts.isNewExpression(node) && /^Intl\./.test(node.expression.getText()))
    ) {
      report(node, 'formatting outside src/shared/locale-format.ts')
    }
    if (ts.isJsxText(node)) {
      if (HAS_WORD.test(node.text)) report(node, 'JSX text')
    } else if (ts.isJsxExpression(node) && node.expression && !ts.isJsxAttribute(node.parent)) {
      shownStrings(node.expression, report, 'string shown in JSX')
    } else if (ts.isJsxAttribute(node) && node.initializer && VISIBLE_ATTRIBUTE.test(attributeName(node))) {
      const value = node.initializer
      if (ts.isStringLiteral(value)) {
        if (HAS_WORD.test(value.text)) report(value, `${attributeName(node)} attribute`)
      } else if (ts.isJsxExpression(value) && value.expression) {
        shownStrings(value.expression, report, `${attributeName(node)} attribute`)
      }
    } else if (
      (ts.isNewExpression(node) ? /Error$/ : /^Error$/).test(
        ts.isNewExpression(node) || ts.isCallExpression(node) ? node.expression.getText() : '',
      ) &&
      (node as ts.NewExpression | ts.CallExpression).arguments?.[0]
    ) {
      shownStrings((node as ts.NewExpression).arguments![0]!, report, 'error message')
    } else {
      const text = literalText(node)
      if (
        text !== undefined &&
        SENTENCE.test(text.trim()) &&
        !CODE_LIKE.test(text.trim()) &&
        !isClassList(text) &&
        !isComparisonOrKey(node) &&
        !inHiddenAttribute(node)
      ) {
        report(node, 'sentence in code')
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return findings
}
