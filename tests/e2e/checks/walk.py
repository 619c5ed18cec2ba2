"""walk.py - scaler walk on sc_walk (tests/e2e/walk), whose modes put the
time where the test says: the path of one hot API from one component
(walk-api), two close APIs walked as a path and a branch (walk-branches),
the static comparator sc_walk hands qsort found by --deeper's second
round and the program's own static function where --deeper stops and
says why (walk-deeper), the JSON against doc/walk.md's schema both ways
(walk-json-doc), a thread group and a blocked call (walk-threads), the
bytes per call of 64-byte writes recorded with --args (walk-args), the
kernel below getrandom and tiny writes and a sleep's Wait on sc_offcpu
recorded with --kernel, the --wall walk going on below the sleep to where
it blocked where off-CPU stacks were sampled (walk-kernel), the on-CPU walk against the --wall
one on a sleeping thread and a busy one (walk-oncpu; both skipped where
kernel samples are not allowed), and bad input: one line, non-zero exit
(walk-errors). Checks: walk-api, walk-branches, walk-threads, walk-args,
walk-kernel, walk-oncpu, walk-deeper, walk-json-doc, walk-errors (lazy)."""
import json
import os
import re

from harness import ROOT, guarded, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)

LEVELS = ("process", "threads", "component", "api", "function", "syscall", "kernel")
NO_KERNEL = "; no kernel data in this profile (record with --kernel)"


def record(t, mode, name, *opts):
    out = os.path.join(t.tmp, name)
    rc, _, err = run([t.scaler, "record", "-o", out] + list(opts) + ["--", t.exe("walk"), mode])
    if rc != 0:
        raise RuntimeError("record sc_walk %s: exit %d %r" % (mode, rc, err[-200:]))
    return out


def walk(t, prof, *opts):
    """(JSON document, text) of the walk of prof."""
    rc, js, err = run([t.scaler, "walk", "-i", prof, "--format", "json"] + list(opts))
    rc2, text, err2 = run([t.scaler, "walk", "-i", prof] + list(opts))
    if rc or rc2 or err or err2:
        raise RuntimeError("walk: exit %d %d %r" % (rc, rc2, (err + err2)[-200:]))
    return json.loads(js), text.decode(errors="replace")


def path_problems(path, what):
    """The schema of one path, and shares that add up: each step's share is
    its ns over the whole, and never more than its parent's."""
    bad = []
    if not path:
        return ["%s: empty path" % what]
    total = path[0]["ns"] / path[0]["share"] if path[0]["share"] else 0
    for i, s in enumerate(path):
        if sorted(s) != ["level", "name", "ns", "share"]:
            bad.append("%s step %d keys %r" % (what, i, sorted(s)))
            continue
        if s["level"] not in LEVELS or not isinstance(s["name"], str) or not s["name"]:
            bad.append("%s step %d: %r" % (what, i, s))
        if not (isinstance(s["ns"], int) and s["ns"] >= 0 and 0 <= s["share"] <= 1):
            bad.append("%s step %d figures %r" % (what, i, s))
        elif total and abs(s["ns"] / total - s["share"]) > 2e-6 + 1e-6 * i:
            bad.append("%s step %d: share %r, ns/whole %r" % (what, i, s["share"], s["ns"] / total))
        if i and s["level"] != "threads" and path[i - 1]["level"] != "threads" and \
                s["ns"] > path[i - 1]["ns"]:
            bad.append("%s step %d holds more than its parent" % (what, i))
    return bad


def levels(path):
    return [(s["level"], s["name"]) for s in path]


def pct(share):
    return "%.0f %%" % (share * 100) if share * 100 >= 9.95 else "%.1f %%" % (share * 100)


