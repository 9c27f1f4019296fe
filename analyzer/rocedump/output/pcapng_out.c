/* pcapng_out.c: rocedump -w (see pcapng_out.h). The pcapng format (IETF draft-ietf-opsawg-pcapng):
 * a section header block (with shb_userappl), an interface description block per interface of the
 * input (its link type, if_name, if_tsresol 9: nanoseconds) written before its first frame, and
 * an enhanced packet block per frame, with opt_comment
 * holding the frame's events when it has any, so that Wireshark shows rocedump's findings as
 * packet comments (pkt_comment / frame.comment). Blocks are written in this machine's byte order,
 * as the format allows (the byte-order magic tells readers).
 *
 * A pcapng time stamp is unsigned: a frame before 1970 is written at 0. The bytes written are
 * those rocedump holds of the frame: at most 65,535 (decode.h), its length on the wire unchanged.
 *
 * What a pcapng input carried is written again (struct frame, capstats.h): the section header's
 * options (its comments, hardware, OS; rocedump's shb_userappl in place of the capturing
 * tool's), each interface's description block as it was (link type, snapshot length, if_name,
 * if_tsresol, ...; the frames' time stamps then as written, in its units), every frame's options
 * (comments, epb_flags, epb_hash, ...; rocedump's comment one more opt_comment), and at the end
 * the input's last statistics block of each interface (pcapng_out_input_isbs). The section
 * header then waits for the first frame, by which the input's has been read. */
#include "output/pcapng_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "input/capstats.h"
#include "input/input.h"
#include "input/pcapng.h"
#include "roce/decode.h"


