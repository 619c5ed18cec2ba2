"""html_layout.py - the HTML report rendered in headless Chromium
(browser.py) at 900, 1440 and 2560 px, light and dark, with and without
JavaScript; the layout's key facts are measured inside the page, not
compared as pixels:

  - neither the page nor a table scrolls sideways; dark mode darkens it;
  - the flame graph has one frame per tree node with a value, each frame
    as wide (to 1 %) as its value's share of the graph's total, inside its
    parent, and its percentage label says its width; the graph's total is
    the threads' time of the JSON report, and each call row's frames add
    up to most of the row's time and never more;
  - the component bars are as long as their labels say;
  - a component has one colour: its swatches and frames in one page, and
    in the reports of three different programs;
  - clicking a header sorts, the filter box hides the rows without the
    text, hovering a frame shows its figures, clicking it zooms it to the
    full width and Escape undoes it;
  - with JavaScript off, the tables and the flame graph are there and laid
    out the same;
  - a name of 64 characters without a break in every text cell wraps
    inside it at 900 px.

Screenshots of every width and mode go to OUTDIR (build/report-html/) for
a person to look at. check(...) returns a list of problems."""
import json
import os
import re

import browser
from harness import report_cmd, report_json_of

WIDTHS = (900, 1440, 2560)

# Measured in the page (with or without its scripts: a DevTools
# evaluation is not the page's script).
MEASURE = r"""(function(){
var d=document,de=d.documentElement,A=Array.prototype;
function rect(e){var r=e.getBoundingClientRect();return [r.left,r.width];}
function bg(e){return getComputedStyle(e).backgroundColor;}
var g=d.getElementById('flame-graph'),out={};
out.js=de.getAttribute('data-js');
out.scrollWidth=de.scrollWidth;out.innerWidth=innerWidth;
out.bodyBg=bg(de);out.fg=getComputedStyle(d.body).color;
out.tables=A.map.call(d.querySelectorAll('table'),function(t){return t.id;});
out.filters=d.querySelectorAll('.tools input').length;
out.scrolled=A.filter.call(d.querySelectorAll('.tw'),function(e){return e.scrollWidth>e.clientWidth+1;}).map(function(e){
 return e.firstChild.id+' '+e.scrollWidth+'/'+e.clientWidth;});
if(g){
 var gr=rect(g);
 out.graph={left:gr[0],width:gr[1],total:+g.getAttribute('data-total'),
  nodes:+g.getAttribute('data-nodes'),drawn:+g.getAttribute('data-drawn')};
 out.frames=A.map.call(g.querySelectorAll('.fr'),function(e){var r=rect(e);return {
  i:+e.getAttribute('data-i'),e:+e.getAttribute('data-e'),v:+e.getAttribute('data-v'),
  k:e.getAttribute('data-k'),left:r[0],width:r[1],hidden:e.hidden,
  label:e.querySelector('.p').textContent,bg:bg(e),
  t:e.getAttribute('title')||e.getAttribute('data-t')};});
}
out.bars=A.map.call(d.querySelectorAll('#component-chart .track'),function(t){
 var w=0;A.forEach.call(t.querySelectorAll('.seg'),function(s){w+=s.getBoundingClientRect().width;});
 return {share:+t.getAttribute('data-share'),track:t.getBoundingClientRect().width,filled:w,
  label:t.nextElementSibling.textContent,name:t.previousElementSibling.textContent};});
out.swatches={};
A.forEach.call(d.querySelectorAll('#component-table tbody tr'),function(r){
 out.swatches[r.cells[0].textContent]=bg(r.cells[0].querySelector('.sw'));});
return out;})()"""

# every text cell of every table made one 64-character word
LONG_NAMES = r"""Array.prototype.forEach.call(document.querySelectorAll('td:not(.n)'),function(c){
 var w=c.querySelector('.cn')||c;
 if(w.lastChild&&!c.querySelector('svg'))w.lastChild.textContent='x'.repeat(64);})"""


def pct_of(label):
    m = re.search(r"([0-9.]+)%", label)
    return float(m.group(1)) if m else None


