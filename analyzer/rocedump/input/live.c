/* live.c: live capture on an interface (see live.h), libpcap's pcap_create() / pcap_activate()
 * with tcpdump's options. Errors say what the user can do about them: capturing needs root or
 * CAP_NET_RAW, and a hardware time stamp type also CAP_NET_ADMIN (the kernel's SIOCSHWTSTAMP). */
#include "input/live.h"

#include <string.h>

static const char *const direction_names[] = {"in", "out", "inout"};
static const pcap_direction_t directions[] = {PCAP_D_IN, PCAP_D_OUT, PCAP_D_INOUT};

bool live_tstamp_type_known(const char *name)
{
	return pcap_tstamp_type_name_to_val(name) != PCAP_ERROR;
}

/* The message for pcap_activate()'s status st (an error, or a warning taken as one). */
static void activate_error(pcap_t *p, const struct live_config *cfg, int st, char *errbuf, size_t errlen)
{
	const char *dev = cfg->device;
	const char *detail = pcap_geterr(p);

	switch (st) {
	case PCAP_ERROR_NO_SUCH_DEVICE:
		snprintf(errbuf, errlen, "%s: no such interface (rocedump -D lists them): %s", dev, detail);
		break;
	case PCAP_ERROR_PERM_DENIED:
		if (cfg->tstamp_type && strcmp(cfg->tstamp_type, "host") != 0)
			snprintf(errbuf, errlen,
				 "%s: not permitted to set the time stamp type %s: changing an interface's time stamping "
				 "needs CAP_NET_ADMIN as well as CAP_NET_RAW (run as root, or "
				 "setcap cap_net_raw,cap_net_admin+ep rocedump): %s",
				 dev, cfg->tstamp_type, detail);
		else
			snprintf(errbuf, errlen,
				 "%s: not permitted to capture: capturing needs root or CAP_NET_RAW "
				 "(setcap cap_net_raw+ep rocedump): %s",
				 dev, detail);
		break;
	case PCAP_ERROR_PROMISC_PERM_DENIED:
		snprintf(errbuf, errlen, "%s: not permitted to use promiscuous mode (-p captures without it): %s", dev,
			 detail);
		break;
	case PCAP_ERROR_IFACE_NOT_UP:
		snprintf(errbuf, errlen, "%s: the interface is not up", dev);
		break;
	case PCAP_WARNING_TSTAMP_TYPE_NOTSUP:
	case PCAP_ERROR_CANTSET_TSTAMP_TYPE:
		snprintf(errbuf, errlen, "%s: time stamp type %s is not available (rocedump -J -i %s lists the ones it has)",
			 dev, cfg->tstamp_type ? cfg->tstamp_type : "?", dev);
		break;
	case PCAP_ERROR_TSTAMP_PRECISION_NOTSUP:
		snprintf(errbuf, errlen, "%s: the interface cannot give nanosecond time stamps", dev);
		break;
	default:
		snprintf(errbuf, errlen, "%s: %s", dev, st == PCAP_ERROR || st == PCAP_WARNING ? detail : pcap_statustostr(st));
		break;
	}
}

static int set_direction(pcap_t *p, const char *name, char *errbuf, size_t errlen)
{
	for (size_t i = 0; i < sizeof(directions) / sizeof(directions[0]); i++) {
		if (strcmp(name, direction_names[i]) != 0)
			continue;
		if (pcap_setdirection(p, directions[i]) == 0)
			return 0;
		snprintf(errbuf, errlen, "-Q %s: %s", name, pcap_geterr(p));
		return -1;
	}
	snprintf(errbuf, errlen, "-Q %s: unknown direction (in, out or inout)", name);
	return -1;
}

/* On Linux's "any", libpcap 1.10 captures classic Linux cooked headers (SLL), which do not say
 * which interface a packet crossed: the same packet seen going in on one interface and out on
 * another then differs only by its packet type, or not at all. SLL2 carries the interface index
 * (the decoder's sll_ifindex, which copy detection keys on), so it is asked for once the handle
 * is active, as tcpdump 4.99 does. A libpcap without SLL2 keeps SLL. */
static void ask_sll2(pcap_t *p, const char *device)
{
	if (strcmp(device, "any") == 0 && pcap_datalink(p) == DLT_LINUX_SLL)
		(void)pcap_set_datalink(p, DLT_LINUX_SLL2);
}

