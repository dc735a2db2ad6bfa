"""`policy tree --html`: one self-contained page to check a wording's clause tree by eye.

On the left the tree (ids, kinds, pages), each entry a link; on the right every clause in
document order under the page it starts on, with its own text, its kind and the reason for that
kind. A reviewer reads down the right side against the printed policy and corrects what is wrong
in policies/index.yaml.

Nothing is fetched when the page opens (no CDN, no script, no web font) and a
Content-Security-Policy says so to the browser. Clause text comes from a PDF nobody here wrote:
every value is escaped, and control characters and the marks that reorder a line are shown as
escapes, so what a reviewer sees is what the PDF says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from claims_crew.policy.amend import Amendment
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.segment import CLAUSE_KINDS, Clause
from claims_crew.policy.tree import (
    TreeNode,
    build_tree,
    corrected_count,
    doubtful_clauses,
    kind_counts,
    reading_words,
    source_text,
)

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional marks: the same set
# the terminal output shows as escapes.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

KIND_COLOURS = {
    "grant": "#2f8a57",
    "exclusion": "#b4463f",
    "condition": "#b7791f",
    "limit": "#7d5bbf",
    "definition": "#3b6fd1",
    "other": "#6b7280",
}

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
 color:#1d2433;background:#f6f7f9}
header{padding:14px 20px;background:#fff;border-bottom:1px solid #dde1e7}
h1{font-size:20px;margin:0 0 4px}.muted{color:#667}code{font-family:ui-monospace,monospace}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin-top:8px}
.chip{border-radius:999px;padding:1px 10px;color:#fff;font-size:12px}
.split{display:grid;grid-template-columns:minmax(280px,34%) 1fr;align-items:start}
nav{position:sticky;top:0;max-height:100vh;overflow:auto;padding:10px 8px 40px 12px;
 border-right:1px solid #dde1e7;background:#fff;font-size:13px}
nav ul{list-style:none;margin:0;padding-left:14px}nav>ul{padding-left:0}
nav li{margin:1px 0}nav a{color:#1d2433;text-decoration:none;display:block;
 white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
nav a:hover{background:#eef1f5}
.kind{display:inline-block;min-width:72px;text-align:center;border-radius:4px;color:#fff;
 font-size:11px;padding:0 4px;margin-right:6px}
.pp{color:#889;font-size:11px;margin-left:4px}
main{padding:0 20px 60px}
.page-break{position:sticky;top:0;background:#f6f7f9;padding:10px 0 4px;font-weight:600;
 color:#445;border-bottom:1px solid #dde1e7;z-index:1}
article{display:grid;grid-template-columns:64px 1fr;gap:10px;background:#fff;margin:8px 0;
 border:1px solid #dde1e7;border-left:4px solid var(--k);border-radius:6px;padding:8px 10px}
article:target{outline:2px solid #1f5fbf}
article{scroll-margin-top:48px}
.pages{color:#556;font-size:12px;font-variant-numeric:tabular-nums}
article h3{font-size:14px;margin:0 0 2px}
.why{font-size:12px;color:#445;margin:0 0 6px}
.why.corrected{color:#8a3b00;font-weight:600}
.ocr{color:#8a3b00;font-weight:600}
.clause-text{white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace;margin:0;color:#222;
 max-height:28em;overflow:auto}
.ctl{background:#fde68a;color:#7c2d12}
#issued{margin-top:8px}#issued table{border-collapse:collapse;margin:4px 0}
#issued td,#issued th{border:1px solid #dde1e7;padding:2px 8px;text-align:left;font-size:13px}
.reading-confirmed{color:#2f6b45}.reading-unconfirmed,.reading-changed{color:#b4463f;
 font-weight:600}
""" + "".join(f".k-{k}{{--k:{c}}}.bg-{k}{{background:{c}}}" for k, c in KIND_COLOURS.items())


