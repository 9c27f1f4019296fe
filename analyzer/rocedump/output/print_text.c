/* print_text.c: one line per frame, tcpdump style:
 *   TIME [LINK] [WRAPPER:] IP SRC.PORT > DST.PORT: RoCEv2 [(ip facts)] RC SEND_ONLY qp 0x000011
 *        psn 1234 [flags] [extended headers] len N icrc good [events]
 * -v adds the IP/UDP facts and the remaining BTH fields, -vv the ICRC values of good packets,
 * -e the link layer. A header cut by the capture shows as [|layer], as tcpdump does. */
#include <inttypes.h>
#include <stdlib.h>

#include "output/fmt.h"
#include "output/print.h"

static const char *ecn_name(unsigned ecn)
{
	static const char *const n[] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
	return n[ecn & 3];
}

/* An SLL/SLL2 packet type as tcpdump names it. */
static const char *sll_pkttype_name(unsigned t)
{
	static const char *const n[] = {"In", "B", "M", "P", "Out"};
	return t < 5 ? n[t] : "?";
}

/* The outer IP addresses of a wrapped frame, " 10.0.0.1 > 10.0.0.2", if captured. */
static void put_wrap_addrs(struct sb *s, const struct frame *f, const struct roce_wrap *w)
{
	char a[FMT_ADDR_MAX], b[FMT_ADDR_MAX];
	unsigned alen = w->ip_version == 6 ? 16 : 4, aoff = w->ip_version == 6 ? 8 : 12;
	if (w->ip_off && w->ip_off + aoff + 2 * alen <= roce_readable_len(f->caplen)) {
		fmt_ip(a, f->data + w->ip_off + aoff, alen);
		fmt_ip(b, f->data + w->ip_off + aoff + alen, alen);
		sb_printf(s, " %s > %s", a, b);
	}
}

/* -e: where the frame was seen (pcapng interface, SLL/SLL2 interface and direction; a wrapped
 * frame's mirror: its outer Ethernet and IP addresses), then the Ethernet addresses and VLAN tags
 * of the innermost frame. */
static void put_link(struct sb *s, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p)
{
	if (o->files)  /* several files merged: the frame's, and its number there */
		sb_printf(s, "file %" PRIu32 " (%s) frame %" PRIu64 " ", f->file, o->files[f->file], f->file_number);
	if (f->iface) {
		sb_printf(s, "if %" PRIu32, capstats_iface_id(f->iface));
		if (f->iface_name[0])
			sb_printf(s, " (%s)", f->iface_name);
		sb_puts(s, " ");
	}
	if (p->wrap.kind && p->linktype == ROCE_LINK_ETHERNET && p->eth_off > 0 && roce_readable_len(f->caplen) >= 14) {
		char src[18], dst[18];
		fmt_mac(dst, f->data);
		fmt_mac(src, f->data + 6);
		sb_printf(s, "outer %s > %s", src, dst);
		put_wrap_addrs(s, f, &p->wrap);
		sb_puts(s, ", ");
	}
	if (p->eth_off >= 0 && (uint32_t)p->eth_off + 14 <= roce_readable_len(f->caplen)) {
		char src[18], dst[18];
		fmt_mac(dst, f->data + p->eth_off);
		fmt_mac(src, f->data + p->eth_off + 6);
		sb_printf(s, "%s > %s, ", src, dst);
	} else if (p->linktype == ROCE_LINK_SLL) {
		sb_printf(s, "sll %s, ", sll_pkttype_name(p->sll_pkttype));
	} else if (p->linktype == ROCE_LINK_SLL2) {
		sb_printf(s, "sll2 ifindex %" PRIu32 " %s, ", p->sll_ifindex, sll_pkttype_name(p->sll_pkttype));
	}
	for (unsigned i = 0; i < p->n_vlan; i++)
		sb_printf(s, "%s vlan %u p %u%s, ", p->vlan[i].tpid == 0x8100 ? "802.1Q" : "802.1ad",
			  p->vlan[i].vid, p->vlan[i].pcp, p->vlan[i].dei ? " dei" : "");
	sb_printf(s, "length %" PRIu32 ": ", f->wirelen);
}

