"""Alembic's entry point for the store's migrations.

The store runs them itself (schema.upgrade), inside a transaction that already holds the
store's write lock, and hands the connection over in `config.attributes["connection"]`; the
migrations then commit or roll back with that transaction, as one.
"""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection)
with context.begin_transaction():
    context.run_migrations()