def frame_facts(m, where):
    """The flame graph's facts from one measurement."""
    bad = []
    g, frames = m.get("graph"), m.get("frames", [])
    if not g or not frames:
        return ["%s: no flame graph" % where]
    shown = [f for f in frames if not f["hidden"]]
    # past FLAME_MAX (5000) nodes the page leaves out frames under 1/5000
    # of the total (report_html.c) and says so; below, every node is drawn
    if len(frames) != g["drawn"] or g["drawn"] > g["nodes"] or \
            (g["nodes"] <= 5000 and g["drawn"] != g["nodes"]):
        bad.append("%s: %d frames for %d drawn, %d tree nodes" % (where, len(frames), g["drawn"], g["nodes"]))
    byi = {f["i"]: f for f in frames}
    for f in shown:
        want = f["v"] / g["total"] * g["width"]
        if abs(f["width"] - want) > max(0.01 * want, 0.1):
            bad.append("%s: frame %d is %.2f px wide, its share is %.2f px" % (where, f["i"], f["width"], want))
        lab = pct_of(f["label"])
        if lab is None or abs(lab - f["width"] / g["width"] * 100) > 0.051 + 0.01 * lab:
            bad.append("%s: frame %d labelled %r is %.2f%% of the graph" %
                       (where, f["i"], f["label"], f["width"] / g["width"] * 100))
    # nesting: a frame lies within the frame whose subtree holds it
    for f in shown:
        parents = [p for p in shown if p["i"] < f["i"] < p["e"]]
        if parents:
            p = max(parents, key=lambda p: p["i"])
            if f["left"] < p["left"] - 0.5 or f["left"] + f["width"] > p["left"] + p["width"] + 0.5:
                bad.append("%s: frame %d outside its parent %d" % (where, f["i"], p["i"]))
    return bad[:8]


def page_facts(m, where, dark):
    bad = []
    if m["scrollWidth"] > m["innerWidth"]:
        bad.append("%s: page is %d px wide in a %d px window" % (where, m["scrollWidth"], m["innerWidth"]))
    if m["scrolled"]:
        bad.append("%s: tables wider than the page: %s" % (where, ", ".join(m["scrolled"])))
    rgb = [int(x) for x in re.findall(r"\d+", m["bodyBg"])[:3]]
    if (sum(rgb) / 3 < 80) != dark:
        bad.append("%s: background %s in %s mode" % (where, m["bodyBg"], "dark" if dark else "light"))
    for t in ("component-table", "call-table", "thread-table", "process-table"):
        if t not in m["tables"]:
            bad.append("%s: no #%s" % (where, t))
    for b in m["bars"]:
        lab = pct_of(b["label"])
        if lab is None or abs(b["filled"] / b["track"] * 100 - min(lab, 100)) > 0.051 + 0.01 * lab + 100 / b["track"]:
            bad.append("%s: bar %r labelled %r fills %.2f%% of its track" %
                       (where, b["name"], b["label"], b["filled"] / b["track"] * 100))
    # one colour per component: its frames have its swatch's colour
    for f in m.get("frames", []):
        if f["k"] == "process":
            continue
        comp = f["t"].split("\n")[0] if f["k"] == "component" else f["t"].split(":")[0]
        if comp in m["swatches"] and m["swatches"][comp] != f["bg"]:
            bad.append("%s: frame %d of %s is %s, its swatch %s" % (where, f["i"], comp, f["bg"], m["swatches"][comp]))
            break
    return bad + frame_facts(m, where)


def tree_vs_json(m, rep):
    """The graph against the JSON report: its total is the threads' time,
    and a call row's frames add up to no more than the row's time, and to
    most of it (report_stacks.c leaves what its cycle guard cuts, e.g.
    under thread start routines called back from libc, in the parent)."""
    bad = []
    threads = sum(t["wall_ns"] for t in rep["threads"])
    if abs(m["graph"]["total"] - threads) > 0.01 * threads:
        bad.append("graph total %d, threads' time %d" % (m["graph"]["total"], threads))
    pieces = {}
    for f in m["frames"]:
        if f["k"] == "api":
            head = f["t"].split("\n")
            key = (re.sub(r".* from ", "", head[-1]), head[0])
            pieces[key] = pieces.get(key, 0) + f["v"]
    for c in rep["calls"]:
        if c["caller"] == c["callee"] or c["total_ns"] < 0.01 * threads:
            continue
        got = pieces.get((c["caller"], "%s:%s" % (c["callee"], c["api"])), 0)
        if got > 1.01 * c["total_ns"] or got < 0.5 * c["total_ns"]:
            bad.append("%s -> %s:%s: frames add up to %d ns, the row is %d" %
                       (c["caller"], c["callee"], c["api"], got, c["total_ns"]))
    return bad