static void put_wrap(struct sb *s, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p)
{
	const struct roce_wrap *w = &p->wrap;

	sb_puts(s, roce_wrap_name(w->kind));
	if (o->verbose)
		put_wrap_addrs(s, f, w);
	if (w->kind == ROCE_WRAP_VXLAN) {
		sb_printf(s, " vni %" PRIu32, w->vni);
	} else {  /* GRE-carried: ERSPAN's own fields, then GRE's */
		if (w->kind == ROCE_WRAP_ERSPAN2 || w->kind == ROCE_WRAP_ERSPAN3) {
			sb_printf(s, " session %u", w->session_id);
			if (w->kind == ROCE_WRAP_ERSPAN3)
				sb_printf(s, " %s hwid %u", w->direction ? "egress" : "ingress", w->hwid);
			if (w->vlan)
				sb_printf(s, " vlan %u", w->vlan);
			if (w->truncated)
				sb_puts(s, " truncated");
		}
		if (w->has_key)
			sb_printf(s, " key %" PRIu32, w->gre_key);
		if (w->has_seq)
			sb_printf(s, " seq %" PRIu32, w->gre_seq);
	}
	sb_puts(s, ": ");
}

/* An ICRC as its four bytes stand in the frame, first byte highest: the core keeps it as the
 * little-endian integer those bytes make (the CRC's own order), which the JSON prints. */
static uint32_t icrc_as_sent(uint32_t icrc)
{
	return __builtin_bswap32(icrc);
}

static void put_ext(struct sb *s, const struct roce_pkt *p)
{
	const struct roce_hdrs *h = &p->h;

	if (h->hdrs & ROCE_HDR_RDETH)
		sb_printf(s, " rdeth eecnxt %" PRIu32, h->rdeth.eecnxt);
	if (h->hdrs & ROCE_HDR_DETH) {
		sb_puts(s, " deth qkey 0x");
		sb_puthex(s, h->deth.qkey, 8);
		sb_puts(s, " srcqp 0x");
		sb_puthex(s, h->deth.srcqp, 6);
	}
	if (h->hdrs & ROCE_HDR_XRCETH)
		sb_printf(s, " xrceth xrcsrq 0x%06" PRIx32, h->xrceth.xrcsrq);
	if (h->hdrs & ROCE_HDR_FETH)
		sb_printf(s, " feth sel %u plt %u", h->feth.sel, h->feth.plt);
	if (h->hdrs & ROCE_HDR_RETH) {
		sb_puts(s, " reth va 0x");
		sb_puthex(s, h->reth.va, 1);
		sb_puts(s, " rkey 0x");
		sb_puthex(s, h->reth.rkey, 8);
		sb_puts(s, " dmalen ");
		sb_putu(s, h->reth.dmalen);
	}
	if (h->hdrs & ROCE_HDR_ATOMICETH) {  /* the first operand is "Swap (or Add) Data" (IBTA 9.3.3.3.2) */
		sb_printf(s, " atomiceth va 0x%" PRIx64 " rkey 0x%08" PRIx32, h->atomiceth.va, h->atomiceth.rkey);
		if (p->op && p->op->op == ROCE_OP_FETCH_ADD)
			sb_printf(s, " add 0x%" PRIx64, h->atomiceth.swap);
		else
			sb_printf(s, " swap 0x%" PRIx64 " cmp 0x%" PRIx64, h->atomiceth.swap, h->atomiceth.cmp);
	}
	if (h->hdrs & ROCE_HDR_AETH) {
		uint8_t syn = h->aeth.syndrome;
		unsigned v = roce_aeth_value(syn);
		switch (roce_aeth_kind(syn)) {
		case ROCE_AETH_ACK:
			sb_puts(s, " aeth ACK credit ");
			sb_putu(s, v);
			break;
		case ROCE_AETH_RNR_NAK:
			sb_printf(s, " aeth RNR_NAK timer %u (%" PRIu32 "us)", v, roce_rnr_timer_usec(v));
			break;
		case ROCE_AETH_NAK: {
			const char *code = roce_nak_code_name(v);
			if (code)
				sb_printf(s, " aeth NAK %s", code);
			else
				sb_printf(s, " aeth NAK code %u", v);
			break;
		}
		default:
			sb_printf(s, " aeth syndrome 0x%02x", syn);
			break;
		}
		sb_puts(s, " msn ");
		sb_putu(s, h->aeth.msn);
	}
	if (h->hdrs & ROCE_HDR_ATOMICACKETH)
		sb_printf(s, " orig 0x%" PRIx64, h->atomicacketh.orig);
	if (h->hdrs & ROCE_HDR_IMMDT) {
		sb_puts(s, " imm 0x");
		sb_puthex(s, h->immdt, 8);
	}
	if (h->hdrs & ROCE_HDR_IETH)
		sb_printf(s, " inv-rkey 0x%08" PRIx32, h->ieth);
}

