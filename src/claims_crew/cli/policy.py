"""`claims-crew policy clauses | show | search | tree | changes`: the policy library, clause by
clause, and the changes its endorsements make.

The JSON shapes are a contract (docs/policy-library.md); they are built in policy/views.py.
"""

from __future__ import annotations

from datetime import date
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
from claims_crew.cli.policy_confirm import add_reading_marks, policy_confirm
from claims_crew.cli.safe_text import clean, markup, plain
from claims_crew.cli.tables import Table

if TYPE_CHECKING:
    from rich.tree import Tree

    from claims_crew.policy.document import PolicyDocument
    from claims_crew.policy.tree import TreeNode


@click.group()
def policy() -> None:
    """Inspect the policy library: clauses, one clause, word search, the clause tree."""


# An issued policy is shown as in force on a day; forms and files have no day.
on_option = click.option(
    "--on",
    "on",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="With a policy number: the day the wording is in force (YYYY-MM-DD). Default: today, "
    "or the period's first day when today is outside the policy's period.",
)


def _open(file_or_id: str, on: Any = None) -> tuple[PolicyDocument, str | None, date | None]:
    """The policy by id, file or issued number; the form id; the day an issued one is shown on."""
    from claims_crew.policy.library import PolicyLibrary

    library = PolicyLibrary()
    if (issued := library.issued.get(file_or_id)) is not None:
        from claims_crew.policy.in_force import default_day

        day = on.date() if on is not None else default_day(issued, date.today())
        return library.in_force(issued.form, issued.number, day), issued.form, day
    # A person's look at the policy: a scan read by OCR is shown, reviewed or not.
    doc = library.open(file_or_id, unreviewed_ocr=True)
    return doc, (file_or_id if file_or_id in library.entries else None), None


@policy.command("clauses")
@click.argument("file_or_id")
@click.option("--text", "with_text", is_flag=True, help="Add each clause's own text.")
@json_option
@reports_errors
def policy_clauses(file_or_id: str, with_text: bool, as_json: bool) -> None:
    """List every clause of a policy (a PDF path or a policy id from policies/index.yaml)."""
    doc, policy_id, _ = _open(file_or_id)
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
@on_option
@json_option
@reports_errors
def policy_show(file_or_id: str, clause: str, on: Any, as_json: bool) -> None:
    """Print one clause, by canonical id or printed label, with its text.

    FILE_OR_ID may be an issued policy number (policies/issued/): the clause as in force on
    --on, with the endorsement that changed it.
    """
    doc, _, _ = _open(file_or_id, on)
    from claims_crew.policy.document import LookupMiss
    from claims_crew.policy.tree import source_text
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
    if (amended := doc.amendments.get(found.id)) is not None:
        where = source_text(found, amended)  # as the tree marks it: "HM-E-07 p.1 replaced"
        console.print(f"{markup(where)} (effective {amended.effective})", style="bold")
    console.print(clean(detail["text"]), markup=False, highlight=False)


@policy.command("search")
@click.argument("file_or_id")
@click.argument("words")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@json_option
@reports_errors
def policy_search(file_or_id: str, words: str, limit: int, as_json: bool) -> None:
    """Rank a policy's clauses by how well they match WORDS (SQLite FTS5, bm25)."""
    doc, _, _ = _open(file_or_id)
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
@on_option
@json_option
@reports_errors
def policy_tree(file_or_id: str, html_file: Path | None, on: Any, as_json: bool) -> None:
    """Print the clause tree with ids, kinds, the reason for each kind, and pages.

    A policy id from policies/index.yaml shows the kinds as corrected there. An issued policy
    number (policies/issued/) shows the policy as issued on --on: each clause marked with where
    its words come from (form p.N, or "HM-E-07 p.1 replaced"), and the endorsements' changes
    whose target clause the form lacks.
    """
    doc, policy_id, day = _open(file_or_id, on)
    from claims_crew.policy.tree import build_tree, source_text, tree_json

    reviewed = _ocr_reviewed(policy_id)
    from claims_crew.policy.library import PolicyLibrary

    confirmations = PolicyLibrary().confirmations  # as policies/confirmations.yaml has them

    if html_file is not None:
        from claims_crew.policy.tree import issued_json
        from claims_crew.policy.tree_page import render_tree_page

        page = render_tree_page(doc, policy_id, issued_json(doc, day, confirmations))
        try:
            html_file.write_text(page, encoding="utf-8")
        except OSError as exc:
            fail("cannot_write", f"{html_file}: {exc.strerror or exc}", EXIT_BAD_INPUT, as_json)
    if as_json:
        payload = tree_json(doc, policy_id, reviewed, day, confirmations)
        if html_file is not None:
            payload["html"] = str(html_file)
        emit_json(payload)
        return
    if html_file is not None:  # the page is the tree: the terminal says where it went
        click.echo(f"Clause tree written to {html_file}")
        return
    from rich.tree import Tree

    summary = tree_json(doc, policy_id, reviewed, day, confirmations)["policy"]
    kinds = ", ".join(f"{k} {n}" for k, n in summary["kinds"].items() if n)
    root = Tree(
        f"[bold]{markup(policy_id or doc.path.name)}[/bold]: {len(doc.clauses)} clauses, "
        f"{doc.page_count} pages ({kinds}); {summary['corrected']} corrected"
    )
    if summary["issued"] is not None:
        _add_issued_note(root, summary["issued"])
        add_reading_marks(root, summary["issued"]["endorsements"])
    ocr = summary["ocr"]
    doubtful = set(ocr["doubtful_clauses"]) if ocr else set()
    if ocr:
        _add_ocr_note(root, ocr)

    def add(branch: Tree, nodes: list[TreeNode]) -> None:
        for node in nodes:
            c = node.clause
            amended = doc.amendments.get(c.id)
            # As issued, every clause says where its words come from: "form p.2", "HM-E-07 p.1
            # replaced"; a form on its own has only its pages.
            where = source_text(c, amended)
            where = where if doc.issued is not None else where.removeprefix("form ")
            label = Text.assemble(
                (clean(c.id), "bold"),
                " ",
                (c.kind, _KIND_STYLE.get(c.kind, "")),
                " ",
                clean(c.title),
                (f"  {where}", "bold cyan" if amended else "dim"),
                (f"  [{clean(c.kind_reason)}]" if c.kind_reason else "", "dim italic"),
                ("  OCR: check against the page" if c.id in doubtful else "", "bold yellow"),
            )
            add(branch.add(label), node.children)

    add(root, build_tree(doc.clauses))
    Console().print(root)