def check_api(t):
    d, text = walk(t, record(t, "api", "walk-api"))
    bad = path_problems(d["path"], "path")
    got = levels(d["path"])
    if len(got) != 3 or got[0][0] != "process" or not got[0][1].startswith("sc_walk[") or \
            got[1:] != [("component", "sc_walk"), ("api", "wk_spin")]:
        bad.append("path %r, want process sc_walk[pid], component sc_walk, api wk_spin" % got)
    elif d["path"][2]["share"] < 0.6:
        bad.append("wk_spin holds %r of the time, ~0.9 wanted" % d["path"][2]["share"])
    if d["branches"]:
        bad.append("branches %r" % d["branches"])
    # the sentence: share, time, the API and its caller, its calls
    first = text.split("\n")[0]
    # (on a loaded machine, measured by the kernel: its preempted part)
    want = r"^%s of the on-CPU time \([0-9.]+ [mµ]?s\) is wk_spin\(\) from sc_walk, 1 call of " \
        r"[0-9.]+ [mµ]?s on CPU(, and [0-9.]+ [mµ]?s preempted \(runnable, waiting for a CPU\) " \
        r"besides)?%s$" % (re.escape(pct(d["path"][2]["share"])), re.escape(NO_KERNEL))
    if not re.match(want, first):
        bad.append("sentence %r does not match %r" % (first, want))
    steps = re.findall(r"^ +[0-9.]+% +\S+ \S+ +(\S+) +(\S+)", text, re.M)
    if [(lv, n) for lv, n in steps] != [(lv, n) for lv, n in got]:
        bad.append("text steps %r, JSON %r" % (steps, got))
    # a threshold above wk_spin's share stops the walk at the component
    d2, text2 = walk(t, os.path.join(t.tmp, "walk-api"), "--threshold", "99.9")
    if [s["level"] for s in d2["path"]][-1] != "component" or \
            not re.match(r"^[0-9.]+ % of the on-CPU time \([^)]*\) is sc_walk's own code, and none of "
                         r"its calls holds 99.9 %: scaler walk --deeper", text2):
        bad.append("--threshold 99.9: path %r, text %r" % (levels(d2["path"]), text2[:200]))
    return bad


def check_branches(t):
    """wk_spin and wk_other do the same work in turns: the walk takes one
    and walks the other as a branch. A loaded machine can still slow one of
    them by more than a third, so up to three recordings are tried; each
    is checked exactly."""
    bad = []
    for attempt in range(3):
        d, text = walk(t, record(t, "two", "walk-two-%d" % attempt))
        bad = path_problems(d["path"], "path")
        for b in d["branches"]:
            bad += path_problems(b, "branch")
        if bad:
            return bad
        if not d["branches"]:
            bad = ["no branch in %d recordings: path %r" % (attempt + 1, levels(d["path"]))]
            continue
        ends = sorted([levels(d["path"])[-1]] + [levels(b)[-1] for b in d["branches"]])
        if ends != [("api", "wk_other"), ("api", "wk_spin")] or len(d["branches"]) != 1 or \
                levels(d["branches"][0])[:-1] != levels(d["path"])[:-1]:
            return ["path %r, branches %r" % (levels(d["path"]), [levels(b) for b in d["branches"]])]
        other = levels(d["branches"][0])[-1][1]
        if not re.search(r"^close to it: [0-9.]+ %% of the on-CPU time \([^)]*\) is %s\(\) from sc_walk, "
                         r"100 calls of " % other, text, re.M):
            return ["text lacks the branch's sentence: %r" % text]
        return []
    return bad


def check_threads(t):
    """sc_hints lock, walked --wall: four workers take turns on one mutex
    while the main thread waits for them: the worker group is named, and
    the walk ends at
    one of the two blocking calls (which holds more depends on how many
    workers the machine runs at once: the lock held 8 % to 34 % of the
    whole time on our loaded 2-core machines), and says it blocked."""
    prof = os.path.join(t.tmp, "walk-lock")
    rc, _, err = run([t.scaler, "record", "-o", prof, "--", t.exe("hints"), "lock"])
    if rc:
        return ["record sc_hints lock: exit %d %r" % (rc, err[-200:])]
    d, text = walk(t, prof, "--threshold", "5", "--wall")
    bad = path_problems(d["path"], "path")
    got = levels(d["path"])
    if d["time"] != "wall":
        bad.append("--wall: time %r" % d["time"])
    calls = {"pthread_mutex_lock": "1,600 calls", "pthread_join": "4 calls"}
    if got[1:3] != [("threads", "worker (4 threads)"), ("component", "sc_hints")] or \
            len(got) != 4 or got[3][0] != "api" or got[3][1] not in calls:
        return bad + ["path %r" % got]
    if not re.match(r"^[0-9.]+ %% of the time \([^)]*\) is %s\(\) from sc_hints, %s of [^,]+, "
                    r"[0-9.]+ %% of it blocked[,;]" % (got[3][1], calls[got[3][1]]), text):
        bad.append("sentence %r" % text.split("\n")[0])
    return bad