static void put_roce(struct sb *s, const struct print_opts *o, const struct roce_pkt *p)
{
	const struct roce_bth *b = &p->h.bth;
	const struct roce_net *n = &p->net;

	sb_puts(s, p->version == 1 ? "RoCEv1" : "RoCEv2");
	if (o->verbose && n->kind != ROCE_NET_NONE) {
		sb_printf(s, " (tos 0x%02x %s, ttl %u", n->tclass, ecn_name(roce_ecn(n)), n->ttl);
		if (n->kind == ROCE_NET_IPV4)
			sb_printf(s, ", id %u, length %" PRIu32 ", ipsum %s", n->ip_id, n->total_len,
				  roce_csum_name(n->ip_csum));
		else
			sb_printf(s, ", flow 0x%05" PRIx32 ", length %" PRIu32, n->flow_label, n->total_len);
		if (p->version == 2)
			sb_printf(s, ", udp len %u, udpsum %s", p->udp.len, roce_csum_name(p->udp.csum_status));
		sb_puts(s, ")");
	}
	if (!p->op) {  /* the BTH itself was not captured or the packet is too short for one */
		sb_printf(s, " [|%s]", roce_layer_name(p->trunc_layer ? p->trunc_layer : ROCE_LAYER_BTH));
		return;
	}
	if (p->op->op == ROCE_OP_CNP)
		sb_puts(s, " CNP");
	else if (p->op->name && !(p->op->flags & ROCE_OPF_VENDOR)) {
		sb_puts(s, " ");
		sb_puts(s, roce_transport_name(p->op->transport));
		sb_puts(s, " ");
		sb_puts(s, p->op->name);
	}
	else if (p->op->flags & ROCE_OPF_VENDOR)
		sb_printf(s, " VENDOR opcode 0x%02x", b->opcode);
	else
		sb_printf(s, " opcode 0x%02x (reserved)", b->opcode);
	sb_puts(s, " qp 0x");
	sb_puthex(s, b->dqpn, 6);
	sb_puts(s, " psn ");
	sb_putu(s, b->psn);
	if (b->ackreq)
		sb_puts(s, " ackreq");
	if (b->se)
		sb_puts(s, " se");
	if (b->fecn)
		sb_puts(s, " fecn");
	if (b->becn)
		sb_puts(s, " becn");
	if (o->verbose)
		sb_printf(s, " pkey 0x%04x pad %u tver %u m %u", b->pkey, b->padcnt, b->tver, b->m);
	if (p->trunc_layer == ROCE_LAYER_EXT) {
		sb_puts(s, " [|eth]");
		return;
	}
	put_ext(s, p);
	if (p->icrc_off == 0)  /* too short for its headers: nothing more was decoded */
		return;
	sb_puts(s, " len ");
	sb_putu(s, p->payload_len);
	switch (p->icrc_status) {
	case ROCE_ICRC_BAD:  /* both as their bytes stand on the wire, as tshark shows them */
		sb_printf(s, " icrc BAD (wire 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")", icrc_as_sent(p->icrc_wire),
			  icrc_as_sent(p->icrc_computed));
		break;
	case ROCE_ICRC_GOOD:
		if (o->verbose > 1)
			sb_printf(s, " icrc good 0x%08" PRIx32, icrc_as_sent(p->icrc_wire));
		else
			sb_puts(s, " icrc good");
		break;
	default:
		sb_printf(s, " icrc %s", roce_icrc_status_name(p->icrc_status));
		break;
	}
}

static void put_quanta(struct sb *s, const struct print_opts *o, unsigned q)
{
	sb_putu(s, q);
	sb_puts(s, "q");
	if (o->verbose && q) {
		char d[FMT_DUR_MAX];
		fmt_duration(d, roce_quanta_ns(q, o->link_bps));
		sb_printf(s, " (%s)", d);
	}
}

