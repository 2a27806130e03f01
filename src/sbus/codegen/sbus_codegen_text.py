"""
sbus_codegen_text.py: small helpers that lay out C text for the generator: parameter lists,
line wrapping at 100 columns, comments. Part of sbus_codegen.py.
"""

import re
import textwrap

WIDTH = 100

# --------------------------------------------------------------------------------------------
# C text helpers
# --------------------------------------------------------------------------------------------


def wrap(head, items, tail, indent="", width=WIDTH):
    """head + ", ".join(items) + tail, broken after commas when too long.

    Continuation lines line up after head; when head is too long for that, the items start
    on their own lines, indented one level deeper than head."""
    one = indent + head + ", ".join(items) + tail
    if len(one) <= width or not items:
        return [one]
    col = len(indent) + len(head)
    if col > 60:
        lines = [indent + head.rstrip()]
        cont = indent + "    "
        cur = cont
    else:
        lines = []
        cont = " " * col
        cur = indent + head
    first = True
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else tail)
        if not first and len(cur.rstrip()) + len(piece.rstrip()) + 1 > width:
            lines.append(cur.rstrip())
            cur = cont
        cur += piece
        first = False
    lines.append(cur.rstrip())
    return lines


def split_top_level(text):
    """Splits text at the commas that are outside parentheses and string literals."""
    items, depth, cur, quoted = [], 0, "", False
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            items.append(cur.strip())
            cur = ""
            continue
        cur += ch
    items.append(cur.strip())
    return items


def fit(line):
    """Re-wraps one over-long line of the form 'head(arguments)tail'."""
    if len(line) <= WIDTH or line.rstrip().endswith("\\") or line.lstrip().startswith(("/*", "*")):
        return [line]
    indent = line[:len(line) - len(line.lstrip())]
    body = line.strip()
    m = re.match(r"^(\w+ = \([\w ]+\))(.*;)$", body)
    if m:       # a cast assignment: break after the cast
        return [indent + m.group(1), indent + "    " + m.group(2)]
    for tail in (");", ")", ") {"):
        if body.endswith(tail):
            break
    else:
        return [line]
    inner_end = len(body) - len(tail)
    # The opening parenthesis that matches the final one.
    depth = 0
    for i in range(inner_end, -1, -1):
        if body[i] == ")":
            depth += 1
        elif body[i] == "(":
            depth -= 1
            if depth == 0:
                break
    else:
        return [line]
    head, inner = body[:i + 1], body[i + 1:inner_end]
    return wrap(head, split_top_level(inner), tail, indent)


def c_vars(args):
    """(type, name, zero) of the C variables that carry the arguments: one each, two for ay
    and au (the array and its count n_<name>). type ends in '*' or ' ', so a name can follow
    it."""
    for a in args:
        t = a.type
        if t.kind == "fixed":
            yield t.c_type, a.name, "NULL"
            yield "uint32_t ", "n_" + a.name, "0"
        elif t.c_type.endswith("*"):
            yield t.c_type, a.name, "NULL"
        else:
            yield t.c_type + " ", a.name, "false" if t.kind == "bool" else "0"


def in_params(args):
    """Parameters for values passed in."""
    return [t + n for t, n, _ in c_vars(args)]


def out_params(args):
    """Parameters for values passed back through pointers."""
    return [t + "*_" + n for t, n, _ in c_vars(args)]


def values(args):
    return [n for _, n, _ in c_vars(args)]


def addresses(args):
    return ["&" + v for v in values(args)]


def locals_for(args, indent="    "):
    """Local variables for the arguments, zeroed."""
    return ["%s%s%s = %s;" % (indent, t, n, z) for t, n, z in c_vars(args)]


def fields(args, indent="    "):
    """The members of an argument struct."""
    return ["%s%s%s;" % (indent, t, n) for t, n, _ in c_vars(args)]


def fields_of(args, prefix):
    """The arguments as members of the struct behind 'args', each prefixed ('&' for their
    addresses)."""
    return ["%sargs->%s" % (prefix, v) for v in values(args)]


def check_field(field, arg, fn_type):
    """One designated initializer of a table macro with its compile-time type check."""
    line = "    .%s = (sbus_fn)(1 ? (%s) : (%s)NULL), \\" % (field, arg, fn_type)
    if len(line) <= WIDTH:
        return [line]
    head = "    .%s = (sbus_fn)(1 ? " % field
    return ["%s(%s) \\" % (head, arg),
            "%s: (%s)NULL), \\" % (" " * (len(head) - 2), fn_type)]


def signature(args):
    return "".join(a.type.sig for a in args)


def describe(args):
    return ", ".join("%s %s" % (a.type.sig, a.name) for a in args)


def c_string(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def comment(paragraphs, indent=""):
    """A C comment. Each paragraph is word-wrapped; one starting with two spaces is kept as
    it is; an empty one is a blank line."""
    if len(paragraphs) == 1 and len(indent + paragraphs[0]) + 6 <= WIDTH:
        return ["%s/* %s */" % (indent, paragraphs[0])]
    lines = ["%s/*" % indent]
    for p in paragraphs:
        if not p:
            lines.append("%s *" % indent)
        elif p.startswith("  "):
            lines.append("%s * %s" % (indent, p))
        else:
            for t in textwrap.wrap(p, WIDTH - len(indent) - 3, break_long_words=False,
                                   break_on_hyphens=False):
                lines.append("%s * %s" % (indent, t))
    lines.append("%s */" % indent)
    return lines


def member_title(m):
    if m.kind == "signal":
        return "signal %s.%s(%s)" % (m.iface.name, m.name, describe(m.ins))
    text = "method %s.%s(%s)" % (m.iface.name, m.name, describe(m.ins))
    if m.outs:
        text += " -> (%s)" % describe(m.outs)
    return text
