"""`claims-crew policy clauses | show | search | tree`: the policy library, clause by clause.

The JSON shapes are a contract (docs/policy-library.md); they are built in policy/views.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

from claims_crew.cli._output import (
    EXIT_BAD_INPUT,
    EXIT_NOT_FOUND,
    emit_json,
    fail,
    json_option,
    reports_errors,
)
from claims_crew.cli.safe_text import clean, markup, plain
from claims_crew.cli.tables import Table

if TYPE_CHECKING:
    from rich.tree import Tree

    from claims_crew.policy.document import PolicyDocument
    from claims_crew.policy.tree import TreeNode


@click.group()
def policy() -> None:
    """Inspect the policy library: clauses, one clause, word search, the clause tree."""


def _open(file_or_id: str) -> tuple[PolicyDocument, str | None]:
    from claims_crew.policy.library import PolicyLibrary

    library = PolicyLibrary()
    # A person's look at the policy: a scan read by OCR is shown, reviewed or not.
    doc = library.open(file_or_id, unreviewed_ocr=True)
    return doc, (file_or_id if file_or_id in library.entries else None)


@policy.command("clauses")
@click.argument("file_or_id")
@click.option("--text", "with_text", is_flag=True, help="Add each clause's own text.")
@json_option
@reports_errors
def policy_clauses(file_or_id: str, with_text: bool, as_json: bool) -> None:
    """List every clause of a policy (a PDF path or a policy id from policies/index.yaml)."""
    doc, policy_id = _open(file_or_id)
    if as_json:
        from claims_crew.policy.views import clauses_listing

        emit_json(clauses_listing(doc, policy_id, with_text))
        return
    table = Table(
        title=f"{markup(policy_id or doc.path.name)}: {len(doc.clauses)} clauses, "
        f"{doc.page_count} pages"
    )
    for column in ("id", "label", "kind", "pages", "title", *(["text"] if with_text else [])):
        table.add_column(column, overflow="fold", no_wrap=column in ("id", "kind"))
    for c in doc.clauses:
        table.add_row(
            plain(c.id),
            plain(c.label),
            c.kind,
            ",".join(map(str, c.pages)),
            plain(c.title),
            *([plain(c.text)] if with_text else []),
        )
    Console().print(table)


@policy.command("show")
@click.argument("file_or_id")
@click.argument("clause")
@json_option
@reports_errors
def policy_show(file_or_id: str, clause: str, as_json: bool) -> None:
    """Print one clause, by canonical id or printed label, with its text."""
    doc, _ = _open(file_or_id)
    from claims_crew.policy.document import LookupMiss
    from claims_crew.policy.views import clause_detail

    found = doc.lookup(clause)
    if isinstance(found, LookupMiss):
        fail("clause_not_found", found.message(), EXIT_NOT_FOUND, as_json, near=list(found.near))
    detail = clause_detail(doc, found)
    if as_json:
        emit_json(detail)
        return
    console = Console()
    console.print(f"[bold]{markup(detail['id'])}[/bold]  {markup(detail['title'])}")
    console.print(
        f"kind: {detail['kind']}   pages: {', '.join(map(str, detail['pages']))}"
        f"   parent: {markup(detail['parent'] or '-')}",
        style="dim",
    )
    console.print(clean(detail["text"]), markup=False, highlight=False)


@policy.command("search")
@click.argument("file_or_id")
@click.argument("words")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@json_option
@reports_errors
def policy_search(file_or_id: str, words: str, limit: int, as_json: bool) -> None:
    """Rank a policy's clauses by how well they match WORDS (SQLite FTS5, bm25)."""
    doc, _ = _open(file_or_id)
    from claims_crew.policy.views import search_results

    payload = search_results(doc.search(words, limit))
    if as_json:
        emit_json(payload)
        return
    table = Table(title=f"{len(payload['hits'])} hits for {markup(repr(words))}")
    for column in ("id", "kind", "pages", "score", "snippet"):
        table.add_column(column, overflow="fold", no_wrap=column in ("id", "kind"))
    for hit in payload["hits"]:
        table.add_row(
            plain(hit["id"]),
            hit["kind"],
            ",".join(map(str, hit["pages"])),
            f"{hit['score']:.2f}",
            markup(hit["snippet"]),
        )
    Console().print(table)


