/* plugin.c: the Wireshark plugin ABI, and all of roce.so that depends on the Wireshark version.
 *
 * Wireshark 4.0 loads an epan plugin by these four symbols, the only ones roce.so exports
 * (nm -D --defined-only; the core linked in is hidden by -Wl,--exclude-libs,ALL). Wireshark 4.2
 * adds plugin_describe() (returning WS_PLUGIN_DESC_DISSECTOR) and moves the version checks to
 * WIRESHARK_VERSION_MAJOR/MINOR in the same way: a port adds that function here and widens the
 * version range in meson.build. */
#define WS_BUILD_DLL
#include <wireshark.h>

#include <epan/proto.h>

#include "roce_plugin.h"

#ifndef ROCE_PLUGIN_VERSION
#define ROCE_PLUGIN_VERSION "0.0.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = ROCE_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = roce_proto_register;
	plug.register_handoff = roce_proto_handoff;
	proto_register_plugin(&plug);
}
