"""live_panes.py - judges the panes of `scaler live -p` on redis-server
that check-apps captured (tests/apps/run.sh, redis-live): one while redis
was idle, then two or more while redis-benchmark ran.

    live_panes.py IDLE LOAD...

Each pane is the view's text (tmux capture-pane): under the column titles
"calls/s ... api", one row per (caller, API), its first column the calls
per second over the last interval. Under load, redis-server's read and
write rows (the requests it reads and the answers it writes) must each
show more than 0 calls/s, and more than while idle. Prints "OK <figures>"
or "BAD <why>"."""
import sys

APIS = ("read", "write")


def rates(path):
    """{api: calls/s} of redis-server's calls of APIS into libc, None
    if the pane holds no table."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    head = [i for i, l in enumerate(lines) if l.split()[:2] == ["calls/s", "time/s"]]
    if not head:
        return None
    got = {a: 0 for a in APIS}
    for row in lines[head[0] + 1:]:
        w = row.split()
        if len(w) < 2 or "→" not in w:
            continue
        at = w.index("→")
        if w[at - 1] == "redis-server" and w[at + 1].startswith("libc.so") and w[-1] in APIS:
            got[w[-1]] += int(w[0].replace(",", ""))
    return got


def main(idle, *loads):
    base = rates(idle)
    if base is None:
        return "BAD no table in the idle pane %s" % idle
    figs, bad = [], []
    for p in loads:
        r = rates(p)
        if r is None:
            bad.append("no table in pane %s" % p)
            continue
        for a in APIS:
            if r[a] <= 0 or r[a] <= base[a]:
                bad.append("%s %s/s under load, %s idle" % (a, r[a], base[a]))
        figs.append(r)
    text = "; ".join("%s/s %s -> %s" % (a, base[a], ", ".join(str(r[a]) for r in figs))
                     for a in APIS)
    return ("BAD %s (%s)" % ("; ".join(bad), text)) if bad else "OK " + text


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: live_panes.py IDLE LOAD...")
    print(main(*sys.argv[1:]))
