/* pcapngread.c: the packet blocks of a pcapng file's first section, read straight from the
 * window of pcapread.c (see pcapngread.h; the format: IETF draft-ietf-opsawg-pcapng §3-4,
 * numbers in pcapng.h).
 *
 * Why not libpcap for these blocks: pcapng is what dumpcap and Wireshark write by default, and
 * through libpcap each block costs two fread() calls into libpcap's buffer, a cookie stream that
 * shows every byte to the drop-count scanner (capstats.c), the scanner's own walk, and a copy of
 * every frame into the pipeline's batches: several times the cost of reading the same capture
 * as a classic pcap file. Here packet blocks are handed out where they lie in
 * the window, and only the blocks that are not packets (section header, interface description
 * and statistics blocks, and any other) go to the scanner, whole and in the file's order.
 *
 * This reader takes only what it is sure libpcap 1.10 would hand out the same (sf-pcapng.c's
 * read_block(), add_interface(), pcap_ng_next_packet()): the first section of a file in this
 * machine's byte order; blocks whole in the file, of a length that is a multiple of 4, at least
 * 12 bytes and at most PCAPREAD_MARGIN (512 KiB: a block lies whole in the ring's margin; libpcap,
 * whose smallest limit is 16 MiB, reads on from a longer one), with the same length in the trailer;
 * up to 64 interfaces, each after the first of the first one's snapshot length, with well-formed options and a time stamp resolution of 10^-k (k <= 9) or 2^-k
 * (k <= 30) seconds, converted to nanoseconds as libpcap converts them (if_tsoffset added
 * modulo 2^64 as libpcap adds it); Enhanced Packet Blocks on a described interface and Simple
 * Packet Blocks (interface 0, no time stamp, cut to the snapshot length), with a captured length
 * that fits the block and the snapshot length. At the first block it does not take (the obsolete
 * Packet Block, a second section, anything malformed or cut short) and at the end of the bytes
 * to read, it stops: input.c then opens libpcap on this section's header and interface blocks
 * followed by the file from that block on (pcapng_prefix), so that libpcap reads on with exactly
 * the state it would have had, with its own checks and messages.
 *
 * Interfaces of several link types (dumpcap -i eth0 -i any: Ethernet and Linux cooked headers)
 * are one thing libpcap refuses ("an interface has a type ... different from the type of the
 * first interface") and this reader takes: each frame carries its interface's link type. Once
 * such an interface is taken libpcap cannot read on (it would refuse the same interface), so
 * the reader then reads to the end of the file itself (pcapng_mixed()), and a block it does not
 * take is an error.
 *
 * Each frame also carries what -w needs to write it again as it was (struct frame): its
 * interface's description (from the scanner), its time stamp as written and its options, where
 * they lie in the window. */
#include "input/pcapngread.h"

#include <stdlib.h>
#include <string.h>

#include "input/capstats.h"
#include "input/input.h"
#include "input/pcapng.h"

#define IFACES_TAKEN 64
_Static_assert(PCAPREAD_MARGIN <= ((size_t)16 << 20), "libpcap's INITIAL_MAX_BLOCKSIZE: it takes every block this does");
#define NSEC 1000000000u

struct pcapng_iface {
	uint64_t tsresol;          /* time stamp units a second */
	uint64_t tsoffset;         /* seconds added (if_tsoffset), modulo 2^64 as libpcap adds them */
	uint64_t factor;           /* 10^-k s: nanoseconds a unit; 0 for 2^-k s (times 10^9, over
				    * the resolution, as libpcap scales those) */
	uint32_t key;              /* capstats_iface_key() */
	unsigned linktype;         /* its LINKTYPE_* number, which the core speaks */
	const char *name;          /* its if_name, from the scanner (capstats_iface_name()) */
	const struct capstats_ifdesc *desc;  /* its description, from the scanner */
};

struct pcapng_section {
	struct capstats *stats;
	uint32_t snapshot;         /* libpcap's snapshot length (pcap_snapshot()) */
	int dlt;                   /* libpcap's link type (pcap_datalink()) */
	uint32_t first_snaplen;    /* the first interface's snapshot length as written */
	uint32_t shb_len;          /* the section header (at offset 0), once taken */
	uint32_t n_ifaces;
	bool mixed;                /* an interface of another link type than the first's taken */
	size_t idb_at[IFACES_TAKEN];
	uint32_t idb_len[IFACES_TAKEN];
	struct pcapng_iface iface[IFACES_TAKEN];
};

bool pcapng_begin(struct pcapread *r, pcap_t *p, struct capstats *stats)
{
	struct pcapng_section *s = calloc(1, sizeof(*s));
	if (!s)
		return false;
	s->stats = stats;
	s->snapshot = (uint32_t)pcap_snapshot(p);
	s->dlt = pcap_datalink(p);
	r->section = s;
	r->pos = 0;
	return true;
}

