/* fields.c: the field table (include/roce/fields.def) read from a decoded frame: each field's
 * presence, value and bytes, and the text forms of addresses the table's strings use. */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "roce/fields.h"

/* ---- what the table's COND and VALUE expressions call ---- */

static bool eth_ok(const struct roce_field_src *c)
{
	return c->p->eth_off >= 0 && (uint32_t)c->p->eth_off + 14 <= roce_readable_len(c->p->caplen);
}
/* The mirror's own link layer: the outer Ethernet header of a wrapped frame (link.* is the
 * innermost one's). */
static bool wrap_eth(const struct roce_field_src *c)
{
	return c->p->wrap.kind != ROCE_WRAP_NONE && c->p->linktype == ROCE_LINK_ETHERNET &&
	       14 <= roce_readable_len(c->p->caplen);
}
static bool is_sll(const struct roce_pkt *p) { return p->linktype == ROCE_LINK_SLL || p->linktype == ROCE_LINK_SLL2; }
static bool W(const struct roce_pkt *p) { return p->wrap.kind != ROCE_WRAP_NONE; }
static bool VX(const struct roce_pkt *p) { return p->wrap.kind == ROCE_WRAP_VXLAN; }
static bool GRE(const struct roce_pkt *p) { return W(p) && !VX(p); }
static bool ERSPAN2(const struct roce_pkt *p) { return p->wrap.kind == ROCE_WRAP_ERSPAN2; }
static bool ERSPAN3(const struct roce_pkt *p) { return p->wrap.kind == ROCE_WRAP_ERSPAN3; }
static bool ERSPAN(const struct roce_pkt *p) { return ERSPAN2(p) || ERSPAN3(p); }
static bool IP4(const struct roce_pkt *p) { return p->net.kind == ROCE_NET_IPV4; }
static bool IP6(const struct roce_pkt *p) { return p->net.kind == ROCE_NET_IPV6; }
static bool IP(const struct roce_pkt *p) { return IP4(p) || IP6(p); }
static bool GRH(const struct roce_pkt *p) { return p->net.kind == ROCE_NET_GRH; }
static bool UDP(const struct roce_pkt *p) { return (IP(p) || GRH(p)) && p->udp.off; }
static bool TCP(const struct roce_pkt *p)
{
	return (IP(p) || GRH(p)) && !p->udp.off && p->net.proto == 6 && (p->l4_sport || p->l4_dport);
}
static bool BTH(const struct roce_pkt *p) { return p->version && p->op; }
static bool EXT(const struct roce_pkt *p, unsigned hdr)
{
	return BTH(p) && p->trunc_layer != ROCE_LAYER_EXT && (p->h.hdrs & hdr);
}
#define EXT(p, h) EXT(p, ROCE_HDR_##h)
static bool AETH_IS(const struct roce_pkt *p, unsigned kind)
{
	return EXT(p, AETH) && roce_aeth_kind(p->h.aeth.syndrome) == kind;
}
static bool ICRC(const struct roce_pkt *p) { return BTH(p) && p->icrc_off; }
static bool icrc_checked(const struct roce_pkt *p)
{
	return p->icrc_status == ROCE_ICRC_GOOD || p->icrc_status == ROCE_ICRC_BAD;
}
static bool icrc_value(const struct roce_pkt *p)
{
	return icrc_checked(p) || (p->icrc_status == ROCE_ICRC_UNCHECKED && p->icrc_wire);
}

/* MAC control frames (macc.c): which object of the three the frame shows (print_json.c's
 * order before the table had them: pfc or pause once a pause time was captured) */
