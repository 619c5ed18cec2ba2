"""htmlpage.py - reading the HTML report and its screenshot for the report
checks: an HTML parser that checks well-formedness and collects text,
titles, ids and the component chart's bar colours, and a PNG decoder (what
headless chromium writes). Only the standard library."""
import html.parser
import struct
import zlib


class HtmlCheck(html.parser.HTMLParser):
    """Well-formedness (every element closed in order), text, titles,
    attributes of interest."""
    VOID = {"meta", "br", "img", "hr", "input", "link", "rect", "circle", "line", "path"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text, self.titles = [], [], [], []
        self.rect_fills, self.scripts, self.ids = [], 0, set()
        self.in_chart = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if a.get("title"):
            self.titles.append(a["title"])
        for k, v in attrs:
            if k in ("src", "href") or (v and ("http:" in v or "https:" in v) and k != "xmlns"):
                self.errors.append("external reference %s=%r" % (k, v))
        if tag == "svg" and a.get("id") == "component-chart":
            self.in_chart = 1
        if tag == "rect" and self.in_chart and float(a.get("width", "0")) >= 4:
            self.rect_fills.append(a.get("fill"))
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
        if tag == "svg":
            self.in_chart = 0
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

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


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG (what chromium writes):
    returns (width, height, channels, bytes of all rows, unfiltered)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG depth %d type %d interlace %d not handled" % (depth, ctype, interlace))
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * ch
    out = bytearray(h * stride)
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(ch, stride):
                line[i] = (line[i] + line[i - ch]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - ch] if i >= ch else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - ch] if i >= ch else 0
                b = prev[i]
                c = prev[i - ch] if i >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return w, h, ch, bytes(out)
