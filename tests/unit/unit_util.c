/* unit_util.c: shared helpers of the Criterion unit tests (see unit_util.h). */
#include "unit_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void u_base(struct roce_build *b)
{
	static const uint8_t mac_a[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	static const uint8_t mac_b[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

	memset(b, 0, sizeof(*b));
	memcpy(b->eth_src, mac_a, 6);
	memcpy(b->eth_dst, mac_b, 6);
	b->src[0] = 10, b->src[3] = 1;
	b->dst[0] = 10, b->dst[3] = 2;
	b->tclass = 0x02;
	b->ttl = 63;
	b->ip_id = 0x4242;
	b->dont_fragment = true;
	b->udp_sport = 0xc123;
	b->h.bth.opcode = 0x04;
	b->h.bth.pkey = 0xffff;
	b->h.bth.dqpn = 0x000123;
	b->h.bth.psn = 0x000010;
}

void u_set_v6(struct roce_build *b)
{
	memset(b->src, 0, 16);
	memset(b->dst, 0, 16);
	b->src[0] = b->dst[0] = 0xfd;
	b->src[15] = 1;
	b->dst[15] = 2;
	b->flow_label = 0x12345;
}

void u_fill_hdrs(struct roce_hdrs *h, uint8_t opcode, unsigned seed)
{
	const struct roce_opcode_info *op = roce_opcode_info(opcode);

	memset(h, 0, sizeof(*h));
	h->bth.opcode = opcode;
	h->bth.se = seed & 1;
	h->bth.m = (seed >> 1) & 1;
	h->bth.pkey = (uint16_t)(0x8001 + seed * 7);
	h->bth.fecn = (seed >> 2) & 1;
	h->bth.becn = op->op == ROCE_OP_CNP ? 1 : (seed >> 3) & 1;
	h->bth.dqpn = (0xabcdefu ^ seed) & 0xffffff;
	h->bth.ackreq = 1;
	h->bth.psn = (0xffffffu - seed) & 0xffffff;
	h->hdrs = op->hdrs;
	h->rdeth.eecnxt = 0x123456;
	h->deth.qkey = 0x80000000u | seed;
	h->deth.srcqp = 0xfedcba;
	h->xrceth.xrcsrq = 0x00abcd;
	h->feth.sel = 2;
	h->feth.plt = 1;
	h->reth.va = UINT64_C(0x0123456789abcdef) + seed;
	h->reth.rkey = 0xdeadbeef;
	h->reth.dmalen = 0x10000 + seed;
	h->atomiceth.va = UINT64_C(0xfedcba9876543210);
	h->atomiceth.rkey = 0x11223344;
	h->atomiceth.swap = UINT64_C(0x0102030405060708);
	h->atomiceth.cmp = UINT64_C(0xf1f2f3f4f5f6f7f8);
	h->aeth.syndrome = 0x1f;
	h->aeth.msn = 0xffffff;
	h->atomicacketh.orig = UINT64_C(0x8877665544332211);
	h->immdt = 0xcafebabe;
	h->ieth = 0x01020304;
}

const uint8_t *u_payload(void)
{
	static uint8_t p[2048];
	if (!p[0])
		for (unsigned i = 0; i < sizeof(p); i++)
			p[i] = (uint8_t)(0xa5 ^ (i * 37 + 11));
	return p;
}

uint32_t u_build(const struct roce_build *b, uint8_t *out)
{
	int n = roce_build_frame(b, out, FRAME_CAP);
	cr_assert_gt(n, 0, "roce_build_frame failed: %d (%s)", n, roce_strerror(n));
	return (uint32_t)n;
}

int u_decode(const uint8_t *f, uint32_t len, unsigned linktype, struct roce_pkt *p)
{
	return roce_decode(NULL, f, len, len, linktype, p);
}

int u_ev(const char *name)
{
	int e = roce_event_by_name(name);
	cr_assert_geq(e, 0, "no event named \"%s\"", name);
	return e;
}

bool u_has(const struct roce_pkt *p, const char *name)
{
	return roce_evset_has(&p->events, (enum roce_event)u_ev(name));
}

const char *u_events_str(const struct roce_pkt *p)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = 0;
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		if (!roce_evset_has(&p->events, (enum roce_event)e))
			continue;
		int k = snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "", roce_event_name((enum roce_event)e));
		if (k < 0 || (size_t)k >= sizeof(buf) - n)
			break;
		n += (size_t)k;
	}
	return buf;
}

