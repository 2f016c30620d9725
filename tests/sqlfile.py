"""ClickHouse-style SQL test files: statements separated by `;` at the end of a line; a
statement followed by `-- { serverError NAME_OR_CODE }` must fail with that error."""
import re
from dataclasses import dataclass
from typing import List, Optional

ERROR_MARK = re.compile(r"--\s*\{\s*serverError\s+([A-Z_0-9]+)\s*\}")


@dataclass
class Statement:
    sql: str
    expected_error: Optional[str]


def parse_sql_file(text: str) -> List[Statement]:
    statements, current = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("--")):
            continue
        mark = ERROR_MARK.search(line)
        code_part = ERROR_MARK.sub("", line).rstrip()
        current.append(code_part)
        if code_part.endswith(";"):
            sql = "\n".join(current).rstrip().rstrip(";").strip()
            statements.append(Statement(sql, mark.group(1) if mark else None))
            current = []
    if any(s.strip() for s in current):
        statements.append(Statement("\n".join(current).strip().rstrip(";"), None))
    return statements