def check_args(t):
    """sc_walk io recorded with --args: its 64-byte writes say so."""
    # (the writes hold 20 % to 35 % of the time: the loop around them,
    # counting and timing them, the rest)
    d, text = walk(t, record(t, "io", "walk-io", "--args"), "--threshold", "5")
    bad = path_problems(d["path"], "path")
    if levels(d["path"])[1:] != [("component", "sc_walk"), ("api", "write")]:
        bad.append("path %r" % levels(d["path"]))
    if not re.match(r"^[0-9.]+ % of the on-CPU time \([^)]*\) is write\(\) from sc_walk, 200,000 calls "
                    r"of [^,]+, 64 bytes per call[,;]", text):
        bad.append("sentence %r" % text.split("\n")[0])
    d, text = walk(t, os.path.join(t.tmp, "walk-api"))
    if "bytes per call" in text:
        bad.append("bytes per call without --args: %r" % text.split("\n")[0])
    return bad


OFF_STACKS = {}     # profile name: were its off-CPU stacks sampled?


def kernel_walk(t, args, *opts, rec="--kernel"):
    """The walk (JSON, text; at a 1 % threshold unless OPTS say) of
    sc_offcpu ARGS recorded with --kernel (or REC: --off-cpu); None when
    kernel samples are not allowed here. OFF_STACKS[name] says whether
    off-CPU stacks were."""
    name = "walk-k" + args[0] + ("-off" if rec == "--off-cpu" else "")
    prof = os.path.join(t.tmp, name)
    rc, _, err = run([t.scaler, "record", rec, "-o", prof, "--", t.exe("offcpu")] + args)
    err = err.decode(errors="replace")
    if rc:
        raise RuntimeError("record %s sc_offcpu %s: exit %d %r" % (rec, args[0], rc, err[-200:]))
    if "kernel stacks not sampled" in err:
        return None, err.strip().splitlines()[-1]
    OFF_STACKS[name] = rec == "--off-cpu" and "off-CPU stacks not sampled" not in err
    return walk(t, prof, *(opts or ("--threshold", "1")))


def last_api(path):
    """The deepest API of a path, as (level, name), or None."""
    apis = [s for s in levels(path) if s[0] == "api"]
    return apis[-1] if apis else None