void u_expect_events(const struct roce_pkt *p, const char *const *names, unsigned n, const char *where)
{
	struct roce_evset want = {{0}};
	int worst = -1;

	for (unsigned i = 0; i < n; i++) {
		int e = u_ev(names[i]);
		roce_evset_add(&want, (enum roce_event)e);
		if ((int)roce_event_severity((enum roce_event)e) > worst)
			worst = (int)roce_event_severity((enum roce_event)e);
	}
	for (unsigned w = 0; w < ROCE_EVSET_WORDS; w++)
		cr_assert_eq(p->events.w[w], want.w[w], "%s: events are {%s}", where, u_events_str(p));
	cr_assert_eq(roce_pkt_worst_severity(p), worst, "%s: worst severity", where);
}

void u_expect_event_sev(const struct roce_pkt *p, const char *name, enum roce_severity sev)
{
	int e = u_ev(name);
	cr_assert(roce_evset_has(&p->events, (enum roce_event)e), "expected %s, events are {%s}", name,
		  u_events_str(p));
	cr_assert_eq(roce_event_severity((enum roce_event)e), sev, "severity of %s", name);
	cr_assert_geq(roce_pkt_worst_severity(p), (int)sev);
}

void u_assert_bth_eq(const struct roce_bth *w, const struct roce_bth *g, const char *ctx)
{
	cr_assert_eq(g->opcode, w->opcode, "%s: opcode", ctx);
	cr_assert_eq(g->se, w->se, "%s: SE", ctx);
	cr_assert_eq(g->m, w->m, "%s: M", ctx);
	cr_assert_eq(g->padcnt, w->padcnt, "%s: PadCnt", ctx);
	cr_assert_eq(g->tver, w->tver, "%s: TVer", ctx);
	cr_assert_eq(g->pkey, w->pkey, "%s: P_Key", ctx);
	cr_assert_eq(g->fecn, w->fecn, "%s: FECN", ctx);
	cr_assert_eq(g->becn, w->becn, "%s: BECN", ctx);
	cr_assert_eq(g->resv6, w->resv6, "%s: Resv6", ctx);
	cr_assert_eq(g->dqpn, w->dqpn, "%s: DestQP", ctx);
	cr_assert_eq(g->ackreq, w->ackreq, "%s: AckReq", ctx);
	cr_assert_eq(g->resv7, w->resv7, "%s: Resv7", ctx);
	cr_assert_eq(g->psn, w->psn, "%s: PSN", ctx);
}

