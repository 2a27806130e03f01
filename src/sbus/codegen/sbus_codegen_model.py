"""
sbus_codegen_model.py: the interface definitions as the generator sees them. Reads D-Bus
introspection XML (with line numbers, for "file:line: problem" messages), checks it and builds
Interface / Member / Arg objects. Part of sbus_codegen.py.
"""

import re
import xml.parsers.expat

KEY_ANNOTATION = "sssd.sbus.Key"

# --------------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------------


class DBusType:
    """One supported D-Bus type and how it looks in C.

    kind is one of: scalar, bool, string, path, strv (as), fixed (ay, au: an array of a
    fixed-size type, carried as a pointer and a count)."""

    def __init__(self, sig, kind, const, c_type, key_fmt=None, key_cast=""):
        self.sig = sig
        self.kind = kind
        self.const = const          # DBUS_TYPE_* (element type for arrays)
        self.c_type = c_type        # type of an input value
        self.key_fmt = key_fmt      # printf conversion in a key, None: not allowed in keys
        self.key_cast = key_cast    # cast applied to the value before printing it


TYPES = {
    "y": DBusType("y", "scalar", "DBUS_TYPE_BYTE", "uint8_t", '%u', "(unsigned int)"),
    "b": DBusType("b", "bool", "DBUS_TYPE_BOOLEAN", "bool", '%s'),
    "n": DBusType("n", "scalar", "DBUS_TYPE_INT16", "int16_t", '%d', "(int)"),
    "q": DBusType("q", "scalar", "DBUS_TYPE_UINT16", "uint16_t", '%u', "(unsigned int)"),
    "i": DBusType("i", "scalar", "DBUS_TYPE_INT32", "int32_t", '%"PRId32"'),
    "u": DBusType("u", "scalar", "DBUS_TYPE_UINT32", "uint32_t", '%"PRIu32"'),
    "x": DBusType("x", "scalar", "DBUS_TYPE_INT64", "int64_t", '%"PRId64"'),
    "t": DBusType("t", "scalar", "DBUS_TYPE_UINT64", "uint64_t", '%"PRIu64"'),
    "s": DBusType("s", "string", "DBUS_TYPE_STRING", "const char *", '%s'),
    "o": DBusType("o", "path", "DBUS_TYPE_OBJECT_PATH", "const char *", '%s'),
    "as": DBusType("as", "strv", "DBUS_TYPE_STRING", "const char **"),
    "ay": DBusType("ay", "fixed", "DBUS_TYPE_BYTE", "const uint8_t *"),
    "au": DBusType("au", "fixed", "DBUS_TYPE_UINT32", "const uint32_t *"),
}

# Identifiers the generated code itself uses next to argument names.
RESERVED = {
    "mem_ctx", "tmp_ctx", "conn", "destination", "path", "req", "subreq", "msg", "reply",
    "ret", "sbus_req", "method", "listener", "data", "ev", "key", "args", "handler", "sbus_fn",
}

# C keywords (C11) and names from the headers the generated code includes that an argument
# must not shadow.
C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "errno",
    "debug_level", "sss_debug_req_id", "NULL", "TRUE", "FALSE",
}

IDENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MEMBER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
IFACE_ELEMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CodegenError(Exception):
    def __init__(self, where, message):
        super().__init__("%s: %s" % (where, message))


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


class Arg:
    def __init__(self, name, dtype, direction, key, where):
        self.name = name
        self.type = dtype
        self.direction = direction
        self.key = key
        self.where = where

    def derived_names(self):
        """Every C identifier generated code declares for this argument."""
        names = {self.name, "_" + self.name}
        if self.type.kind == "fixed":
            names |= {"n_" + self.name, "_n_" + self.name}
        if self.key:
            names.add(self.name + "_key")
        return names


class Member:
    def __init__(self, kind, name, where):
        self.kind = kind            # "method" or "signal"
        self.name = name
        self.where = where
        self.ins = []               # signal arguments are kept here too
        self.outs = []
        self.iface = None

    @property
    def keyed(self):
        return any(a.key for a in self.ins)

    @property
    def c(self):
        return "%s_%s" % (self.iface.c, self.name)


