"""
sbus_codegen_c.py: writes the typed C (one header, one source) for the interfaces that
sbus_codegen_model.py read. Part of sbus_codegen.py; see there for what is generated.
"""

import os
import re

from sbus_codegen_text import (
    wrap, fit, in_params, out_params, values, addresses, locals_for, fields, fields_of,
    check_field, signature, c_string, comment, member_title, WIDTH,
)


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


class Generator:
    def __init__(self, interfaces, inputs, include_name):
        self.interfaces = interfaces
        self.inputs = [os.path.basename(p) for p in inputs]
        self.include_name = include_name
        self.h = []
        self.c = []

    # ---- arguments ----

    @staticmethod
    def new_message(m, target):
        """The sbus_gen_new_call()/_new_signal() call that builds m's message into &msg."""
        I, M = m.iface.c, m.c
        if m.kind == "method":
            head, where = "sbus_gen_new_call(", ["&msg", "destination", "path"]
        else:
            head, where = "sbus_gen_new_signal(", ["&msg", "path"]
        return wrap("    %s%s" % (target, head), where + ["SBUS_IFACE_%s" % I, "SBUS_MEMBER_%s" % M,
                                                        c_string(signature(m.ins))]
                    + values(m.ins), ");")

    # ---- methods: caller side ----

    def gen_builder(self, m):
        """sbus_msg_I_M() for a method, sbus_signal_msg_I_M() for a signal."""
        h, c = self.h, self.c
        if m.kind == "method":
            name = "sbus_msg_%s" % m.c
            params = ["const char *destination", "const char *path"] + in_params(m.ins)
            text = ("The method call, ready to send; NULL when out of memory or when an "
                    "argument is invalid (NULL or non-UTF-8 string, bad bus name or path).")
        else:
            name = "sbus_signal_msg_%s" % m.c
            params = ["const char *path"] + in_params(m.ins)
            text = ("The signal, ready to send; NULL when out of memory or when an argument "
                    "is invalid.")

        h += comment([text])
        h += wrap("DBusMessage *%s(" % name, params, ");")
        h.append("")
        c += wrap("DBusMessage *%s(" % name, params, ")")
        c.append("{")
        c.append("    DBusMessage *msg = NULL;")
        c.append("")
        c += self.new_message(m, "(void)")
        c.append("    return msg;")
        c.append("}")
        c.append("")

    def gen_key(self, m):
        h, c = self.h, self.c
        I, M = m.iface.c, m.c
        keys = [a for a in m.ins if a.key]
        params = ["TALLOC_CTX *mem_ctx", "const char *destination", "const char *path"] \
            + in_params(m.ins)
        h += comment(["The chaining key of a call (see sbus_key_create): its arguments are "
                      + ", ".join(a.name for a in keys) + "; "
                      "':' and '%' in strings are written as %3a and %25. NULL when out of "
                      "memory."])
        h += wrap("char *sbus_key_%s(" % M, params, ");")
        h.append("")

        c += wrap("char *sbus_key_%s(" % M, params, ")")
        c.append("{")
        c.append("    TALLOC_CTX *tmp_ctx;")
        strings = [a for a in keys if a.type.kind in ("string", "path")]
        for a in strings:
            c.append("    const char *%s_key;" % a.name)
        c.append("    char *args;")
        c.append("    char *key = NULL;")
        c.append("")
        c.append("    tmp_ctx = talloc_new(NULL);")
        c.append("    if (tmp_ctx == NULL) {")
        c.append("        return NULL;")
        c.append("    }")
        c.append("")
        for a in strings:
            c.append("    %s_key = sbus_gen_key_string(tmp_ctx, %s);" % (a.name, a.name))
            c.append("    if (%s_key == NULL) {" % a.name)
            c.append("        goto done;")
            c.append("    }")
        if strings:
            c.append("")
        fmt = ":".join(a.type.key_fmt for a in keys)
        # Adjacent literals and PRI macros: "%"PRIu32":%s" and so on.
        fmt_c = '"' + fmt + '"'
        fmt_c = fmt_c.replace('""', '')
        vals = []
        for a in keys:
            if a.type.kind in ("string", "path"):
                vals.append("%s_key" % a.name)
            elif a.type.kind == "bool":
                vals.append('%s ? "true" : "false"' % a.name)
            else:
                vals.append("%s%s" % (a.type.key_cast, a.name))
        c += wrap("    args = talloc_asprintf(", ["tmp_ctx", fmt_c] + vals, ");")
        c.append("    if (args == NULL) {")
        c.append("        goto done;")
        c.append("    }")
        c.append("")
        c += wrap("    key = sbus_key_create(", ["mem_ctx", "destination", "SBUS_IFACE_%s" % I,
                                                "SBUS_MEMBER_%s" % M, "path", "args"], ");")
        c.append("")
        c.append("done:")
        c.append("    talloc_free(tmp_ctx);")
        c.append("    return key;")
        c.append("}")
        c.append("")

    def gen_caller(self, m):
        h, c = self.h, self.c
        I, M = m.iface.c, m.c
        send_params = ["TALLOC_CTX *mem_ctx", "struct sbus_connection *conn",
                       "const char *destination", "const char *path"] + in_params(m.ins)
        raw_params = send_params[:2] + ["int timeout_ms"] + send_params[2:]
        recv_params = ["TALLOC_CTX *mem_ctx", "struct tevent_req *req"] + out_params(m.outs)
        sig = c_string(signature(m.ins))

        text = ["Calls %s.%s on destination at path and waits for the reply (%s)."
                % (m.iface.name, m.name, "chained with identical calls in flight"
                   if m.keyed else "never chained"),
                "Errors from _recv: EINVAL (invalid argument), ENOMEM, the sbus_call_send() "
                "errors, ERR_SBUS_INVALID_ARGS (the reply does not match the definition)."]
        if m.outs:
            text[-1] += (" On success _recv copies the outputs onto mem_ctx; a NULL output "
                         "pointer skips that one.")
        text.append("_raw_send: the same call with its own timeout (0: the default), read "
                    "with sbus_call_recv(); the message is made only when the call is sent.")
        h += comment(text)
        h += wrap("struct tevent_req *sbus_call_%s_send(" % M, send_params, ");")
        h += wrap("errno_t sbus_call_%s_recv(" % M, recv_params, ");")
        h += wrap("struct tevent_req *sbus_call_%s_raw_send(" % M, raw_params, ");")
        h.append("")

        c += wrap("struct tevent_req *sbus_call_%s_raw_send(" % M, raw_params, ")")
        c.append("{")
        key = "NULL"
        if m.keyed:
            c.append("    char *key = NULL;")
            key = "key"
        c.append("    errno_t ret;")
        c.append("")
        c += wrap("    ret = sbus_gen_check_call(", ["destination", "path", sig] + values(m.ins),
                  ");")
        if m.keyed:
            c.append("    if (ret == EOK) {")
            c += wrap("        key = sbus_key_%s(" % M, ["NULL", "destination", "path"]
                      + values(m.ins), ");")
            c.append("        ret = key != NULL ? EOK : ENOMEM;")
            c.append("    }")
        c += wrap("    return sbus_gen_call_raw_send(",
                  ["mem_ctx", "conn", "timeout_ms", "ret", key, "destination", "path",
                   "SBUS_IFACE_%s" % I, "SBUS_MEMBER_%s" % M, sig] + values(m.ins), ");")
        c.append("}")
        c.append("")

        c += wrap("struct tevent_req *sbus_call_%s_send(" % M, send_params, ")")
        c.append("{")
        c.append("    TALLOC_CTX *state;")
        c.append("    struct tevent_req *req;")
        c.append("    struct tevent_req *subreq;")
        c.append("")
        c.append("    req = sbus_gen_call_start(mem_ctx, conn, &state);")
        c.append("    if (req == NULL) {")
        c.append("        return NULL;")
        c.append("    }")
        c += wrap("    subreq = sbus_call_%s_raw_send(" % M,
                  ["state", "conn", "0", "destination", "path"] + values(m.ins), ");")
        c.append("    return sbus_gen_call_started(req, subreq);")
        c.append("}")
        c.append("")

        c += wrap("errno_t sbus_call_%s_recv(" % M, recv_params, ")")
        c.append("{")
        c += wrap("    return sbus_gen_call_recv(", ["mem_ctx", "req", c_string(signature(m.outs))]
                  + ["_" + v for v in values(m.outs)], ");")
        c.append("}")
        c.append("")

    # ---- methods: server side ----

    def gen_server(self, m):
        h, c = self.h, self.c
        M = m.c
        sync_t = "sbus_handler_%s_fn" % M
        send_t = "sbus_handler_%s_send_fn" % M
        recv_t = "sbus_handler_%s_recv_fn" % M

        h += comment([
            "Handlers of %s.%s. The synchronous one and _recv set the outputs only when they "
            "return EOK; strings may live on mem_ctx, which lasts until the reply is sent. "
            "Another return value is sent back as an error. data is the table entry's data."
            % (m.iface.name, m.name)])
        h += wrap("typedef errno_t (*%s)(" % sync_t,
                  ["TALLOC_CTX *mem_ctx", "struct sbus_request *sbus_req", "void *data"]
                  + in_params(m.ins) + out_params(m.outs), ");")
        h += wrap("typedef struct tevent_req *(*%s)(" % send_t,
                  ["TALLOC_CTX *mem_ctx", "struct tevent_context *ev",
                   "struct sbus_request *sbus_req", "void *data"] + in_params(m.ins), ");")
        h += wrap("typedef errno_t (*%s)(" % recv_t,
                  ["TALLOC_CTX *mem_ctx", "struct tevent_req *req"] + out_params(m.outs), ");")
        h.append("")
        h.append("/* How sbus_gen_invoke() calls these handlers. */")
        h.append("extern const struct sbus_gen_method sbus_gen_method_%s;" % M)
        h.append("")
        for kind, params in (("SYNC", "HANDLER, DATA"), ("ASYNC", "SEND, RECV, DATA")):
            h.append("#define SBUS_METHOD_%s_%s(%s) { \\" % (kind, M, params))
            h.append("    .member = SBUS_MEMBER_%s, \\" % M)
            h.append("    .invoker = sbus_gen_invoke, \\")
            h.append("    .gen = &sbus_gen_method_%s, \\" % M)
            h.append("    .type = SBUS_HANDLER_%s, \\" % kind)
            if kind == "SYNC":
                h += check_field("sync", "HANDLER", sync_t)
            else:
                h += check_field("send", "SEND", send_t)
                h += check_field("recv", "RECV", recv_t)
            h.append("    .data = (DATA) \\")
            h.append("}")
            h.append("")

        # The arguments travel in one struct: inputs, then outputs.
        args_t = "struct sbus_args_%s" % M
        if m.ins or m.outs:
            c.append("%s {" % args_t)
            c += fields(m.ins + m.outs)
            c.append("};")
            c.append("")
        thunk = ["struct sbus_request *sbus_req", "const struct sbus_method *method"]

        def open_thunk(ret_type, name, params, uses_args, fn_t=None, field=None):
            """Opens a thunk: its struct view of _args and, to call a handler, the handler
            cast back from method->field."""
            c.extend(wrap("static %s%s(" % (ret_type, name), params, ")"))
            c.append("{")
            if uses_args:
                c.append("    %s *args = _args;" % args_t)
            if fn_t is not None:
                c.append("    %s handler;" % fn_t)
                c.append("")
                c.append("    handler = (%s)method->%s;" % (fn_t, field))
            else:
                c.append("")

        if m.ins:
            open_thunk("errno_t ", "sbus_read_%s" % M,
                       ["struct sbus_request *sbus_req", "void *_args"], True)
            c += wrap("    return sbus_gen_read_request(", ["sbus_req", c_string(signature(m.ins))]
                      + fields_of(m.ins, "&"), ");")
            c.append("}")
            c.append("")
        if m.outs:
            open_thunk("errno_t ", "sbus_write_%s" % M,
                       ["DBusMessage *call", "DBusMessage **_reply", "void *_args"], True)
            c += wrap("    return sbus_gen_new_reply(", ["_reply", "call",
                                                         c_string(signature(m.outs))]
                      + fields_of(m.outs, ""), ");")
            c.append("}")
            c.append("")

        has_args = bool(m.ins or m.outs)
        open_thunk("errno_t ", "sbus_sync_%s" % M, thunk + ["void *_args"], has_args,
                   sync_t, "sync")
        c += wrap("    return handler(", ["sbus_req", "sbus_req", "method->data"]
                  + fields_of(m.ins, "") + fields_of(m.outs, "&"), ");")
        c.append("}")
        c.append("")
        open_thunk("struct tevent_req *", "sbus_send_%s" % M, thunk + ["void *_args"],
                   bool(m.ins), send_t, "send")
        c += wrap("    return handler(", ["sbus_req", "sbus_connection_get_ev(sbus_req->conn)",
                                          "sbus_req", "method->data"]
                  + fields_of(m.ins, ""), ");")
        c.append("}")
        c.append("")
        open_thunk("errno_t ", "sbus_recv_%s" % M,
                   thunk + ["struct tevent_req *subreq", "void *_args"], bool(m.outs),
                   recv_t, "recv")
        c += wrap("    return handler(", ["sbus_req", "subreq"] + fields_of(m.outs, "&"), ");")
        c.append("}")
        c.append("")

        c.append("const struct sbus_gen_method sbus_gen_method_%s = {" % M)
        c.append("    .interface = SBUS_IFACE_%s," % m.iface.c)
        c.append("    .member = SBUS_MEMBER_%s," % M)
        c.append("    .args_size = %s," % ("sizeof(%s)" % args_t if has_args else "0"))
        c.append("    .read_in = %s," % ("sbus_read_%s" % M if m.ins else "NULL"))
        c.append("    .write_out = %s," % ("sbus_write_%s" % M if m.outs else "NULL"))
        c.append("    .sync = sbus_sync_%s," % M)
        c.append("    .send = sbus_send_%s," % M)
        c.append("    .recv = sbus_recv_%s," % M)
        c.append("};")
        c.append("")

    # ---- signals ----

    def gen_signal(self, m):
        h, c = self.h, self.c
        I, M = m.iface.c, m.c
        fn_t = "sbus_signal_%s_fn" % M
        params = ["const char *path"] + in_params(m.ins)

        self.gen_builder(m)
        eparams = ["struct sbus_connection *conn"] + params
        h += comment(["Emits the signal from path. Errors: EINVAL, ENOMEM, "
                      "sbus_emit_signal()'s errors."])
        h += wrap("errno_t sbus_emit_%s(" % M, eparams, ");")
        h.append("")
        c += wrap("errno_t sbus_emit_%s(" % M, eparams, ")")
        c.append("{")
        c.append("    DBusMessage *msg = NULL;")
        c.append("    errno_t ret;")
        c.append("")
        c += self.new_message(m, "ret = ")
        c.append("    return sbus_gen_emit(conn, ret, msg);")
        c.append("}")
        c.append("")

        h += comment(["Listener of the signal. The arguments (string arrays included) live "
                      "until it returns; it must not free sbus_req."])
        h += wrap("typedef void (*%s)(" % fn_t, ["struct sbus_request *sbus_req", "void *data"]
                  + in_params(m.ins), ");")
        h += wrap("void sbus_invoke_signal_%s(" % M, ["struct sbus_request *sbus_req",
                                                     "const struct sbus_listener *listener"],
                  ");")
        h.append("")
        h.append("#define SBUS_LISTENER_%s(HANDLER, DATA) { \\" % M)
        h.append("    .interface = SBUS_IFACE_%s, \\" % I)
        h.append("    .member = SBUS_MEMBER_%s, \\" % M)
        h.append("    .path = NULL, \\")
        h.append("    .invoker = sbus_invoke_signal_%s, \\" % M)
        h += check_field("handler", "HANDLER", fn_t)
        h.append("    .data = (DATA) \\")
        h.append("}")
        h.append("")

        c += wrap("void sbus_invoke_signal_%s(" % M, ["struct sbus_request *sbus_req",
                                                     "const struct sbus_listener *listener"],
                  ")")
        c.append("{")
        c.append("    %s handler;" % fn_t)
        c += locals_for(m.ins)
        c.append("    errno_t ret;")
        c.append("")
        c.append("    handler = (%s)listener->handler;" % fn_t)
        c += wrap("    ret = sbus_gen_read_request(", ["sbus_req", c_string(signature(m.ins))]
                  + addresses(m.ins), ");")
        c.append("    if (ret == EOK && handler != NULL) {")
        c += wrap("        handler(", ["sbus_req", "listener->data"] + values(m.ins), ");")
        c.append("    }")
        c.append("    talloc_free(sbus_req);")
        c.append("}")
        c.append("")

    # ---- introspection ----

    def introspection(self, iface):
        out = ['<interface name="%s">' % iface.name]
        for m in iface.members:
            args = m.ins + m.outs
            if not args:
                out.append('  <%s name="%s"/>' % (m.kind, m.name))
                continue
            out.append('  <%s name="%s">' % (m.kind, m.name))
            for a in args:
                direction = ' direction="%s"' % a.direction if m.kind == "method" else ""
                out.append('    <arg name="%s" type="%s"%s/>' % (a.name, a.type.sig, direction))
            out.append("  </%s>" % m.kind)
        out.append("</interface>")
        return out

    # ---- files ----

    def generate(self):
        h, c = self.h, self.c
        guard = re.sub(r"[^A-Za-z0-9]", "_", self.include_name).upper()
        banner = ["Generated by sbus_codegen.py from %s; do not edit." % ", ".join(self.inputs)]

        h += comment(banner + [
            "",
            "Typed bus code for the interfaces below, on top of src/sbus/sbus.h and "
            "src/sbus/sbus_gen.h. For interface I "
            "(dots become underscores) and member M:",
            "  callers    sbus_msg_I_M(), sbus_call_I_M_send()/_recv()/_raw_send(),",
            "             sbus_key_I_M() for keyed methods",
            "  servers    sbus_handler_I_M_fn (or _send_fn + _recv_fn) in a table built with",
            "             SBUS_METHOD_SYNC_I_M(handler, data) / "
            "SBUS_METHOD_ASYNC_I_M(send, recv, data)",
            "  emitters   sbus_signal_msg_I_M(), sbus_emit_I_M()",
            "  listeners  sbus_signal_I_M_fn in a table built with SBUS_LISTENER_I_M(handler, "
            "data)",
            "Argument types: s, o: const char *; as: NULL-terminated const char **; ay, au: "
            "const uint8_t * / const uint32_t * plus uint32_t n_<name>; b: bool; "
            "y, n, q, i, u, x, t: (u)intN_t. "
            "Outputs are pointers to these."])
        h.append("#ifndef %s" % guard)
        h.append("#define %s" % guard)
        h.append("")
        h.append("#include <stdbool.h>")
        h.append("#include <stdint.h>")
        h.append("#include <dbus/dbus.h>")
        h.append("#include <talloc.h>")
        h.append("#include <tevent.h>")
        h.append("")
        h.append('#include "util/sss_errors.h"')
        h.append('#include "sbus/sbus.h"')
        h.append('#include "sbus/sbus_gen.h"')
        h.append("")

        body_start = len(c)
        for iface in self.interfaces:
            title = "%s (%s)" % (iface.name, os.path.basename(iface.xml_file))
            rule = "/* ==== %s %s */" % (title, "=" * max(4, WIDTH - 12 - len(title)))
            h.append(rule)
            h.append("")
            h.append("#define SBUS_IFACE_%s %s" % (iface.c, c_string(iface.name)))
            for m in iface.members:
                h.append("#define SBUS_MEMBER_%s %s" % (m.c, c_string(m.name)))
            h.append("")
            h.append("/* The interface's introspection XML. */")
            h.append("extern const char sbus_introspect_%s[];" % iface.c)
            h.append("")
            c.append(rule)
            c.append("")
            c.append("const char sbus_introspect_%s[] =" % iface.c)
            lines = self.introspection(iface)
            for i, line in enumerate(lines):
                c.append('    %s\\n"%s' % (c_string(line)[:-1],
                                        ";" if i == len(lines) - 1 else ""))
            c.append("")

            for m in iface.members:
                h += comment(["-- " + member_title(m) + (" [keyed]" if m.keyed else "")])
                h.append("")
                c += comment(["-- " + member_title(m)])
                c.append("")
                if m.kind == "method":
                    self.gen_builder(m)
                    if m.keyed:
                        self.gen_key(m)
                    self.gen_caller(m)
                    self.gen_server(m)
                else:
                    self.gen_signal(m)

        h.append("#endif /* %s */" % guard)
        h[:] = [piece for line in h for piece in fit(line)]

        body = c[body_start:]
        del c[body_start:]
        c += comment(banner + ["", "See %s for what is here." % self.include_name])
        c.append("#include <inttypes.h>")
        c.append("")
        c.append('#include "util/util.h"')
        c.append('#include "%s"' % self.include_name)
        c.append("")
        c += body
        c[:] = [piece for line in c for piece in fit(line)]
        while c and c[-1] == "":
            c.pop()
        return "\n".join(h) + "\n", "\n".join(c) + "\n"