void print_macc_text(struct sb *s, const struct print_opts *o, const struct roce_pkt *p)
{
	const struct roce_macc *m = &p->macc;
	if (m->opcode == ROCE_MACC_PAUSE && m->fields) {
		sb_puts(s, "PAUSE ");
		put_quanta(s, o, m->quanta[0]);
		if (!m->quanta[0])
			sb_puts(s, " XON");
	} else if (m->opcode == ROCE_MACC_PFC && m->fields) {
		sb_puts(s, "PFC");
		bool xoff = false;
		for (unsigned i = 0; i < m->fields; i++) {
			if ((m->enbv >> i & 1) && m->quanta[i]) {
				sb_printf(s, "%s p%u ", xoff ? "" : " XOFF", i);
				put_quanta(s, o, m->quanta[i]);
				xoff = true;
			}
		}
		for (unsigned i = 0; i < m->fields; i++)
			if ((m->enbv >> i & 1) && !m->quanta[i])
				sb_printf(s, " p%u XON", i);
		if (!(m->enbv & 0xff))
			sb_puts(s, " no class enabled");
		if (o->verbose)
			sb_printf(s, " enbv 0x%04x", m->enbv);
	} else if (m->opcode || m->fields) {
		sb_printf(s, "MAC control opcode 0x%04x", m->opcode);
	} else {
		sb_puts(s, "MAC control");
	}
	if (m->malformed) {
		const char *sep = " (malformed: ";
		for (unsigned b = 1; b <= ROCE_MACC_SHORT; b <<= 1)
			if (m->malformed & b) {
				sb_printf(s, "%s%s", sep, roce_macc_bad_name(b));
				sep = ",";
			}
		sb_puts(s, ")");
	}
	if (p->trunc_layer)
		sb_printf(s, " [|%s]", roce_layer_name(p->trunc_layer));
}

/* A frame that is neither RoCE nor IP. */
static void put_other(struct sb *s, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p)
{
	switch (p->net.kind) {
	case ROCE_NET_MACC:
		print_macc_text(s, o, p);
		break;
	case ROCE_NET_ARP:
		sb_puts(s, "ARP");
		break;
	case ROCE_NET_OTHER:
		sb_printf(s, "ethertype 0x%04x, length %" PRIu32, p->net.ethertype, f->wirelen);
		break;
	default:
		sb_printf(s, "length %" PRIu32, f->wirelen);
		break;
	}
}

/* The frame's events; a field named by a decoder event, its value: bth.reserved_nonzero(resv7 0x01);
 * a transport finding adds its PSNs: psn.gap(expected 100 seen 103), and a
 * timeout the age of the resent PSN: retransmit.timeout(expected 106 seen 103, first sent 4.210 ms
 * before in frame 12). */
void print_events(struct sb *s, const struct roce_pkt *p, const struct roce_findings *fi, bool all)
{
	const char *sep = "";
	char text[512];  /* a PFC frame's findings on eight classes */
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++) {
		if (!roce_evset_has(&p->events, (enum roce_event)e))
			continue;
		sb_puts(s, sep);
		unsigned shown = all ? 0 : 2;
		size_t n = roce_event_text_n(text, sizeof(text), (enum roce_event)e, p, fi, shown);
		char *big = n < sizeof(text) ? NULL : malloc(n + 1);  /* all of a thousand findings */
		if (big)
			roce_event_text_n(big, n + 1, (enum roce_event)e, p, fi, shown);
		sb_puts(s, big ? big : text);
		free(big);
		sep = ",";
	}
}

static void put_events(struct sb *s, const struct print_opts *o, const struct roce_pkt *p,
		       const struct roce_findings *fi)
{
	if (roce_evset_empty(&p->events))
		return;
	sb_puts(s, " [");
	print_events(s, p, fi, o->verbose > 1);
	sb_puts(s, "]");
}