static const uint8_t zeros[4];

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void put16(FILE *f, uint16_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static uint32_t pad4(size_t n)
{
	return (uint32_t)((4 - n % 4) % 4);
}

/* An option: code, length, value, padding. */
static void put_option(FILE *f, uint16_t code, const void *value, size_t len)
{
	put16(f, code);
	put16(f, (uint16_t)len);
	fwrite(value, 1, len, f);
	fwrite(zeros, 1, pad4(len), f);
}

static size_t option_size(size_t len)
{
	return 4 + len + pad4(len);
}

/* The whole options at p[0 .. n) (this machine's byte order) before the end of options, but
 * those of skip_code (0: none), written again to f (NULL: only counted). Their bytes. */
static uint32_t put_opts(FILE *f, const uint8_t *p, uint32_t n, uint16_t skip_code)
{
	uint32_t len = 0;
	for (uint32_t at = 0; at + 4 <= n;) {
		uint16_t code, olen;
		memcpy(&code, p + at, 2);
		memcpy(&olen, p + at + 2, 2);
		uint32_t size = (uint32_t)option_size(olen);
		if (code == PCAPNG_OPT_ENDOFOPT || size > n - at)
			break;
		if (code != skip_code) {
			len += size;
			if (f)
				fwrite(p + at, 1, size, f);
		}
		at += size;
	}
	return len;
}

static uint32_t opts_whole(const uint8_t *p, uint32_t n, uint16_t skip_code)
{
	return put_opts(NULL, p, n, skip_code);
}

/* The input's interface description block again (see above). */
static void put_idb_again(const struct pcapng_out *w, const struct capstats_ifdesc *d)
{
	uint32_t olen = opts_whole(d->opts.bytes, d->opts.len, 0);
	uint32_t len = 20 + olen + (olen ? 4 : 0);
	put32(w->f, PCAPNG_BT_IDB);
	put32(w->f, len);
	put16(w->f, d->linktype);
	put16(w->f, 0);
	put32(w->f, d->snaplen);
	put_opts(w->f, d->opts.bytes, d->opts.len, 0);
	if (olen)
		put32(w->f, PCAPNG_OPT_ENDOFOPT);
	put32(w->f, len);
}

/* An interface description block: the input's (d) again, or else the link type, snap length 0
 * (none), if_name when there is one, nanosecond time stamps. */
static void put_idb(struct pcapng_out *w, const char *name, const struct capstats_ifdesc *d)
{
	if (d) {
		put_idb_again(w, d);
		return;
	}
	uint8_t tsresol = 9;
	size_t name_len = name ? strlen(name) : 0;
	if (name_len > 0xffff)
		name_len = 0xffff;
	uint32_t len = 20 + (name_len ? (uint32_t)option_size(name_len) : 0) + (uint32_t)option_size(1) + 4;
	put32(w->f, PCAPNG_BT_IDB);
	put32(w->f, len);
	put16(w->f, (uint16_t)w->linktype);
	put16(w->f, 0);
	put32(w->f, 0);
	if (name_len)
		put_option(w->f, PCAPNG_OPT_IF_NAME, name, name_len);
	put_option(w->f, PCAPNG_OPT_IF_TSRESOL, &tsresol, 1);
	put32(w->f, PCAPNG_OPT_ENDOFOPT);
	put32(w->f, len);
}

static void put_shb(struct pcapng_out *w);

/* The output interface of input interface key (named name, described by d when known), its
 * block written when new (the section header first). Past what memory holds, interface 0. */
static uint32_t iface_id(struct pcapng_out *w, uint32_t key, const char *name, const struct capstats_ifdesc *d)
{
	if (w->n_ifaces && key == w->last_key)
		return w->last_id;
	if (!w->shb_written)
		put_shb(w);
	uint32_t i = 0;
	while (i < w->n_ifaces && w->keys[i] != key)
		i++;
	if (i == w->n_ifaces) {
		if (w->n_ifaces == w->ifaces_alloc) {
			uint32_t *k = grow_array(w->keys, &w->ifaces_alloc, sizeof(*k), 4, UINT32_MAX);
			if (!k)
				return 0;
			w->keys = k;
		}
		w->keys[w->n_ifaces++] = key;
		put_idb(w, name, d);
	}
	w->last_key = key;
	return w->last_id = i;
}

/* The section header: type, length, byte-order magic, version 1.0, section length unknown, the
 * input's options but its shb_userappl, rocedump's. */
static void put_shb(struct pcapng_out *w)
{
	static const char appl[] = "rocedump " ROCEDUMP_VERSION;
	const struct capstats_opts *in = w->source ? &w->source->shb_opts : &(struct capstats_opts){0};
	w->shb_written = true;
	uint32_t shb_len = 28 + opts_whole(in->bytes, in->len, PCAPNG_OPT_SHB_USERAPPL) +
			   (uint32_t)option_size(sizeof(appl) - 1) + 4;
	put32(w->f, PCAPNG_BT_SHB);
	put32(w->f, shb_len);
	put32(w->f, PCAPNG_BYTE_ORDER_MAGIC);
	put16(w->f, 1);
	put16(w->f, 0);
	put32(w->f, 0xffffffffu);
	put32(w->f, 0xffffffffu);
	put_opts(w->f, in->bytes, in->len, PCAPNG_OPT_SHB_USERAPPL);
	put_option(w->f, PCAPNG_OPT_SHB_USERAPPL, appl, sizeof(appl) - 1);
	put32(w->f, PCAPNG_OPT_ENDOFOPT);
	put32(w->f, shb_len);
}

int pcapng_out_open(struct pcapng_out *w, const char *path, unsigned linktype, const struct capstats *source,
		    char *errbuf, size_t errlen)
{
	w->linktype = linktype;
	w->source = source;
	w->shb_written = false;
	w->keys = NULL;
	w->n_ifaces = w->ifaces_alloc = 0;
	w->close = strcmp(path, "-") != 0;
	w->f = w->close ? fopen(path, "wb") : stdout;
	if (!w->f) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!source)  /* live: a reader of the pipe sees the header at once */
		put_shb(w);
	return 0;
}

void pcapng_out_frame(struct pcapng_out *w, const struct frame *f, const char *comment, size_t comment_len)
{
	uint32_t caplen = roce_readable_len(f->caplen);
	if (comment_len > 0xffff)
		comment_len = 0xffff;
	uint32_t olen = f->ifdesc ? opts_whole(f->opts, f->opts_len, 0) : 0;
	olen += comment_len ? (uint32_t)option_size(comment_len) : 0;
	uint32_t len = 32 + caplen + pad4(caplen) + (olen ? olen + 4 : 0);
	int64_t ns = frame_ts_ns(f);
	uint64_t t = f->ifdesc ? f->ts_raw : ns < 0 ? 0 : (uint64_t)ns;  /* the input's units, or ns */
	uint32_t id = iface_id(w, f->iface, f->iface_name, f->ifdesc);  /* its block first, if new */
	put32(w->f, PCAPNG_BT_EPB);
	put32(w->f, len);
	put32(w->f, id);
	put32(w->f, (uint32_t)(t >> 32));
	put32(w->f, (uint32_t)t);
	put32(w->f, caplen);
	put32(w->f, f->wirelen);
	fwrite(f->data, 1, caplen, w->f);
	fwrite(zeros, 1, pad4(caplen), w->f);
	if (f->ifdesc)
		put_opts(w->f, f->opts, f->opts_len, 0);
	if (comment_len)
		put_option(w->f, PCAPNG_OPT_COMMENT, comment, comment_len);
	if (olen)
		put32(w->f, PCAPNG_OPT_ENDOFOPT);
	put32(w->f, len);
}

