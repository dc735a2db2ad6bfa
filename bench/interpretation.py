"""Benchmark: how well a model decides insurance-interpretation questions written outside this
project, through the whole pipeline.

The items are the "vague contracts" stimuli (bench/data/vague_contracts/, CC BY 4.0): Waldon,
Brodsky, Ma and Degen (2023), "Predicting consensus in legal document interpretation",
Proceedings of the 45th Annual Conference of the Cognitive Science Society; LegalBench's
`insurance_policy_interpretation` task is built from them. 111 items, each a policy clause, a
claim story and a label: unambiguously covered, unambiguously not covered, or controversial
(people disagree), 37 of each.

Each item becomes (`convert`):
- a policy PDF written with fpdf2, whose numbered clause is the item's own words, put under the
  heading its wording calls for: "defined as" → a definition (with the cover it defines as a
  grant beside it, since the resolver wants a grant for `covered`), "excludes" → an exclusion,
  "applies only if" and "in order for the policy to apply" → a condition;
- a claim file carrying the story, with the item's id (VC-001 … VC-111, in the CSV's order), so
  a decision can be read beside its row. The stories give no dates or amount, which every claim
  has and the rules check (a fact left open sends a disagreement to a person before anyone
  reads the words), so the description ends with one sentence stating them (FACTS): the facts
  are settled, and what is left is the reading;
- its label: covered, not_covered, or ambiguous for a controversial item.

They are then reviewed by the one claim routine `claims-crew run` uses (run_batch: crew,
resolver, targeted question, adjudicator), each agent on the model MODEL (and ADJUDICATOR_MODEL
etc.) names, or the offline local model when none is set, into a throwaway SQLite store, with a
copy of config/ (or `--config DIR`, a team's own) changed in one line: a definition may support
`not_covered` (`evidence_kinds`). 93 of the 111 items turn on a definition alone and have no
exclusion or condition to cite; as shipped, `not_covered` rests only on an exclusion, condition
or limit (a denial for falling outside the cover is for a person), so no model could deny one
of them and every dispute over one would be won by the side answering covered. The figures
come from the rows `claims-crew evaluate` reads (report.load_rows, report.evaluate):

- per label and overall: automatic decisions (ACCEPTED, PREFERRED, ADJUDICATED) and their
  accuracy; how many went to the adjudicator or were left for a person;
- for controversial items: left for a person (safe) against decided automatically (unsafe);
- accuracy if every escalation counts wrong (a controversial item is right only when it is
  left for a person), the figure to set beside LegalBench's three-way accuracies;
- model calls, tokens and cost (config/prices.yaml) per item.

`--scripted` answers every model call from the scripted OpenAI-wire server of
tests/support/openai_server.py instead: its answers follow a fixed rule blind to the labels
(policy reads the grant, fraud the item's own clause, and the adjudicator sides with one of
them or hands the dispute to a person by a checksum of the item's id), so its accuracy means
nothing; it proves the wiring, the adjudicator's included. `--json FILE` writes the figures
for comparing models; `--min-accuracy X` and `--max-unsafe N` make the run exit 1 when missed
(a team's CI gate), with `--config DIR` the team's own prompts and rules. A failed item (no
decision) also exits 1.

    uv run python bench/interpretation.py --scripted                   # all 111 items
    uv run python bench/interpretation.py --subset 30 --json local.json  # the local model
    uv run python bench/interpretation.py --small                      # CI: 3 items, scripted
    uv run python bench/interpretation.py --config my-config --min-accuracy 0.6 --max-unsafe 3
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # tests.support, for --scripted

DATA = ROOT / "bench" / "data" / "vague_contracts" / "stimuli_fullset.csv"
LABELS = {
    "unambiguous_covered": "covered",
    "unambiguous_uncovered": "not_covered",
    "controversial": "ambiguous",
}
HEADINGS = {
    "definition": "DEFINITIONS",
    "grant": "THE COVER WE PROVIDE",
    "exclusion": "EXCLUSIONS",
    "condition": "CONDITIONS",
}
SMALL = 3
# The fixed local-model subset: every item of every third scenario row, so each label keeps its
# share (the CSV lists a scenario's three variants together).
SUBSET_STEP = 11
POLICY_FROM, POLICY_TO = "2025-01-01", "2026-12-31"
DATE_OF_LOSS, DATE_REPORTED = "2025-06-01", "2025-06-03"
AMOUNT = 1000
FACTS = "The loss happened and the damage started on 1 June 2025; the amount claimed is 1000 USD."
DAMAGE_STARTED = "the damage started on 1 June 2025"


# --- the converter --------------------------------------------------------------------------


@dataclass(frozen=True)
class Clause:
    kind: str  # definition, exclusion or condition: as the item's wording reads
    text: str  # the clause as the PDF prints it, after its number


@dataclass(frozen=True)
class Item:
    item_id: str  # VC-001 …, the row's place in the CSV
    row: int  # 1-based data row of the CSV
    title: str
    version: str
    label: str
    claimant: str
    cover: str  # the cover's name, e.g. Emergency Damages
    clauses: tuple[Clause, ...]  # the item's own clause first
    story: str
    line: str  # home or auto


def _plain(text: str) -> str:
    return " ".join(text.replace("<b>", " ").replace("</b>", " ").split()).strip(" \"'")


def _kind_before(lead: str) -> str:
    """What the words leading into a bold clause make of it."""
    lead = lead.lower()
    if "exclude" in lead or "will not pay" in lead or "also states" in lead:
        return "exclusion"
    if "only if" in lead or "in order for the policy to apply" in lead:
        return "condition"
    return "definition"


def _clause_text(kind: str, cover: str, words: str) -> str:
    words = words.rstrip(".") + "."
    if kind == "definition":
        return f'"{cover}" means {words}'
    if kind == "exclusion":
        if re.match(r"we will not pay", words, re.IGNORECASE):
            return words[0].upper() + words[1:]
        return f"Under {cover} we do not cover {words}"
    if words.lower().startswith("the policyholder must"):
        return f"Under {cover}, {words}"
    return f"{cover} cover applies only if {words}"


def parse_header(header: str) -> tuple[str, tuple[Clause, ...]]:
    """The cover's name and the clauses an item's header states, each bold part one clause."""
    named = re.search(r'"([^"]+?),?"', header)
    if named is None:
        raise ValueError(f"no quoted cover name in {header[:80]!r}")
    cover = named.group(1).strip().rstrip(",")
    parts = re.split(r"<b>", header)
    clauses = []
    lead = parts[0]
    for bold in parts[1:]:
        words, _, after = bold.partition("</b>")
        # One item closes its quotation inside the bold text and leads into the next clause
        # there ('... occupation." In order for the policy to apply, <b>...').
        words, _, carried = _plain(words).partition('." ')
        kind = _kind_before(lead)
        clauses.append(Clause(kind, _clause_text(kind, cover, words)))
        lead = carried + " " + after
    return cover, tuple(clauses)


def read_items(path: Path = DATA) -> list[Item]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    items = []
    for number, row in enumerate(rows, 1):
        cover, clauses = parse_header(row["header"])
        claimant = re.match(r"([A-Z][a-z]+)", row["header"].strip())
        car = "car insurance" in row["header"] or "Vehicle" in cover
        items.append(
            Item(
                item_id=f"VC-{number:03d}",
                row=number,
                title=row["Title"].strip(),
                version=row["version"].strip(),
                label=LABELS[row["version"].strip()],
                claimant=claimant.group(1) if claimant else "Policyholder",
                cover=cover,
                clauses=clauses,
                story=" ".join(row["continuation"].split()),
                line="auto" if car else "home",
            )
        )
    return items


def policy_lines(item: Item) -> list[tuple[str, str]]:
    """(style, text) lines of the item's policy: a title, then numbered sections."""
    sections: dict[str, list[str]] = {}
    for clause in item.clauses:
        sections.setdefault(clause.kind, []).append(clause.text)
    # The cover itself, which the header states ("X's insurance covers ..."): a grant.
    sections.setdefault("grant", []).insert(0, f"We cover {item.cover} as this policy defines it.")
    lines = [("title", f"{item.cover} Policy {item.item_id}")]
    order = [k for k in ("definition", "grant", "exclusion", "condition") if k in sections]
    for number, kind in enumerate(order, 1):
        lines.append(("heading", f"{number} {HEADINGS[kind]}"))
        for sub, text in enumerate(sections[kind], 1):
            lines.append(("body", f"{number}.{sub} {text}"))
    return lines