class Interface:
    def __init__(self, name, where, xml_file):
        self.name = name
        self.c = name.replace(".", "_")
        self.where = where
        self.xml_file = xml_file
        self.members = []

    @property
    def methods(self):
        return [m for m in self.members if m.kind == "method"]

    @property
    def signals(self):
        return [m for m in self.members if m.kind == "signal"]


# --------------------------------------------------------------------------------------------
# Parsing (expat directly, so every element knows its line)
# --------------------------------------------------------------------------------------------


class Node:
    def __init__(self, tag, attrs, line, parent):
        self.tag = tag
        self.attrs = attrs
        self.line = line
        self.parent = parent
        self.children = []


def read_xml(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CodegenError(path, "cannot read: %s" % e.strerror)

    parser = xml.parsers.expat.ParserCreate()
    root = Node("#document", {}, 0, None)
    stack = [root]

    def start(tag, attrs):
        node = Node(tag, attrs, parser.CurrentLineNumber, stack[-1])
        stack[-1].children.append(node)
        stack.append(node)

    def end(tag):
        stack.pop()

    def text(chars):
        if chars.strip():
            raise CodegenError("%s:%d" % (path, parser.CurrentLineNumber),
                               "unexpected text %r" % chars.strip())

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as e:
        raise CodegenError("%s:%d" % (path, e.lineno),
                           "malformed XML: %s" % xml.parsers.expat.ErrorString(e.code))
    return root.children[0]


def check_attrs(node, where, allowed, required):
    for a in node.attrs:
        if a not in allowed:
            raise CodegenError(where, "<%s>: unknown attribute '%s'" % (node.tag, a))
    for a in required:
        if a not in node.attrs:
            raise CodegenError(where, "<%s>: missing attribute '%s'" % (node.tag, a))


def parse_annotation(node, where, allow_key):
    """Returns True for a true sssd.sbus.Key annotation, False otherwise."""
    check_attrs(node, where, ("name", "value"), ("name", "value"))
    if node.children:
        raise CodegenError(where, "<annotation> must be empty")
    name = node.attrs["name"]
    value = node.attrs["value"]
    if name == KEY_ANNOTATION:
        if not allow_key:
            raise CodegenError(where, "%s is only allowed on the input arguments of a method"
                               % KEY_ANNOTATION)
        if value not in ("true", "false"):
            raise CodegenError(where, "%s must be \"true\" or \"false\", not %r"
                               % (KEY_ANNOTATION, value))
        return value == "true"
    if name.startswith("sssd."):
        raise CodegenError(where, "unknown annotation '%s'" % name)
    return False        # foreign annotations (org.freedesktop.DBus.*) are ignored


def parse_arg(node, path, member):
    where = "%s:%d" % (path, node.line)
    check_attrs(node, where, ("name", "type", "direction"), ("name", "type"))
    name = node.attrs["name"]
    sig = node.attrs["type"]
    if member.kind == "method":
        direction = node.attrs.get("direction", "in")
        if direction not in ("in", "out"):
            raise CodegenError(where, "arg '%s': direction must be \"in\" or \"out\"" % name)
    else:
        direction = node.attrs.get("direction", "out")
        if direction != "out":
            raise CodegenError(where, "arg '%s': signal arguments have no direction \"%s\""
                               % (name, direction))
    if not IDENT_RE.match(name):
        raise CodegenError(where, "arg '%s': not a valid C identifier (letters, digits and "
                           "'_', starting with a letter)" % name)
    if name in C_KEYWORDS or name in RESERVED:
        raise CodegenError(where, "arg '%s': the name is reserved in generated code; "
                           "choose another" % name)
    if sig not in TYPES:
        raise CodegenError(where, "arg '%s': unsupported type '%s' (supported: %s)"
                           % (name, sig, " ".join(sorted(TYPES))))
    key = False
    for child in node.children:
        cwhere = "%s:%d" % (path, child.line)
        if child.tag != "annotation":
            raise CodegenError(cwhere, "unexpected <%s> in <arg>" % child.tag)
        if member.kind == "signal" and child.attrs.get("name") == KEY_ANNOTATION:
            raise CodegenError(cwhere, "signal %s: arg '%s': signals cannot have key "
                               "arguments (%s is for method calls)"
                               % (member.name, name, KEY_ANNOTATION))
        if direction == "out" and child.attrs.get("name") == KEY_ANNOTATION:
            raise CodegenError(cwhere, "arg '%s': an output cannot be a key argument" % name)
        key = parse_annotation(child, cwhere, True) or key
    dtype = TYPES[sig]
    if key and dtype.key_fmt is None:
        raise CodegenError(where, "arg '%s': type '%s' cannot be a key argument" % (name, sig))
    return Arg(name, dtype, direction, key, where)


def parse_member(node, path, iface):
    where = "%s:%d" % (path, node.line)
    check_attrs(node, where, ("name",), ("name",))
    name = node.attrs["name"]
    if not MEMBER_RE.match(name) or len(name) > 255:
        raise CodegenError(where, "'%s' is not a valid D-Bus member name" % name)
    member = Member(node.tag, name, where)
    member.iface = iface
    for child in node.children:
        cwhere = "%s:%d" % (path, child.line)
        if child.tag == "arg":
            arg = parse_arg(child, path, member)
            (member.outs if arg.direction == "out" and member.kind == "method"
             else member.ins).append(arg)
        elif child.tag == "annotation":
            parse_annotation(child, cwhere, False)
        else:
            raise CodegenError(cwhere, "unexpected <%s> in <%s>" % (child.tag, node.tag))
    seen = {}
    for arg in member.ins + member.outs:
        for n in arg.derived_names():
            if n in seen:
                raise CodegenError(arg.where, "%s %s: arg '%s' clashes with arg '%s' "
                                   "(both need the C name '%s')"
                                   % (member.kind, name, arg.name, seen[n], n))
            seen[n] = arg.name
    return member


def parse_file(path):
    root = read_xml(path)
    where = "%s:%d" % (path, root.line)
    if root.tag != "node":
        raise CodegenError(where, "the root element must be <node>, not <%s>" % root.tag)
    check_attrs(root, where, ("name",), ())
    interfaces = []
    for inode in root.children:
        iwhere = "%s:%d" % (path, inode.line)
        if inode.tag == "node":
            raise CodegenError(iwhere, "nested <node> elements are not supported")
        if inode.tag != "interface":
            raise CodegenError(iwhere, "unexpected <%s> in <node>" % inode.tag)
        check_attrs(inode, iwhere, ("name",), ("name",))
        name = inode.attrs["name"]
        parts = name.split(".")
        if (len(parts) < 2 or len(name) > 255
                or not all(IFACE_ELEMENT_RE.match(p) for p in parts)):
            raise CodegenError(iwhere, "'%s' is not a valid D-Bus interface name" % name)
        iface = Interface(name, iwhere, path)
        members = {}
        for mnode in inode.children:
            mwhere = "%s:%d" % (path, mnode.line)
            if mnode.tag == "annotation":
                parse_annotation(mnode, mwhere, False)
                continue
            if mnode.tag == "property":
                raise CodegenError(mwhere, "properties are not supported")
            if mnode.tag not in ("method", "signal"):
                raise CodegenError(mwhere, "unexpected <%s> in <interface>" % mnode.tag)
            member = parse_member(mnode, path, iface)
            if member.name in members:
                raise CodegenError(mwhere, "duplicate member '%s' in interface %s (first at "
                                   "%s)" % (member.name, name, members[member.name].where))
            members[member.name] = member
            iface.members.append(member)
        interfaces.append(iface)
    return interfaces


def parse_all(paths):
    interfaces = []
    by_name = {}
    by_c = {}
    for path in paths:
        for iface in parse_file(path):
            if iface.name in by_name:
                raise CodegenError(iface.where, "interface %s is already defined at %s"
                                   % (iface.name, by_name[iface.name].where))
            if iface.c in by_c:
                raise CodegenError(iface.where, "interface %s and %s (%s) have the same C "
                                   "name %s" % (iface.name, by_c[iface.c].name,
                                                by_c[iface.c].where, iface.c))
            by_name[iface.name] = iface
            by_c[iface.c] = iface
            interfaces.append(iface)
    # Member C names could still collide across interfaces ("a.b" + "c_d" vs "a.b_c" + "d").
    seen = {}
    for iface in interfaces:
        for m in iface.members:
            if m.c in seen:
                raise CodegenError(m.where, "%s.%s and %s have the same C name %s"
                                   % (iface.name, m.name, seen[m.c], m.c))
            seen[m.c] = "%s.%s (%s)" % (iface.name, m.name, m.where)
    return interfaces
