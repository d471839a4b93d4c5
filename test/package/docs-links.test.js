'use strict';
/**
 * The README and docs/ as GitHub shows them: every relative link points at a
 * file of the repository, and every #anchor at a heading (or an explicit
 * id) of its target, by GitHub's heading slug rules. External links
 * (https:, mailto:) are not fetched. The README stays short (issue 26: at most
 * 250 lines) and links every node type's page.
 *
 * The checker is tested first on files of its own making, so that a broken
 * link is known to fail it.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * GitHub's anchor for a heading's text: lowercase, every character but
 * letters, digits, spaces, `-` and `_` dropped, each space turned into `-`.
 * (Markdown in the heading is rendered first: see headingText.)
 */
function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A heading's text as GitHub renders it: links and images by their text, code, emphasis and HTML tags unwrapped. */
function headingText(markdown) {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__|\*)/g, '')
    .replace(/(^|[^\p{L}\p{N}])_([^_]+)_(?=[^\p{L}\p{N}]|$)/gu, '$1$2')
    .trim();
}

/** The lines of a Markdown file outside fenced code blocks, with their numbers. */
function proseLines(text) {
  const lines = [];
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      // closed by a fence of the same character, at least as long, with nothing after it
      const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (closing && closing[1][0] === fence[0] && closing[1].length >= fence.length) fence = null;
      return;
    }
    if (opening) {
      fence = opening[1];
      return;
    }
    lines.push({ line, number: i + 1 });
  });
  return lines;
}

/** The anchors a Markdown file offers: its headings' slugs (duplicates numbered -1, -2, …) and explicit ids and names. */
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  const add = (heading) => {
    const base = slug(headingText(heading));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  };
  const lines = proseLines(text);
  lines.forEach(({ line }, i) => {
    const atx = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) add(atx[1]);
    // setext: a paragraph line underlined with === or ---
    else if (i > 0 && /^ {0,3}(=+|-+)[ \t]*$/.test(line)) {
      const previous = lines[i - 1].line;
      if (previous.trim() && !/^ {0,3}([#>|*+-]|\d+[.)])/.test(previous) && lines[i - 1].number === lines[i].number - 1) add(previous.trim());
    }
    for (const m of line.matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]);
  });
  return anchors;
}

