/* pcapng_out.c: rocedump -w (see pcapng_out.h). The pcapng format (IETF draft-ietf-opsawg-pcapng):
 * a section header block (with shb_userappl), an interface description block per interface of the
 * input (its link type, if_name, if_tsresol 9: nanoseconds) written before its first frame, and
 * an enhanced packet block per frame, with opt_comment
 * holding the frame's events when it has any, so that Wireshark shows rocedump's findings as
 * packet comments (pkt_comment / frame.comment). Blocks are written in this machine's byte order,
 * as the format allows (the byte-order magic tells readers).
 *
 * A pcapng time stamp is unsigned: a frame before 1970 is written at 0. The bytes written are
 * those rocedump holds of the frame: at most 65,535 (decode.h), its length on the wire unchanged. */
#include "output/pcapng_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
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

/* An interface description block: the link type, snap length 0 (none), if_name when there is
 * one, nanosecond time stamps. */
static void put_idb(struct pcapng_out *w, const char *name)
{
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

/* The output interface of input interface key (named name), its block written when new. Past
 * what memory holds, interface 0. */
static uint32_t iface_id(struct pcapng_out *w, uint32_t key, const char *name)
{
	if (w->n_ifaces && key == w->last_key)
		return w->last_id;
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
		put_idb(w, name);
	}
	w->last_key = key;
	return w->last_id = i;
}

int pcapng_out_open(struct pcapng_out *w, const char *path, unsigned linktype, char *errbuf, size_t errlen)
{
	static const char appl[] = "rocedump " ROCEDUMP_VERSION;
	w->linktype = linktype;
	w->keys = NULL;
	w->n_ifaces = w->ifaces_alloc = 0;
	w->close = strcmp(path, "-") != 0;
	w->f = w->close ? fopen(path, "wb") : stdout;
	if (!w->f) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* section header: type, length, byte-order magic, version 1.0, section length unknown */
	uint32_t shb_len = 28 + (uint32_t)option_size(sizeof(appl) - 1) + 4;
	put32(w->f, PCAPNG_BT_SHB);
	put32(w->f, shb_len);
	put32(w->f, PCAPNG_BYTE_ORDER_MAGIC);
	put16(w->f, 1);
	put16(w->f, 0);
	put32(w->f, 0xffffffffu);
	put32(w->f, 0xffffffffu);
	put_option(w->f, PCAPNG_OPT_SHB_USERAPPL, appl, sizeof(appl) - 1);
	put32(w->f, PCAPNG_OPT_ENDOFOPT);
	put32(w->f, shb_len);
	return 0;
}

void pcapng_out_frame(struct pcapng_out *w, const struct frame *f, const char *comment, size_t comment_len)
{
	uint32_t caplen = roce_readable_len(f->caplen);
	if (comment_len > 0xffff)
		comment_len = 0xffff;
	uint32_t len = 32 + caplen + pad4(caplen) + (comment_len ? (uint32_t)option_size(comment_len) + 4 : 0);
	int64_t ns = frame_ts_ns(f);
	uint64_t t = ns < 0 ? 0 : (uint64_t)ns;
	uint32_t id = iface_id(w, f->iface, f->iface_name);  /* its block first, if new */
	put32(w->f, PCAPNG_BT_EPB);
	put32(w->f, len);
	put32(w->f, id);
	put32(w->f, (uint32_t)(t >> 32));
	put32(w->f, (uint32_t)t);
	put32(w->f, caplen);
	put32(w->f, f->wirelen);
	fwrite(f->data, 1, caplen, w->f);
	fwrite(zeros, 1, pad4(caplen), w->f);
	if (comment_len) {
		put_option(w->f, PCAPNG_OPT_COMMENT, comment, comment_len);
		put32(w->f, PCAPNG_OPT_ENDOFOPT);
	}
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

void pcapng_out_isb(struct pcapng_out *w, const struct pcapng_isb *isb)
{
	uint32_t len = 12 + 12 + 5 * (uint32_t)option_size(8) + 4;  /* header, if_id, time, options, end, length */
	if (!w->n_ifaces)
		iface_id(w, 0, NULL);
	put32(w->f, PCAPNG_BT_ISB);
	put32(w->f, len);
	put32(w->f, 0);  /* interface 0 */
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

int pcapng_out_close(struct pcapng_out *w, char *errbuf, size_t errlen)
{
	if (!w->f)
		return 0;
	if (!w->n_ifaces)  /* readers want an interface, even with no frame */
		iface_id(w, 0, NULL);
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