def check_kernel(t):
    """Below the system call: getrandom of 8 MB buffers walks into its
    syscall and down a chacha path; 200,000 tiny writes into ksys_write
    and vfs_write; a 100 ms nanosleep is all blocked, with no kernel step."""
    bad = []
    want = {
        "random": (("__x64_sys_getrandom",), ("chacha", "get_random_bytes")),
        "tiny": (("ksys_write", "__x64_sys_write"), ("vfs_write",)),
    }
    for mode, (sys, below) in want.items():
        args = [mode] + ([os.path.join(t.tmp, "walk-tiny.out")] if mode == "tiny" else [])
        d, text = kernel_walk(t, args)
        if d is None:
            return skip("walk-kernel", text)
        bad += path_problems(d["path"], mode)
        got = levels(d["path"])
        api = [i for i, (lv, _) in enumerate(got) if lv == "api"]
        if not api or got[api[0] + 1:api[0] + 2] == [] or got[api[0] + 1][0] != "syscall" or \
                got[api[0] + 1][1] not in sys:
            bad.append("%s: path %r, want a syscall step %r below the API" % (mode, got, sys))
        elif not any(lv == "kernel" and any(b in n for b in below) for lv, n in got):
            bad.append("%s: no kernel step with %r in %r" % (mode, below, got))
        first = text.split("\n")[0]
        if not re.search(r"[0-9.]+ %% of it in the kernel.*; in the kernel [0-9.]+ %% of "
                         r"it is in %s$" % re.escape(got[-1][1]), first):
            bad.append("%s: sentence %r does not end in the last kernel step" % (mode, first))
    # a sleep: all blocked; recorded with --off-cpu (where its stacks
    # could be sampled) the --wall walk goes on below it to where it
    # blocked, with --kernel alone it ends at the API
    for rec in ("--kernel", "--off-cpu"):
        d, text = kernel_walk(t, ["sleep"], "--threshold", "1", "--wall", rec=rec)
        if d is None:
            continue
        off = OFF_STACKS["walk-ksleep" + ("-off" if rec == "--off-cpu" else "")]
        got = levels(d["path"])
        first = text.split("\n")[0]
        if last_api(d["path"]) not in (("api", "nanosleep"), ("api", "clock_nanosleep")) or \
                not re.search(r"(9[0-9]|100) % of it blocked", first):
            bad.append("sleep %s: path %r, sentence %r" % (rec, got, first))
        elif off and not (got[-1][0] == "kernel" and "nanosleep" in got[-1][1] and
                          re.search(r"; in the kernel (9[0-9]|100) % of it is in .*nanosleep",
                                    first)):
            bad.append("sleep (off-CPU stacks): path %r, sentence %r: want it to end in the "
                       "kernel's nanosleep" % (got, first))
        elif not off and got[-1][0] != "api":
            bad.append("sleep %s (no off-CPU stacks): path %r ends below the API" % (rec, got))
    return bad


def check_oncpu(t):
    """sc_offcpu mixed: one thread sleeps 1 s while another makes 8
    getrandom calls of 8 MB. The walk of on-CPU time (the default) takes
    the randomizer's thread group and ends in getrandom's kernel path;
    the --wall walk ends where the time is blocked (the sleeps, or the
    main thread's joins)."""
    d, text = kernel_walk(t, ["mixed"], "--threshold", "20")
    if d is None:
        return skip("walk-oncpu", text)
    bad = path_problems(d["path"], "on-CPU")
    got = levels(d["path"])
    api = [i for i, (lv, _) in enumerate(got) if lv == "api"]
    if d["time"] != "on-cpu" or ("threads", "randomizer (1 thread)") not in got or \
            len(api) != 1 or got[api[0]] != ("api", "getrandom") or \
            got[api[0] + 1] != ("syscall", "__x64_sys_getrandom") or got[-1][0] != "kernel" or \
            not any(lv == "kernel" and ("chacha" in n or "get_random_bytes" in n) for lv, n in got):
        bad.append("on-CPU walk: time %r, path %r" % (d["time"], got))
    first = text.split("\n")[0]
    if not re.match(r"^[0-9.]+ %% of the on-CPU time \([^)]*\) is getrandom\(\) from sc_offcpu, "
                    r"8 calls of [0-9.]+ [mµ]?s on CPU, [0-9.]+ %% of it in the kernel.*; in the "
                    r"kernel [0-9.]+ %% of it is in %s$" % re.escape(got[-1][1]), first):
        bad.append("on-CPU sentence %r" % first)
    d, text = walk(t, os.path.join(t.tmp, "walk-kmixed"), "--wall")
    ends = {last_api(p) for p in [d["path"]] + d["branches"]}
    if d["time"] != "wall" or not ends & {("api", "nanosleep"), ("api", "pthread_join")} or \
            not re.match(r"^[0-9.]+ % of the time \(", text):
        bad.append("--wall walk: time %r, ends %r, %r" % (d["time"], ends, text.split("\n")[0]))
    return bad


def deeper(t, mode, *opts):
    prof = os.path.join(t.tmp, "deeper-" + mode)
    rc, out, err = run([t.scaler, "walk", "--deeper", "-i", prof] + list(opts) +
                       ["--", t.exe("walk"), mode], timeout=240)
    return rc, out.decode(errors="replace"), err.decode(errors="replace"), prof


