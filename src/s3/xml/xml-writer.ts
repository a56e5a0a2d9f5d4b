/**
 * A minimal XML writer for S3's response documents: elements and escaped text, nothing else.
 * Object keys may hold any Unicode, including control characters that XML 1.0 cannot carry
 * literally; like S3, those are written as character references (clients that cannot read them
 * should list with encoding-type=url). `\r` is also written as a reference, since a parser would
 * otherwise turn it into `\n` and the key would change.
 */
export type XmlValue = string | number | boolean | Date | undefined | null;
export type XmlChildren = XmlNode[];
export interface XmlNode {
  name: string;
  value?: XmlValue;
  children?: XmlChildren;
}

export const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** An element with text, or omitted (undefined/null) — S3 leaves out absent optional fields. */
export function el(name: string, value: XmlValue): XmlNode {
  return { name, value };
}

export function group(name: string, children: XmlChildren): XmlNode {
  return { name, children };
}

export function xmlDocument(root: string, children: XmlChildren, namespace = S3_NAMESPACE): string {
  const ns = namespace ? ` xmlns="${namespace}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns}>${renderAll(children)}</${root}>`;
}

/** A document whose root holds only text (GetBucketLocation's LocationConstraint). */
export function xmlTextDocument(root: string, text: string, namespace = S3_NAMESPACE): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${namespace}">${escapeXml(text)}</${root}>`;
}

function renderAll(nodes: XmlChildren): string {
  let out = '';
  for (const node of nodes) out += render(node);
  return out;
}

function render(node: XmlNode): string {
  if (node.children) return `<${node.name}>${renderAll(node.children)}</${node.name}>`;
  if (node.value === undefined || node.value === null) return '';
  return `<${node.name}>${escapeXml(textOf(node.value))}</${node.name}>`;
}

function textOf(value: Exclude<XmlValue, undefined | null>): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

export function escapeXml(text: string): string {
  // Matching control characters is the point: XML 1.0 cannot carry them literally.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[&<>"'\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, (ch) => {
    switch (ch) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case "'":
        return '&apos;';
      default:
        return `&#x${ch.charCodeAt(0).toString(16).toUpperCase()};`;
    }
  });
}