void u_assert_hdrs_eq(const struct roce_hdrs *w, const struct roce_hdrs *g, const char *ctx)
{
	u_assert_bth_eq(&w->bth, &g->bth, ctx);
	cr_assert_eq(g->hdrs, w->hdrs, "%s: hdrs mask 0x%x, want 0x%x", ctx, g->hdrs, w->hdrs);
	if (w->hdrs & ROCE_HDR_RDETH) {
		cr_assert_eq(g->rdeth.eecnxt, w->rdeth.eecnxt, "%s: RDETH EECnxt", ctx);
		cr_assert_eq(g->rdeth.resv, w->rdeth.resv, "%s: RDETH resv", ctx);
	}
	if (w->hdrs & ROCE_HDR_DETH) {
		cr_assert_eq(g->deth.qkey, w->deth.qkey, "%s: DETH Q_Key", ctx);
		cr_assert_eq(g->deth.srcqp, w->deth.srcqp, "%s: DETH SrcQP", ctx);
		cr_assert_eq(g->deth.resv, w->deth.resv, "%s: DETH resv", ctx);
	}
	if (w->hdrs & ROCE_HDR_XRCETH) {
		cr_assert_eq(g->xrceth.xrcsrq, w->xrceth.xrcsrq, "%s: XRCSRQ", ctx);
		cr_assert_eq(g->xrceth.resv, w->xrceth.resv, "%s: XRCETH resv", ctx);
	}
	if (w->hdrs & ROCE_HDR_FETH) {
		cr_assert_eq(g->feth.sel, w->feth.sel, "%s: FETH Sel", ctx);
		cr_assert_eq(g->feth.plt, w->feth.plt, "%s: FETH PLT", ctx);
		cr_assert_eq(g->feth.resv, w->feth.resv, "%s: FETH resv", ctx);
	}
	if (w->hdrs & ROCE_HDR_RETH) {
		cr_assert_eq(g->reth.va, w->reth.va, "%s: RETH VA", ctx);
		cr_assert_eq(g->reth.rkey, w->reth.rkey, "%s: RETH R_Key", ctx);
		cr_assert_eq(g->reth.dmalen, w->reth.dmalen, "%s: RETH DMALen", ctx);
	}
	if (w->hdrs & ROCE_HDR_ATOMICETH) {
		cr_assert_eq(g->atomiceth.va, w->atomiceth.va, "%s: AtomicETH VA", ctx);
		cr_assert_eq(g->atomiceth.rkey, w->atomiceth.rkey, "%s: AtomicETH R_Key", ctx);
		cr_assert_eq(g->atomiceth.swap, w->atomiceth.swap, "%s: AtomicETH Swap", ctx);
		cr_assert_eq(g->atomiceth.cmp, w->atomiceth.cmp, "%s: AtomicETH Cmp", ctx);
	}
	if (w->hdrs & ROCE_HDR_AETH) {
		cr_assert_eq(g->aeth.syndrome, w->aeth.syndrome, "%s: AETH syndrome", ctx);
		cr_assert_eq(g->aeth.msn, w->aeth.msn, "%s: AETH MSN", ctx);
	}
	if (w->hdrs & ROCE_HDR_ATOMICACKETH)
		cr_assert_eq(g->atomicacketh.orig, w->atomicacketh.orig, "%s: AtomicAckETH", ctx);
	if (w->hdrs & ROCE_HDR_IMMDT)
		cr_assert_eq(g->immdt, w->immdt, "%s: ImmDt", ctx);
	if (w->hdrs & ROCE_HDR_IETH)
		cr_assert_eq(g->ieth, w->ieth, "%s: IETH", ctx);
}

uint16_t u_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void u_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void u_ip4_fix_csum(uint8_t *ip, unsigned hlen)
{
	uint32_t sum = 0;
	ip[10] = ip[11] = 0;
	for (unsigned i = 0; i < hlen; i += 2)
		sum += u_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	u_put_be16(ip + 10, (uint16_t)~sum);
}

void u_layout_add(struct u_layout *l, uint32_t start, enum roce_layer layer)
{
	cr_assert_lt(l->n, sizeof(l->r) / sizeof(l->r[0]));
	if (l->n)
		cr_assert_geq(start, l->r[l->n - 1].start, "layout regions out of order");
	l->r[l->n].start = start;
	l->r[l->n].layer = (uint8_t)layer;
	l->n++;
}

void u_layout_from_pkt(struct u_layout *l, const struct roce_pkt *p, bool add_link)
{
	cr_assert(p->version == 1 || p->version == 2);
	if (add_link) {
		memset(l, 0, sizeof(*l));
		if (p->linktype == ROCE_LINK_ETHERNET) {
			u_layout_add(l, 0, ROCE_LAYER_LINK);
			if (p->n_vlan)
				u_layout_add(l, ETH_HLEN_U, ROCE_LAYER_VLAN);
		} else if (p->linktype == ROCE_LINK_SLL || p->linktype == ROCE_LINK_SLL2) {
			u_layout_add(l, 0, ROCE_LAYER_LINK);
		} else {
			/* raw IP: an empty capture does not say which IP version it is */
			u_layout_add(l, 0, ROCE_LAYER_IPV4);
		}
	} else if (p->eth_off >= 0) {
		u_layout_add(l, (uint32_t)p->eth_off, ROCE_LAYER_LINK);
		if (p->n_vlan)
			u_layout_add(l, (uint32_t)p->eth_off + ETH_HLEN_U, ROCE_LAYER_VLAN);
	}
	uint8_t nl = p->net.kind == ROCE_NET_IPV4 ? ROCE_LAYER_IPV4
		     : p->net.kind == ROCE_NET_IPV6 ? ROCE_LAYER_IPV6 : ROCE_LAYER_GRH;
	if (p->linktype == ROCE_LINK_RAW && add_link && nl == ROCE_LAYER_IPV6)
		u_layout_add(l, 1, ROCE_LAYER_IPV6);
	else
		u_layout_add(l, p->net.off, (enum roce_layer)nl);
	if (p->version == 2) {
		u_layout_add(l, p->udp.off, ROCE_LAYER_UDP);
		l->ident_off = p->udp.off + 8u;
	} else {
		l->ident_off = p->net.off;
	}
	u_layout_add(l, p->bth_off, ROCE_LAYER_BTH);
	if (p->payload_off > p->bth_off + (uint32_t)ROCE_BTH_LEN)
		u_layout_add(l, p->bth_off + (uint32_t)ROCE_BTH_LEN, ROCE_LAYER_EXT);
	if (p->icrc_off > p->payload_off)
		u_layout_add(l, p->payload_off, ROCE_LAYER_PAYLOAD);
	u_layout_add(l, p->icrc_off, ROCE_LAYER_ICRC);
	l->end = p->icrc_off + ROCE_ICRC_LEN;
}

