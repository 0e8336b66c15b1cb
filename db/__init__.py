"""Database access: pool, migrations, the embedded server and the query modules."""
