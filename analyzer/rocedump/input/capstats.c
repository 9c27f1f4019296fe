/* capstats.c: drop counts from pcapng Interface Statistics Blocks (see capstats.h).
 *
 * pcapng (draft-ietf-opsawg-pcapng §3.1, §4.1, §4.6): every block is type (4) | total length
 * (4) | body | total length (4), in the byte order the Section Header Block's byte-order magic
 * sets for its section. The SHB's type 0x0A0D0D0A reads the same in both orders, so its length
 * is read after its magic. An ISB is interface ID (4) | timestamp (8) | options, each option
 * code (2) | length (2) | value padded to 4 bytes, ended by code 0; isb_ifrecv (4), isb_ifdrop
 * (5) and isb_osdrop (7) are 64-bit counts. An IDB is link type (2) | reserved (2) | snap length
 * (4) | options (if_name: code 2); the IDBs of a section are its interfaces 0, 1, ... An EPB is
 * interface ID (4) | timestamp (8) | captured length (4) | original length (4) | data; an SPB
 * original length (4) | data (interface 0); the obsolete PB interface ID (2) | drops (2) |
 * timestamp (8) | captured length (4) | original length (4) | data. */
#include "input/capstats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "input/pcapng.h"

#define PKT_DATA (PCAPNG_BLOCK_HDR + PCAPNG_EPB_FIXED)  /* EPB and PB: where the data starts */
#define SPB_DATA (PCAPNG_BLOCK_HDR + PCAPNG_SPB_FIXED)
#define SHB_HDR 12u                           /* type, length, byte-order magic */
#define ISB_OPTIONS (PCAPNG_BLOCK_HDR + 12u)  /* interface ID, timestamp high and low */
#define SHB_OPTIONS (PCAPNG_BLOCK_HDR + 16u)  /* byte-order magic, versions, section length */
#define IDB_OPTIONS (PCAPNG_BLOCK_HDR + PCAPNG_IDB_FIXED)

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t rd32(const struct capstats *s, const uint8_t *p)
{
	uint32_t v = le32(p);
	return s->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const struct capstats *s, const uint8_t *p)
{
	return s->swapped ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t rd64(const struct capstats *s, const uint8_t *p)
{
	uint64_t lo = le32(p), hi = le32(p + 4);
	return s->swapped ? (uint64_t)__builtin_bswap32((uint32_t)lo) << 32 | __builtin_bswap32((uint32_t)hi)
			  : hi << 32 | lo;
}

static bool is_classic_pcap_magic(uint32_t m)
{
	return m == 0xa1b2c3d4u || m == 0xd4c3b2a1u || m == 0xa1b23c4du || m == 0x4d3cb2a1u;
}

void capstats_init(struct capstats *s)
{
	memset(s, 0, sizeof(*s));
}

bool capstats_track_packets(struct capstats *s)
{
	s->pkt_alloc = 256;
	s->pkts = malloc(s->pkt_alloc * sizeof(*s->pkts));
	s->track = s->pkts != NULL;
	return s->track;
}

static void opts_free(struct capstats_opts *o)
{
	free(o->bytes);
	*o = (struct capstats_opts){0};
}

void capstats_free(struct capstats *s)
{
	for (uint32_t i = 0; i < s->pkt_n; i++)
		opts_free(&s->pkts[(s->pkt_head + i) % s->pkt_alloc].opts);
	free(s->pkts);
	s->pkts = NULL;
	s->pkt_n = 0;
	s->track = false;
	for (uint32_t i = 0; i < s->n_names && i < CAPSTATS_MAX_NAMES; i++)
		opts_free(&s->names[i].opts);
	for (uint32_t i = 0; i < s->n_ifaces; i++)
		opts_free(&s->iface[i].isb_opts);
	opts_free(&s->shb_opts);
	opts_free(&s->taken_opts);
	free(s->tail);
	s->tail = NULL;
}

/* How the value of option code in a block of type type is swapped to this machine's byte order:
 * 8 as one 64-bit number, 4 as 32-bit words (a time stamp's high and low words), 0 not at all
 * (strings, addresses, hashes, options not known). */
static unsigned swap_unit(uint32_t type, uint16_t code)
{
	switch (type) {
	case PCAPNG_BT_EPB: return code == 2 || code == 6 ? 4 : code == 4 || code == 5 ? 8 : 0;  /* flags, queue; dropcount, packetid */
	case PCAPNG_BT_IDB: return code == 8 || code == PCAPNG_OPT_IF_TSOFFSET ? 8 : 0;      /* if_speed, if_tsoffset */
	case PCAPNG_BT_ISB: return code == PCAPNG_OPT_ISB_STARTTIME || code == PCAPNG_OPT_ISB_ENDTIME ? 4 :
			   code >= PCAPNG_OPT_ISB_IFRECV && code <= 8 ? 8 : 0;  /* times; counts */
	default: return 0;
	}
}

/* The options in p[0 .. n) of a block of type type, copied into *o (see capstats_opts). Out of
 * memory: none. */
static void opts_copy(const struct capstats *s, uint32_t type, const uint8_t *p, uint32_t n, struct capstats_opts *o)
{
	opts_free(o);
	uint32_t len = 0;
	for (uint32_t at = 0; at + 4 <= n;) {  /* how far they go */
		uint16_t code = rd16(s, p + at), olen = rd16(s, p + at + 2);
		uint32_t padded = (olen + 3u) & ~3u;
		if (code == PCAPNG_OPT_ENDOFOPT || padded > n - at - 4)
			break;
		at += 4 + padded;
		len = at;
	}
	if (!len || !(o->bytes = malloc(len)))
		return;
	memcpy(o->bytes, p, len);
	o->len = len;
	for (uint32_t at = 0; s->swapped && at < len;) {
		uint8_t *q = o->bytes + at;
		uint16_t code = rd16(s, q), olen = rd16(s, q + 2);
		memcpy(q, &code, 2);
		memcpy(q + 2, &olen, 2);
		unsigned unit = swap_unit(type, code);
		for (uint32_t k = 0; unit && k + unit <= olen; k += unit) {
			if (unit == 8) {
				uint64_t v = rd64(s, q + 4 + k);
				memcpy(q + 4 + k, &v, 8);
			} else {
				uint32_t v = rd32(s, q + 4 + k);
				memcpy(q + 4 + k, &v, 4);
			}
		}
		at += 4 + ((olen + 3u) & ~3u);
	}
}

/* Bytes of the current block to keep in head[]: an ISB's or IDB's options, a packet block's
 * fixed fields and first data bytes when tracking, else the header alone. */
static uint32_t keep_limit(const struct capstats *s)
{
	switch (s->block_type) {
	case PCAPNG_BT_ISB:
	case PCAPNG_BT_IDB: return sizeof(s->head);
	case PCAPNG_BT_SHB: return s->section == 1 ? sizeof(s->head) : PCAPNG_BLOCK_HDR;
	case PCAPNG_BT_EPB:
	case PCAPNG_BT_PB: return s->track ? PKT_DATA + CAPSTATS_HEAD_BYTES : PCAPNG_BLOCK_HDR;
	case PCAPNG_BT_SPB: return s->track ? SPB_DATA + CAPSTATS_HEAD_BYTES : PCAPNG_BLOCK_HDR;
	default: return PCAPNG_BLOCK_HDR;
	}
}

static struct capstats_pkt *push_packet(struct capstats *s, uint32_t iface, uint32_t caplen, uint32_t wirelen,
				       const uint8_t *data, uint32_t have)
{
	if (s->pkt_n == s->pkt_alloc) {  /* grow: unwrap into a twice larger ring */
		struct capstats_pkt *p = malloc(2 * (size_t)s->pkt_alloc * sizeof(*p));
		if (!p)
			return NULL;  /* this frame's interface stays unknown */
		for (uint32_t i = 0; i < s->pkt_n; i++)
			p[i] = s->pkts[(s->pkt_head + i) % s->pkt_alloc];
		free(s->pkts);
		s->pkts = p;
		s->pkt_head = 0;
		s->pkt_alloc *= 2;
	}
	struct capstats_pkt *e = &s->pkts[(s->pkt_head + s->pkt_n++) % s->pkt_alloc];
	uint32_t n = caplen < have ? caplen : have;
	*e = (struct capstats_pkt){.iface = iface, .caplen = caplen, .wirelen = wirelen,
				   .n = n < CAPSTATS_HEAD_BYTES ? n : CAPSTATS_HEAD_BYTES};
	memcpy(e->head, data, e->n);
	return e;
}

/* head[0 .. have) holds a packet block's first bytes: queue it. */
static void parse_packet(struct capstats *s)
{
	uint32_t end = s->have < s->block_len ? s->have : s->block_len - 4, sect = s->section - 1;
	if (s->block_type == PCAPNG_BT_SPB) {
		if (end < SPB_DATA)
			return;
		uint32_t wirelen = rd32(s, s->head + PCAPNG_BLOCK_HDR), room = s->block_len - SPB_DATA - 4;
		push_packet(s, capstats_iface_key(sect, 0), wirelen < room ? wirelen : room, wirelen, s->head + SPB_DATA,
			    end - SPB_DATA);
		return;
	}
	if (end < PKT_DATA)
		return;
	uint32_t if_id = s->block_type == PCAPNG_BT_EPB ? rd32(s, s->head + PCAPNG_BLOCK_HDR) : rd16(s, s->head + PCAPNG_BLOCK_HDR);
	struct capstats_pkt *e = push_packet(s, capstats_iface_key(sect, if_id), rd32(s, s->head + PCAPNG_BLOCK_HDR + 12),
					     rd32(s, s->head + PCAPNG_BLOCK_HDR + 16), s->head + PKT_DATA, end - PKT_DATA);
	if (!e)
		return;
	e->ts = (uint64_t)rd32(s, s->head + PCAPNG_BLOCK_HDR + 4) << 32 | rd32(s, s->head + PCAPNG_BLOCK_HDR + 8);
	if (s->block_type == PCAPNG_BT_EPB)
		opts_copy(s, PCAPNG_BT_EPB, s->tail, s->tail_len, &e->opts);
}

/* bytes [at, at + n) of the Enhanced Packet Block being fed (buf): the part of them that holds
 * options kept in tail[] (its captured length is in head[] by then). */
static void keep_tail(struct capstats *s, const uint8_t *buf, uint32_t at, size_t n)
{
	uint32_t caplen = rd32(s, s->head + PCAPNG_BLOCK_HDR + 12);
	uint64_t from = PKT_DATA + (((uint64_t)caplen + 3) & ~(uint64_t)3), to = s->block_len - 4;
	uint64_t lo = at > from ? at : from, hi = at + n < to ? at + n : to;
	if (lo >= hi || lo - from >= CAPSTATS_OPTS_MAX)
		return;
	if (hi - from > CAPSTATS_OPTS_MAX)
		hi = from + CAPSTATS_OPTS_MAX;
	if (!s->tail && !(s->tail = malloc(CAPSTATS_OPTS_MAX)))
		return;
	memcpy(s->tail + (lo - from), buf + (lo - at), (size_t)(hi - lo));
	s->tail_len = (uint32_t)(hi - from);
}

/* head[0 .. have) holds an IDB's first bytes: the section's next interface, and its name. */
static void parse_idb(struct capstats *s)
{
	uint32_t end = s->have < s->block_len ? s->have : s->block_len - 4, key = capstats_iface_key(s->section - 1, s->section_ifs++);
	if (s->n_names >= CAPSTATS_MAX_NAMES || end < IDB_OPTIONS)
		return;
	struct capstats_ifdesc *d = &s->names[s->n_names++];
	d->key = key;
	d->linktype = rd16(s, s->head + PCAPNG_BLOCK_HDR);
	d->snaplen = rd32(s, s->head + PCAPNG_BLOCK_HDR + 4);
	opts_copy(s, PCAPNG_BT_IDB, s->head + IDB_OPTIONS, end - IDB_OPTIONS, &d->opts);
	char *name = d->name;
	name[0] = 0;
	for (uint32_t o = IDB_OPTIONS; o + 4 <= end;) {
		uint16_t code = rd16(s, s->head + o), len = rd16(s, s->head + o + 2);
		uint32_t padded = (len + 3u) & ~3u;
		if (code == PCAPNG_OPT_ENDOFOPT || o + 4 + padded > end)
			break;
		if (code == PCAPNG_OPT_IF_NAME) {
			uint32_t n = len < CAPSTATS_NAME_LEN - 1 ? len : CAPSTATS_NAME_LEN - 1;
			memcpy(name, s->head + o + 4, n);
			name[n] = 0;
			capstats_plain_name(name);
		}
		o += 4 + padded;
	}
}

uint32_t capstats_packet_iface(struct capstats *s, const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	if (!s->track || !s->pkt_n)
		return 0;
	for (uint32_t i = 0; i < s->pkt_n; i++) {
		const struct capstats_pkt *e = &s->pkts[(s->pkt_head + i) % s->pkt_alloc];
		/* the bytes both have: libpcap may hand out fewer than the block holds */
		uint32_t n = e->n < caplen ? e->n : caplen;
		if (e->wirelen != wirelen || e->caplen < caplen || memcmp(e->head, data, n) != 0)
			continue;
		uint32_t iface = e->iface;  /* the blocks before it were not handed out: filtered */
		opts_free(&s->taken_opts);
		s->taken_ts = e->ts;
		s->taken_opts = e->opts;
		for (uint32_t k = 0; k < i; k++)
			opts_free(&s->pkts[(s->pkt_head + k) % s->pkt_alloc].opts);
		s->pkt_head = (s->pkt_head + i + 1) % s->pkt_alloc;
		s->pkt_n -= i + 1;
		return iface;
	}
	return 0;
}

const struct capstats_ifdesc *capstats_iface_desc(const struct capstats *s, uint32_t key)
{
	for (uint32_t i = 0; i < s->n_names && i < CAPSTATS_MAX_NAMES; i++)
		if (s->names[i].key == key)
			return &s->names[i];
	return NULL;
}

void capstats_plain_name(char *name)
{
	for (; *name; name++)
		if (*name < 0x20 || *name > 0x7e || *name == '"' || *name == '\\')
			*name = '?';
}

const char *capstats_iface_name(const struct capstats *s, uint32_t key)
{
	const struct capstats_ifdesc *d = capstats_iface_desc(s, key);
	return d ? d->name : "";
}

void capstats_set_live(struct capstats *s, uint64_t received, uint64_t os_drop, uint64_t if_drop)
{
	/* Made live once, when the capture opens (whatever a scan kept let go: options, the packet
	 * queue). After that only the counts change: the reading thread asks capstats_packet_iface
	 * of this struct while the sink thread updates it, every second. */
	if (s->format != CAPSTATS_LIVE) {
		bool filtered = s->filtered;
		capstats_free(s);
		capstats_init(s);
		s->filtered = filtered;
		s->format = CAPSTATS_LIVE;
		s->complete = true;
		s->stopped = true;
		s->n_ifaces = 1;
	}
	s->iface[0] = (struct capstats_iface){.recv = received, .if_drop = if_drop, .os_drop = os_drop,
					      .has_recv = true, .has_if_drop = true, .has_os_drop = true};
}

static struct capstats_iface *iface_for(struct capstats *s, uint32_t section, uint32_t if_id)
{
	for (uint32_t i = 0; i < s->n_ifaces; i++)
		if (s->iface[i].section == section && s->iface[i].if_id == if_id)
			return &s->iface[i];
	if (s->n_ifaces == CAPSTATS_MAX_IFACES) {
		s->too_many_ifaces = true;
		return NULL;
	}
	struct capstats_iface *f = &s->iface[s->n_ifaces++];
	memset(f, 0, sizeof(*f));
	f->section = section;
	f->if_id = if_id;
	return f;
}

/* The block's header is in head[0 .. have): check it and set up the walk over the rest. */
static bool start_block(struct capstats *s)
{
	uint32_t type = le32(s->head);
	bool first = s->offset == s->have;

	if (first && type != PCAPNG_BT_SHB) {
		if (is_classic_pcap_magic(type))
			s->format = CAPSTATS_PCAP;
		return false;
	}
	if (type == PCAPNG_BT_SHB) {
		uint32_t magic = le32(s->head + PCAPNG_BLOCK_HDR);
		if (magic == PCAPNG_BYTE_ORDER_MAGIC)
			s->swapped = false;
		else if (magic == __builtin_bswap32(PCAPNG_BYTE_ORDER_MAGIC))
			s->swapped = true;
		else
			return false;
		s->format = CAPSTATS_PCAPNG;
		s->section++;
		s->section_ifs = 0;
	}
	s->block_type = rd32(s, s->head);
	s->block_len = rd32(s, s->head + 4);
	if (s->block_len < (type == PCAPNG_BT_SHB ? PCAPNG_SHB_MIN : PCAPNG_BLOCK_MIN) || s->block_len % 4)
		return false;
	s->remaining = s->block_len - s->have;
	s->tail_len = 0;
	return true;
}

/* head[0 .. have) holds the ISB's first bytes: take its counts. */
static void parse_isb(struct capstats *s)
{
	uint32_t end = s->have < s->block_len ? s->have : s->block_len - 4;

	s->n_isb++;
	if (end < ISB_OPTIONS)
		return;
	struct capstats_iface *f = iface_for(s, s->section - 1, rd32(s, s->head + PCAPNG_BLOCK_HDR));
	if (!f)
		return;
	f->has_isb = true;
	f->isb_ts = (uint64_t)rd32(s, s->head + PCAPNG_BLOCK_HDR + 4) << 32 | rd32(s, s->head + PCAPNG_BLOCK_HDR + 8);
	opts_copy(s, PCAPNG_BT_ISB, s->head + ISB_OPTIONS, end - ISB_OPTIONS, &f->isb_opts);
	for (uint32_t o = ISB_OPTIONS; o + 4 <= end;) {
		uint16_t code = rd16(s, s->head + o), len = rd16(s, s->head + o + 2);
		uint32_t padded = (len + 3u) & ~3u;
		if (code == PCAPNG_OPT_ENDOFOPT || o + 4 + padded > end)
			break;
		if (len == 8) {
			uint64_t v = rd64(s, s->head + o + 4);
			if (code == PCAPNG_OPT_ISB_IFRECV) {
				f->recv = v;
				f->has_recv = true;
			} else if (code == PCAPNG_OPT_ISB_IFDROP) {
				f->if_drop = v;
				f->has_if_drop = true;
			} else if (code == PCAPNG_OPT_ISB_OSDROP) {
				f->os_drop = v;
				f->has_os_drop = true;
			}
		}
		o += 4 + padded;
	}
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

void capstats_feed(struct capstats *s, const uint8_t *buf, size_t n)
{
	while (n && !s->stopped) {
		if (!s->block_len) {  /* collecting a block header */
			uint32_t need = s->have >= 4 && le32(s->head) == PCAPNG_BT_SHB ? SHB_HDR : PCAPNG_BLOCK_HDR;
			size_t take = min_size(need - s->have, n);
			memcpy(s->head + s->have, buf, take);
			s->have += (uint32_t)take;
			s->offset += take;
			buf += take;
			n -= take;
			if (s->have < need || (need == PCAPNG_BLOCK_HDR && le32(s->head) == PCAPNG_BT_SHB))
				continue;  /* more to come, or an SHB that needs its byte-order magic */
			if (!start_block(s))
				s->stopped = true;
			continue;
		}
		size_t take = min_size(s->remaining, n);
		uint32_t limit = keep_limit(s);
		if (s->have < limit) {
			size_t keep = min_size(take, limit - s->have);
			memcpy(s->head + s->have, buf, keep);
			s->have += (uint32_t)keep;
		}
		if (s->track && s->block_type == PCAPNG_BT_EPB && s->have >= PKT_DATA)
			keep_tail(s, buf, s->block_len - s->remaining, take);
		s->remaining -= (uint32_t)take;
		s->offset += take;
		buf += take;
		n -= take;
		if (!s->remaining) {
			if (s->block_type == PCAPNG_BT_ISB)
				parse_isb(s);
			else if (s->block_type == PCAPNG_BT_SHB && s->section == 1 && s->have > SHB_OPTIONS)
				opts_copy(s, PCAPNG_BT_SHB, s->head + SHB_OPTIONS,
					  (s->have < s->block_len ? s->have : s->block_len - 4) - SHB_OPTIONS, &s->shb_opts);
			else if (s->block_type == PCAPNG_BT_IDB)
				parse_idb(s);
			else if (s->track && (s->block_type == PCAPNG_BT_EPB || s->block_type == PCAPNG_BT_SPB || s->block_type == PCAPNG_BT_PB))
				parse_packet(s);
			s->block_len = 0;
			s->have = 0;
		}
	}
}

struct capstats_totals capstats_totals(const struct capstats *s)
{
	struct capstats_totals t = {0};
	for (uint32_t i = 0; i < s->n_ifaces; i++) {
		const struct capstats_iface *f = &s->iface[i];
		if (f->has_if_drop) {
			t.has_if_drop = true;
			t.if_drop += f->if_drop;
		}
		if (f->has_os_drop) {
			t.has_os_drop = true;
			t.os_drop += f->os_drop;
		}
	}
	return t;
}

static const char *format_name(enum capstats_format f)
{
	return f == CAPSTATS_PCAP ? "pcap" : f == CAPSTATS_PCAPNG ? "pcapng" : f == CAPSTATS_LIVE ? "live" : "unknown";
}

/* A live capture's packets received by the filter, over its interfaces. */
static uint64_t live_received(const struct capstats *s)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->n_ifaces; i++)
		n += s->iface[i].recv;
	return n;
}