# Interactions, run by the page's script: returns what they did.
INTERACT = r"""(function(){
var d=document,A=Array.prototype,out={};
function vals(t,i){return A.map.call(t.tBodies[0].rows,function(r){return +r.cells[i].getAttribute('data-v');});}
var t=d.getElementById('call-table'),th=t.tHead.rows[0].cells[3];
out.before=vals(t,3);th.click();out.desc=vals(t,3);th.click();out.asc=vals(t,3);
var box=t.closest('section').querySelector('.tools input');
box.value='libc';box.dispatchEvent(new Event('input'));
out.rows=t.tBodies[0].rows.length;
out.shown=A.filter.call(t.tBodies[0].rows,function(r){return !r.hidden;}).map(function(r){return r.textContent;});
box.value='';box.dispatchEvent(new Event('input'));
out.after=A.filter.call(t.tBodies[0].rows,function(r){return !r.hidden;}).length;
var g=d.getElementById('flame-graph'),fr=A.slice.call(g.querySelectorAll('.fr'));
var z=fr.filter(function(e){return e.getAttribute('data-k')==='api'&&+e.getAttribute('data-e')>+e.getAttribute('data-i')+1&&+e.getAttribute('data-v')>0;})[0];
if(z){
 z.dispatchEvent(new MouseEvent('mouseenter'));
 out.detail=d.getElementById('flame-detail').textContent;out.frameText=z.getAttribute('data-t');
 z.click();
 var ob=d.getElementById('flame-out');
 out.button=!ob.hidden&&ob.textContent.indexOf(z.firstChild.nodeValue)>=0;
 var gw=g.getBoundingClientRect().width,zi=+z.getAttribute('data-i'),ze=+z.getAttribute('data-e'),zv=+z.getAttribute('data-v');
 out.zoom={width:z.getBoundingClientRect().width/gw,label:z.querySelector('.p').textContent,
  kids:fr.filter(function(e){var i=+e.getAttribute('data-i');return i>zi&&i<ze;}).map(function(e){
   return [e.getBoundingClientRect().width/gw,+e.getAttribute('data-v')/zv,e.hidden];}),
  others:fr.filter(function(e){var i=+e.getAttribute('data-i');return (i<zi&&+e.getAttribute('data-e')<=zi)||i>=ze;}).filter(function(e){return !e.hidden;}).length};
 d.dispatchEvent(new KeyboardEvent('keydown',{key:'Escape'}));
 out.unzoom=z.getBoundingClientRect().width/gw*(+g.getAttribute('data-total'))/zv;
}
return out;})()"""


def interactions(b):
    bad = []
    r = b.eval(INTERACT)
    if len(r["before"]) < 3 or r["desc"] != sorted(r["before"], reverse=True) or r["asc"] != sorted(r["before"]):
        bad.append("sorting the calls by count: %r -> %r -> %r" % (r["before"][:6], r["desc"][:6], r["asc"][:6]))
    if not r["shown"] or len(r["shown"]) >= r["rows"] or any("libc" not in s for s in r["shown"]) or r["after"] != r["rows"]:
        bad.append("filter 'libc': %d of %d rows shown (%r), %d after clearing" %
                   (len(r["shown"]), r["rows"], r["shown"][:2], r["after"]))
    if not r.get("frameText") or r.get("detail") != r["frameText"] or "of the graph" not in r["detail"]:
        bad.append("hovering a frame shows %r, its figures are %r" % (r.get("detail"), r.get("frameText")))
    z = r.get("zoom")
    if not z:
        bad.append("no API frame with children to zoom into")
    else:
        if abs(z["width"] - 1) > 0.01 or z["label"] != "100.0%":
            bad.append("zoomed frame is %.3f of the graph, labelled %r" % (z["width"], z["label"]))
        for w, share, hidden in z["kids"]:
            if hidden or abs(w - share) > max(0.01 * share, 0.0005):
                bad.append("zoomed child is %.4f of the graph, its share %.4f" % (w, share))
                break
        if not r.get("button"):
            bad.append("no zoom-out button naming the zoomed frame")
        if z["others"]:
            bad.append("%d frames outside the zoomed one still shown" % z["others"])
        if abs(r["unzoom"] - 1) > 0.01:
            bad.append("Escape did not zoom out (%.3f)" % r["unzoom"])
    return bad


