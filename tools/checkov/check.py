"""Compares checkov's JSON reports with the findings docs/explanation/decisions.md accepts.

Usage: check.py DECISIONS_MD NAME=REPORT.json...

The accepted findings are the rows of the first table under the heading "## Chart findings accepted (issue 30)":
| check | where | why |, where "check" is a check id in backticks and "where" names the renderings it is accepted
in, each in backticks (`defaults`, `cacheblend`, `hardened`). A failed check that no row accepts for its rendering
fails, and so does a row that no longer matches a failure (an exception kept after its cause went). Prints one
summary line on success; every problem, one a line, on stderr otherwise.
"""
import json
import re
import sys

HEADING = "## Chart findings accepted (issue 30)"


def accepted(path):
    text = open(path, encoding="utf-8").read()
    if HEADING not in text:
        sys.exit(f"checkov: no section '{HEADING}' in {path}; restore it")
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    lines = [line.strip() for line in section.splitlines() if line.strip().startswith("|")]
    if len(lines) < 2 or [c.strip().lower() for c in lines[0].strip("|").split("|")] != ["check", "where", "why"]:
        sys.exit(f"checkov: the table under '{HEADING}' in {path} must have the columns | check | where | why |")
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 3:
            sys.exit(f"checkov: a row of three cells expected under '{HEADING}', got: {line}")
        check = re.findall(r"`([A-Z0-9_]+)`", cells[0])
        where = re.findall(r"`([a-z-]+)`", cells[1])
        if len(check) != 1 or not where or len(cells[2]) < 20:
            sys.exit(f"checkov: each row needs one `CHECK_ID`, the `renderings` and a reason, got: {line}")
        for rendering in where:
            rows[(check[0], rendering)] = cells[2]
    return rows


def main():
    rows = accepted(sys.argv[1])
    problems, passed, failed, used = [], 0, 0, set()
    for arg in sys.argv[2:]:
        name, report = arg.split("=", 1)
        data = json.load(open(report, encoding="utf-8"))
        reports = data if isinstance(data, list) else [data]
        for r in reports:
            if r.get("check_type") != "kubernetes":
                problems.append(f"{name}: unexpected report of type {r.get('check_type')}")
                continue
            summary = r["summary"]
            if summary.get("parsing_errors"):
                problems.append(f"{name}: checkov could not parse {summary['parsing_errors']} file(s)")
            passed += summary["passed"]
            for f in r["results"]["failed_checks"]:
                failed += 1
                key = (f["check_id"], name)
                if key in rows:
                    used.add(key)
                else:
                    problems.append(f"{name}: {f['check_id']} ({f['check_name']}) on {f['resource']}: not accepted "
                                    f"in docs/explanation/decisions.md; fix the chart or add a row with its reason")
        if not reports or not any(r.get("summary", {}).get("passed") for r in reports):
            problems.append(f"{name}: checkov passed no check at all; is the rendering empty?")
    for key in sorted(set(rows) - used):
        problems.append(f"{key[1]}: {key[0]} is accepted in docs/explanation/decisions.md but no longer fails; "
                        f"remove it from the row")
    if problems:
        for p in problems:
            print(f"checkov: {p}", file=sys.stderr)
        sys.exit(1)
    exceptions = ", ".join(f"{c} x{sum(1 for k in used if k[0] == c)}" for c in sorted({k[0] for k in used}))
    print(f"{passed} checks passed, {failed} failed, all accepted; exceptions: {exceptions or 'none'}")


if __name__ == "__main__":
    main()