def check_deeper(t):
    bad = []
    # qsort holds the time; round 2 patches the comparator sc_walk hands
    # it, and the walk ends there; round 3 patches weigh, which slow_cmp
    # calls (from its own component: counted, not timed) and stops
    rc, out, err, prof = deeper(t, "deep", "--format", "json")
    docs = [json.loads(line) for line in out.splitlines()]
    if rc != 0 or len(docs) < 2:
        return ["--deeper deep: exit %d, %d rounds, %r" % (rc, len(docs), err[-300:])]
    for i, d in enumerate(docs):
        bad += path_problems(d["path"], "round %d" % (i + 1))
    if levels(docs[0]["path"])[1:] != [("component", "sc_walk"), ("api", "qsort")]:
        bad.append("round 1 path %r, want sc_walk then qsort" % levels(docs[0]["path"]))
    if levels(docs[1]["path"])[1:] != [("component", "sc_walk"), ("api", "qsort"),
                                       ("function", "slow_cmp")]:
        bad.append("round 2 path %r, want ... qsort, function slow_cmp" % levels(docs[1]["path"]))
    if "done" not in err or out.count("done"):
        bad.append("the command's output is not on stderr alone: %r" % err[-200:])
    if not re.search(r"scaler: walk: stopped after round %d: " % len(docs), err):
        bad.append("no reason to stop on stderr: %r" % err[-300:])
    if not os.path.isdir(prof + ".2"):
        bad.append("round 2 was not recorded into %s.2" % prof)
    else:
        rc, rep, _ = run([t.scaler, "report", "-i", prof + ".2", "--format", "json"])
        fns = sorted({c["api"] for c in json.loads(rep)["calls"] if c["kind"] == "function"})
        if rc or "slow_cmp" not in fns or any(f.startswith("libc") for f in fns):
            bad.append("round 2 patched %r" % fns)
    # a plain walk goes from a patched function to the patched functions
    # it calls (found in its code: which called which is not recorded)
    prof = record(t, "deep", "walk-fn", "--functions=sc_walk:slow_cmp,sc_walk:weigh")
    d, text = walk(t, prof, "--threshold", "5")
    got = levels(d["path"])
    # qsort holds ~90 % of the time: weigh's time, nested in slow_cmp, is
    # no call out of sc_walk (report_stacks.c once took it for one and
    # placed qsort inside slow_cmp, inside qsort: the tree lost it)
    if got[-3:] != [("api", "qsort"), ("function", "slow_cmp"), ("function", "weigh")] or \
            d["path"][-3]["share"] < 0.7:
        bad.append("walk of slow_cmp and weigh patched: path %r, qsort's share %r" % (
            got, d["path"][-3]["share"] if len(d["path"]) > 2 else None))
    elif not re.match(r"^[0-9.]+ % of the on-CPU time \([^)]*\) is weigh\(\) of sc_walk, [0-9,]+ calls of "
                      r"[^,]+(, [0-9.]+ % of it [a-zA-Z ]+|, and [0-9.]+ [mµ]?s [a-z]+( \([^)]*\))? "
                      r"besides)*, inside slow_cmp\(\) of sc_walk", text):
        bad.append("walk of slow_cmp and weigh patched: sentence %r" % text.split("\n")[0])
    # own_hot is the program's own, called from main: round 2 patches it
    # (its clone own_hot.constprop.0) and the walk ends there, named for
    # people; what it calls is patched already, so the rounds stop
    rc, out, err, _ = deeper(t, "own")
    rounds = re.findall(r"^round (\d+): (\S+?)(?:, --functions=(\S+))?$", out, re.M)
    if rc != 0 or len(rounds) != 2 or "sc_walk:own_hot" not in (rounds[1][2] or ""):
        bad.append("--deeper own: exit %d, rounds %r, %r" % (rc, rounds, err[-200:]))
    elif not re.search(r"^round 2: .*\n[0-9.]+ % of the on-CPU time \([^)]*\) is own_hot\(\) of sc_walk, "
                       r"1 call of ", out, re.M) or \
            not re.search(r"^   [ 0-9.]+% +\S+ \S* +function +own_hot$", out, re.M) or \
            not re.search(r"^stopped after round 2: own_hot\(\) calls no function that is not "
                          r"patched already: the time splits no further$", out, re.M):
        bad.append("--deeper own: %r" % out[-700:])
    return bad


