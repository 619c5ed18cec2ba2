"""htmlpage.py - reading the HTML report for the report checks: an HTML
parser that checks well-formedness and collects text, titles, ids, the
component chart's bar colours and the flame graph's frames. Only the
standard library."""
import html.parser
import re


class HtmlCheck(html.parser.HTMLParser):
    """Well-formedness (every element closed in order), text, titles,
    attributes of interest."""
    VOID = {"meta", "br", "wbr", "img", "hr", "input", "link", "rect", "circle", "line", "path"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text, self.titles = [], [], [], []
        self.rect_fills, self.scripts, self.ids, self.frames = [], 0, set(), 0
        self.chart_depth = None     # the stack's depth at #component-chart

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if a.get("title"):
            self.titles.append(a["title"])
        for k, v in attrs:
            if k == "src" or (k == "href" and not (v or "").startswith("#")) or \
                    (v and ("http:" in v or "https:" in v) and k != "xmlns"):
                self.errors.append("external reference %s=%r" % (k, v))
        if a.get("id") == "component-chart":
            self.chart_depth = len(self.stack)
        if tag == "span" and self.chart_depth is not None and a.get("class") == "seg":
            self.rect_fills.append(re.search(r"background:(#[0-9a-f]{6})", a.get("style", "")).group(1))
        if tag == "div" and a.get("class") == "fr":
            self.frames += 1
        if tag == "script":
            self.scripts += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if len(self.stack) == self.chart_depth:
            self.chart_depth = None

    def handle_data(self, data):
        self.text.append(data)


def parse_html(text):
    h = HtmlCheck()
    h.feed(text)
    h.close()
    if h.stack:
        h.errors.append("unclosed %r" % h.stack)
    h.alltext = "".join(h.text)
    return h