def check(chromium, pages, outdir, reports):
    """pages: {name: html path}; reports: {name: JSON report}. The first
    page gets every width, mode and the interactions; all pages are
    compared for colours."""
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith(".png"):
            os.unlink(os.path.join(outdir, f))
    bad = []
    b = browser.Browser(chromium)
    try:
        names = list(pages)
        swatches = {}
        for name in names:
            url = "file://" + os.path.abspath(pages[name])
            widths = WIDTHS if name == names[0] else (1440,)
            for w in widths:
                for dark in ((False, True) if name == names[0] else (False,)):
                    where = "%s %dpx %s" % (name, w, "dark" if dark else "light")
                    b.open(url, w, 1000, dark=dark)
                    m = b.eval(MEASURE)
                    if m["js"] != "ready":
                        bad.append("%s: the script did not run" % where)
                    bad += page_facts(m, where, dark)
                    swatches[name] = m["swatches"]
                    if name == names[0] and not dark:
                        if w == 1440:
                            bad += ["%s: %s" % (where, x) for x in tree_vs_json(m, reports[name])]
                        b.screenshot(os.path.join(outdir, "%s-%d-light.png" % (name, w)), full=True)
                        bad += ["%s: %s" % (where, x) for x in interactions(b)]
                    elif name == names[0]:
                        b.screenshot(os.path.join(outdir, "%s-%d-dark.png" % (name, w)))
        # JavaScript off: the same page, laid out the same
        where = "%s 900px, JavaScript off" % names[0]
        b.open("file://" + os.path.abspath(pages[names[0]]), 900, 1000, script=False)
        m = b.eval(MEASURE)
        if m["js"] is not None or m["filters"]:
            bad.append("%s: the script ran (%r, %d filters)" % (where, m["js"], m["filters"]))
        bad += page_facts(m, where, False)
        b.screenshot(os.path.join(outdir, "%s-900-nojs.png" % names[0]), full=True)
        # names as long as real ones get (a C++ start routine, a library
        # named without dots or dashes) wrap inside their cells
        where = "%s 900px, every name 64 characters without a break" % names[0]
        b.eval(LONG_NAMES)
        scrolled = b.eval(MEASURE)["scrolled"]
        if scrolled:
            bad.append("%s: tables wider than the page: %s" % (where, ", ".join(scrolled)))
        # a component in two programs' reports: one colour
        common = set.intersection(*(set(s) for s in swatches.values()))
        if not common:
            bad.append("no component common to %s" % names)
        for c in common:
            if len({s[c] for s in swatches.values()}) != 1:
                bad.append("%s has colours %r" % (c, {n: s[c] for n, s in swatches.items()}))
    finally:
        b.close()
    return bad


def check_profiles(chromium, scaler, profiles, tmp, outdir):
    """check() on the HTML and JSON reports of profiles ({name: profile
    directory}, the first one getting every width and mode)."""
    pages, reports, bad = {}, {}, []
    for name, prof in profiles.items():
        out = os.path.join(tmp, name + ".html")
        rc, _, err = report_cmd(scaler, prof, "--format", "html", "-o", out)
        if rc != 0:
            bad.append("html of %s exited %d: %s" % (name, rc, err[:200]))
        pages[name], reports[name] = out, report_json_of(scaler, prof)
    if bad:
        return bad
    try:
        return check(chromium, pages, outdir, reports)
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        return ["the page lacks what the check measures: %r" % e]
