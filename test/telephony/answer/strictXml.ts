/**
 * A small strict XML parser for the answer-document tests: elements, double- or single-quoted
 * attributes, text, the five predefined entities and numeric character references. It throws on
 * anything not well formed (an unescaped `<` or `&`, a mismatched or unclosed tag, a duplicate
 * attribute, content after the root), and normalises attribute whitespace as XML 1.0 §3.3.3 says,
 * so a test sees the value a real parser would give the provider.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeRefs(raw: string, where: string): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const c = raw[i]!;
    if (c === '<') throw new Error(`unescaped < in ${where}`);
    if (c !== '&') {
      out += c;
      i++;
      continue;
    }
    const end = raw.indexOf(';', i);
    if (end < 0) throw new Error(`unterminated reference in ${where}`);
    const ref = raw.slice(i + 1, end);
    if (ref.startsWith('#x')) {
      if (!/^#x[0-9a-fA-F]+$/.test(ref)) throw new Error(`bad reference &${ref}; in ${where}`);
      out += String.fromCodePoint(parseInt(ref.slice(2), 16));
    } else if (ref.startsWith('#')) {
      if (!/^#[0-9]+$/.test(ref)) throw new Error(`bad reference &${ref}; in ${where}`);
      out += String.fromCodePoint(parseInt(ref.slice(1), 10));
    } else {
      const e = ENTITIES[ref];
      if (e === undefined) throw new Error(`unknown entity &${ref}; in ${where}`);
      out += e;
    }
    i = end + 1;
  }
  return out;
}

export function parseXml(xml: string): XmlElement {
  let pos = 0;
  const decl = /^<\?xml[^?]*\?>/.exec(xml);
  if (decl !== null) pos = decl[0].length;
  const skipSpace = (): void => {
    while (pos < xml.length && /\s/.test(xml[pos]!)) pos++;
  };
  const parseElement = (): XmlElement => {
    if (xml[pos] !== '<') throw new Error(`expected < at ${pos}`);
    pos++;
    const name = NAME.exec(xml.slice(pos))?.[0];
    if (name === undefined) throw new Error(`bad element name at ${pos}`);
    pos += name.length;
    const el: XmlElement = { name, attributes: {}, children: [], text: '' };
    for (;;) {
      const before = pos;
      skipSpace();
      if (xml.startsWith('/>', pos)) {
        pos += 2;
        return el;
      }
      if (xml[pos] === '>') {
        pos++;
        break;
      }
      if (pos === before) throw new Error(`expected whitespace before an attribute at ${pos}`);
      const attr = NAME.exec(xml.slice(pos))?.[0];
      if (attr === undefined) throw new Error(`bad attribute name at ${pos}`);
      pos += attr.length;
      if (xml[pos] !== '=') throw new Error(`expected = at ${pos}`);
      pos++;
      const quote = xml[pos];
      if (quote !== '"' && quote !== "'") throw new Error(`expected a quote at ${pos}`);
      const end = xml.indexOf(quote, pos + 1);
      if (end < 0) throw new Error('unterminated attribute');
      if (Object.hasOwn(el.attributes, attr)) throw new Error(`duplicate attribute ${attr}`);
      const raw = xml.slice(pos + 1, end).replace(/[\t\n\r]/g, ' ');
      el.attributes[attr] = decodeRefs(raw, `attribute ${attr}`);
      pos = end + 1;
    }
    for (;;) {
      if (pos >= xml.length) throw new Error(`unclosed <${name}>`);
      if (xml.startsWith('</', pos)) {
        pos += 2;
        if (!xml.startsWith(name, pos)) throw new Error(`mismatched closing tag for <${name}> at ${pos}`);
        pos += name.length;
        skipSpace();
        if (xml[pos] !== '>') throw new Error(`bad closing tag at ${pos}`);
        pos++;
        return el;
      }
      if (xml[pos] === '<') {
        el.children.push(parseElement());
        continue;
      }
      const next = xml.indexOf('<', pos);
      const end = next < 0 ? xml.length : next;
      el.text += decodeRefs(xml.slice(pos, end), `text of <${name}>`);
      pos = end;
    }
  };
  skipSpace();
  const root = parseElement();
  skipSpace();
  if (pos !== xml.length) throw new Error(`content after the root element at ${pos}`);
  return root;
}