@policy.command("tree")
@click.argument("file_or_id")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write one self-contained page: the tree beside every clause's text and pages.",
)
@json_option
@reports_errors
def policy_tree(file_or_id: str, html_file: Path | None, as_json: bool) -> None:
    """Print the clause tree with ids, kinds, the reason for each kind, and pages.

    A policy id from policies/index.yaml shows the kinds as corrected there.
    """
    doc, policy_id = _open(file_or_id)
    from claims_crew.policy.tree import build_tree, tree_json

    reviewed = _ocr_reviewed(policy_id)

    if html_file is not None:
        from claims_crew.policy.tree_page import render_tree_page

        try:
            html_file.write_text(render_tree_page(doc, policy_id), encoding="utf-8")
        except OSError as exc:
            fail("cannot_write", f"{html_file}: {exc.strerror or exc}", EXIT_BAD_INPUT, as_json)
    if as_json:
        payload = tree_json(doc, policy_id, reviewed)
        if html_file is not None:
            payload["html"] = str(html_file)
        emit_json(payload)
        return
    if html_file is not None:  # the page is the tree: the terminal says where it went
        click.echo(f"Clause tree written to {html_file}")
        return
    from rich.tree import Tree

    summary = tree_json(doc, policy_id, reviewed)["policy"]
    kinds = ", ".join(f"{k} {n}" for k, n in summary["kinds"].items() if n)
    root = Tree(
        f"[bold]{markup(policy_id or doc.path.name)}[/bold]: {len(doc.clauses)} clauses, "
        f"{doc.page_count} pages ({kinds}); {summary['corrected']} corrected"
    )
    ocr = summary["ocr"]
    doubtful = set(ocr["doubtful_clauses"]) if ocr else set()
    if ocr:
        _add_ocr_note(root, ocr)

    def add(branch: Tree, nodes: list[TreeNode]) -> None:
        for node in nodes:
            c = node.clause
            pages = ",".join(map(str, c.pages))
            label = Text.assemble(
                (clean(c.id), "bold"),
                " ",
                (c.kind, _KIND_STYLE.get(c.kind, "")),
                " ",
                clean(c.title),
                (f"  p.{pages}", "dim"),
                (f"  [{clean(c.kind_reason)}]" if c.kind_reason else "", "dim italic"),
                ("  OCR: check against the page" if c.id in doubtful else "", "bold yellow"),
            )
            add(branch.add(label), node.children)

    add(root, build_tree(doc.clauses))
    Console().print(root)


def _ocr_reviewed(policy_id: str | None) -> bool:
    """Whether policies/index.yaml says a person has checked this OCR-read wording."""
    from claims_crew.policy.library import PolicyLibrary

    entry = PolicyLibrary().entries.get(policy_id or "")
    return entry is not None and entry.ocr_reviewed


def _add_ocr_note(root: Tree, ocr: dict[str, Any]) -> None:
    """The mark of a scanned wording: read by OCR, reviewed or not, and its doubtful lines."""
    lines = ocr["low_confidence_lines"]
    state = (
        "reviewed (ocr_reviewed: true)"
        if ocr["reviewed"]
        else "NOT reviewed: claims on it are escalated until policies/index.yaml says "
        "ocr_reviewed: true"
    )
    note = root.add(
        Text(
            f"read by OCR, confidence {ocr['confidence']:.2f}; {len(lines)} low-confidence "
            f"line(s); {state}",
            style="bold yellow",
        )
    )
    for line in lines:
        note.add(
            Text.assemble(
                (f"p.{line['page']} ", "dim"),
                (f"{line['confidence']:.2f} ", "yellow"),
                clean(line["text"]),
            )
        )


_KIND_STYLE = {
    "grant": "green",
    "exclusion": "red",
    "condition": "yellow",
    "limit": "magenta",
    "definition": "blue",
    "other": "dim",
}