/* The name of statistics entry f (its global interface's if_name), "" when not known. */
static const char *stats_name(const struct capstats *s, const struct capstats_iface *f)
{
	return capstats_iface_name(s, capstats_iface_key(f->section, f->if_id));
}

void capstats_describe_ifaces(const struct capstats *s, FILE *out)
{
	for (uint32_t i = 0; s->format == CAPSTATS_LIVE && s->n_ifaces > 1 && i < s->n_ifaces; i++) {
		const struct capstats_iface *f = &s->iface[i];
		fprintf(out, "  %s: %" PRIu64 " dropped by the kernel, %" PRIu64 " by the interface; %" PRIu64
			     " packets received by the filter\n", stats_name(s, f), f->os_drop, f->if_drop, f->recv);
	}
}

void capstats_describe(const struct capstats *s, char *buf, size_t len)
{
	struct capstats_totals t = capstats_totals(s);

	if (s->format == CAPSTATS_LIVE) {
		snprintf(buf, len, "capture drops: %" PRIu64 " by the kernel, %" PRIu64 " by the interface (live; %" PRIu64
			 " packets received by the filter%s)", t.os_drop, t.if_drop, live_received(s),
			 s->n_ifaces > 1 ? "; each interface's below" : "");
	} else if (s->format == CAPSTATS_PCAP) {
		snprintf(buf, len, "capture drops: not recorded (pcap files carry no drop counts)");
	} else if (s->format != CAPSTATS_PCAPNG) {
		snprintf(buf, len, "capture drops: not recorded (unrecognised file format)");
	} else if (s->too_many_ifaces) {
		snprintf(buf, len, "capture drops: not known (statistics of more than %d interfaces)",
			 CAPSTATS_MAX_IFACES);
	} else if (!s->complete) {
		snprintf(buf, len, "capture drops: not known (the file was not read to its end)");
	} else if (!t.has_if_drop && !t.has_os_drop) {
		snprintf(buf, len, "capture drops: not recorded (no pcapng interface statistics with drop counts)");
	} else {
		char ifd[32] = "", osd[32] = "";
		if (t.has_if_drop)
			snprintf(ifd, sizeof(ifd), "%" PRIu64 " by the interface", t.if_drop);
		if (t.has_os_drop)
			snprintf(osd, sizeof(osd), "%s%" PRIu64 " by the OS", t.has_if_drop ? ", " : "", t.os_drop);
		snprintf(buf, len, "capture drops: %s%s (pcapng statistics of %" PRIu32 " interface%s)", ifd, osd,
			 s->n_ifaces, s->n_ifaces == 1 ? "" : "s");
	}
}

