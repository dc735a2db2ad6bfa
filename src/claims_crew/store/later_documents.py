"""Documents that arrive for a claim after it was submitted (the API's POST
/claims/{id}/documents): an escalated claim's open question answered, or an appeal's evidence.
Each is kept with its text, for the claim's reviewer to read; the same bytes twice are one."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from claims_crew.store.base import StoreBase
from claims_crew.store.service_tables import later_documents
from claims_crew.store.sql import insert_new


@dataclass(frozen=True)
class LaterDocument:
    name: str
    sha256: str
    text: str
    received_at: str
    client: str


class LaterDocuments(StoreBase):
    """Documents received for a claim after it was submitted."""

    def add_later_document(
        self, claim_id: str, name: str, sha256: str, text: str, client: str
    ) -> bool:
        """Keep a document that arrived for the claim; False when these bytes were kept for it
        already (the first stays)."""
        row = {"claim_id": claim_id, "name": name, "sha256": sha256, "text": text}
        row |= {"received_at": self.now(), "client": client}
        with self.write(exclusive=False) as conn:
            return insert_new(conn, later_documents, row, ["claim_id", "sha256"])

    def later_documents(self, claim_id: str) -> list[LaterDocument]:
        """The claim's later documents, in the order they arrived."""
        d = later_documents.c
        with self.read() as conn:
            rows = conn.execute(
                select(d.name, d.sha256, d.text, d.received_at, d.client)
                .where(d.claim_id == claim_id)
                .order_by(d.id)
            )
            return [LaterDocument(**row) for row in rows.mappings()]
