/** Markup that may be written into a page as it is: made by `html`, which escaped what it was given. */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

type Interpolation = string | number | SafeHtml | readonly SafeHtml[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or a quoted attribute value: the caller's Host header reaches the page. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

/**
 * A template of HTML whose every interpolated string or number is escaped, and whose interpolated
 * `SafeHtml` (a nested `html`) is kept: nothing reaches the page unescaped by forgetting to escape it.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += markupOf(value) + strings[index + 1]!;
  });
  return new SafeHtml(text);
}

function markupOf(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map((part: SafeHtml) => part.text).join('');
  return escapeHtml(String(value));
}

/**
 * A value as a JavaScript literal inside a `<script>` element, where HTML entities mean nothing: JSON, with
 * `<` (which could close the element), `>`, `&` and the two line separators escaped.
 */
export function scriptLiteral(value: unknown): SafeHtml {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return new SafeHtml(json);
}

/** A whole page of the gateway's: English, UTF-8, sized for any screen; `head` after its title. */
export function htmlPage({ title, head, body }: { title: string; head: SafeHtml; body: SafeHtml }): string {
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  ${head}
</head>
<body>
  ${body}
</body>
</html>
`.text;
}