def _text(value: object) -> str:
    """Outside text as HTML: escaped, each control character shown as a marked escape."""
    out, last = [], 0
    text = str(value).replace("\r\n", "\n")
    for m in _UNSAFE.finditer(text):
        code = ord(m[0])
        shown = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        out += [escape(text[last : m.start()]), f'<span class="ctl">{shown}</span>']
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _pages(pages: Sequence[int]) -> str:
    if not pages:
        return "–"
    first, last = pages[0], pages[-1]
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def _nav(nodes: Sequence[TreeNode], anchors: dict[str, str]) -> str:
    out = ["<ul>"]
    for node in nodes:
        c = node.clause
        out.append(
            f'<li><a href="#{anchors[c.id]}" title="{_text(c.kind_reason or c.kind)}">'
            f'<span class="kind bg-{c.kind}">{c.kind}</span><code>{_text(c.id)}</code> '
            f'{_text(c.title)}<span class="pp">{_pages(c.pages)}</span></a>'
        )
        if node.children:
            out.append(_nav(node.children, anchors))
        out.append("</li>")
    out.append("</ul>")
    return "".join(out)


def _ocr_note(doc: PolicyDocument) -> str:
    """A scanned wording's mark: read by OCR, and each line the engine was unsure of."""
    if doc.ocr is None:
        return ""
    lines = doc.ocr.low_confidence_lines
    items = "".join(f"<li>p.{n.page} · {n.confidence:.2f} · {_text(n.text)}</li>" for n in lines)
    return (
        f'<div class="ocr" id="ocr-note">Read by OCR, confidence {doc.ocr.confidence:.2f}; '
        f"{len(lines)} low-confidence line(s): check them against the scan"
        f"{f'<ul>{items}</ul>' if items else ''}</div>"
    )


def _amended(clause: Clause, amendment: Amendment | None) -> str:
    """Where an endorsement's clause comes from, and the form's words it changed."""
    if amendment is None:
        return ""
    original = (
        f"<details><summary>The form's words</summary><pre>{_text(amendment.original)}</pre>"
        "</details>"
        if amendment.original is not None
        else ""
    )
    return f'<p class="ocr">{_text(source_text(clause, amendment))}</p>{original}'


def _reading_row(e: Mapping[str, Any]) -> str:
    """One endorsement in force: where its reading stands, who confirmed it and when, and the
    command that confirms it, the facts the terminal tree marks (policy/tree.py)."""
    state = e["reading"] or "not read"
    if state == "confirmed":
        shown = f"confirmed by {e['confirmed_by']} at {e['confirmed_at']}"
    else:
        shown = reading_words(e) or state
    confirm = (
        f"<code>{_text(e['confirm'])}</code> (check it first: <code>claims-crew policy changes "
        f"{_text(e['endorsement'])}</code>, or /endorsements/{_text(e['endorsement'])} on the "
        "review page)"
        if e["confirm"]
        else "–"
    )
    return (
        f'<tr class="reading" data-endorsement="{_text(e["endorsement"])}" '
        f'data-reading="{_text(state)}"><td><code>{_text(e["endorsement"])}</code></td>'
        f"<td>{_text(e['effective'])}</td>"
        f'<td class="reading-{_text(state.replace(" ", "-"))}">{_text(shown)}</td>'
        f"<td>{confirm}</td></tr>"
    )


