/* print_mad.c: the management datagrams on QP1 (IBTA Vol 1 §13.4) and the RDMA-CM messages in
 * them (§12.6), by the names Wireshark gives them, in the text line (the JSON object has them
 * from the field table, fields.def). The decoding is the core's (roce/mad.h); this file only
 * prints what it decoded.
 *
 * Text, after the RoCE fields (-v adds the rest of the REQ/REP fields and the RDMA IP CM data):
 *   ...: CM ConnectRequest comm-id 0x... qpn 0x000013 start-psn 12317728 mtu 1024 RC
 *   ...: CM ConnectReply comm-id 0x... remote-comm-id 0x... qpn 0x000012 start-psn 11866507
 *   ...: CM ReadyToUse | DisconnectReply comm-id 0x... remote-comm-id 0x...
 *   ...: CM DisconnectRequest comm-id 0x... remote-comm-id 0x... qpn 0x000013
 *   ...: CM ConnectReject comm-id 0x... remote-comm-id 0x... of REQ reason 28 (consumer reject)
 *   ...: CM MsgRcptAck comm-id 0x... remote-comm-id 0x... of REQ timeout 20
 *   ...: CM ServiceIDResReq (not decoded)              (SIDR, LAP, APR, ClassPortInfo)
 *   ...: MAD class 0x03 version 2 method 0x03 attribute 0x0035  (another management class)
 *   ...: CM ConnectRequest [|cm]                        (cut by the capture) */
#include <inttypes.h>

#include "output/fmt.h"
#include "output/print.h"
#include "roce/mad.h"

/* Whether the frame is a UD SEND_ONLY to QP 1 (the cheap test first), decoded into *m. */
static bool mad_of(const struct frame *f, const struct roce_pkt *p, struct roce_mad *m)
{
	if (!p->op || p->h.bth.dqpn != ROCE_MAD_QP1)
		return false;
	roce_mad_decode_pkt(p, f->data, m);
	return m->result != ROCE_MAD_NOT_QP1;
}

static const char *msg_of_name(unsigned v)
{
	static const char *const n[] = {"REQ", "REP", "other", "reserved"};
	return n[v & 3];
}

/* REQ Transport Service Type (2 bits) with the Extended Transport Type (3 bits, 1 = XRC) */
static const char *req_transport(const struct roce_cm_req *r)
{
	static const char *const n[] = {"RC", "UC", "RD", "reserved"};
	if (r->transport_service_type == 3 && r->extended_transport == 1)
		return "XRC";
	return n[r->transport_service_type & 3];
}

/* CM attributes the core does not decode, by Wireshark's names (IBTA Vol 1 Table 104) */
static const char *cm_other_attr_name(uint16_t attr)
{
	switch (attr) {
	case 0x0001: return "ClassPortInfo";
	case 0x0017: return "ServiceIDResReq";
	case 0x0018: return "ServiceIDResReqResp";
	case 0x0019: return "LoadAlternatePath";
	case 0x001a: return "AlternatePathResponse";
	default: return NULL;
	}
}

static void text_ids(struct sb *s, const struct roce_mad *m)
{
	sb_printf(s, " comm-id 0x%08" PRIx32, m->local_comm_id);
	if (m->cm_kind != ROCE_CM_REQ)
		sb_printf(s, " remote-comm-id 0x%08" PRIx32, m->remote_comm_id);
}

static void text_req(struct sb *s, const struct print_opts *o, const struct roce_cm_req *r)
{
	sb_printf(s, " qpn 0x%06" PRIx32 " start-psn %" PRIu32 " mtu %u %s", r->local_qpn, r->starting_psn,
		  roce_cm_mtu_bytes(r->path_mtu), req_transport(r));
	if (!o->verbose)
		return;
	sb_printf(s, " service-id 0x%016" PRIx64 " qkey 0x%08" PRIx32 " pkey 0x%04x retry %u rnr-retry %u"
		  " resp-res %u init-depth %u", r->service_id, r->local_qkey, r->pkey, r->retry_count,
		  r->rnr_retry_count, r->responder_resources, r->initiator_depth);
	if (r->has_ip_cm && (r->ip_cm_ip_version == 4 || r->ip_cm_ip_version == 6)) {
		char a[FMT_ADDR_MAX], b[FMT_ADDR_MAX];
		unsigned off = r->ip_cm_ip_version == 4 ? 12 : 0, len = r->ip_cm_ip_version == 4 ? 4 : 16;
		fmt_ip(a, r->ip_cm_src + off, len);
		fmt_ip(b, r->ip_cm_dst + off, len);
		/* the destination port is the ServiceID's low 16 bits (RDMA IP CM Service, Annex A11) */
		sb_printf(s, " ip-cm %s.%u > %s.%u", a, r->ip_cm_src_port, b, (unsigned)(r->service_id & 0xffff));
	}
}

void print_mad_text(struct sb *s, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p)
{
	struct roce_mad m;
	if (!mad_of(f, p, &m))
		return;
	const char *name = roce_cm_message_name((enum roce_cm_kind)m.cm_kind);
	switch (m.result) {
	case ROCE_MAD_TRUNC_HDR:
		sb_puts(s, ": MAD [|mad]");
		return;
	case ROCE_MAD_TRUNC_CM:
		sb_printf(s, ": CM %s [|cm]", name);
		return;
	case ROCE_MAD_UNKNOWN_ATTR: {
		const char *other = cm_other_attr_name(m.hdr.attr_id);
		if (other)
			sb_printf(s, ": CM %s (not decoded)", other);
		else
			sb_printf(s, ": CM attribute 0x%04x", m.hdr.attr_id);
		return;
	}
	case ROCE_MAD_OK:
		break;
	default:  /* another class, base or class version: the header as it is */
		sb_printf(s, ": MAD class 0x%02x version %u method 0x%02x attribute 0x%04x", m.hdr.mgmt_class,
			  m.hdr.class_version, (unsigned)(m.hdr.r << 7 | m.hdr.method), m.hdr.attr_id);
		return;
	}
	sb_printf(s, ": CM %s", name);
	text_ids(s, &m);
	switch (m.cm_kind) {
	case ROCE_CM_REQ:
		text_req(s, o, &m.cm.req);
		break;
	case ROCE_CM_REP:
		sb_printf(s, " qpn 0x%06" PRIx32 " start-psn %" PRIu32, m.cm.rep.local_qpn, m.cm.rep.starting_psn);
		if (o->verbose)
			sb_printf(s, " qkey 0x%08" PRIx32 " rnr-retry %u resp-res %u init-depth %u srq %u",
				  m.cm.rep.local_qkey, m.cm.rep.rnr_retry_count, m.cm.rep.responder_resources,
				  m.cm.rep.initiator_depth, m.cm.rep.srq);
		break;
	case ROCE_CM_DREQ:
		sb_printf(s, " qpn 0x%06" PRIx32, m.cm.dreq.remote_qpn);
		break;
	case ROCE_CM_REJ: {
		const char *why = roce_cm_rej_reason_name(m.cm.rej.reason);
		sb_printf(s, " of %s reason %u (%s)", msg_of_name(m.cm.rej.msg_rejected), m.cm.rej.reason,
			  why ? why : "reserved");
		break;
	}
	case ROCE_CM_MRA:
		sb_printf(s, " of %s timeout %u", m.cm.mra.msg_mraed == 2 ? "LAP" : msg_of_name(m.cm.mra.msg_mraed),
			  m.cm.mra.service_timeout);
		break;
	default:  /* RTU, DREP: the two IDs */
		break;
	}
}
