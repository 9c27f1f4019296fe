#!/bin/sh
# check-exports.sh: roce.so exports exactly the four symbols of Wireshark 4.0's plugin ABI
# (nm -D --defined-only): the core linked in stays hidden. TAP output.
#   check-exports.sh roce.so
set -u
got=$(nm -D --defined-only "$1" | awk '{print $3}' | sort | tr '\n' ' ')
want="plugin_register plugin_version plugin_want_major plugin_want_minor "
echo "1..2"
if [ "$got" = "$want" ]; then echo "ok 1 - exports: $got"; else echo "not ok 1 - exports: $got"; echo "# want: $want"; fi
# and the core is in it (linked statically, no libroce at run time), its functions local
if nm "$1" | grep -q ' t roce_field_get' && ! ldd "$1" | grep -q libroce; then echo "ok 2 - the core linked in, local"
else echo "not ok 2 - the core linked in, local"; echo "# $(nm "$1" | grep ' roce_field_get')"; fi