def _issued_note(issued: Mapping[str, Any] | None) -> str:
    """A policy as issued: whose, on which day, each endorsement in force with its reading
    confirmed or not (a claim on it goes to a person until a lead confirms), and the changes
    not applied. Nothing for a form on its own."""
    if issued is None:
        return ""
    endorsements = issued["endorsements"]
    waiting = [e["endorsement"] for e in endorsements if reading_words(e) is not None]
    out = [
        f'<div id="issued"><p>Policy <strong>{_text(issued["number"])}</strong> '
        f"({_text(issued['holder'] or 'holder not named')}), {_text(issued['period']['from'])} "
        f"to {_text(issued['period']['to'])}, as in force on {_text(issued['on'])}: form "
        f"<code>{_text(issued['form'])}</code> with {len(endorsements)} endorsement(s)</p>"
    ]
    if waiting:
        out.append(
            f'<p class="reading-unconfirmed" id="readings-waiting">Reading not confirmed as it '
            f"reads now: {_text(', '.join(waiting))}; claims on this policy go to a person "
            "until a lead confirms it</p>"
        )
    if endorsements:
        out += [
            '<table id="readings"><tr><th>endorsement</th><th>effective</th><th>reading</th>'
            "<th>to confirm</th></tr>",
            *map(_reading_row, endorsements),
            "</table>",
        ]
    if issued["unmatched"]:
        items = "".join(
            f"<li><code>{_text(u['endorsement'])}</code> change {u['change']} ({_text(u['kind'])}"
            f" <code>{_text(u['target'])}</code>, p.{u['page']}): {_text(u['why'])}</li>"
            for u in issued["unmatched"]
        )
        out.append(f'<div class="ocr" id="not-applied">Changes not applied:<ul>{items}</ul></div>')
    out.append("</div>")
    return "".join(out)


def render_tree_page(
    doc: PolicyDocument, policy_id: str | None, issued: Mapping[str, Any] | None = None
) -> str:
    """The whole page as one string; `issued` is `policy/tree.py`'s `issued_json` for a policy
    as issued (its endorsements' readings, the changes not applied), None for a form."""
    clauses = doc.clauses
    anchors = {c.id: f"c{i}" for i, c in enumerate(clauses, start=1)}
    name = policy_id or doc.path.name
    counts = kind_counts(clauses)
    corrected = corrected_count(clauses)
    corrections = (
        f"{corrected} clause(s) corrected in index.yaml "
        f"(corrections <code>{_text(doc.corrections_sha256[:12])}</code>)"
        if doc.corrections_sha256
        else "no corrections"
    )
    out = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_text(name)}: clause tree</title>",
        f"<style>{CSS}</style></head><body>",
        f'<header><h1 id="policy-name">{_text(name)}: clause tree</h1>',
        f'<div class="muted">{_text(doc.path.name)} · {doc.page_count} pages · '
        f"{len(clauses)} clauses · sha256 <code>{_text(doc.sha256[:12])}</code> · "
        f"{corrections}</div>",
        _ocr_note(doc),
        _issued_note(issued),
        '<div class="chips" id="kind-counts">',
        *(f'<span class="chip bg-{k}">{k} {counts[k]}</span>' for k in CLAUSE_KINDS if counts[k]),
        "</div></header>",
        '<div class="split"><nav id="tree" aria-label="Clause tree">',
        _nav(build_tree(clauses), anchors),
        '</nav><main id="clauses">',
    ]
    depth: dict[str, int] = {}
    doubtful = set(doubtful_clauses(doc))
    page = 0
    for c in clauses:
        depth[c.id] = depth.get(c.parent, -1) + 1 if c.parent is not None else 0
        amended = doc.amendments.get(c.id)
        # An endorsement's clause keeps its place among the form's pages.
        first = c.pages[0] if c.pages and amended is None else page
        if first != page:
            page = first
            out.append(f'<div class="page-break" id="page-{page}">Page {page}</div>')
        corrected_class = " corrected" if c.kind_reason.startswith("correction:") else ""
        indent = min(depth[c.id], 6) * 14
        out.append(
            f'<article class="clause k-{c.kind}" id="{anchors[c.id]}" '
            f'style="margin-left:{indent}px" data-kind="{c.kind}">'
            f'<div class="pages">{_pages(c.pages)}</div><div>'
            f"<h3><code>{_text(c.id)}</code> {_text(c.title)}</h3>"
            f'<p class="why{corrected_class}"><span class="kind bg-{c.kind}">{c.kind}</span>'
            f"{_text(c.kind_reason or 'no reason recorded')}</p>"
            + ('<p class="ocr">OCR: check against the page</p>' if c.id in doubtful else "")
            + _amended(c, amended)
            + f'<pre class="clause-text">{_text(c.text)}</pre></div></article>'
        )
    out.append("</main></div></body></html>\n")
    return "".join(out)
