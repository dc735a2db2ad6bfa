"""Every audit entry signed with the audit key (entry_signatures.py): the signature, an
HMAC-SHA256 of the entry's hash, is kept beside the entry, outside what is hashed.

Entries already in the trail stay as they are: they name no key and have no signature (NULL),
and rest on the hash chain and the signed checkpoints, as before. Only entries before the
first signed one may be unsigned.

Revision ID: 0010_audit_entry_signatures
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_audit_entry_signatures"
down_revision = "0009_work_queue"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("audit_log", sa.Column("signature", sa.Text))
