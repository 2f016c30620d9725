"""ClickHouse-style SQL test files: statements separated by `;` at the end of a line; a
statement followed by `-- { serverError NAME_OR_CODE }` on its last line must fail with
that error (a name like UNKNOWN_TABLE or a number like 60) and prints nothing.

A file whose first line is `-- no-chdb: <reason>` is not valid in chdb (e.g. it reads
system.query_log, which chdb has not): its reference is written from Granary's output
(GRANARY_REGENERATE=1) and reviewed by hand, and reference_from_chdb.py skips it."""
import re
from dataclasses import dataclass
from typing import List, Optional

ERROR_MARK = re.compile(r"--\s*\{\s*serverError\s+([A-Za-z_0-9]+)\s*\}")
NO_CHDB = re.compile(r"^--\s*no-chdb\b")


@dataclass
class Statement:
    sql: str
    expected_error: Optional[str]
    line: int


def parse_sql_file(text: str) -> List[Statement]:
    statements, current, start = [], [], 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("--")):
            continue
        if not current:
            start = number
        mark = ERROR_MARK.search(line)
        code_part = ERROR_MARK.sub("", line).rstrip()
        current.append(code_part)
        if code_part.endswith(";"):
            sql = "\n".join(current).rstrip().rstrip(";").strip()
            statements.append(Statement(sql, mark.group(1) if mark else None, start))
            current = []
    if any(s.strip() for s in current):
        statements.append(Statement("\n".join(current).strip().rstrip(";"), None, start))
    return statements


def chdb_can_run(text: str) -> bool:
    first = text.splitlines()[0] if text else ""
    return not NO_CHDB.match(first)