static bool MACC(const struct roce_pkt *p) { return p->net.kind == ROCE_NET_MACC; }
static bool PFC(const struct roce_pkt *p) { return MACC(p) && p->macc.opcode == ROCE_MACC_PFC && p->macc.fields; }
static bool PAUSE(const struct roce_pkt *p) { return MACC(p) && p->macc.opcode == ROCE_MACC_PAUSE && p->macc.fields; }
static bool MACO(const struct roce_pkt *p) { return MACC(p) && !PFC(p) && !PAUSE(p); }
static bool macc_opcode_seen(const struct roce_pkt *p)
{
	return p->macc.opcode || p->macc.fields || (uint32_t)p->macc.off + 2 <= p->caplen;
}
/* Element i of pfc.enabled: the i-th priority the class-enable vector enables. */
static bool pfc_enabled(const struct roce_field_src *c, unsigned i, struct roce_field_val *v)
{
	for (unsigned b = 0, k = 0; b < 8; b++)
		if (c->p->macc.enbv >> b & 1 && k++ == i) {
			v->u = b;
			return true;
		}
	return false;
}
static bool pfc_quanta(const struct roce_field_src *c, unsigned i, struct roce_field_val *v)
{
	if (i >= c->p->macc.fields)
		return false;
	v->u = c->p->macc.quanta[i];
	return true;
}
/* Element i of a malformed[]: the name of the i-th reason, in bit order. */
static bool macc_bad(const struct roce_field_src *c, unsigned i, struct roce_field_val *v)
{
	for (unsigned b = 1, k = 0; b <= ROCE_MACC_SHORT; b <<= 1)
		if (c->p->macc.malformed & b && k++ == i) {
			v->s = roce_macc_bad_name(b);
			return true;
		}
	return false;
}

/* The frame's MAD on QP 1, decoded on first use into the caller's src (fields.h: not a const
 * object), or NULL. */
static const struct roce_mad *MAD(const struct roce_field_src *c)
{
	struct roce_field_src *w = (struct roce_field_src *)c;
	if (!w->mad_state) {
		const struct roce_pkt *p = c->p;
		w->mad_state = 1;
		if (BTH(p) && p->h.bth.dqpn == ROCE_MAD_QP1) {
			roce_mad_decode_pkt(p, c->data, &w->mad);
			if (w->mad.result != ROCE_MAD_NOT_QP1)
				w->mad_state = 2;
		}
	}
	return w->mad_state == 2 ? &w->mad : NULL;
}
static bool MADHDR(const struct roce_field_src *c) { return MAD(c) && MAD(c)->result != ROCE_MAD_TRUNC_HDR; }
static unsigned mad_method(const struct roce_field_src *c) { return (unsigned)(MAD(c)->hdr.r << 7 | MAD(c)->hdr.method); }
/* A CM message (of kind k; any for ROCE_CM_NONE) the core decoded whole. */
static bool CM(const struct roce_field_src *c, enum roce_cm_kind k)
{
	const struct roce_mad *m = MAD(c);
	return m && m->result == ROCE_MAD_OK && (k == ROCE_CM_NONE || m->cm_kind == k);
}
#define CM(c, k) CM(c, ROCE_CM_##k)
static bool REQREP(const struct roce_field_src *c) { return CM(c, REQ) || CM(c, REP); }
/* a field REQ and REP both have, by the same name */
#define RR(c, f) (MAD(c)->cm_kind == ROCE_CM_REQ ? MAD(c)->cm.req.f : MAD(c)->cm.rep.f)
#define REQF(c, f) (MAD(c)->cm.req.f)
static const char *cm_transport(const struct roce_field_src *c)
{
	static const char *const n[] = {"RC", "UC", "RD", "reserved"};
	const struct roce_cm_req *r = &MAD(c)->cm.req;
	/* Transport Service Type 3 with Extended Transport Type 1 is XRC */
	return r->transport_service_type == 3 && r->extended_transport == 1 ? "XRC" : n[r->transport_service_type & 3];
}
static const char *cm_reason(const struct roce_field_src *c)
{
	const char *s = roce_cm_rej_reason_name(MAD(c)->cm.rej.reason);
	return s ? s : "reserved";
}
static bool IPCM(const struct roce_field_src *c) { return CM(c, REQ) && MAD(c)->cm.req.has_ip_cm; }
static bool IPCM_ADDRS(const struct roce_field_src *c)
{
	return IPCM(c) && (MAD(c)->cm.req.ip_cm_ip_version == 4 || MAD(c)->cm.req.ip_cm_ip_version == 6);
}
static const char *cm_gid(struct roce_field_val *v, const uint8_t gid[16])
{
	roce_fmt_ip(v->buf, gid, 16);
	return v->buf;
}
static const char *ipcm_addr(const struct roce_field_src *c, struct roce_field_val *v, const uint8_t a[16])
{
	bool v4 = MAD(c)->cm.req.ip_cm_ip_version == 4;
	roce_fmt_ip(v->buf, a + (v4 ? 12 : 0), v4 ? 4 : 16);
	return v->buf;
}