def clause_ids(item: Item) -> dict[str, str]:
    """The numbered id each of the item's clauses gets in its PDF, by clause text."""
    found: dict[str, str] = {}
    for style, text in policy_lines(item):
        if style == "body":
            number, _, words = text.partition(" ")
            found[words] = number
    return found


def write_policy(item: Item, path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    # A fixed date: the same item makes the same bytes, so its policy index is reused.
    pdf.set_creation_date(datetime(2025, 1, 1, tzinfo=UTC))
    pdf.set_margins(72, 72)
    pdf.add_page()
    for style, text in policy_lines(item):
        if style == "title":
            pdf.set_font("Helvetica", "B", 14)
        elif style == "heading":
            pdf.ln(4)
            pdf.set_font("Helvetica", "B", 10)
        else:
            pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(0, 13, text, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))


def claim_data(item: Item) -> dict[str, Any]:
    return {
        "claim_id": item.item_id,
        "policy_id": item.item_id,
        "claimant": item.claimant,
        "date_reported": DATE_REPORTED,
        "date_of_loss": DATE_OF_LOSS,
        "description": f"{item.story} {FACTS}",
        "amount": AMOUNT,
        "currency": "USD",
        "attachments": [],
    }


def convert(items: Sequence[Item], folder: Path) -> tuple[Path, Path, list[Path]]:
    """Write the items' policies (with index.yaml), claim files and labels under `folder`;
    return the policies folder, the labels file and the claim files."""
    import yaml

    policies, inbox = folder / "policies", folder / "inbox"
    policies.mkdir(parents=True, exist_ok=True)
    inbox.mkdir(parents=True, exist_ok=True)
    index: dict[str, Any] = {}
    claims = []
    for item in items:
        write_policy(item, policies / f"{item.item_id}.pdf")
        index[item.item_id] = {
            "file": f"{item.item_id}.pdf",
            "product": f"{item.cover} ({item.title}, row {item.row})",
            "line": item.line,
            "in_force_from": POLICY_FROM,
            "in_force_to": POLICY_TO,
        }
        claim = inbox / f"{item.item_id}.json"
        claim.write_text(json.dumps(claim_data(item), indent=2), encoding="utf-8")
        claims.append(claim)
    (policies / "index.yaml").write_text(yaml.safe_dump({"policies": index}), encoding="utf-8")
    labels = folder / "labels.csv"
    with labels.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["claim_id", "label", "row", "title", "version"])
        for item in items:
            writer.writerow([item.item_id, item.label, item.row, item.title, item.version])
    return policies, labels, claims