void pcapng_end(struct pcapread *r)
{
	free(r->section);
	r->section = NULL;
}

/* The interface an Interface Description Block describes (body: blen bytes between its header
 * and trailer), as add_interface() and process_idb_options() make it; false where libpcap would
 * fail on it or this reader does not follow it. */
static bool describe_iface(const struct pcapng_section *s, const uint8_t *body, uint32_t blen,
			   struct pcapng_iface *ifc)
{
	if (blen < PCAPNG_IDB_FIXED)
		return false;
	uint16_t linktype = pcapread_ld16(body);
	uint32_t snaplen = pcapread_ld32(body + 4);
	/* libpcap compares a later interface's link type, as written, with its own DLT_ number;
	 * another one is taken here (see above), but for the one whose lengths libpcap rewrites */
	if (s->n_ifaces && (snaplen != s->first_snaplen || linktype == DLT_USB_LINUX_MMAPPED))
		return false;
	uint64_t tsresol = 1000000, tsoffset = 0;
	bool binary = false, saw_tsresol = false, saw_tsoffset = false;
	const uint8_t *o = body + PCAPNG_IDB_FIXED;
	for (uint32_t left = blen - PCAPNG_IDB_FIXED; left;) {
		if (left < 4)
			return false;
		uint16_t code = pcapread_ld16(o), len = pcapread_ld16(o + 2);
		uint32_t padded = (len + 3u) & ~3u;
		if (left - 4 < padded)
			return false;
		const uint8_t *v = o + 4;
		if (code == PCAPNG_OPT_ENDOFOPT) {
			if (len)
				return false;
			break;
		}
		if (code == PCAPNG_OPT_IF_TSRESOL) {
			if (len != 1 || saw_tsresol)
				return false;
			saw_tsresol = true;
			unsigned k = v[0] & 0x7fu;
			binary = v[0] & 0x80u;
			if (binary ? k > 30 : k > 9)
				return false;  /* libpcap's conversion may overflow there: left to it */
			tsresol = 1;
			for (unsigned i = 0; i < k; i++)
				tsresol *= binary ? 2 : 10;
		} else if (code == PCAPNG_OPT_IF_TSOFFSET) {
			if (len != 8 || saw_tsoffset)
				return false;
			saw_tsoffset = true;
			memcpy(&tsoffset, v, sizeof(tsoffset));
		}
		o += 4 + padded;
		left -= 4 + padded;
	}
	*ifc = (struct pcapng_iface){.tsresol = tsresol, .tsoffset = tsoffset, .linktype = linktype,
				     .factor = binary ? 0 : NSEC / tsresol};
	return true;
}

/* A time stamp of t units on ifc, in seconds and nanoseconds as libpcap gives them (the common
 * resolutions divided by constants). */
static inline void set_time(struct frame *f, const struct pcapng_iface *ifc, uint64_t t)
{
	uint64_t sec, frac;
	if (ifc->tsresol == 1000000) {
		sec = t / 1000000;
		frac = t % 1000000 * 1000;
	} else if (ifc->tsresol == NSEC) {
		sec = t / NSEC;
		frac = t % NSEC;
	} else {
		sec = t / ifc->tsresol;
		frac = t % ifc->tsresol;
		frac = ifc->factor ? frac * ifc->factor : frac * NSEC / ifc->tsresol;
	}
	f->ts_sec = (int64_t)(sec + ifc->tsoffset);
	f->ts_nsec = (uint32_t)frac;
}

/* The block at r->pos, when it is whole in the file and libpcap's read_block() takes it
 * without growing its buffer past its first limit: where it lies (NULL: not so), its type and
 * length. */
static inline const uint8_t *whole_block(struct pcapread *r, uint32_t *type, uint32_t *len)
{
	size_t left = r->len - r->pos;
	const uint8_t *b;
	bool edge;
	if (left < PCAPNG_BLOCK_MIN || !(b = pcapread_get_head(r, PCAPNG_BLOCK_HDR, &edge)))
		return NULL;
	uint32_t n = pcapread_ld32(b + 4);
	if (n < PCAPNG_BLOCK_MIN || n % 4 || n > PCAPREAD_MARGIN || n > left || !(b = pcapread_get_whole(r, b, n, edge)) ||
	    pcapread_ld32(b + n - 4) != n)
		return NULL;
	*type = pcapread_ld32(b);
	*len = n;
	return b;
}

