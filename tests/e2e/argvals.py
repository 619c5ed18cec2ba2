"""argvals.py - reading `scaler record --args` values out of a JSON
report, shared by checks/args.py and checks/args_kinds.py."""


def row(rep, caller, api):
    """The call row of (caller, api), or None."""
    for c in rep["calls"]:
        if c["caller"] == caller and c["api"] == api:
            return c
    return None


def values(c):
    """A row's values by name ({} for no row)."""
    return {a["name"]: a for a in c["args"]} if c else {}


def expect(bad, what, got, want):
    """Appends to bad when got is not want."""
    if got != want:
        bad.append("%s: %r, want %r" % (what, got, want))
