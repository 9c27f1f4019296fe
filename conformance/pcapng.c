/* pcapng.c: a test's frames as a pcapng file (draft-ietf-opsawg-pcapng: section header block
 * with shb_comment and shb_userappl, one Ethernet interface with nanosecond time stamps, an
 * enhanced packet block per frame with opt_comment and the epb_flags direction bits, inbound or
 * outbound). Blocks are assembled in memory and written in this machine's byte order. */
#include "pcapng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

struct blk {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct blk *k, const void *d, size_t n)
{
	if (k->n + n + 4 > k->cap) {
		k->cap = (k->n + n + 4) * 2;
		k->b = realloc(k->b, k->cap);
		if (!k->b) {
			fprintf(stderr, "roceconform: out of memory\n");
			exit(EXIT_CONF_USAGE);
		}
	}
	memcpy(k->b + k->n, d, n);
	k->n += n;
	while (n++ % 4)
		k->b[k->n++] = 0;   /* pad to 32 bits (never taken for the 4-byte fields) */
}

static void u32(struct blk *k, uint32_t v) { put(k, &v, 4); }

static void opt(struct blk *k, uint16_t code, const void *v, size_t len)
{
	uint16_t h[2] = {code, (uint16_t)len};
	put(k, h, 4);
	if (len)
		put(k, v, len);
}

/* Close a block begun at offset start with type: fill in both lengths. */
static void close_block(struct blk *k, size_t start)
{
	uint32_t len = (uint32_t)(k->n - start + 4);
	memcpy(k->b + start + 4, &len, 4);
	u32(k, len);
}

int pcapng_write_session(const char *path, const struct session *s, const char *section_comment,
			 char err[CONF_ERRLEN])
{
	struct blk k = {0};
	static const char appl[] = "roceconform";
	size_t st = k.n;
	u32(&k, 0x0a0d0d0a);
	u32(&k, 0);
	u32(&k, 0x1a2b3c4d);
	uint16_t ver[2] = {1, 0};
	put(&k, ver, 4);
	int64_t unknown = -1;
	put(&k, &unknown, 8);
	if (section_comment && *section_comment)
		opt(&k, 1, section_comment, strlen(section_comment));
	opt(&k, 4, appl, strlen(appl));
	opt(&k, 0, NULL, 0);
	close_block(&k, st);

	st = k.n;
	u32(&k, 1);
	u32(&k, 0);
	uint16_t lt[2] = {1, 0};      /* LINKTYPE_ETHERNET */
	put(&k, lt, 4);
	u32(&k, 65535);
	uint8_t tsresol = 9;
	opt(&k, 9, &tsresol, 1);
	opt(&k, 0, NULL, 0);
	close_block(&k, st);

	for (size_t i = 0; i < s->n_frames; i++) {
		const struct rec_frame *f = &s->frames[i];
		uint64_t ts = f->ts_ns > 0 ? (uint64_t)f->ts_ns : 0;
		st = k.n;
		u32(&k, 6);
		u32(&k, 0);
		u32(&k, 0);
		u32(&k, (uint32_t)(ts >> 32));
		u32(&k, (uint32_t)ts);
		u32(&k, f->len);
		u32(&k, f->len);
		put(&k, f->bytes, f->len);
		if (f->note[0])
			opt(&k, 1, f->note, strlen(f->note));
		uint32_t flags = f->sent ? 2 : 1;  /* epb_flags bits 0-1: inbound 1, outbound 2 */
		opt(&k, 2, &flags, 4);
		opt(&k, 0, NULL, 0);
		close_block(&k, st);
	}
	struct outfile out;
	if (outfile_open(&out, path, err) < 0) {
		free(k.b);
		return -1;
	}
	fwrite(k.b, 1, k.n, out.f);
	free(k.b);
	return outfile_commit(&out, err);
}