/** The links of a Markdown file: inline links and images, reference definitions, HTML href and src; code left out. */
function linksOf(text) {
  const links = [];
  for (const { line, number } of proseLines(text)) {
    const prose = line.replace(/(`+)(?:(?!\1).)+?\1/g, '');
    for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1].replace(/^<|>$/g, ''), line: number });
    const reference = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
    if (reference) links.push({ target: reference[1].replace(/^<|>$/g, ''), line: number });
    for (const m of prose.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/gi)) links.push({ target: m[1], line: number });
  }
  return links;
}

/** Whether git ignores `file` (a link to it works here but not on GitHub); false outside a git work tree. */
function gitIgnored(root, file) {
  try {
    execFileSync('git', ['check-ignore', '-q', path.relative(root, file)], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every problem with the relative links of `files` (paths relative to `root`):
 * a target that is not there, outside the repository or git-ignored, and an
 * anchor its Markdown target does not have. Returns "file:line: problem" lines.
 */
function linkProblems(root, files) {
  const problems = [];
  const anchorCache = new Map();
  const anchorsIn = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(fs.readFileSync(file, 'utf8')));
    return anchorCache.get(file);
  };
  for (const rel of files) {
    const file = path.join(root, rel);
    for (const { target, line } of linksOf(fs.readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // https:, mailto:, …
      const where = `${rel}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const linkPath = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = linkPath === '' ? file : path.resolve(path.dirname(file), linkPath);
      if (path.relative(root, resolved).startsWith('..')) {
        problems.push(`${where}: points outside the repository`);
        continue;
      }
      if (!fs.existsSync(resolved)) {
        problems.push(`${where}: no such file ${path.relative(root, resolved)}`);
        continue;
      }
      if (gitIgnored(root, resolved)) {
        problems.push(`${where}: ${path.relative(root, resolved)} is git-ignored, so not on GitHub`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!resolved.endsWith('.md') || fs.statSync(resolved).isDirectory()) {
        problems.push(`${where}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!anchorsIn(resolved).has(anchor)) problems.push(`${where}: no heading or id "${anchor}" in ${path.relative(root, resolved)}`);
    }
  }
  return problems;
}

/** README.md and every Markdown file under docs/, relative to `root`. */
function documentationFiles(root) {
  const found = ['README.md'];
  const walk = (dir) => {
    if (!fs.existsSync(path.join(root, dir))) return;
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found.sort();
}

describe('docs: the links checker', function () {
  it("makes GitHub's heading anchors", function () {
    const text = [
      '# Nothing lost: what each delivery mode promises',
      '## `send`',
      '## Memory: bounded by the bounds, not by a burst',
      '## A & B (2.0), _private_ C++ snake_case',
      '## Usage',
      '## Usage',
      '## Usage',
      '## **detection in** and [dedupe](nodes/detection-dedupe.md)',
      '## Ünïcode Straße',
      '```',
      '# not a heading',
      '```',
      'Setext heading',
      '---',
      '<a id="explicit-place"></a>',
    ].join('\n');
    assert.deepEqual(
      [...anchorsOf(text)].sort(),
      [
        'nothing-lost-what-each-delivery-mode-promises',
        'send',
        'memory-bounded-by-the-bounds-not-by-a-burst',
        'a--b-20-private-c-snake_case',
        'usage',
        'usage-1',
        'usage-2',
        'detection-in-and-dedupe',
        'ünïcode-straße',
        'setext-heading',
        'explicit-place',
      ].sort(),
    );
  });

  it('reports a missing file, a missing anchor and a link out of the repository; passes good links, code and external ones', function () {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-links-'));
    try {
      fs.mkdirSync(path.join(root, 'docs', 'images'), { recursive: true });
      fs.writeFileSync(path.join(root, 'docs', 'images', 'a.png'), '');
      fs.writeFileSync(
        path.join(root, 'docs', 'page.md'),
        '# Page\n\n## Two words\n\nBack to [the top](#page) and [the README](../README.md#readme).\n',
      );
      fs.writeFileSync(
        path.join(root, 'README.md'),
        [
          '# README',
          '![picture](docs/images/a.png) [page](docs/page.md) [section](docs/page.md#two-words) [here](#readme)',
          '[site](https://example.com/x.md) [mail](mailto:a@b.c) `[code](nowhere.md)`',
          '```',
          '[in a block](nowhere.md)',
          '```',
          '[gone](docs/nodes/detection-in.md) [no anchor](docs/page.md#three-words) [up](../outside.md) [self](#nothing-here)',
        ].join('\n'),
      );
      assert.deepEqual(linkProblems(root, documentationFiles(root)), [
        'README.md:7: docs/nodes/detection-in.md: no such file docs/nodes/detection-in.md',
        'README.md:7: docs/page.md#three-words: no heading or id "three-words" in docs/page.md',
        'README.md:7: ../outside.md: points outside the repository',
        'README.md:7: #nothing-here: no heading or id "nothing-here" in README.md',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('docs: README.md and docs/ as GitHub shows them', function () {
  const files = documentationFiles(ROOT);

  it('finds the README and the reference', function () {
    for (const page of ['README.md', 'docs/delivery.md', 'docs/instances.md', 'docs/performance.md', 'docs/simulator.md'])
      assert.ok(files.includes(page), `${page} among ${files}`);
  });

  for (const file of files) {
    it(`${file}: every relative link and anchor resolves`, function () {
      assert.deepEqual(linkProblems(ROOT, [file]), []);
    });
  }

  it('README.md has at most 250 lines', function () {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= 250, `README.md has ${lines} lines`);
  });

  it("README.md links every node type's page, docs/nodes/<type>.md", function () {
    const types = Object.keys(require(path.join(ROOT, 'package.json'))['node-red'].nodes);
    const linked = new Set(linksOf(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).map((l) => l.target));
    assert.deepEqual(
      types.filter((type) => !linked.has(`docs/nodes/${type}.md`)),
      [],
    );
  });
});
