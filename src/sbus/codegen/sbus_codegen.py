#!/usr/bin/env python3
"""
sbus_codegen.py: turns bus interface definitions (D-Bus introspection XML, src/sss_iface/*.xml)
into typed C on top of the sbus runtime (src/sbus/sbus.h, and src/sbus/sbus_gen.h for what
generated code shares: argument marshalling by signature, the callers' request, the method
invoker).

For every interface I (C name: dots become underscores) and member M it writes:
  methods:  the builder sbus_msg_I_M(), the caller sbus_call_I_M_send/_recv(), the key function
            sbus_key_I_M() when some arguments carry the sssd.sbus.Key annotation, the handler
            types sbus_handler_I_M_fn/_send_fn/_recv_fn, the table sbus_gen_method_I_M of typed
            calls through which sbus_gen_invoke() runs those handlers (over a struct
            sbus_args_I_M of the arguments), and the table macros SBUS_METHOD_SYNC_I_M() /
            SBUS_METHOD_ASYNC_I_M();
  signals:  the builder sbus_signal_msg_I_M(), the emitter sbus_emit_I_M(), the listener type
            sbus_signal_I_M_fn, the invoker sbus_invoke_signal_I_M() and SBUS_LISTENER_I_M();
  and per interface the name constants and the introspection text sbus_introspect_I.

Usage: sbus_codegen.py --header OUT.h --source OUT.c [--include NAME] IN.xml...
--include is how OUT.c includes OUT.h (default: its base name). Both files are written only
when every input is valid; otherwise the script prints "file:line: problem" and exits with 1.

The code lives in three modules beside this script: sbus_codegen_model.py (reading and checking
the XML), sbus_codegen_c.py (writing the C) and sbus_codegen_text.py (C layout helpers). What
every generated file needs at run time is compiled C, src/sbus/sbus_gen.[ch], which the
output includes. Only the Python standard library is used.
"""

import argparse
import os
import sys
import tempfile

sys.dont_write_bytecode = True      # no __pycache__ in the source tree

from sbus_codegen_c import Generator  # noqa: E402 (the modules beside this script)
from sbus_codegen_model import CodegenError, parse_all  # noqa: E402

# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def write_atomically(path, text):
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".sbus_codegen.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    ap = argparse.ArgumentParser(description="Generate typed sbus C code from D-Bus "
                                 "introspection XML.")
    ap.add_argument("--header", required=True, help="the header to write")
    ap.add_argument("--source", required=True, help="the C file to write")
    ap.add_argument("--include", help="how the C file includes the header "
                    "(default: the header's base name)")
    ap.add_argument("xml", nargs="+", help="interface definitions")
    opts = ap.parse_args(argv)

    try:
        interfaces = parse_all(opts.xml)
        gen = Generator(interfaces, opts.xml, opts.include or os.path.basename(opts.header))
        header, source = gen.generate()
        # The source first: the header ends up newer, which the make rule relies on.
        write_atomically(opts.source, source)
        write_atomically(opts.header, header)
    except CodegenError as e:
        print("sbus_codegen.py: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("sbus_codegen.py: %s: %s" % (e.filename, e.strerror), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
