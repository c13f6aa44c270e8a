"""The archive: hands imported once into one DuckDB file, queried many times (docs/CLI.md, "The
archive: import once, query many times").

* :mod:`.schema` the tables, the schema version and the migrations;
* :mod:`.importer` ``ofc-audit import``: files tracked, read from where they stopped, every
  hand replayed and stored with its results, duplicates and conflicts, one transaction a file;
* :mod:`.queries` what ``audit --archive`` and ``session --archive`` read back;
* :mod:`.watch` ``ofc-audit watch``: imports as files are written.
"""
