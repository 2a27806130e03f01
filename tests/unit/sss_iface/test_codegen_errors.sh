#!/bin/sh
# The bus code generator must refuse broken interface definitions loudly: exit status 1 and
# a "file:line: problem" message, and no output files. Each case is a small XML file.
set -u

top_srcdir="${srcdir:-$(dirname "$0")/../../..}"
codegen="$top_srcdir/src/sbus/codegen/sbus_codegen.py"
python="${PYTHON:-python3}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_codegen_errors.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_error NAME EXPECTED-MESSAGE-PART, XML on stdin
expect_error() {
    name=$1
    expected=$2
    cat > "$tmp/$name.xml"
    "$python" "$codegen" --header "$tmp/$name.h" --source "$tmp/$name.c" "$tmp/$name.xml" \
        > "$tmp/$name.out" 2> "$tmp/$name.err"
    status=$?
    if [ $status -ne 1 ]; then
        echo "FAIL $name: exit status $status, expected 1"
        failures=$((failures + 1))
    elif ! grep -qF -- "$expected" "$tmp/$name.err"; then
        echo "FAIL $name: expected a message containing '$expected', got:"
        cat "$tmp/$name.err"
        failures=$((failures + 1))
    elif [ -e "$tmp/$name.c" ] || [ -e "$tmp/$name.h" ]; then
        echo "FAIL $name: output files were written"
        failures=$((failures + 1))
    else
        echo "ok $name: $(cat "$tmp/$name.err")"
    fi
}

expect_error unknown_type "unknown_type.xml:4: arg 'v': unsupported type 'v'" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg name="v" type="v" direction="in"/>
    </method>
  </interface>
</node>
XML

expect_error struct_type "unsupported type '(su)'" <<'XML'
<node>
  <interface name="sssd.test">
    <signal name="S"><arg name="v" type="(su)"/></signal>
  </interface>
</node>
XML

expect_error duplicate_member "duplicate_member.xml:4: duplicate member 'M' in interface sssd.test" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M"/>
    <signal name="M"/>
  </interface>
</node>
XML

expect_error key_on_signal "key_on_signal.xml:5: signal S: arg 'gid': signals cannot have key arguments" <<'XML'
<node>
  <interface name="sssd.test">
    <signal name="S">
      <arg name="gid" type="u">
        <annotation name="sssd.sbus.Key" value="true"/>
      </arg>
    </signal>
  </interface>
</node>
XML

expect_error key_on_output "key_on_output.xml:5: arg 'r': an output cannot be a key argument" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg name="r" type="u" direction="out">
        <annotation name="sssd.sbus.Key" value="true"/>
      </arg>
    </method>
  </interface>
</node>
XML

expect_error key_on_array "key_on_array.xml:4: arg 'a': type 'as' cannot be a key argument" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg name="a" type="as" direction="in">
        <annotation name="sssd.sbus.Key" value="true"/>
      </arg>
    </method>
  </interface>
</node>
XML

expect_error malformed "malformed.xml:4: malformed XML: mismatched tag" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
  </interface>
</node>
XML

expect_error not_xml "not_xml.xml:1: malformed XML" <<'XML'
this is not XML
XML

expect_error duplicate_arg "duplicate_arg.xml:5: method M: arg 'x' clashes with arg 'x'" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg name="x" type="u" direction="in"/>
      <arg name="x" type="s" direction="out"/>
    </method>
  </interface>
</node>
XML

expect_error reserved_arg "reserved_arg.xml:4: arg 'path': the name is reserved" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg name="path" type="s" direction="in"/>
    </method>
  </interface>
</node>
XML

expect_error unnamed_arg "unnamed_arg.xml:4: <arg>: missing attribute 'name'" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg type="s" direction="in"/>
    </method>
  </interface>
</node>
XML

expect_error bad_direction "arg 'x': direction must be" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M"><arg name="x" type="s" direction="both"/></method>
  </interface>
</node>
XML

expect_error bad_iface_name "bad_iface_name.xml:2: 'sssd' is not a valid D-Bus interface name" <<'XML'
<node>
  <interface name="sssd">
    <method name="M"/>
  </interface>
</node>
XML

expect_error property "properties are not supported" <<'XML'
<node>
  <interface name="sssd.test">
    <property name="P" type="s" access="read"/>
  </interface>
</node>
XML

expect_error unknown_annotation "unknown annotation 'sssd.sbus.Keyy'" <<'XML'
<node>
  <interface name="sssd.test">
    <method name="M">
      <arg name="x" type="s"><annotation name="sssd.sbus.Keyy" value="true"/></arg>
    </method>
  </interface>
</node>
XML

expect_error same_iface_twice "same_iface_twice.xml:3: interface sssd.test is already defined at" <<'XML'
<node>
  <interface name="sssd.test"><method name="M"/></interface>
  <interface name="sssd.test"><method name="N"/></interface>
</node>
XML

# Two files defining the same interface.
cat > "$tmp/first.xml" <<'XML'
<node><interface name="sssd.test"><method name="M"/></interface></node>
XML
cat > "$tmp/duplicate_iface.xml" <<'XML'
<node><interface name="sssd.test"><method name="N"/></interface></node>
XML
"$python" "$codegen" --header "$tmp/d.h" --source "$tmp/d.c" "$tmp/first.xml" \
    "$tmp/duplicate_iface.xml" 2> "$tmp/d.err"
if [ $? -ne 1 ] || ! grep -qF "duplicate_iface.xml:1: interface sssd.test is already defined at" "$tmp/d.err"; then
    echo "FAIL duplicate interface across files: $(cat "$tmp/d.err")"
    failures=$((failures + 1))
else
    echo "ok duplicate interface across files: $(cat "$tmp/d.err")"
fi

# And a valid file still works.
cat > "$tmp/good.xml" <<'XML'
<node><interface name="sssd.test"><method name="M"><arg name="x" type="u"/></method></interface></node>
XML
if ! "$python" "$codegen" --header "$tmp/good.h" --source "$tmp/good.c" "$tmp/good.xml"; then
    echo "FAIL a valid definition was refused"
    failures=$((failures + 1))
elif ! grep -q "sbus_call_sssd_test_M_send" "$tmp/good.h"; then
    echo "FAIL the valid definition's header lacks its caller"
    failures=$((failures + 1))
else
    echo "ok valid definition"
fi

[ $failures -eq 0 ]
