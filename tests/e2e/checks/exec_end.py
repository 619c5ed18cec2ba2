"""exec_end.py - an image replaced by exec ends there, in the JSON and text
reports. Check: report-exec-end."""
import os

from harness import guarded, record_json, root_process, run

MODE = "real"


def exec_end(scaler, tmp):
    # an image replaced by exec ends there: it has its wall time, no
    # exit status, and its text status says so
    out = os.path.join(tmp, "xe")
    bad, d = record_json(scaler, out, ["sh", "-c", "sleep 0.05; exec true"])
    if bad:
        return bad
    sh = root_process(d).get("pid")
    imgs = sorted((p for p in d["processes"] if p["pid"] == sh),
                  key=lambda p: p.get("gen", 0))
    if len(imgs) != 2:
        return ["want two images of one pid: %r" % imgs]
    if imgs[0]["exit_status"] != -1 or not 40e6 <= imgs[0]["wall_ns"] <= 2e9:
        return ["the shell's image: exit %r wall %r" % (imgs[0]["exit_status"],
                                                         imgs[0]["wall_ns"])]
    rc, txt, _ = run([scaler, "report", "-i", out])
    return [] if b"exec'd" in txt else ["text report does not say exec'd"]


def checks(t):
    guarded("report-exec-end", None, lambda: exec_end(t.scaler, t.tmp))
