/**
 * An Atom 1.0 document (RFC 4287) with every text construct as `type="text"`, XML-escaped.
 *
 * Written here rather than with the `feed` package, which sends titles and content as
 * `type="html"` inside CDATA and escapes only the first `]]>`, so an incident title could inject
 * real XHTML elements into readers (issue #14 point 5). Plain text needs no sanitizer: readers
 * show it as text.
 */

/** One entry. Dates are epoch ms. */
export interface AtomEntry {
  id: string;
  title: string;
  link: string;
  updatedAt: number;
  publishedAt: number;
  summary: string;
  content: string;
}

/** The feed. `updatedAt` is epoch ms. */
export interface AtomFeed {
  id: string;
  title: string;
  /** The page the feed belongs to (`rel="alternate"`). */
  link: string;
  /** The feed's own URL (`rel="self"`). */
  self: string;
  language: string;
  /** The feed's author (RFC 4287 wants one): the page's name. */
  author: string;
  updatedAt: number;
  entries: AtomEntry[];
}

/** Characters XML 1.0 cannot carry at all (C0 controls but tab/LF/CR, U+FFFE/U+FFFF); dropped. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * Escapes text for XML element content and attribute values: `& < > " '` as entities, unpaired
 * surrogates replaced (U+FFFD), characters XML 1.0 forbids removed.
 */
export function xmlEscape(s: string): string {
  return s.toWellFormed().replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const text = (tag: string, value: string) => `<${tag} type="text">${xmlEscape(value)}</${tag}>`;
const iso = (ms: number) => new Date(ms).toISOString();

/** Renders the feed as an XML document (UTF-8). */
export function atomXml(feed: AtomFeed): string {
  const entries = feed.entries.map((e) =>
    [
      '  <entry>',
      `    ${text('title', e.title)}`,
      `    <id>${xmlEscape(e.id)}</id>`,
      `    <link href="${xmlEscape(e.link)}"/>`,
      `    <updated>${iso(e.updatedAt)}</updated>`,
      `    <published>${iso(e.publishedAt)}</published>`,
      `    ${text('summary', e.summary)}`,
      `    ${text('content', e.content)}`,
      '  </entry>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${xmlEscape(feed.language)}">`,
    `  <id>${xmlEscape(feed.id)}</id>`,
    `  ${text('title', feed.title)}`,
    `  <updated>${iso(feed.updatedAt)}</updated>`,
    `  <author><name>${xmlEscape(feed.author)}</name></author>`,
    '  <generator>Pharos</generator>',
    `  <link rel="alternate" href="${xmlEscape(feed.link)}"/>`,
    `  <link rel="self" href="${xmlEscape(feed.self)}"/>`,
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}
