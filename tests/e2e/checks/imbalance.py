"""imbalance.py - sc_imbalance's thread groups: the fast stage (waiting at
the barrier) is flagged, the slow one and main are not; effective time per
slow thread is well above a fast one's. Check: imbalance-flag (lazy)."""

from harness import guarded

MODE = "e2e"
VARIANTS = ("lazy",)


def check_imbalance(t):
    """The fast stage (waiting at the barrier) is flagged, the slow one and
    main are not; effective time per slow thread is well above a fast one's."""
    bad, d, _ = t.record_program("imbalance")
    if bad:
        return bad
    groups = d["thread_groups"]
    flagged = sorted((g["effective_ns"] // g["threads"], g["imbalance"]) for g in groups
                     if g["start_routine"] != "main" and g["threads"] == 2)
    mains = [g for g in groups if g["start_routine"] == "main"]
    if len(flagged) != 2 or flagged[0][1] is not True or flagged[1][1] is not False \
            or flagged[1][0] < 2 * flagged[0][0] or not mains or mains[0]["imbalance"]:
        return ["thread groups %r" % groups]
    return []


def checks(t):
    guarded("imbalance-flag", t.variant, lambda: check_imbalance(t))
