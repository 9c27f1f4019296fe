/* fields.h: the one table of a frame's decoded fields (fields.def, an X-macro list), by their
 * dotted names: rocedump's per-frame JSON keys, the names rocedump -Y filters on and the
 * Wireshark plugin's `roce.*` fields all come from it.
 *
 * A field's value is read from a decoded frame by roce_field_get(); where its bytes lie by
 * roce_field_span(). A field is absent where the JSON has no key for it (e.g. roce.reth.va on a
 * frame without a RETH). */
#ifndef ROCE_FIELDS_H
#define ROCE_FIELDS_H

#include "roce/decode.h"
#include "roce/mad.h"

#ifdef __cplusplus
extern "C" {
#endif

enum roce_field {
#define ROCE_FIELD(id, path, kind, ft, base, at, off, len, cond, value, label) ROCE_F_##id,
#include "roce/fields.def"
#undef ROCE_FIELD
	ROCE_F_COUNT
};

/* What a field's value is. */
enum roce_field_kind {
	ROCE_FK_U = 0,   /* an unsigned number */
	ROCE_FK_S,       /* a string (a name, an address) */
	ROCE_FK_T,       /* a time stamp: seconds and nanoseconds */
	ROCE_FK_RU,      /* an unsigned number of one element of an array of objects (the VLAN tags) */
	ROCE_FK_AU,      /* an array of unsigned numbers (pfc.quanta): element idx */
	ROCE_FK_AS,      /* an array of strings (pause.malformed): element idx */
	ROCE_FK_O,       /* an object that may be empty (mac_control): no value, only presence */
};

/* The width the plugin registers a number with (FT_UINT8 ...), or STRING, or NONE when
 * Wireshark has the field already (frame.*, eth.*, ip.*, udp.*: the plugin does not repeat them). */
enum roce_field_ft { ROCE_FT_NONE = 0, ROCE_FT_UINT8, ROCE_FT_UINT16, ROCE_FT_UINT24, ROCE_FT_UINT32,
		     ROCE_FT_UINT64, ROCE_FT_STRING,
		     ROCE_FT_CSUM_STATUS /* a string here; for Wireshark 0 bad, 1 good, 2 unverified */ };
enum roce_field_base { ROCE_BASE_NONE = 0, ROCE_BASE_DEC, ROCE_BASE_HEX };

struct roce_field_info {
	const char *path;       /* "roce.psn": the JSON key path */
	const char *label;      /* "PSN": a short name for a field tree */
	uint8_t kind;           /* enum roce_field_kind */
	uint8_t ft;             /* enum roce_field_ft */
	uint8_t base;           /* enum roce_field_base */
};
ROCE_API const struct roce_field_info *roce_field_info(enum roce_field f);
/* The field with this dotted name, or -1. */
ROCE_API int roce_field_by_name(const char *path);

/* One frame as the fields see it. */
struct roce_field_src {
	const uint8_t *data;    /* the frame's bytes (p->caplen of them) */
	const struct roce_pkt *p;
	uint64_t frame_no;
	int64_t ts_sec;
	uint32_t ts_nsec;
	const char *iface_name; /* the capture interface's name (p->capture_if), NULL or "" if none */
	const char *file_name;  /* several capture files read as one: the frame's file; else NULL */
	uint32_t file;          /* then its place among them, from 0, */
	uint64_t file_frame;    /* and the frame's number in that file */
	/* The frame's MAD on QP 1 (the mad.* and cm.* fields), decoded by roce_field_get() the first
	 * time one of those fields is asked for and kept here for the others: leave both zero, as a
	 * designated initializer does, and do not declare the object const. */
	uint8_t mad_state;      /* 0 not looked at, 1 no MAD, 2 decoded into mad */
	struct roce_mad mad;
};

#define ROCE_FIELD_STRMAX 48
struct roce_field_val {
	uint64_t u;             /* ROCE_FK_U, ROCE_FK_RU; ROCE_FK_T: nanoseconds of the second */
	int64_t sec;            /* ROCE_FK_T */
	const char *s;          /* ROCE_FK_S: a static name or buf */
	char buf[ROCE_FIELD_STRMAX];
};

/* Read field f of frame src (element idx of an array field, else 0; idx UINT_MAX is reserved).
 * False when the frame has no such field (nor element). */
ROCE_API bool roce_field_get(enum roce_field f, const struct roce_field_src *src, unsigned idx,
			     struct roce_field_val *v);
/* Whether frame src has field f: for an array (ROCE_FK_AU, ROCE_FK_AS) even an empty one
 * (pfc.enabled of a PFC frame enabling no class is []), for an object (ROCE_FK_O) even an empty
 * one; otherwise whether roce_field_get(f, src, 0, ...) is true. */
ROCE_API bool roce_field_has(enum roce_field f, const struct roce_field_src *src);
/* Where field f (element idx) lies in the frame: false when it has no bytes of its own (a count,
 * a computed value) or they were not captured. */
ROCE_API bool roce_field_span(enum roce_field f, const struct roce_pkt *p, unsigned idx, uint32_t *off,
			      uint32_t *len);

/* The offset of extended header hdr (one ROCE_HDR_* bit) in the frame, from the opcode's header
 * list; 0 when the packet has no such header. */
ROCE_API uint32_t roce_hdr_offset(const struct roce_pkt *p, unsigned hdr);

/* Text forms of addresses, as rocedump prints them: "aa:bb:cc:dd:ee:ff"; dotted IPv4, or IPv6
 * (and GIDs) as inet_ntop writes them. */
#define ROCE_ADDRSTR_MAX 46
ROCE_API void roce_fmt_mac(char out[18], const uint8_t *mac);
ROCE_API void roce_fmt_ip(char out[ROCE_ADDRSTR_MAX], const uint8_t *addr, unsigned len);
/* A duration: "5.120ns", "335.5us", "1.234ms", "2.500s" (four significant digits). */
#define ROCE_DURSTR_MAX 32
ROCE_API void roce_fmt_duration(char out[ROCE_DURSTR_MAX], double ns);

#ifdef __cplusplus
}
#endif
#endif