static void print_count(FILE *out, const char *name, bool has, uint64_t v)
{
	if (has)
		fprintf(out, ",\"%s\":%" PRIu64, name, v);
	else
		fprintf(out, ",\"%s\":null", name);
}

void capstats_print_json(const struct capstats *s, FILE *out)
{
	struct capstats_totals t = capstats_totals(s);
	if (!s->complete || s->too_many_ifaces)
		t = (struct capstats_totals){0};  /* not known */
	fprintf(out, "\"capture\":{\"format\":\"%s\"", format_name(s->format));
	if (s->format == CAPSTATS_LIVE)
		fprintf(out, ",\"received\":%" PRIu64, live_received(s));
	print_count(out, "if_drops", t.has_if_drop, t.if_drop);
	print_count(out, "os_drops", t.has_os_drop, t.os_drop);
	for (uint32_t i = 0; s->format == CAPSTATS_LIVE && s->n_ifaces > 1 && i < s->n_ifaces; i++) {
		const struct capstats_iface *f = &s->iface[i];
		fprintf(out, "%s{\"name\":\"%s\",\"received\":%" PRIu64 ",\"if_drops\":%" PRIu64 ",\"os_drops\":%" PRIu64 "}",
			i ? "," : ",\"interfaces\":[", stats_name(s, f), f->recv, f->if_drop, f->os_drop);
		if (i + 1 == s->n_ifaces)
			fputc(']', out);
	}
	if (s->reorder_overflow)
		fprintf(out, ",\"reorder_overflow\":%" PRIu64, s->reorder_overflow);
	fputc('}', out);
}
