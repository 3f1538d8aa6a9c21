#!/usr/bin/env python3
"""Turns one of klaunch's docs (the Markdown subset they are written in)
into a man page: md2man.py NAME SECTION TITLE IN.md OUT.

What the docs use: `#`/`##`/`###` headings, paragraphs, fenced code
blocks, `-` and `1.` lists, definition lists (a line, then `: text`),
tables, `code`, **bold**, *emphasis*, [links](target). Nothing else is
needed, so nothing else is read."""

import re
import sys


def escape(text):
    text = text.replace("\\", "\\e")
    # groff reads bytes: a character beyond ASCII is named by its code point.
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    # A line starting with . or ' would be a request.
    return re.sub(r"^([.'])", r"\\&\1", text)


def inline(text):
    text = escape(text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?!\w)", r"\\fI\1\\fR", text)
    return text


def convert(name, section, title, lines):
    out = [f'.TH {name.upper()} {section} "" "klaunch" "{title}"']
    in_code = False
    paragraph = []

    def flush():
        if paragraph:
            out.append(".PP" if not out[-1].startswith((".TP", ".IP")) else "")
            out.append(inline(" ".join(paragraph)))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\n")
        if line.startswith("```"):
            flush()
            in_code = not in_code
            out.append(".PP\n.nf\n.RS 4" if in_code else ".RE\n.fi")
        elif in_code:
            out.append(escape(line) if line else "")
        elif line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            heading = line.lstrip("#").strip()
            if level == 1:
                # The page's own NAME section, where it has one.
                if not any(l.startswith("## NAME") for l in lines):
                    out.append(".SH NAME")
                    out.append(f"{escape(name)} \\- {inline(heading)}")
            else:
                out.append((".SH " if level == 2 else ".SS ") +
                           inline(heading.upper() if level == 2 else heading))
        elif line.startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                pass
            else:
                out.append(".IP \\(bu 2")
                out.append(" \\(em ".join(inline(c) for c in cells))
        elif re.match(r"^\s*(- |\d+\. )", line):
            flush()
            item = re.sub(r"^\s*(- |\d+\. )", "", line)
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and \
                    not re.match(r"^\s*(- |\d+\. )", lines[i + 1]):
                i += 1
                item += " " + lines[i].strip()
            out.append(".IP \\(bu 2")
            out.append(inline(item))
        elif line.startswith(": "):
            # A definition: the term is the paragraph just read.
            term = " ".join(paragraph)
            paragraph.clear()
            out.append(".TP")
            out.append(inline(term))
            text = line[2:]
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and \
                    not lines[i + 1].lstrip().startswith("```"):
                i += 1
                text += " " + lines[i].strip()
            out.append(inline(text))
        elif not line.strip():
            flush()
        else:
            paragraph.append(line.strip())
        i += 1
    flush()
    return "\n".join(l for l in out if l is not None) + "\n"


def main():
    name, section, title, source, target = sys.argv[1:6]
    with open(source, encoding="utf-8") as f:
        lines = f.readlines()
    with open(target, "w", encoding="utf-8") as f:
        f.write(convert(name, section, title, lines))


if __name__ == "__main__":
    main()