void print_text(struct sb *s, const struct print_opts *o, uint64_t frame_no, const struct frame *f,
		const struct roce_pkt *p, const struct roce_findings *fi)
{
	char ts[FMT_TIME_MAX], src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	const struct roce_net *n = &p->net;

	if (o->number) {  /* tcpdump's -#: "%5u  " */
		char num[24];
		int w = snprintf(num, sizeof(num), "%5llu  ", (unsigned long long)frame_no);
		sb_putn(s, num, (size_t)w);
	}
	if (o->ts_style != TS_NONE) {
		fmt_time(ts, o->ts_style, o->nano, f->ts_sec, f->ts_nsec, o->clock);
		sb_puts(s, ts);
		sb_puts(s, " ");
	}
	if (o->link)
		put_link(s, o, f, p);
	if (p->wrap.kind)
		put_wrap(s, o, f, p);
	fmt_net_addrs(p, f->data, src, dst);
	if (!src[0] && (n->kind == ROCE_NET_IPV4 || n->kind == ROCE_NET_IPV6 || n->kind == ROCE_NET_GRH)) {
		/* the network header itself was cut or invalid */
		sb_printf(s, "%s [|%s]", n->kind == ROCE_NET_IPV4 ? "IP" : n->kind == ROCE_NET_IPV6 ? "IP6" : "GRH",
			  roce_layer_name(p->trunc_layer ? p->trunc_layer : p->invalid_layer));
	} else if (n->kind == ROCE_NET_IPV4 || n->kind == ROCE_NET_IPV6) {
		bool ports = p->version == 2 || p->udp.off || (n->proto == 6 && (p->l4_sport || p->l4_dport));
		sb_puts(s, n->kind == ROCE_NET_IPV4 ? "IP " : "IP6 ");
		sb_puts(s, src);
		if (ports) {
			sb_puts(s, ".");
			sb_putu(s, p->l4_sport);
		}
		sb_puts(s, " > ");
		sb_puts(s, dst);
		if (ports) {
			sb_puts(s, ".");
			sb_putu(s, p->l4_dport);
		}
		sb_puts(s, ": ");
		if (p->version)
			put_roce(s, o, p);
		else if (n->proto == 17 && p->udp.off)
			sb_printf(s, "UDP, length %u", p->udp.len >= 8 ? p->udp.len - 8 : 0);
		else if (n->proto == 17 || n->proto == 6) {
			/* TCP, or UDP with no header decoded: cut by the capture, or not there (a later
			 * fragment, an IP length that leaves no room: the events say which) */
			sb_puts(s, n->proto == 17 ? "UDP" : "TCP");
			if (p->trunc_layer)
				sb_printf(s, " [|%s]", roce_layer_name(p->trunc_layer));
		} else
			sb_printf(s, "ip-proto %u", n->proto);
	} else if (n->kind == ROCE_NET_GRH) {
		sb_printf(s, "GRH %s > %s: ", src, dst);
		put_roce(s, o, p);
	} else if (p->trunc_layer) {
		sb_printf(s, "[|%s]", roce_layer_name(p->trunc_layer));
	} else {
		put_other(s, o, f, p);
	}
	if (p->version)
		print_mad_text(s, o, f, p);
	put_events(s, o, p, fi);
	sb_puts(s, "\n");
}

/* The link-layer header tcpdump leaves out of -x: Ethernet with its VLAN tags, the cooked
 * headers, nothing for raw IP. */
static uint32_t link_header_len(const uint8_t *d, uint32_t caplen, unsigned linktype)
{
	switch (linktype) {
	case ROCE_LINK_ETHERNET: {
		uint32_t off = 12;
		while (off + 4 <= caplen) {
			if (!roce_is_vlan_tpid((uint16_t)(d[off] << 8 | d[off + 1])))
				break;
			off += 4;
		}
		return off + 2;
	}
	case ROCE_LINK_SLL: return 16;
	case ROCE_LINK_SLL2: return 20;
	default: return 0;
	}
}

void print_hex(struct sb *s, FILE *out, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t len = roce_readable_len(f->caplen), start = 0;
	/* tcpdump dumps the whole frame when its printer runs out of bytes: so does a MAC control
	 * frame without its opcode, or a PAUSE without its pause time */
	bool cut = p->net.kind == ROCE_NET_MACC && (uint32_t)p->macc.off + (p->macc.opcode == ROCE_MACC_PAUSE ? 4 : 2) > len;
	if (o->hex < 2 && !cut) {
		start = link_header_len(f->data, len, p->linktype);
		if (start >= len)
			return;  /* nothing past the link-layer header: nothing, as tcpdump */
	}
	const uint8_t *d = f->data + start;
	len -= start;
	for (uint32_t line = 0; line < len; line += 16) {
		char buf[96], *q = buf;
		uint32_t n = len - line < 16 ? len - line : 16;
		q += sprintf(q, "\t0x%04x: ", line);
		char *hex = q;
		for (uint32_t i = 0; i < n; i++) {
			if (i % 2 == 0)
				*q++ = ' ';
			*q++ = digits[d[line + i] >> 4];
			*q++ = digits[d[line + i] & 15];
		}
		if (o->ascii) {
			while (q < hex + 40)  /* eight groups of " xxxx" */
				*q++ = ' ';
			*q++ = ' ';
			*q++ = ' ';
			for (uint32_t i = 0; i < n; i++) {
				uint8_t c = d[line + i];
				*q++ = (char)(c > 0x20 && c < 0x7f ? c : '.');
			}
		}
		*q++ = '\n';
		sb_putn(s, buf, (size_t)(q - buf));
		sb_end_record(s, out);
	}
}