/* A 64-bit option: a time stamp (high word first, as an EPB's) or a count (in this byte order). */
static void put_option64(FILE *f, uint16_t code, uint64_t v, bool time)
{
	uint32_t words[2] = {(uint32_t)(v >> 32), (uint32_t)v};
	if (time) {
		put_option(f, code, words, sizeof(words));
	} else {
		put_option(f, code, &v, sizeof(v));
	}
}

void pcapng_out_iface(struct pcapng_out *w, uint32_t key, const struct capstats_ifdesc *d)
{
	iface_id(w, key, d ? d->name : NULL, d);
}

void pcapng_out_isb(struct pcapng_out *w, const struct pcapng_isb *isb)
{
	uint32_t len = 12 + 12 + 5 * (uint32_t)option_size(8) + 4;  /* header, if_id, time, options, end, length */
	uint32_t id = iface_id(w, isb->key, isb->desc ? isb->desc->name : NULL, isb->desc);
	put32(w->f, PCAPNG_BT_ISB);
	put32(w->f, len);
	put32(w->f, id);
	put32(w->f, (uint32_t)(isb->now_ns >> 32));
	put32(w->f, (uint32_t)isb->now_ns);
	put_option64(w->f, PCAPNG_OPT_ISB_STARTTIME, isb->start_ns, true);
	put_option64(w->f, PCAPNG_OPT_ISB_ENDTIME, isb->now_ns, true);
	put_option64(w->f, PCAPNG_OPT_ISB_IFRECV, isb->recv, false);
	put_option64(w->f, PCAPNG_OPT_ISB_IFDROP, isb->if_drop, false);
	put_option64(w->f, PCAPNG_OPT_ISB_OSDROP, isb->os_drop, false);
	put32(w->f, PCAPNG_OPT_ENDOFOPT);
	put32(w->f, len);
}

void pcapng_out_input_isbs(struct pcapng_out *w)
{
	const struct capstats *cs = w->source;
	for (uint32_t i = 0; cs && i < cs->n_ifaces; i++) {
		const struct capstats_iface *s = &cs->iface[i];
		uint32_t key = capstats_iface_key(s->section, s->if_id);
		const struct capstats_ifdesc *d = capstats_iface_desc(cs, key);
		if (!s->has_isb || !d)
			continue;
		uint32_t id = iface_id(w, key, d->name, d), olen = opts_whole(s->isb_opts.bytes, s->isb_opts.len, 0);
		uint32_t len = 24 + olen + (olen ? 4 : 0);
		put32(w->f, PCAPNG_BT_ISB);
		put32(w->f, len);
		put32(w->f, id);
		put32(w->f, (uint32_t)(s->isb_ts >> 32));
		put32(w->f, (uint32_t)s->isb_ts);
		put_opts(w->f, s->isb_opts.bytes, s->isb_opts.len, 0);
		if (olen)
			put32(w->f, PCAPNG_OPT_ENDOFOPT);
		put32(w->f, len);
	}
}

int pcapng_out_close(struct pcapng_out *w, char *errbuf, size_t errlen)
{
	if (!w->f)
		return 0;
	if (!w->n_ifaces)  /* readers want an interface, even with no frame */
		iface_id(w, 0, NULL, NULL);
	free(w->keys);
	w->keys = NULL;
	int bad = fflush(w->f) != 0 || ferror(w->f);
	int err = errno;
	if (w->close && fclose(w->f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	w->f = NULL;
	if (bad) {
		snprintf(errbuf, errlen, "writing the capture: %s", strerror(err));
		return -1;
	}
	return 0;
}