static unsigned wrap_alen(const struct roce_pkt *p) { return p->wrap.ip_version == 6 ? 16 : 4; }
static unsigned wrap_aoff(const struct roce_pkt *p) { return p->wrap.ip_version == 6 ? 8 : 12; }
static bool wrap_addrs(const struct roce_field_src *c)
{
	const struct roce_pkt *p = c->p;
	return W(p) && p->wrap.ip_off + wrap_aoff(p) + 2 * wrap_alen(p) <= roce_readable_len(p->caplen);
}
static bool net_addrs(const struct roce_field_src *c)
{
	const struct roce_net *n = &c->p->net;
	return n->addr_len && n->addr_off + 2u * n->addr_len <= roce_readable_len(c->p->caplen);
}

static const char *mac(struct roce_field_val *v, const uint8_t *m)
{
	roce_fmt_mac(v->buf, m);
	return v->buf;
}
static const char *wrap_addr(const struct roce_field_src *c, struct roce_field_val *v, unsigned dst)
{
	const struct roce_pkt *p = c->p;
	roce_fmt_ip(v->buf, c->data + p->wrap.ip_off + wrap_aoff(p) + (size_t)dst * wrap_alen(p), wrap_alen(p));
	return v->buf;
}
static const char *net_addr(const struct roce_field_src *c, struct roce_field_val *v, unsigned dst)
{
	const struct roce_net *n = &c->p->net;
	roce_fmt_ip(v->buf, c->data + n->addr_off + (size_t)dst * n->addr_len, n->addr_len);
	return v->buf;
}

/* ---- the table ---- */