# --- the scripted server's answers ----------------------------------------------------------


def scripted_responder(items: Sequence[Item]) -> Callable[[Any], Any]:
    """A fixed rule, blind to the labels: intake states the story's facts; policy looks the
    grant up and answers covered; fraud looks up the item's exclusion or condition, else its
    definition, and answers not covered; the adjudicator, given the dispute, sides with policy,
    with fraud, or with a person, by a checksum of the item's id."""
    from tests.support.crew import QUESTION_TAIL
    from tests.support.openai_server import Text, ToolCall
    from tests.support.provider import agent_of, claim_of

    by_id = {item.item_id: item for item in items}

    def cited(item: Item, against: bool) -> tuple[str, str]:
        """The clause a side cites, and its answer."""
        if not against:
            return f"We cover {item.cover} as this policy defines it.", "covered"
        kinds = ("exclusion", "condition", "definition")
        limiting = sorted(
            (c for c in item.clauses if c.kind in kinds), key=lambda c: kinds.index(c.kind)
        )
        return limiting[0].text, "not_covered"

    def side(item: Item, against: bool) -> dict[str, Any]:
        text, answer = cited(item, against)
        return {
            "answer": answer,
            "confidence": 0.9,
            "evidence": [{"clause_id": clause_ids(item)[text], "quote": _opening(text)}],
            "facts_relied_on": ["cause"],
            "rationale": "The scripted reading of the clause.",
        }

    def adjudicate(item: Item) -> dict[str, Any]:
        # By a checksum of the id, not its number: the CSV lists each scenario's three labels in
        # one order, so the number modulo 3 would follow the label.
        choice = ("escalate", "policy", "fraud")[zlib.crc32(item.item_id.encode()) % 3]
        if choice == "escalate":
            return {"choice": "escalate", "reason": "A person should read it.", "evidence": []}
        text, _ = cited(item, against=choice == "fraud")
        reason = f"The scripted rule sides with {choice} for this item."
        return {"choice": choice, "reason": reason, "evidence": [clause_ids(item)[text]]}

    def respond(request: Any) -> Any:
        item = by_id.get(claim_of(request))
        agent = agent_of(request)
        if item is None:
            return Text("{}")
        if agent == "intake":
            if QUESTION_TAIL in request.text:  # the targeted question: nothing more to say
                return Text(json.dumps({"answers": []}))
            first = item.story.split(". ")[0]
            return Text(
                json.dumps(
                    {
                        "loss_type": "property_damage",
                        "cause": first,
                        "date_of_loss": DATE_OF_LOSS,
                        "damage_start_date": DATE_OF_LOSS,
                        "amount_claimed": AMOUNT,
                        "unknowns": [],
                        "sources": {
                            "loss_type": {"where": "description", "quote": first},
                            "cause": {"where": "description", "quote": first},
                            "date_of_loss": {"where": "date_of_loss"},
                            "damage_start_date": {"where": "description", "quote": DAMAGE_STARTED},
                            "amount_claimed": {"where": "amount"},
                        },
                    }
                )
            )
        if agent in ("policy", "fraud"):
            said = side(item, against=agent == "fraud")
            if request.tool_results:  # the clause was looked up: the answer cites it
                return Text(json.dumps(said))
            clause_id = said["evidence"][0]["clause_id"]
            return ToolCall("policy_lookup", {"policy_id": item.item_id, "clause_id": clause_id})
        return Text(json.dumps(adjudicate(item)))

    return respond