pcap_t *live_open(const struct live_config *cfg, bool *nano, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(cfg->device, perr);
	if (!p) {
		snprintf(errbuf, errlen, "%s: %s", cfg->device, perr);
		return NULL;
	}
	long long kib = cfg->buffer_kib ? cfg->buffer_kib : LIVE_BUFFER_DEFAULT_KIB;
	pcap_set_snaplen(p, cfg->snaplen ? cfg->snaplen : LIVE_SNAPLEN_DEFAULT);
	pcap_set_promisc(p, !cfg->no_promisc);
	pcap_set_timeout(p, LIVE_TIMEOUT_MS);
	pcap_set_buffer_size(p, (int)(kib * 1024 > 0x7fffffff ? 0x7fffffff : kib * 1024));
	if (cfg->immediate)
		pcap_set_immediate_mode(p, 1);
	int st = 0;
	if (cfg->tstamp_type) {
		st = pcap_set_tstamp_type(p, pcap_tstamp_type_name_to_val(cfg->tstamp_type));
		if (st == PCAP_WARNING_TSTAMP_TYPE_NOTSUP || st < 0) {
			activate_error(p, cfg, st < 0 ? st : PCAP_WARNING_TSTAMP_TYPE_NOTSUP, errbuf, errlen);
			pcap_close(p);
			return NULL;
		}
	}
	*nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
	if (!*nano && cfg->nano) {
		activate_error(p, cfg, PCAP_ERROR_TSTAMP_PRECISION_NOTSUP, errbuf, errlen);
		pcap_close(p);
		return NULL;
	}
	st = pcap_activate(p);
	/* Warnings that change what was asked for are errors here: a capture that silently
	 * ignored -j or -p would mislead. PCAP_WARNING (e.g. no such promiscuous setting on "any")
	 * is not. */
	if (st < 0 || st == PCAP_WARNING_TSTAMP_TYPE_NOTSUP || st == PCAP_WARNING_PROMISC_NOTSUP) {
		activate_error(p, cfg, st, errbuf, errlen);
		pcap_close(p);
		return NULL;
	}
	*nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	ask_sll2(p, cfg->device);
	if (cfg->direction && set_direction(p, cfg->direction, errbuf, errlen) < 0) {
		pcap_close(p);
		return NULL;
	}
	return p;
}

/* tcpdump's flag words after an interface's name. */
static void print_flags(FILE *out, bpf_u_int32 flags)
{
	const char *sep = " [";
	static const struct {
		bpf_u_int32 flag;
		const char *name;
	} names[] = {
		{PCAP_IF_UP, "Up"},
		{PCAP_IF_RUNNING, "Running"},
		{PCAP_IF_WIRELESS, "Wireless"},
		{PCAP_IF_LOOPBACK, "Loopback"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (flags & names[i].flag) {
			fprintf(out, "%s%s", sep, names[i].name);
			sep = ", ";
		}
	}
	switch (flags & PCAP_IF_CONNECTION_STATUS) {
	case PCAP_IF_CONNECTION_STATUS_CONNECTED:
		fprintf(out, "%sConnected", sep);
		sep = ", ";
		break;
	case PCAP_IF_CONNECTION_STATUS_DISCONNECTED:
		fprintf(out, "%sDisconnected", sep);
		sep = ", ";
		break;
	default:
		break;
	}
	if (sep[0] == ',')
		fputc(']', out);
}

int live_list_devices(FILE *out, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_if_t *devs;
	if (pcap_findalldevs(&devs, perr) < 0) {
		snprintf(errbuf, errlen, "listing interfaces: %s", perr);
		return -1;
	}
	unsigned i = 0;
	for (pcap_if_t *d = devs; d; d = d->next) {
		fprintf(out, "%u.%s", ++i, d->name);
		if (d->description)
			fprintf(out, " (%s)", d->description);
		print_flags(out, d->flags);
		fputc('\n', out);
	}
	pcap_freealldevs(devs);
	if (!i) {
		snprintf(errbuf, errlen, "no interfaces to capture on (capturing needs root or CAP_NET_RAW)");
		return -1;
	}
	return 0;
}

int live_list_tstamp_types(const char *device, FILE *out, char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(device, perr);
	if (!p) {
		snprintf(errbuf, errlen, "%s: %s", device, perr);
		return -1;
	}
	int *types;
	int n = pcap_list_tstamp_types(p, &types);
	if (n < 0) {
		snprintf(errbuf, errlen, "%s: %s", device, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	if (n == 0) {
		fprintf(out, "Time stamp type for %s (only the default):\n  host (%s)\n", device,
			pcap_tstamp_type_val_to_description(PCAP_TSTAMP_HOST));
	} else {
		fprintf(out, "Time stamp types for %s (use option -j to set):\n", device);
		for (int i = 0; i < n; i++)
			fprintf(out, "  %s (%s)\n", pcap_tstamp_type_val_to_name(types[i]),
				pcap_tstamp_type_val_to_description(types[i]));
	}
	pcap_free_tstamp_types(types);
	pcap_close(p);
	return 0;
}