static const struct roce_field_info infos[ROCE_F_COUNT] = {
#define ROCE_FIELD(id, path, kind, ft, base, at, off, len, cond, value, label) \
	[ROCE_F_##id] = {path, label, ROCE_FK_##kind, ROCE_FT_##ft, ROCE_BASE_##base},
#include "roce/fields.def"
#undef ROCE_FIELD
};

const struct roce_field_info *roce_field_info(enum roce_field f)
{
	return (unsigned)f < ROCE_F_COUNT ? &infos[f] : NULL;
}

int roce_field_by_name(const char *path)
{
	for (unsigned i = 0; i < ROCE_F_COUNT; i++)
		if (strcmp(infos[i].path, path) == 0)
			return (int)i;
	return -1;
}

static bool is_array(uint8_t kind) { return kind == ROCE_FK_RU || kind == ROCE_FK_AU || kind == ROCE_FK_AS; }

#define SET_U(v, x) ((v)->u = (uint64_t)(x))
/* An array or object: present (COND) is all roce_field_has() asks, with the index HAS */
#define HAS UINT_MAX
#define SET_AU(v, x) do { if (i == HAS) return true; if (!(x)) return false; } while (0)
#define SET_AS(v, x) SET_AU(v, x)
#define SET_O(v, x) ((void)(x))
#define SET_RU(v, x) ((v)->u = (uint64_t)(x))
#define SET_S(v, x) ((v)->s = (x))
#define SET_T(v, x) ((void)(x), (v)->sec = c->ts_sec, (v)->u = c->ts_nsec)

bool roce_field_get(enum roce_field f, const struct roce_field_src *c, unsigned i, struct roce_field_val *v)
{
	const struct roce_pkt *p = c->p;

	if ((unsigned)f >= ROCE_F_COUNT || (i && !is_array(infos[f].kind)))
		return false;
	switch (f) {
#define ROCE_FIELD(id, path, kind, ft, base, at, off, len, cond, value, label) \
	case ROCE_F_##id:                                                         \
		if (!(cond))                                                      \
			return false;                                             \
		SET_##kind(v, value);                                             \
		return true;
#include "roce/fields.def"
#undef ROCE_FIELD
	default:
		return false;
	}
}

bool roce_field_has(enum roce_field f, const struct roce_field_src *c)
{
	struct roce_field_val v;
	if ((unsigned)f >= ROCE_F_COUNT)
		return false;
	uint8_t k = infos[f].kind;
	return roce_field_get(f, c, k == ROCE_FK_AU || k == ROCE_FK_AS ? HAS : 0, &v);
}

/* ---- where the bytes lie ---- */

enum at {
	AT_NONE = 0, AT_VLAN, AT_WRAP, AT_WRAPIP, AT_WRAPSRC, AT_WRAPDST, AT_WRAPUDP, AT_GREKEY, AT_GRESEQ,
	AT_ERSPAN, AT_BTH, AT_RDETH, AT_DETH, AT_XRCETH, AT_FETH, AT_RETH, AT_ATOMICETH, AT_AETH,
	AT_ATOMICACKETH, AT_IMMDT, AT_IETH, AT_PAYLOAD, AT_ICRC, AT_MACC, AT_PFCTIME,
};

static const struct { uint8_t at, off, len; } spans[ROCE_F_COUNT] = {
#define ROCE_FIELD(id, path, kind, ft, base, at, off, len, cond, value, label) [ROCE_F_##id] = {AT_##at, off, len},
#include "roce/fields.def"
#undef ROCE_FIELD
};

uint32_t roce_hdr_offset(const struct roce_pkt *p, unsigned hdr)
{
	if (!p->op || !(p->h.hdrs & hdr) || (hdr & (hdr - 1)))
		return 0;
	return p->bth_off + ROCE_BTH_LEN + roce_hdrs_len((uint16_t)(p->h.hdrs & (hdr - 1)));
}

/* GRE's optional words: checksum, key, sequence (RFC 2890), in that order. */
static uint32_t gre_opt(const struct roce_wrap *w, unsigned upto)
{
	static const uint16_t flag[3] = {0x8000, 0x2000, 0x1000};
	uint32_t off = w->hdr_off + 4u;
	for (unsigned k = 0; k < upto; k++)
		off += (w->gre_flags & flag[k]) ? 4u : 0u;
	return off;
}

/* The header a field's offset counts from, or NO when the frame has none. */
#define NO ((int64_t)-1)
static int64_t at_base(const struct roce_pkt *p, unsigned at, unsigned idx, uint32_t *len)
{
	const struct roce_wrap *w = &p->wrap;
	static const uint16_t hdr_of[] = {
		[AT_RDETH] = ROCE_HDR_RDETH, [AT_DETH] = ROCE_HDR_DETH, [AT_XRCETH] = ROCE_HDR_XRCETH,
		[AT_FETH] = ROCE_HDR_FETH, [AT_RETH] = ROCE_HDR_RETH, [AT_ATOMICETH] = ROCE_HDR_ATOMICETH,
		[AT_AETH] = ROCE_HDR_AETH, [AT_ATOMICACKETH] = ROCE_HDR_ATOMICACKETH,
		[AT_IMMDT] = ROCE_HDR_IMMDT, [AT_IETH] = ROCE_HDR_IETH,
	};
	switch (at) {
	case AT_VLAN:  /* tag idx: its TPID, then its TCI */
		if (idx >= p->n_vlan)
			return NO;
		if (p->eth_off >= 0)
			return p->eth_off + 12 + 4 * (int64_t)idx;
		return p->net.off ? (int64_t)p->net.off - 2 - 4 * (int64_t)(p->n_vlan - idx) : NO;
	case AT_WRAP:
		return W(p) && w->hdr_off ? w->hdr_off : NO;
	case AT_WRAPIP:
		return W(p) ? w->ip_off : NO;
	case AT_WRAPSRC:
	case AT_WRAPDST:
		*len = wrap_alen(p);
		return W(p) ? w->ip_off + wrap_aoff(p) + (at == AT_WRAPDST ? wrap_alen(p) : 0) : NO;
	case AT_WRAPUDP:
		return VX(p) && w->hdr_off >= 8 ? w->hdr_off - 8 : NO;
	case AT_GREKEY:
		return GRE(p) && w->hdr_off ? gre_opt(w, 1) : NO;
	case AT_GRESEQ:
		return GRE(p) && w->hdr_off ? gre_opt(w, 2) : NO;
	case AT_ERSPAN:
		return ERSPAN(p) && w->hdr_off ? gre_opt(w, 3) : NO;
	case AT_BTH:
		return BTH(p) ? p->bth_off : NO;
	case AT_PAYLOAD:
		*len = p->payload_len;
		return ICRC(p) ? p->payload_off : NO;
	case AT_ICRC:
		return ICRC(p) ? p->icrc_off : NO;
	case AT_MACC:  /* from the opcode */
		return MACC(p) ? p->macc.off : NO;
	case AT_PFCTIME:  /* pause time idx, priority 0 first */
		return MACC(p) && idx < p->macc.fields ? p->macc.off + 4 + 2 * (int64_t)idx : NO;
	default:
		if (at < sizeof(hdr_of) / sizeof(hdr_of[0]) && hdr_of[at]) {
			uint32_t off = roce_hdr_offset(p, hdr_of[at]);
			return off ? off : NO;
		}
		return NO;
	}
}

bool roce_field_span(enum roce_field f, const struct roce_pkt *p, unsigned idx, uint32_t *off, uint32_t *len)
{
	if ((unsigned)f >= ROCE_F_COUNT || spans[f].at == AT_NONE)
		return false;
	uint32_t l = spans[f].len;
	int64_t base = at_base(p, spans[f].at, idx, &l);
	if (base < 0 || (uint64_t)base + spans[f].off + l > roce_readable_len(p->caplen))
		return false;
	*off = (uint32_t)base + spans[f].off;
	*len = l;
	return true;
}

/* ---- addresses as text ---- */

void roce_fmt_duration(char out[ROCE_DURSTR_MAX], double ns)
{
	double v = ns, a = ns < 0 ? -ns : ns;
	const char *unit = "ns";
	if (a >= 1e9) {
		v /= 1e9;
		unit = "s";
	} else if (a >= 1e6) {
		v /= 1e6;
		unit = "ms";
	} else if (a >= 1e3) {
		v /= 1e3;
		unit = "us";
	}
	a = v < 0 ? -v : v;
	snprintf(out, ROCE_DURSTR_MAX, "%.*f%s", a >= 100 ? 1 : a >= 10 ? 2 : 3, v, unit);
}

void roce_fmt_mac(char out[18], const uint8_t *m)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < 6; i++) {
		out[3 * i] = hex[m[i] >> 4];
		out[3 * i + 1] = hex[m[i] & 15];
		out[3 * i + 2] = i < 5 ? ':' : '\0';
	}
}

void roce_fmt_ip(char out[ROCE_ADDRSTR_MAX], const uint8_t *addr, unsigned len)
{
	if (len == 4) {  /* by hand: glibc's inet_ntop formats IPv4 with sprintf */
		char *o = out;
		for (unsigned i = 0; i < 4; i++) {
			unsigned v = addr[i];
			if (v >= 100)
				*o++ = (char)('0' + v / 100);
			if (v >= 10)
				*o++ = (char)('0' + v / 10 % 10);
			*o++ = (char)('0' + v % 10);
			*o++ = i < 3 ? '.' : '\0';
		}
		return;
	}
	if (!inet_ntop(AF_INET6, addr, out, ROCE_ADDRSTR_MAX))
		memcpy(out, "?", 2);
}