def check_json_doc(t):
    """doc/walk.md's example has exactly the keys the output has, and its
    list of levels is the tool's."""
    with open(os.path.join(ROOT, "doc", "walk.md")) as f:
        doc = f.read()
    m = re.search(r"```json\n(.*?)```", doc, re.S)
    ex = json.loads(m.group(1))
    d, _ = walk(t, os.path.join(t.tmp, "walk-two-0") if os.path.isdir(
        os.path.join(t.tmp, "walk-two-0")) else record(t, "two", "walk-doc"))
    bad = []
    if sorted(ex) != sorted(d) or ex["format"] != d["format"] or ex["version"] != d["version"]:
        bad.append("top keys: doc %r, output %r" % (sorted(ex), sorted(d)))
    for s in ex["path"] + [s for b in ex["branches"] for s in b]:
        if sorted(s) != sorted(d["path"][0]):
            bad.append("doc step %r, output step keys %r" % (s, sorted(d["path"][0])))
    listed = re.search(r"`level` \(one of(.*?)\)", doc, re.S)
    if not listed or tuple(re.findall(r"`(\w+)`", listed.group(1))) != LEVELS:
        bad.append("doc's levels %r, want %r" % (listed and listed.group(1), LEVELS))
    return bad


def check_errors(t):
    bad = []
    empty = os.path.join(t.tmp, "walk-empty")
    os.makedirs(empty, exist_ok=True)
    prof = os.path.join(t.tmp, "walk-api")
    none = record(t, "api", "walk-none", "--timing=none")
    cases = [
        (["-i", empty], 1, "scaler: walk: "),
        (["-i", os.path.join(t.tmp, "walk-absent")], 1, "scaler: walk: "),
        (["-i", none], 1, "--timing=none"),
        (["-i", prof, "--threshold", "0"], 2, "--threshold wants a percentage"),
        (["-i", prof, "--threshold", "101"], 2, "--threshold wants a percentage"),
        (["-i", prof, "--threshold", "abc"], 2, "--threshold wants a percentage"),
        (["-i", prof, "--threshold=-5"], 2, "--threshold wants a percentage"),
        (["-i", prof, "somedir"], 2, "unexpected argument 'somedir'"),
        (["--deeper"], 2, "--deeper needs a command"),
        (["--deeper", "--rounds", "9", "--", "true"], 2, "--rounds wants a number from 1 to 8"),
        (["-i", prof, "--format", "xml"], 2, "unknown --format 'xml'"),
    ]
    for args, want_rc, words in cases:
        rc, out, err = run([t.scaler, "walk"] + args)
        err = err.decode(errors="replace")
        if rc != want_rc or out or err.count("\n") != 1 or not err.startswith("scaler: ") or \
                words not in err:
            bad.append("walk %s: exit %d, stdout %r, stderr %r" % (" ".join(args), rc, out[:80], err))
    return bad


def checks(t):
    guarded("walk-api", t.variant, lambda: check_api(t))
    guarded("walk-branches", t.variant, lambda: check_branches(t))
    guarded("walk-threads", t.variant, lambda: check_threads(t))
    guarded("walk-args", t.variant, lambda: check_args(t))
    guarded("walk-kernel", t.variant, lambda: check_kernel(t))
    guarded("walk-oncpu", t.variant, lambda: check_oncpu(t))
    guarded("walk-deeper", t.variant, lambda: check_deeper(t))
    guarded("walk-json-doc", t.variant, lambda: check_json_doc(t))
    guarded("walk-errors", t.variant, lambda: check_errors(t))
