/* live.h: opening a network interface for live capture with libpcap, as tcpdump does (-i, -s,
 * -B, -p, -Q, -j, --time-stamp-precision, --immediate-mode), and the -D and -J listings
 * (live.c). On Linux libpcap captures through a TPACKET_V3 memory-mapped ring (PF_PACKET); -B
 * sets that ring's size. */
#ifndef ROCEDUMP_LIVE_H
#define ROCEDUMP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <pcap/pcap.h>

/* -B default, KiB: a 256 MiB ring holds ~0.2 s of a 10 Gb/s mirror port at 1,500-byte frames,
 * ~20 ms at 100 Gb/s; the figures behind it are in the README (capturing on a mirror port). */
#define LIVE_BUFFER_DEFAULT_KIB (256 * 1024)
#define LIVE_SNAPLEN_DEFAULT 262144
/* The longest a frame waits in a partly filled ring block before libpcap hands it over. */
#define LIVE_TIMEOUT_MS 100
/* The most interfaces one run captures on (-i given several times: merge.c). */
#define LIVE_DEVICES_MAX 16

struct live_config {
	const char *device;        /* -i: an interface name, or "any" */
	int snaplen;               /* -s; 0 for LIVE_SNAPLEN_DEFAULT */
	int buffer_kib;            /* -B; 0 for LIVE_BUFFER_DEFAULT_KIB */
	bool no_promisc;           /* -p */
	bool immediate;            /* --immediate-mode: every frame handed over as it arrives */
	const char *direction;     /* -Q in|out|inout, or NULL */
	const char *tstamp_type;   /* -j, or NULL */
	bool nano;                 /* --time-stamp-precision nano (or --nano): insist on nanoseconds */
};

/* Create, configure and activate the capture. *nano is set when time stamps come in
 * nanoseconds (asked for always; an error when cfg->nano and the device cannot). NULL with a
 * message naming what to do (privileges, an unknown interface, ...) in errbuf. */
pcap_t *live_open(const struct live_config *cfg, bool *nano, char *errbuf, size_t errlen);

/* -D: the interfaces libpcap can capture on, numbered, as tcpdump lists them. 0, or -1. */
int live_list_devices(FILE *out, char *errbuf, size_t errlen);

/* -J: the time stamp types device offers. 0, or -1 with a message. */
int live_list_tstamp_types(const char *device, FILE *out, char *errbuf, size_t errlen);

/* Whether name is a time stamp type libpcap knows (host, adapter, adapter_unsynced, ...). */
bool live_tstamp_type_known(const char *name);

#endif