def _opening(text: str) -> str:
    """A clause's first words, as a side quotes it."""
    return text[:60].rsplit(" ", 1)[0]


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """`values` in os.environ for the block (the claim routine reads its settings there), and
    what was there before put back after it, so a caller running the bench in-process keeps
    its own."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def scripted_models(items: Sequence[Item]) -> Iterator[None]:
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer(scripted_responder(items)) as server:
        scripted = {
            "MODEL": "openai/gpt-4o-mini",
            "MODEL_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-scripted-not-a-real-key",
        }
        with environment(scripted):
            yield


# --- the run and its figures ----------------------------------------------------------------


def bench_config(source: Path, folder: Path) -> Path:
    """A copy of the config folder `source` in `folder`, in which a definition may support
    `not_covered` (the module's docstring says why); the rest as it is."""
    import shutil

    import yaml

    config = folder / "config"
    shutil.copytree(source, config)
    path = config / "resolution.yaml"
    rules = yaml.safe_load(path.read_text(encoding="utf-8"))
    kinds = rules.setdefault("evidence_kinds", {}).setdefault(
        "not_covered", ["exclusion", "condition", "limit"]
    )
    if "definition" not in kinds:
        kinds.append("definition")
    path.write_text(yaml.safe_dump(rules, sort_keys=False), encoding="utf-8")
    return config


def review(
    items: Sequence[Item], workdir: Path, concurrency: int, config_source: Path = ROOT / "config"
) -> tuple[list[Any], float]:
    """The items through the claim routine `claims-crew run` uses; the stored rows, seconds.
    The caller sets CLAIMS_CREW_HOME and CREWAI_STORAGE_DIR under `workdir` (`main`)."""
    from bench.local_model import quiet  # the standard library only, until it is called

    quiet()
    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.report import load_rows
    from claims_crew.run.batch import run_batch
    from claims_crew.run.context import build_context
    from claims_crew.store import Store

    policies, _, claims = convert(items, workdir)
    config = bench_config(config_source, workdir)
    store = Store(workdir / "claims.sqlite")
    settings = build_context(
        library=PolicyLibrary(root=policies, cache_dir=workdir / "policy-index"),
        llm_for=default_llm_factory(config),
        config_dir=config,
        store=store,
    )
    started = time.perf_counter()
    batch = run_batch(claims, settings, concurrency)
    seconds = time.perf_counter() - started
    for item in batch:
        if not item.ok:
            print(f"{item.path.stem}: not reviewed: {item.error or item.record}", file=sys.stderr)
    return load_rows(store), seconds


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _mean(values: Sequence[int]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def figures(items: Sequence[Item], rows: Sequence[Any], seconds: float) -> dict[str, Any]:
    """Per label and overall, from the stored rows (report.rows.ClaimRow)."""
    from claims_crew.prices import load_prices
    from claims_crew.report.evaluate import evaluate
    from claims_crew.report.usage import claim_cost
    from claims_crew.vocabulary import DECIDED_OUTCOMES, OPEN_OUTCOMES

    prices = load_prices(ROOT / "config")
    by_id = {r.claim_id: r for r in rows}
    groups: dict[str, list[Item]] = {"overall": list(items)}
    for item in items:
        groups.setdefault(item.label, []).append(item)
    table: dict[str, Any] = {}
    for name, members in groups.items():
        decided = [r for i in members if (r := by_id.get(i.item_id)) is not None]
        auto = [(i, by_id[i.item_id]) for i in members if i.item_id in by_id]
        auto = [(i, r) for i, r in auto if r.outcome in DECIDED_OUTCOMES]
        right = [i for i, r in auto if r.answer == i.label]
        waiting = [r for r in decided if r.outcome in OPEN_OUTCOMES]
        # Three-way accuracy: a controversial item is right only when left for a person; a
        # clear one only when decided automatically and correctly (an escalation counts wrong).
        strict = len(right) + sum(
            1
            for i in members
            if i.label == "ambiguous" and i.item_id in by_id and by_id[i.item_id].waiting
        )
        costs = [claim_cost(r, prices) for r in decided] if prices else []
        known = [c for c in costs if c is not None]
        table[name] = row = {
            "items": len(members),
            "reviewed": len(decided),
            "automatic": len(auto),
            "automatic_accuracy": _share(len(right), len(auto)),
            "adjudicated": sum(1 for r in decided if r.adjudicator is not None),
            "left_for_a_person": len(waiting),
            # Both are decisions a person would not let stand: a controversial item decided
            # without one, and a clear item decided against its label.
            "controversial_decided": sum(1 for i, _ in auto if i.label == "ambiguous"),
            "wrong_automatic": sum(
                1 for i, r in auto if i.label != "ambiguous" and r.answer != i.label
            ),
            "accuracy_escalations_wrong": _share(strict, len(members)),
            "calls_per_item": _mean([r.model_calls for r in decided]),
            "tokens_per_item": _mean([r.tokens for r in decided]),
            "cost_per_item": round(sum(known) / len(known), 6) if known else None,
        }
        row["unsafe"] = row["controversial_decided"] + row["wrong_automatic"]
    decisions = [
        {
            "item_id": i.item_id,
            "row": i.row,
            "title": i.title,
            "label": i.label,
            "outcome": by_id[i.item_id].outcome if i.item_id in by_id else None,
            "answer": by_id[i.item_id].answer if i.item_id in by_id else None,
            "rule": by_id[i.item_id].rule if i.item_id in by_id else None,
            "reasons": list(by_id[i.item_id].reason_codes) if i.item_id in by_id else [],
        }
        for i in items
    ]
    labels = {i.item_id: i.label for i in items}
    return {
        "seconds": round(seconds, 1),
        "by_label": table,
        "decisions": decisions,
        # What `claims-crew evaluate` reports over the same rows and labels.
        "evaluation": evaluate(rows, labels).model_dump(mode="json"),
    }


def show(result: dict[str, Any]) -> None:
    columns = [
        ("items", "items"),
        ("automatic", "auto"),
        ("automatic_accuracy", "auto acc"),
        ("adjudicated", "adjud."),
        ("left_for_a_person", "person"),
        ("controversial_decided", "contr. decided"),
        ("wrong_automatic", "wrong auto"),
        ("accuracy_escalations_wrong", "acc (esc=wrong)"),
        ("calls_per_item", "calls/item"),
        ("tokens_per_item", "tokens/item"),
        ("cost_per_item", "cost/item"),
    ]
    print("| label | " + " | ".join(title for _, title in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for label, row in result["by_label"].items():
        cells = ["–" if row[key] is None else str(row[key]) for key, _ in columns]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(
        f"{result['seconds']} s in all. Unsafe = contr. decided (a controversial item decided "
        "without a person) + wrong auto (a clear item decided against its label).\n"
        "Items: Waldon, Brodsky, Ma and Degen (2023), vague_contracts, CC BY 4.0."
    )


def gate(result: dict[str, Any], min_accuracy: float | None, max_unsafe: int | None) -> list[str]:
    """What the run missed of the bar it was held to; empty when it met it."""
    overall = result["by_label"]["overall"]
    missed = []
    if overall["reviewed"] < overall["items"]:
        missed.append(f"{overall['items'] - overall['reviewed']} item(s) got no decision")
    accuracy = overall["accuracy_escalations_wrong"] or 0.0
    if min_accuracy is not None and accuracy < min_accuracy:
        missed.append(f"accuracy {accuracy:.3f} is under --min-accuracy {min_accuracy}")
    if max_unsafe is not None and overall["unsafe"] > max_unsafe:
        missed.append(f"{overall['unsafe']} unsafe decision(s), over --max-unsafe {max_unsafe}")
    return missed


def subset(items: Sequence[Item], count: int) -> list[Item]:
    """A fixed subset: whole scenarios (three variants each), spread over the CSV."""
    scenarios = [items[i : i + 3] for i in range(0, len(items), 3)]
    step = max(1, len(scenarios) * 3 // max(count, 1))
    chosen = [it for n, group in enumerate(scenarios) if n % step == 0 for it in group]
    return chosen[:count]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scripted", action="store_true", help="the scripted server's answers")
    parser.add_argument("--subset", type=int, default=None, help="a fixed subset of N items")
    parser.add_argument("--small", action="store_true", help=f"{SMALL} items, scripted (CI)")
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--min-accuracy", type=float, default=None)
    parser.add_argument("--max-unsafe", type=int, default=None)
    parser.add_argument(
        "--config",
        type=Path,
        default=ROOT / "config",
        help="the config folder to run with (default: the project's)",
    )
    args = parser.parse_args(argv)
    if not (args.config / "resolution.yaml").is_file():
        parser.error(f"--config {args.config}: no resolution.yaml there")
    items = read_items()
    if args.small:
        args.scripted, items = True, items[:SMALL]
    elif args.subset:
        items = subset(items, args.subset)
    concurrency = args.concurrency or (4 if args.scripted or os.environ.get("MODEL") else 1)
    with (
        tempfile.TemporaryDirectory(prefix="interpretation-") as tmp,
        environment(
            {
                "CLAIMS_CREW_HOME": str(Path(tmp) / "home"),
                "CREWAI_STORAGE_DIR": str(Path(tmp) / "crewai-storage"),
            }
        ),
    ):
        if args.scripted:
            with scripted_models(items):
                rows, seconds = review(items, Path(tmp), concurrency, args.config)
        else:
            rows, seconds = review(items, Path(tmp), concurrency, args.config)
    result = figures(items, rows, seconds)
    result["model"] = "scripted" if args.scripted else os.environ.get("MODEL") or "local"
    show(result)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    missed = gate(result, args.min_accuracy, args.max_unsafe)
    for why in missed:
        print(f"missed: {why}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