static uint8_t layer_at(const struct u_layout *l, uint32_t off)
{
	uint8_t layer = 0;
	for (unsigned i = 0; i < l->n && l->r[i].start <= off; i++)
		layer = l->r[i].layer;
	return layer;
}

void u_sweep_truncation(const uint8_t *f, uint32_t len, unsigned linktype, const struct u_layout *lay,
			bool mirror)
{
	struct roce_pkt full, p;
	int truncated = u_ev("truncated");

	cr_assert_eq(roce_decode(NULL, f, len, len, linktype, &full), 1, "the whole frame is RoCE");
	cr_assert_eq(full.icrc_status, ROCE_ICRC_GOOD, "the whole frame has a good ICRC");
	cr_assert(!roce_evset_has(&full.events, (enum roce_event)truncated), "the whole frame is not truncated: {%s}",
		  u_events_str(&full));
	cr_assert_leq(lay->end, len);
	cr_assert_gt(lay->n, 0);

	for (uint32_t k = 0; k < lay->end; k++) {
		/* exactly k bytes: ASan catches a read past caplen (none at all for k = 0) */
		uint8_t *copy = k ? malloc(k) : NULL;
		cr_assert(copy || k == 0);
		if (k)
			memcpy(copy, f, k);
		int r = roce_decode(NULL, copy, k, mirror ? k : len, linktype, &p);
		free(copy);

		cr_assert_eq(p.caplen, k);
		cr_assert_eq(p.wirelen, mirror ? k : len);
		uint8_t want_version = k >= lay->ident_off ? full.version : 0;
		cr_assert_eq(p.version, want_version, "caplen %u: version %u, want %u", k, p.version, want_version);
		cr_assert_eq(r, want_version != 0, "caplen %u: return value", k);
		cr_assert(roce_evset_has(&p.events, (enum roce_event)truncated),
			  "caplen %u: no \"truncated\" event: {%s}", k, u_events_str(&p));
		cr_assert_eq(p.trunc_layer, layer_at(lay, k), "caplen %u: trunc_layer %s, want %s", k,
			     roce_layer_name((enum roce_layer)p.trunc_layer),
			     roce_layer_name((enum roce_layer)layer_at(lay, k)));
		cr_assert_eq(p.invalid_layer, 0, "caplen %u: invalid layer %u: {%s}", k, p.invalid_layer,
			     u_events_str(&p));
		cr_assert_lt(roce_pkt_worst_severity(&p), (int)ROCE_SEV_ERROR, "caplen %u: error event: {%s}", k,
			     u_events_str(&p));
		cr_assert(p.icrc_status != ROCE_ICRC_GOOD && p.icrc_status != ROCE_ICRC_BAD,
			  "caplen %u: ICRC status %s without the ICRC bytes", k,
			  roce_icrc_status_name((enum roce_icrc_status)p.icrc_status));
		if (p.version)
			cr_assert_eq(p.icrc_status, ROCE_ICRC_UNVERIFIABLE, "caplen %u: ICRC status %s, want unverifiable",
				     k, roce_icrc_status_name((enum roce_icrc_status)p.icrc_status));
		cr_assert(!roce_evset_has(&p.events, (enum roce_event)u_ev("icrc.bad")), "caplen %u", k);
		/* everything that was decoded is what the whole frame says */
		if (p.op) {
			cr_assert_geq(k, (uint32_t)full.bth_off + ROCE_BTH_LEN, "caplen %u: opcode from missing bytes", k);
			cr_assert_eq(p.op, full.op, "caplen %u: opcode info", k);
			u_assert_bth_eq(&full.h.bth, &p.h.bth, "truncated BTH");
			cr_assert_eq(p.icrc_off, full.icrc_off, "caplen %u: icrc_off", k);
			cr_assert_eq(p.payload_len, full.payload_len, "caplen %u: payload_len", k);
		} else if (p.version) {
			/* h.bth is defined only when op is set (decode.h); ASan guards the missing bytes */
			cr_assert_lt(k, (uint32_t)full.bth_off + ROCE_BTH_LEN, "caplen %u: BTH captured but not decoded", k);
		}
		if (p.op && k >= full.payload_off)
			u_assert_hdrs_eq(&full.h, &p.h, "truncated ext");
		if (p.version && k >= (uint32_t)full.net.off + full.net.hdr_len) {
			cr_assert_eq(p.net.kind, full.net.kind, "caplen %u", k);
			cr_assert_eq(p.net.off, full.net.off, "caplen %u", k);
			cr_assert_eq(p.net.total_len, full.net.total_len, "caplen %u", k);
		}
	}
}