/* An Interface Description Block at r->pos (n bytes at b): the section's next interface. */
static bool take_idb(struct pcapread *r, const uint8_t *b, uint32_t n)
{
	struct pcapng_section *s = r->section;
	if (!s->shb_len || s->n_ifaces == IFACES_TAKEN)
		return false;
	struct pcapng_iface *ifc = &s->iface[s->n_ifaces];
	if (!describe_iface(s, b + PCAPNG_BLOCK_HDR, n - PCAPNG_BLOCK_MIN, ifc))
		return false;
	if (!s->n_ifaces)
		s->first_snaplen = pcapread_ld32(b + PCAPNG_BLOCK_HDR + 4);
	capstats_feed(s->stats, b, n);  /* before its name is asked for */
	ifc->key = capstats_iface_key(0, s->n_ifaces);
	ifc->name = capstats_iface_name(s->stats, ifc->key);
	ifc->desc = capstats_iface_desc(s->stats, ifc->key);
	if (s->n_ifaces && ifc->linktype != s->iface[0].linktype)
		s->mixed = true;
	s->idb_at[s->n_ifaces] = r->pos;
	s->idb_len[s->n_ifaces++] = n;
	return true;
}

static inline void set_iface(struct frame *f, const struct pcapng_iface *ifc)
{
	f->iface = ifc->key;
	f->iface_name = ifc->name;
	f->ifdesc = ifc->desc;
	f->linktype = ifc->linktype;
}

bool pcapng_mixed(const struct pcapread *r)
{
	return r->section && r->section->mixed;
}

int pcapng_next(struct pcapread *r, struct frame *f)
{
	struct pcapng_section *s = r->section;
	uint32_t type, n;
	const uint8_t *b;

	while ((b = whole_block(r, &type, &n))) {
		const uint8_t *body = b + PCAPNG_BLOCK_HDR;
		uint32_t room = n - PCAPNG_BLOCK_MIN;  /* the body's bytes */
		if (__builtin_expect(type == PCAPNG_BT_EPB, 1)) {
			if (room < PCAPNG_EPB_FIXED)
				return 0;
			uint32_t id = pcapread_ld32(body), caplen = pcapread_ld32(body + 12);
			if (id >= s->n_ifaces || caplen > s->snapshot || caplen > room - PCAPNG_EPB_FIXED)
				return 0;
			const struct pcapng_iface *ifc = &s->iface[id];
			uint32_t data_room = (caplen + 3u) & ~3u;  /* the options follow the padded data */
			f->ts_raw = (uint64_t)pcapread_ld32(body + 4) << 32 | pcapread_ld32(body + 8);
			set_time(f, ifc, f->ts_raw);
			f->data = body + PCAPNG_EPB_FIXED;
			f->caplen = caplen;
			f->wirelen = pcapread_ld32(body + 16);
			f->opts = f->data + data_room;
			f->opts_len = room - PCAPNG_EPB_FIXED > data_room ? room - PCAPNG_EPB_FIXED - data_room : 0;
			set_iface(f, ifc);
			r->pos += n;
			return 1;
		}
		switch (type) {
		case PCAPNG_BT_SPB: {
			if (room < PCAPNG_SPB_FIXED || !s->n_ifaces)
				return 0;
			uint32_t wirelen = pcapread_ld32(body), caplen = wirelen < s->snapshot ? wirelen : s->snapshot;
			if (caplen > room - PCAPNG_SPB_FIXED)
				return 0;
			set_time(f, &s->iface[0], 0);  /* no time stamp: 0, plus if_tsoffset */
			f->ts_raw = 0;
			f->data = body + PCAPNG_SPB_FIXED;
			f->caplen = caplen;
			f->wirelen = wirelen;
			f->opts = NULL;
			f->opts_len = 0;
			set_iface(f, &s->iface[0]);
			r->pos += n;
			return 1;
		}
		case PCAPNG_BT_IDB:
			if (!take_idb(r, b, n))
				return 0;
			break;
		case PCAPNG_BT_SHB:
			/* the first section's, which libpcap has read; a later one is left to it */
			if (r->pos || n < PCAPNG_SHB_MIN || pcapread_ld16(body + 4) != 1)
				return 0;
			capstats_feed(s->stats, b, n);
			s->shb_len = n;
			break;
		case PCAPNG_BT_PB:
			return 0;
		default:  /* statistics, names, anything else: libpcap passes them by */
			if (!s->shb_len)
				return 0;
			capstats_feed(s->stats, b, n);
			break;
		}
		r->pos += n;
	}
	return 0;
}

size_t pcapng_prefix(struct pcapread *r, uint8_t **out)
{
	const struct pcapng_section *s = r->section;
	size_t len = s->shb_len;
	for (uint32_t i = 0; i < s->n_ifaces; i++)
		len += s->idb_len[i];
	*out = malloc(len ? len : 1);
	if (!*out)
		return 0;
	/* read again from the file: the window has let those blocks go long since */
	bool ok = pcapread_read_at(r->fd, *out, s->shb_len, 0);
	size_t at = s->shb_len;
	for (uint32_t i = 0; ok && i < s->n_ifaces; i++) {
		ok = pcapread_read_at(r->fd, *out + at, s->idb_len[i], s->idb_at[i]);
		at += s->idb_len[i];
	}
	if (!ok) {
		r->failed = true;
		free(*out);
		*out = NULL;
		return 0;
	}
	return len;
}
