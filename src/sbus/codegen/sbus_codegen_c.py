"""
sbus_codegen_c.py: writes the typed C (one header, one source) for the interfaces that
sbus_codegen_model.py read. Part of sbus_codegen.py; see there for what is generated.
"""

import os
import re

from sbus_codegen_text import (
    wrap, fit, in_params, out_params, values, addresses, locals_for,
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

    # ---- per argument list: validate + append, parse ----

    def gen_append(self, fname, args):
        """static errno_t fname(DBusMessage *msg, <values>): EINVAL for a value libdbus would
        refuse, ENOMEM when appending fails."""
        c = self.c
        c += wrap("static errno_t %s(" % fname, ["DBusMessage *msg"] + in_params(args), ")")
        c.append("{")
        for a in args:
            if a.type.kind == "bool":
                c.append("    dbus_bool_t %s_wire = %s ? TRUE : FALSE;" % (a.name, a.name))
            if a.type.kind == "strv":
                c.append("    int %s_count;" % a.name)
        c.append("    dbus_bool_t ok;")
        c.append("")
        checks = []
        for a in args:
            k = a.type.kind
            if k == "string":
                checks.append("!%s(%s)" % ("sbus_gen_valid_string", a.name))
            elif k == "path":
                checks.append("!%s(%s)" % ("sbus_gen_valid_path", a.name))
            elif k == "strv":
                "sbus_gen_valid_string"
                checks.append("!%s(%s, &%s_count)" % ("sbus_gen_valid_strv",
                                                      a.name, a.name))
            elif k == "uarray":
                checks.append("!%s(%s, n_%s)" % ("sbus_gen_valid_uarray",
                                                 a.name, a.name))
        if checks:
            c.append("    if (" + checks[0])
            for chk in checks[1:]:
                c.append("            || " + chk)
            c[-1] += ") {"
            c.append("        return EINVAL;")
            c.append("    }")
            c.append("")
        items = []
        for a in args:
            k = a.type.kind
            if k == "bool":
                items.append("%s, &%s_wire" % (a.type.const, a.name))
            elif k == "strv":
                items.append("DBUS_TYPE_ARRAY, %s, &%s, %s_count" % (a.type.const, a.name,
                                                                   a.name))
            elif k == "uarray":
                items.append("DBUS_TYPE_ARRAY, %s, &%s, (int)n_%s" % (a.type.const, a.name,
                                                                    a.name))
            else:
                items.append("%s, &%s" % (a.type.const, a.name))
        c.append("    ok = dbus_message_append_args(msg,")
        pad = " " * len("    ok = dbus_message_append_args(")
        for it in items:
            c.append(pad + it + ",")
        c.append(pad + "DBUS_TYPE_INVALID);")
        c.append("    return ok ? EOK : ENOMEM;")
        c.append("}")
        c.append("")

    def gen_parse(self, fname, args):
        """static errno_t fname(TALLOC_CTX *mem_ctx, DBusMessage *msg, <pointers>): reads the
        arguments of msg. Strings and uint32_t arrays point into msg; string arrays are
        copied onto mem_ctx. ERR_SBUS_INVALID_ARGS when the signature is not exactly the
        expected one."""
        c = self.c
        c += wrap("static errno_t %s(" % fname,
                  ["TALLOC_CTX *mem_ctx", "DBusMessage *msg"] + out_params(args), ")")
        c.append("{")
        c.append("    DBusError dbus_err;")
        strvs = [a for a in args if a.type.kind == "strv"]
        for a in args:
            if a.type.kind == "bool":
                c.append("    dbus_bool_t %s_wire;" % a.name)
            elif a.type.kind == "strv":
                c.append("    char **%s_raw;" % a.name)
                c.append("    int %s_count;" % a.name)
            elif a.type.kind == "uarray":
                c.append("    int %s_count;" % a.name)
        if strvs:
            c.append("    bool copied;")
        c.append("    dbus_bool_t ok;")
        c.append("    errno_t ret;")
        c.append("")
        c.append("    if (!dbus_message_has_signature(msg, %s)) {" % c_string(signature(args)))
        c.append("        return ERR_SBUS_INVALID_ARGS;")
        c.append("    }")
        c.append("")
        items = []
        for a in args:
            k = a.type.kind
            if k == "bool":
                items.append("%s, &%s_wire" % (a.type.const, a.name))
            elif k == "strv":
                items.append("DBUS_TYPE_ARRAY, %s, &%s_raw, &%s_count" % (a.type.const,
                                                                        a.name, a.name))
            elif k == "uarray":
                items.append("DBUS_TYPE_ARRAY, %s, _%s, &%s_count" % (a.type.const, a.name,
                                                                    a.name))
            else:
                items.append("%s, _%s" % (a.type.const, a.name))
        c.append("    dbus_error_init(&dbus_err);")
        c.append("    ok = dbus_message_get_args(msg, &dbus_err,")
        pad = " " * len("    ok = dbus_message_get_args(")
        for it in items:
            c.append(pad + it + ",")
        c.append(pad + "DBUS_TYPE_INVALID);")
        c.append("    if (!ok) {")
        c.append("        ret = dbus_error_has_name(&dbus_err, DBUS_ERROR_NO_MEMORY)")
        c.append("              ? ENOMEM : ERR_SBUS_INVALID_ARGS;")
        c.append("        dbus_error_free(&dbus_err);")
        c.append("        return ret;")
        c.append("    }")
        c.append("")
        if strvs:
            c.append("    /* libdbus allocated the string arrays; each is released here. */")
            first = True
            for a in strvs:
                call = "%s(mem_ctx, %s_raw, %s_count, _%s)" % ("sbus_gen_take_strv",
                                                              a.name, a.name, a.name)
                if first:
                    c.append("    copied = %s;" % call)
                else:
                    c.append("    copied = %s && copied;" % call)
                first = False
            c.append("    if (!copied) {")
            c.append("        return ENOMEM;")
            c.append("    }")
            c.append("")
        for a in args:
            if a.type.kind == "bool":
                c.append("    *_%s = (%s_wire != FALSE);" % (a.name, a.name))
            elif a.type.kind == "uarray":
                c.append("    *_n_%s = (uint32_t)%s_count;" % (a.name, a.name))
        if any(a.type.kind in ("bool", "uarray") for a in args):
            c.append("")
        c.append("    return EOK;")
        c.append("}")
        c.append("")

    # ---- methods: caller side ----

    def gen_builder(self, m):
        h, c = self.h, self.c
        I, M = m.iface.c, m.c
        params = ["const char *destination", "const char *path"] + in_params(m.ins)
        if m.ins:
            self.gen_append("sbus_append_%s_in" % M, m.ins)

        c += wrap("static errno_t sbus_build_%s(" % M, params + ["DBusMessage **_msg"], ")")
        c.append("{")
        c.append("    DBusMessage *msg;")
        if m.ins:
            c.append("    errno_t ret;")
        c.append("")
        c.append("    if (!%s(destination) || !%s(path)) {"
                 % ("sbus_gen_valid_bus_name", "sbus_gen_valid_path"))
        c.append("        return EINVAL;")
        c.append("    }")
        c.append("")
        c += wrap("    msg = dbus_message_new_method_call(",
                  ["destination", "path", "SBUS_IFACE_%s" % I, "SBUS_MEMBER_%s" % M], ");")
        c.append("    if (msg == NULL) {")
        c.append("        return ENOMEM;")
        c.append("    }")
        c.append("")
        if m.ins:
            c += wrap("    ret = sbus_append_%s_in(" % M, ["msg"] + values(m.ins), ");")
            c.append("    if (ret != EOK) {")
            c.append("        dbus_message_unref(msg);")
            c.append("        return ret;")
            c.append("    }")
            c.append("")
        c.append("    *_msg = msg;")
        c.append("    return EOK;")
        c.append("}")
        c.append("")

        h += comment(["The method call, ready to send; NULL when out of memory or when an "
                      "argument is invalid (NULL or non-UTF-8 string, bad bus name or path)."])
        h += wrap("DBusMessage *sbus_msg_%s(" % M, params, ");")
        h.append("")
        c += wrap("DBusMessage *sbus_msg_%s(" % M, params, ")")
        c.append("{")
        c.append("    DBusMessage *msg = NULL;")
        c.append("")
        c += wrap("    (void)sbus_build_%s(" % M, ["destination", "path"] + values(m.ins)
                  + ["&msg"], ");")
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
            c.append("    %s_key = %s(tmp_ctx, %s);" % (a.name, "sbus_gen_key_string",
                                                       a.name))
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
        M = m.c
        state = "sbus_call_%s_state" % M
        send_params = ["TALLOC_CTX *mem_ctx", "struct sbus_connection *conn",
                       "const char *destination", "const char *path"] + in_params(m.ins)
        recv_params = ["TALLOC_CTX *mem_ctx", "struct tevent_req *req"] + out_params(m.outs)

        text = ["Calls %s.%s on destination at path and waits for the reply (%s)."
                % (m.iface.name, m.name, "chained with identical calls in flight"
                   if m.keyed else "never chained"),
                "Errors from _recv: EINVAL (invalid argument), ENOMEM, the sbus_call_send() "
                "errors, ERR_SBUS_INVALID_ARGS (the reply does not match the definition)."]
        if m.outs:
            text[-1] += (" On success _recv copies the outputs onto mem_ctx; a NULL output "
                         "pointer skips that one.")
        h += comment(text)
        h += wrap("struct tevent_req *sbus_call_%s_send(" % M, send_params, ");")
        h += wrap("errno_t sbus_call_%s_recv(" % M, recv_params, ");")
        h.append("")

        c.append("struct %s {" % state)
        c.append("    DBusMessage *reply;")
        c.append("};")
        c.append("")
        c.append("static void sbus_call_%s_done(struct tevent_req *subreq);" % M)
        c.append("")
        c += wrap("struct tevent_req *sbus_call_%s_send(" % M, send_params, ")")
        c.append("{")
        c.append("    struct %s *state;" % state)
        c.append("    struct tevent_req *req;")
        c.append("    struct tevent_req *subreq;")
        c.append("    DBusMessage *msg;")
        if m.keyed:
            c.append("    char *key;")
        c.append("    errno_t ret;")
        c.append("")
        c.append("    if (conn == NULL) {")
        c.append('        DEBUG(SSSDBG_CRIT_FAILURE, "No connection\\n");')
        c.append("        return NULL;")
        c.append("    }")
        c.append("")
        c.append("    req = tevent_req_create(mem_ctx, &state, struct %s);" % state)
        c.append("    if (req == NULL) {")
        c.append("        return NULL;")
        c.append("    }")
        c.append("")
        c += wrap("    ret = sbus_build_%s(" % M, ["destination", "path"] + values(m.ins)
                  + ["&msg"], ");")
        c.append("    if (ret != EOK) {")
        c.append("        goto immediately;")
        c.append("    }")
        c.append("")
        key = "NULL"
        if m.keyed:
            c += wrap("    key = sbus_key_%s(" % M, ["state", "destination", "path"]
                      + values(m.ins), ");")
            c.append("    if (key == NULL) {")
            c.append("        dbus_message_unref(msg);")
            c.append("        ret = ENOMEM;")
            c.append("        goto immediately;")
            c.append("    }")
            c.append("")
            key = "key"
        c.append("    subreq = sbus_call_send(state, conn, msg, %s, 0);" % key)
        c.append("    if (subreq == NULL) {")
        c.append("        ret = ENOMEM;")
        c.append("        goto immediately;")
        c.append("    }")
        c.append("    tevent_req_set_callback(subreq, sbus_call_%s_done, req);" % M)
        c.append("    return req;")
        c.append("")
        c.append("immediately:")
        c.append("    return sss_req_post(req, sbus_connection_get_ev(conn), ret);")
        c.append("}")
        c.append("")

        c.append("static void sbus_call_%s_done(struct tevent_req *subreq)" % M)
        c.append("{")
        c.append("    struct tevent_req *req;")
        c.append("    struct %s *state;" % state)
        c.append("    errno_t ret;")
        c.append("")
        c.append("    req = tevent_req_callback_data(subreq, struct tevent_req);")
        c += wrap("    state = tevent_req_data(", ["req", "struct %s" % state], ");")
        c.append("")
        c.append("    ret = sbus_call_recv(state, subreq, &state->reply);")
        c.append("    talloc_free(subreq);")
        c.append("    if (ret != EOK) {")
        c.append("        tevent_req_error(req, ret);")
        c.append("        return;")
        c.append("    }")
        c.append("    tevent_req_done(req);")
        c.append("}")
        c.append("")

        c += wrap("errno_t sbus_call_%s_recv(" % M, recv_params, ")")
        c.append("{")
        c.append("    struct %s *state;" % state)
        state_assign = wrap("    state = tevent_req_data(", ["req", "struct %s" % state], ");")
        if not m.outs:
            c.append("")
            c += state_assign
            c.append("    TEVENT_REQ_RETURN_ON_ERROR(req);")
            c.append("")
            c.append("    return %s(state->reply);" % "sbus_gen_no_args")
            c.append("}")
            c.append("")
            return
        allocated = [a for a in m.outs if a.type.kind in ("string", "path", "strv", "uarray")]
        if allocated:
            c.append("    TALLOC_CTX *tmp_ctx;")
        c += locals_for(m.outs)
        c.append("    errno_t ret;")
        c.append("")
        c += state_assign
        c.append("    TEVENT_REQ_RETURN_ON_ERROR(req);")
        c.append("")
        if allocated:
            c.append("    tmp_ctx = talloc_new(NULL);")
            c.append("    if (tmp_ctx == NULL) {")
            c.append("        return ENOMEM;")
            c.append("    }")
            c.append("")
            pctx = "tmp_ctx"
        else:
            pctx = "state"
        c += wrap("    ret = sbus_parse_%s_out(" % M, [pctx, "state->reply"]
                  + addresses(m.outs), ");")
        c.append("    if (ret != EOK) {")
        c.append("        goto done;" if allocated else "        return ret;")
        c.append("    }")
        c.append("")
        copies = [a for a in m.outs if a.type.kind in ("string", "path", "uarray")]
        if copies:
            c.append("    /* The strings and arrays point into the reply; copy them. */")
            for a in copies:
                if a.type.kind == "uarray":
                    c.append("    if (n_%s > 0) {" % a.name)
                    c.append("        %s = talloc_memdup(tmp_ctx, %s, n_%s * sizeof(uint32_t));"
                             % (a.name, a.name, a.name))
                    c.append("        if (%s == NULL) {" % a.name)
                    c.append("            ret = ENOMEM;")
                    c.append("            goto done;")
                    c.append("        }")
                    c.append("    }")
                else:
                    c.append("    %s = talloc_strdup(tmp_ctx, %s);" % (a.name, a.name))
                    c.append("    if (%s == NULL) {" % a.name)
                    c.append("        ret = ENOMEM;")
                    c.append("        goto done;")
                    c.append("    }")
            c.append("")
        for a in m.outs:
            c.append("    if (_%s != NULL) {" % a.name)
            if a.type.kind in ("string", "path", "strv", "uarray"):
                c.append("        *_%s = talloc_steal(mem_ctx, %s);" % (a.name, a.name))
            else:
                c.append("        *_%s = %s;" % (a.name, a.name))
            c.append("    }")
            if a.type.kind == "uarray":
                c.append("    if (_n_%s != NULL) {" % a.name)
                c.append("        *_n_%s = n_%s;" % (a.name, a.name))
                c.append("    }")
        if allocated:
            c.append("    ret = EOK;")
            c.append("")
            c.append("done:")
            c.append("    talloc_free(tmp_ctx);")
            c.append("    return ret;")
        else:
            c.append("    return EOK;")
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
        h += wrap("void sbus_invoke_%s(" % M, ["struct sbus_request *sbus_req",
                                              "const struct sbus_method *method"], ");")
        h.append("")
        h.append("#define SBUS_METHOD_SYNC_%s(HANDLER, DATA) { \\" % M)
        h.append("    .member = SBUS_MEMBER_%s, \\" % M)
        h.append("    .invoker = sbus_invoke_%s, \\" % M)
        h.append("    .type = SBUS_HANDLER_SYNC, \\")
        h += check_field("sync", "HANDLER", sync_t)
        h.append("    .data = (DATA) \\")
        h.append("}")
        h.append("")
        h.append("#define SBUS_METHOD_ASYNC_%s(SEND, RECV, DATA) { \\" % M)
        h.append("    .member = SBUS_MEMBER_%s, \\" % M)
        h.append("    .invoker = sbus_invoke_%s, \\" % M)
        h.append("    .type = SBUS_HANDLER_ASYNC, \\")
        h += check_field("send", "SEND", send_t)
        h += check_field("recv", "RECV", recv_t)
        h.append("    .data = (DATA) \\")
        h.append("}")
        h.append("")

        # The reply.
        if m.outs:
            self.gen_append("sbus_append_%s_out" % M, m.outs)
            reply_fn = "sbus_reply_%s" % M
            c += wrap("static void %s(" % reply_fn, ["struct sbus_request *sbus_req"]
                      + in_params(m.outs), ")")
            c.append("{")
            c.append("    DBusMessage *reply;")
            c.append("    errno_t ret;")
            c.append("")
            c.append("    reply = dbus_message_new_method_return(sbus_req->message);")
            c.append("    if (reply == NULL) {")
            c.append("        sbus_request_reply_error(sbus_req, ENOMEM);")
            c.append("        return;")
            c.append("    }")
            c.append("")
            c += wrap("    ret = sbus_append_%s_out(" % M, ["reply"] + values(m.outs), ");")
            c.append("    if (ret != EOK) {")
            c += wrap("        DEBUG(", ["SSSDBG_CRIT_FAILURE",
                                            '"Cannot send the outputs of %s.%s: %s\\n"',
                                            "SBUS_IFACE_%s" % m.iface.c, "SBUS_MEMBER_%s" % M,
                                            "sss_strerror(ret)"], ");")
            c.append("        dbus_message_unref(reply);")
            c.append("        sbus_request_reply_error(sbus_req, ret == ENOMEM ? ENOMEM "
                     ": ERR_INTERNAL);")
            c.append("        return;")
            c.append("    }")
            c.append("    sbus_request_reply(sbus_req, reply);")
            c.append("}")
            c.append("")
            reply_call = wrap("    %s(" % reply_fn, ["sbus_req"] + values(m.outs), ");")
        else:
            "sbus_gen_reply_empty"
            reply_call = ["    sbus_gen_reply_empty(sbus_req);"]

        # The asynchronous handler's callback.
        "sbus_gen_invoke_state"
        c.append("static void sbus_invoke_%s_done(struct tevent_req *subreq)" % M)
        c.append("{")
        c.append("    struct sbus_gen_invoke_state *state;")
        c.append("    struct sbus_request *sbus_req;")
        c.append("    %s recv_fn;" % recv_t)
        c += locals_for(m.outs)
        c.append("    errno_t ret;")
        c.append("")
        c.append("    state = tevent_req_callback_data(subreq, struct sbus_gen_invoke_state);")
        c.append("    sbus_req = state->sbus_req;")
        c.append("    recv_fn = (%s)state->method->recv;" % recv_t)
        c.append("")
        c.append("    /* subreq hangs off sbus_req and goes with it when the reply is sent. */")
        c += wrap("    ret = recv_fn(", ["sbus_req", "subreq"] + addresses(m.outs), ");")
        c.append("    if (ret != EOK) {")
        c.append("        sbus_request_reply_error(sbus_req, ret);")
        c.append("        return;")
        c.append("    }")
        c.append("")
        c += reply_call
        c.append("}")
        c.append("")

        # The invoker.
        c += wrap("void sbus_invoke_%s(" % M, ["struct sbus_request *sbus_req",
                                              "const struct sbus_method *method"], ")")
        c.append("{")
        c.append("    struct sbus_gen_invoke_state *state;")
        c.append("    %s sync_fn;" % sync_t)
        c.append("    %s send_fn;" % send_t)
        c.append("    struct tevent_req *subreq;")
        c += locals_for(m.ins)
        c += locals_for(m.outs)
        c.append("    errno_t ret;")
        c.append("")
        if m.ins:
            c += wrap("    ret = sbus_parse_%s_in(" % M, ["sbus_req", "sbus_req->message"]
                      + addresses(m.ins), ");")
        else:
            c.append("    ret = %s(sbus_req->message);" % "sbus_gen_no_args")
        c.append("    if (ret != EOK) {")
        c.append("        %s(sbus_req, %s);" % ("sbus_gen_log_bad_args",
                                                 c_string(signature(m.ins))))
        c.append("        sbus_request_reply_error(sbus_req, ret);")
        c.append("        return;")
        c.append("    }")
        c.append("")
        c.append("    switch (method->type) {")
        c.append("    case SBUS_HANDLER_SYNC:")
        c.append("        sync_fn = (%s)method->sync;" % sync_t)
        c.append("        if (sync_fn == NULL) {")
        c.append("            break;")
        c.append("        }")
        c += wrap("        ret = sync_fn(", ["sbus_req", "sbus_req", "method->data"]
                  + values(m.ins) + addresses(m.outs), ");")
        c.append("        if (ret != EOK) {")
        c.append("            sbus_request_reply_error(sbus_req, ret);")
        c.append("            return;")
        c.append("        }")
        c += ["    " + l for l in reply_call]
        c.append("        return;")
        c.append("    case SBUS_HANDLER_ASYNC:")
        c.append("        send_fn = (%s)method->send;" % send_t)
        c.append("        if (send_fn == NULL || method->recv == NULL) {")
        c.append("            break;")
        c.append("        }")
        c.append("        state = sbus_gen_invoke_state_create(sbus_req, method);")
        c.append("        if (state == NULL) {")
        c.append("            sbus_request_reply_error(sbus_req, ENOMEM);")
        c.append("            return;")
        c.append("        }")
        c += wrap("        subreq = send_fn(", ["sbus_req", "sbus_connection_get_ev(sbus_req->conn)",
                                                "sbus_req", "method->data"] + values(m.ins),
                  ");")
        c.append("        if (subreq == NULL) {")
        c.append("            sbus_request_reply_error(sbus_req, ENOMEM);")
        c.append("            return;")
        c.append("        }")
        c.append("        tevent_req_set_callback(subreq, sbus_invoke_%s_done, state);" % M)
        c.append("        return;")
        c.append("    }")
        c.append("")
        c += wrap("    DEBUG(", ["SSSDBG_CRIT_FAILURE", '"Bad table entry for %s.%s\\n"',
                                "SBUS_IFACE_%s" % m.iface.c, "SBUS_MEMBER_%s" % M], ");")
        c.append("    sbus_request_reply_error(sbus_req, ERR_INTERNAL);")
        c.append("}")
        c.append("")

    # ---- signals ----

    def gen_signal(self, m):
        h, c = self.h, self.c
        I, M = m.iface.c, m.c
        fn_t = "sbus_signal_%s_fn" % M
        params = ["const char *path"] + in_params(m.ins)

        if m.ins:
            self.gen_append("sbus_append_%s" % M, m.ins)
            self.gen_parse("sbus_parse_%s" % M, m.ins)

        c += wrap("static errno_t sbus_build_signal_%s(" % M, params + ["DBusMessage **_msg"],
                  ")")
        c.append("{")
        c.append("    DBusMessage *msg;")
        if m.ins:
            c.append("    errno_t ret;")
        c.append("")
        c.append("    if (!%s(path)) {" % "sbus_gen_valid_path")
        c.append("        return EINVAL;")
        c.append("    }")
        c.append("")
        c.append("    msg = dbus_message_new_signal(path, SBUS_IFACE_%s, SBUS_MEMBER_%s);"
                 % (I, M))
        c.append("    if (msg == NULL) {")
        c.append("        return ENOMEM;")
        c.append("    }")
        c.append("")
        if m.ins:
            c += wrap("    ret = sbus_append_%s(" % M, ["msg"] + values(m.ins), ");")
            c.append("    if (ret != EOK) {")
            c.append("        dbus_message_unref(msg);")
            c.append("        return ret;")
            c.append("    }")
            c.append("")
        c.append("    *_msg = msg;")
        c.append("    return EOK;")
        c.append("}")
        c.append("")

        h += comment(["The signal, ready to send; NULL when out of memory or when an argument "
                      "is invalid."])
        h += wrap("DBusMessage *sbus_signal_msg_%s(" % M, params, ");")
        h.append("")
        c += wrap("DBusMessage *sbus_signal_msg_%s(" % M, params, ")")
        c.append("{")
        c.append("    DBusMessage *msg = NULL;")
        c.append("")
        c += wrap("    (void)sbus_build_signal_%s(" % M, ["path"] + values(m.ins) + ["&msg"],
                  ");")
        c.append("    return msg;")
        c.append("}")
        c.append("")

        eparams = ["struct sbus_connection *conn"] + params
        h += comment(["Emits the signal from path. Errors: EINVAL, ENOMEM, "
                      "sbus_emit_signal()'s errors."])
        h += wrap("errno_t sbus_emit_%s(" % M, eparams, ");")
        h.append("")
        c += wrap("errno_t sbus_emit_%s(" % M, eparams, ")")
        c.append("{")
        c.append("    DBusMessage *msg;")
        c.append("    errno_t ret;")
        c.append("")
        c.append("    if (conn == NULL) {")
        c.append("        return EINVAL;")
        c.append("    }")
        c.append("")
        c += wrap("    ret = sbus_build_signal_%s(" % M, ["path"] + values(m.ins) + ["&msg"],
                  ");")
        c.append("    if (ret != EOK) {")
        c.append("        return ret;")
        c.append("    }")
        c.append("    return sbus_emit_signal(conn, msg);")
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
        if m.ins:
            c += wrap("    ret = sbus_parse_%s(" % M, ["sbus_req", "sbus_req->message"]
                      + addresses(m.ins), ");")
        else:
            c.append("    ret = %s(sbus_req->message);" % "sbus_gen_no_args")
        c.append("    if (ret != EOK) {")
        c.append("        %s(sbus_req, %s);" % ("sbus_gen_log_bad_args",
                                                 c_string(signature(m.ins))))
        c.append("        goto done;")
        c.append("    }")
        c.append("")
        c.append("    handler = (%s)listener->handler;" % fn_t)
        c.append("    if (handler != NULL) {")
        c += wrap("        handler(", ["sbus_req", "listener->data"] + values(m.ins), ");")
        c.append("    }")
        c.append("")
        c.append("done:")
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
            "Typed bus code for the interfaces below, on top of src/sbus/sbus.h. For interface I "
            "(dots become underscores) and member M:",
            "  callers    sbus_msg_I_M(), sbus_call_I_M_send()/_recv(), sbus_key_I_M() for "
            "keyed methods",
            "  servers    sbus_handler_I_M_fn (or _send_fn + _recv_fn) in a table built with",
            "             SBUS_METHOD_SYNC_I_M(handler, data) / "
            "SBUS_METHOD_ASYNC_I_M(send, recv, data)",
            "  emitters   sbus_signal_msg_I_M(), sbus_emit_I_M()",
            "  listeners  sbus_signal_I_M_fn in a table built with SBUS_LISTENER_I_M(handler, "
            "data)",
            "Argument types: s, o: const char *; as: NULL-terminated const char **; au: const "
            "uint32_t * plus uint32_t n_<name>; b: bool; y, n, q, i, u, x, t: (u)intN_t. "
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
                    if m.ins:
                        self.gen_parse("sbus_parse_%s_in" % m.c, m.ins)
                    if m.outs:
                        self.gen_parse("sbus_parse_%s_out" % m.c, m.outs)
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
        c.append("#include <stdio.h>")
        c.append("#include <string.h>")
        c.append("")
        c.append('#include "util/util.h"')
        c.append('#include "sbus/sbus.h"')
        c.append('#include "sbus/sbus_gen.h"')
        c.append('#include "%s"' % self.include_name)
        c.append("")
        c += body
        c[:] = [piece for line in c for piece in fit(line)]
        while c and c[-1] == "":
            c.pop()
        return "\n".join(h) + "\n", "\n".join(c) + "\n"