@policy.command("changes")
@click.argument("endorsement")
@click.option(
    "--form",
    "form_id",
    default=None,
    metavar="FORM-ID",
    help="Read ENDORSEMENT as a PDF file not yet in policies/index.yaml, amending this form.",
)
@json_option
@reports_errors
def policy_changes(endorsement: str, form_id: str | None, as_json: bool) -> None:
    """List the changes read from an endorsement (its form number in policies/index.yaml, or
    with --form a PDF file that is not listed there yet).

    Each is numbered as its corrections name it, with the clause of the form its target
    reaches; then the changes as its entry's corrections leave them, if it has any.
    """
    from claims_crew.policy.in_force import changes_of, changes_of_file
    from claims_crew.policy.library import PolicyLibrary

    if form_id is None:
        found = changes_of(PolicyLibrary(), endorsement)
    else:
        found = changes_of_file(PolicyLibrary(), Path(endorsement), form_id)

    def rows(changes: list[tuple[Any, str | None]]) -> list[dict[str, Any]]:
        return [
            {
                "number": n,
                "kind": c.kind,
                "target": c.target,
                # Found as amend.py finds it: within the part the endorsement names.
                "clause": clause,
                "page": c.page,
                "qualified": c.qualified,
                "text": c.text,
            }
            for n, (c, clause) in enumerate(changes, start=1)
        ]

    form = found.form
    payload: dict[str, Any] = {
        "endorsement": endorsement,
        "form": form,
        "changes": rows(found.read),
    }
    payload["corrected"] = rows(found.corrected) if found.corrected is not None else None
    if as_json:
        emit_json(payload)
        return
    for title, listed in (("read", payload["changes"]), ("as corrected", payload["corrected"])):
        if listed is None:
            continue
        table = Table(
            title=f"{markup(endorsement)} on {markup(form)}: {len(listed)} changes {title}"
        )
        for column in ("#", "kind", "target", "clause", "page", "text"):
            table.add_column(column, overflow="fold", no_wrap=column in ("#", "kind", "page"))
        for row in listed:
            table.add_row(
                str(row["number"]),
                row["kind"],
                plain(row["target"]),
                plain(row["clause"] or "NOT IN THE FORM"),
                str(row["page"]),
                plain(" ".join(row["text"].split())[:160]),
            )
        Console().print(table)


def _ocr_reviewed(policy_id: str | None) -> bool:
    """Whether policies/index.yaml says a person has checked this OCR-read wording."""
    from claims_crew.policy.library import PolicyLibrary

    entry = PolicyLibrary().entries.get(policy_id or "")
    return entry is not None and entry.ocr_reviewed


def _add_issued_note(root: Tree, issued: dict[str, Any]) -> None:
    """The policy as issued: whose, on which day, its endorsements then, what was not applied."""
    in_force = ", ".join(
        f"{e['endorsement']} (from {e['effective']})" for e in issued["endorsements"]
    )
    root.add(
        Text(
            f"policy {issued['number']} ({issued['holder'] or 'holder not named'}), "
            f"{issued['period']['from']} to {issued['period']['to']}, as in force on "
            f"{issued['on']}: form {issued['form']} with {in_force or 'no endorsements'}",
            style="bold",
        )
    )
    if issued["unmatched"]:
        note = root.add(
            Text("changes not applied (the form has no such clause):", style="bold red")
        )
        for u in issued["unmatched"]:
            note.add(
                Text(
                    f"{u['endorsement']} change {u['change']} ({u['kind']} "
                    f"{u['target']!r}, p.{u['page']}): {u['why']}"
                )
            )


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


policy.add_command(policy_confirm)
