"""report_csv.py - the CSV report of sc_imbalance's profile against its JSON.
Check: report-csv (lazy)."""
import csv
import io

from harness import guarded, report_cmd, report_json_of

MODE = "e2e"
VARIANTS = ("lazy",)


CSV_INT = ("count", "timed", "total_ns", "self_ns", "edge_ns", "wait_ns", "attr_ns", "p50_ns",
           "p99_ns", "max_ns")


def check_report_csv(scaler, prof):
    """CSV parses with the csv module; its rows are the JSON calls."""
    rc, out, err = report_cmd(scaler, prof, "--format", "csv")
    if rc != 0:
        return ["csv exited %d: %s" % (rc, err[:200])]
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    calls = report_json_of(scaler, prof)["calls"]
    if len(rows) != len(calls) or not rows:
        return ["%d CSV rows, %d JSON calls" % (len(rows), len(calls))]
    for row, c in zip(rows, calls):
        got = dict(row)
        got.update({k: int(row[k]) for k in CSV_INT})
        got["wait"] = {"true": True, "false": False}.get(row["wait"], row["wait"])
        want = {k: v for k, v in c.items() if k not in ("hist", "args", "kernel")}
        want.setdefault("function", "")     # an import's: empty in CSV, absent in JSON
        if got != want:
            return ["CSV row %r != JSON call %r" % (got, want)]
    return []


def checks(t):
    guarded("report-csv", t.variant, lambda: check_report_csv(t.scaler, t.profile("imbalance")))