void u_permutation(unsigned *a, unsigned n, uint64_t *rng)
{
	for (unsigned i = 0; i < n; i++)
		a[i] = i;
	for (unsigned i = n; i-- > 1;) {
		*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
		unsigned j = (unsigned)(*rng % (i + 1)), t = a[i];
		a[i] = a[j], a[j] = t;
	}
}

long u_status_kib(const char *field)
{
	FILE *fp = fopen("/proc/self/status", "r");
	cr_assert_not_null(fp);
	char line[256];
	size_t n = strlen(field);
	long kib = -1;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			kib = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(fp);
	cr_assert_geq(kib, 0, "%s in /proc/self/status", field);
	return kib;
}

void u_rows_keep(const struct roce_stream_stats *s, void *rows)
{
	struct u_rows *r = rows;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->s = realloc(r->s, r->cap * sizeof(*r->s));
		cr_assert_not_null(r->s);
	}
	memcpy(&r->s[r->n++], s, sizeof(*s));
}

#define SAME(f) cr_assert(x->f == y->f, "row %zu (stream %u): " #f " differs", k, x->stream)
#define SAME_ARRAY(f) cr_assert(memcmp(x->f, y->f, sizeof(x->f)) == 0, "row %zu (stream %u): " #f " differs", k, x->stream)

void u_assert_same_row(size_t k, const struct roce_stream_stats *x, const struct roce_stream_stats *y)
{
	SAME(addr_len); SAME_ARRAY(src); SAME_ARRAY(dst); SAME(dqpn); SAME(paired); SAME(peer_qpn);
	SAME(transport); SAME(pmtu); SAME(packets); SAME(bytes); SAME(requests); SAME(responses);
	SAME(first_psn); SAME(last_psn); SAME(has_psn); SAME(gaps); SAME(missing_psns); SAME(retransmits);
	SAME(out_of_order); SAME(timeouts); SAME(lost_before); SAME(lost_after); SAME_ARRAY(naks);
	SAME(rnr_naks); SAME(messages); SAME(messages_send); SAME(messages_write); SAME(messages_read);
	SAME(messages_atomic); SAME(messages_other); SAME(response_count); SAME(response_untimed); SAME(response_min_us);
	SAME(response_mean_us); SAME(response_max_us); SAME(response_p50_us); SAME(response_p99_us);
	SAME(turn_count); SAME(turn_mean_us); SAME(turn_max_us); SAME(recover_count); SAME(recover_mean_us);
	SAME(recover_max_us); SAME(timeout_aged); SAME(timeout_age_mean_us); SAME(timeout_age_max_us);
	SAME(max_idle_us); SAME(copies); SAME(stream); SAME(pair); SAME_ARRAY(ecn); SAME(fecn); SAME(becn);
	SAME(cnps); SAME(cnp_unexpected); SAME(cnp_missing); SAME(cnp_pending); SAME(ce_to_cnp_count);
	SAME(ce_to_cnp_min_ns); SAME(ce_to_cnp_p50_ns); SAME(ce_to_cnp_p99_ns); SAME(ce_to_cnp_max_ns);
}
