/* mad.c: MADs on QP1 and the Communication Management messages in them (IBTA Vol 1 §13.4.2 MAD
 * common header; §12.6 CM messages, Tables 106-113; Annex A11 RDMA IP CM Service private data).
 * Field positions as in Linux include/rdma/ibta_vol1_c12.h (CM_FIELD*: byte offset from the end
 * of the MAD header, bit offset from the most significant bit) and Wireshark 4.0
 * packet-infiniband.c (parse_CM); offsets below are from the start of the MAD.
 *
 *  MAD  0               1               2               3
 *    0 | BaseVersion   | MgmtClass     | ClassVersion  |R| Method      |
 *    4 | Status                        | ClassSpecific                 |
 *    8 | TransactionID (64)                                            |
 *   16 | AttributeID                   | Reserved                      |
 *   20 | AttributeModifier                                             |
 *   24 | class data (232 bytes for CM)                                 |
 *
 *  REQ 24 | Local Communication ID  | 28 Reserved | 32 ServiceID (64) | 40 Local CA GUID (64)
 *      48 | Reserved                | 52 Local Q_Key
 *      56 | Local QPN (24)                                | Responder Resources |
 *      60 | Local EECN (24)                               | Initiator Depth     |
 *      64 | Remote EECN (24)                              |RemCMTo(5)|TST(2)|E|
 *      68 | Starting PSN (24)                             |LocCMTo(5)|Retry(3)|
 *      72 | P_Key                   |MTU(4)|R|RNR(3)|MaxCM(4)|S|XT(3)|
 *      76 | Primary Local LID       | Primary Remote LID    |
 *      80 | Primary Local GID (128)   96 | Primary Remote GID (128)
 *     112 | Flow Label (20)        | Rsv(6) | Rate(6) | 116 TClass | HopLimit | SL(4)|L|Rsv | AckTo(5)|
 *     120 | alternate path (44 bytes)  164 | Private Data (92): RDMA IP CM header
 *  REP 24 | Local Comm ID | 28 Remote Comm ID | 32 Local Q_Key
 *      36 | Local QPN (24)     | Rsv |  40 | Local EECN (24) | Rsv |  44 | Starting PSN (24) | Rsv |
 *      48 | RespRes | InitDepth |AckDelay(5)|Fo(2)|E| RNR(3)|S|Rsv(4) |  52 | Local CA GUID (64)
 *  REJ 24 | Local Comm ID | 28 Remote Comm ID | 32 |MsgRej(2)|Rsv| RejInfoLen(7)|R| Reason (16) |
 *  MRA 24 | Local Comm ID | 28 Remote Comm ID | 32 |MsgMRAed(2)|Rsv| ServiceTimeout(5)|Rsv| Rsv |
 *  DREQ 24 | Local Comm ID | 28 Remote Comm ID | 32 | Remote QPN/EECN (24) | Rsv |
 *  RTU, DREP 24 | Local Comm ID | 28 Remote Comm ID |
 *
 *  RDMA IP CM header (REQ private data, ServiceID 0x0000000001PPpppp):
 *     0 | MajV(4)|MinV(4) | IPV(4)|Rsv(4) | Source Port | 4 Source IP (128) | 20 Destination IP (128)
 *  (IPv4 addresses in the last 4 bytes of each 16.) */
#include "roce/mad.h"

#include <string.h>

#include "bytes.h"

/* MAD common header */
#define MAD_BASE_VERSION 0
#define MAD_MGMT_CLASS 1
#define MAD_CLASS_VERSION 2
#define MAD_METHOD 3
#define MAD_STATUS 4
#define MAD_CLASS_SPECIFIC 6
#define MAD_TID 8
#define MAD_ATTR_ID 16
#define MAD_RESV 18
#define MAD_ATTR_MOD 20

/* Every CM message starts with the local communication ID; all but REQ follow it with the remote
 * one. */
#define CM_LOCAL_COMM_ID 24
#define CM_REMOTE_COMM_ID 28

/* REQ */
#define REQ_SERVICE_ID 32
#define REQ_LOCAL_CA_GUID 40
#define REQ_LOCAL_QKEY 52
#define REQ_LOCAL_QPN 56           /* 24 bits, then Responder Resources */
#define REQ_RESPONDER_RES 59
#define REQ_LOCAL_EECN 60          /* 24 bits, then Initiator Depth */
#define REQ_INITIATOR_DEPTH 63
#define REQ_REMOTE_EECN 64         /* 24 bits */
#define REQ_BYTE67 67              /* Remote CM Response Timeout(5) TST(2) E2E(1) */
#define REQ_STARTING_PSN 68        /* 24 bits */
#define REQ_BYTE71 71              /* Local CM Response Timeout(5) Retry Count(3) */
#define REQ_PKEY 72
#define REQ_BYTE74 74              /* Path MTU(4) RDC Exists(1) RNR Retry Count(3) */
#define REQ_BYTE75 75              /* Max CM Retries(4) SRQ(1) Extended Transport(3) */
#define REQ_PRI_LOCAL_LID 76
#define REQ_PRI_REMOTE_LID 78
#define REQ_PRI_LOCAL_GID 80
#define REQ_PRI_REMOTE_GID 96
#define REQ_PRI_FLOW 112           /* Flow Label(20) Reserved(6) Packet Rate(6) */
#define REQ_PRI_TCLASS 116
#define REQ_PRI_HOP_LIMIT 117
#define REQ_PRI_BYTE118 118        /* SL(4) Subnet Local(1) Reserved(3) */
#define REQ_PRI_BYTE119 119        /* Local ACK Timeout(5) Reserved(3) */
#define REQ_FIXED_END 164          /* end of the alternate path: the private data follows */
#define REQ_PRIVATE 164

/* RDMA IP CM header in the REQ private data */
#define IPCM_VERSION 0             /* MajV(4) MinV(4) */
#define IPCM_IPV 1                 /* IPV(4) Reserved(4) */
#define IPCM_SRC_PORT 2
#define IPCM_SRC_IP 4
#define IPCM_DST_IP 20
#define IPCM_LEN 36
#define IPCM_SERVICE_MASK UINT64_C(0xffffffffff000000)
#define IPCM_SERVICE_PREFIX UINT64_C(0x0000000001000000)

/* REP */
#define REP_LOCAL_QKEY 32
#define REP_LOCAL_QPN 36           /* 24 bits */
#define REP_LOCAL_EECN 40          /* 24 bits */
#define REP_STARTING_PSN 44        /* 24 bits */
#define REP_RESPONDER_RES 48
#define REP_INITIATOR_DEPTH 49
#define REP_BYTE50 50              /* Target ACK Delay(5) Failover Accepted(2) E2E(1) */
#define REP_BYTE51 51              /* RNR Retry Count(3) SRQ(1) Reserved(4) */
#define REP_LOCAL_CA_GUID 52
#define REP_FIXED_END 60

/* REJ */
#define REJ_BYTE32 32              /* Message REJected(2) Reserved(6) */
#define REJ_BYTE33 33              /* Reject Info Length(7) Reserved(1) */
#define REJ_REASON 34
#define REJ_FIXED_END 36

/* MRA */
#define MRA_BYTE32 32              /* Message MRAed(2) Reserved(6) */
#define MRA_BYTE33 33              /* Service Timeout(5) Reserved(3) */
#define MRA_FIXED_END 34

/* DREQ */
#define DREQ_REMOTE_QPN 32         /* 24 bits */
#define DREQ_FIXED_END 35

/* RTU, DREP */
#define IDS_FIXED_END 32

const char *roce_cm_kind_name(enum roce_cm_kind k)
{
	static const char *const names[] = {
		[ROCE_CM_NONE] = "none", [ROCE_CM_REQ] = "REQ", [ROCE_CM_MRA] = "MRA",
		[ROCE_CM_REJ] = "REJ", [ROCE_CM_REP] = "REP", [ROCE_CM_RTU] = "RTU",
		[ROCE_CM_DREQ] = "DREQ", [ROCE_CM_DREP] = "DREP",
	};
	if ((unsigned)k >= sizeof(names) / sizeof(names[0]))
		return "none";
	return names[k];
}

const char *roce_cm_message_name(enum roce_cm_kind k)
{
	static const char *const names[] = {
		[ROCE_CM_REQ] = "ConnectRequest", [ROCE_CM_MRA] = "MsgRcptAck",
		[ROCE_CM_REJ] = "ConnectReject", [ROCE_CM_REP] = "ConnectReply",
		[ROCE_CM_RTU] = "ReadyToUse", [ROCE_CM_DREQ] = "DisconnectRequest",
		[ROCE_CM_DREP] = "DisconnectReply",
	};
	if ((unsigned)k >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[k];
}

/* IBTA Vol 1 Table 109 (the codes Linux include/rdma/ib_cm.h names; 34 is not assigned) */
const char *roce_cm_rej_reason_name(unsigned reason)
{
	static const char *const names[] = {
		[1] = "no QP available", [2] = "no EEC available", [3] = "no resources available",
		[4] = "timeout", [5] = "unsupported request", [6] = "invalid communication ID",
		[7] = "invalid communication instance", [8] = "invalid service ID",
		[9] = "invalid transport service type", [10] = "stale connection",
		[11] = "RDC does not exist", [12] = "primary remote port GID rejected",
		[13] = "primary remote port LID rejected", [14] = "invalid primary SL",
		[15] = "invalid primary traffic class", [16] = "invalid primary hop limit",
		[17] = "invalid primary packet rate", [18] = "alternate remote port GID rejected",
		[19] = "alternate remote port LID rejected", [20] = "invalid alternate SL",
		[21] = "invalid alternate traffic class", [22] = "invalid alternate hop limit",
		[23] = "invalid alternate packet rate", [24] = "port redirection (CM)",
		[25] = "port redirection", [26] = "invalid path MTU",
		[27] = "insufficient responder resources", [ROCE_CM_REJ_CONSUMER] = "consumer reject",
		[29] = "RNR retry count rejected", [30] = "duplicate local communication ID",
		[31] = "unsupported class version", [32] = "invalid primary flow label",
		[33] = "invalid alternate flow label", [35] = "vendor option not supported",
	};
	if (reason >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[reason];
}

const char *roce_mad_result_name(enum roce_mad_result r)
{
	static const char *const names[] = {
		[ROCE_MAD_OK] = "ok", [ROCE_MAD_NOT_QP1] = "not_qp1",
		[ROCE_MAD_TRUNC_HDR] = "truncated_header", [ROCE_MAD_BAD_VERSION] = "bad_base_version",
		[ROCE_MAD_NOT_CM] = "not_cm", [ROCE_MAD_BAD_CLASS_VERSION] = "bad_class_version",
		[ROCE_MAD_UNKNOWN_ATTR] = "unknown_attribute", [ROCE_MAD_TRUNC_CM] = "truncated_cm",
	};
	if ((unsigned)r >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[r];
}

unsigned roce_cm_mtu_bytes(unsigned code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}

static void hdr_read(const uint8_t *p, struct roce_mad_hdr *h)
{
	h->base_version = p[MAD_BASE_VERSION];
	h->mgmt_class = p[MAD_MGMT_CLASS];
	h->class_version = p[MAD_CLASS_VERSION];
	h->r = p[MAD_METHOD] >> 7;
	h->method = p[MAD_METHOD] & 0x7f;
	h->status = ld_be16(p + MAD_STATUS);
	h->class_specific = ld_be16(p + MAD_CLASS_SPECIFIC);
	h->tid = ld_be64(p + MAD_TID);
	h->attr_id = ld_be16(p + MAD_ATTR_ID);
	h->resv = ld_be16(p + MAD_RESV);
	h->attr_mod = ld_be32(p + MAD_ATTR_MOD);
}

static enum roce_cm_kind cm_kind_of(uint16_t attr_id)
{
	switch (attr_id) {
	case ROCE_CM_ATTR_REQ: return ROCE_CM_REQ;
	case ROCE_CM_ATTR_MRA: return ROCE_CM_MRA;
	case ROCE_CM_ATTR_REJ: return ROCE_CM_REJ;
	case ROCE_CM_ATTR_REP: return ROCE_CM_REP;
	case ROCE_CM_ATTR_RTU: return ROCE_CM_RTU;
	case ROCE_CM_ATTR_DREQ: return ROCE_CM_DREQ;
	case ROCE_CM_ATTR_DREP: return ROCE_CM_DREP;
	default: return ROCE_CM_NONE;
	}
}

/* Bytes of the MAD a message of this kind needs for the fields decoded here. */
static uint32_t cm_fixed_len(enum roce_cm_kind k)
{
	switch (k) {
	case ROCE_CM_REQ: return REQ_FIXED_END;
	case ROCE_CM_REP: return REP_FIXED_END;
	case ROCE_CM_REJ: return REJ_FIXED_END;
	case ROCE_CM_MRA: return MRA_FIXED_END;
	case ROCE_CM_DREQ: return DREQ_FIXED_END;
	case ROCE_CM_RTU:
	case ROCE_CM_DREP: return IDS_FIXED_END;
	case ROCE_CM_NONE: break;
	}
	return 0;
}

/* The RDMA IP CM header, when the ServiceID names the RDMA IP CM Service and it was captured. */
static void req_ip_cm(const struct span *s, struct roce_cm_req *r)
{
	if ((r->service_id & IPCM_SERVICE_MASK) != IPCM_SERVICE_PREFIX)
		return;
	const uint8_t *p = span_at(s, REQ_PRIVATE, IPCM_LEN);
	if (!p)
		return;
	r->has_ip_cm = 1;
	r->ip_cm_major = p[IPCM_VERSION] >> 4;
	r->ip_cm_minor = p[IPCM_VERSION] & 0x0f;
	r->ip_cm_ip_version = p[IPCM_IPV] >> 4;
	r->ip_cm_src_port = ld_be16(p + IPCM_SRC_PORT);
	memcpy(r->ip_cm_src, p + IPCM_SRC_IP, 16);
	memcpy(r->ip_cm_dst, p + IPCM_DST_IP, 16);
}

/* p vouched for REQ_FIXED_END bytes. */
static void req_read(const uint8_t *p, struct roce_cm_req *r)
{
	uint32_t flow = ld_be32(p + REQ_PRI_FLOW);

	r->service_id = ld_be64(p + REQ_SERVICE_ID);
	r->local_ca_guid = ld_be64(p + REQ_LOCAL_CA_GUID);
	r->local_qkey = ld_be32(p + REQ_LOCAL_QKEY);
	r->local_qpn = ld_be24(p + REQ_LOCAL_QPN);
	r->responder_resources = p[REQ_RESPONDER_RES];
	r->local_eecn = ld_be24(p + REQ_LOCAL_EECN);
	r->initiator_depth = p[REQ_INITIATOR_DEPTH];
	r->remote_eecn = ld_be24(p + REQ_REMOTE_EECN);
	r->remote_cm_resp_timeout = p[REQ_BYTE67] >> 3;
	r->transport_service_type = (p[REQ_BYTE67] >> 1) & 3;
	r->e2e_flow_ctrl = p[REQ_BYTE67] & 1;
	r->starting_psn = ld_be24(p + REQ_STARTING_PSN);
	r->local_cm_resp_timeout = p[REQ_BYTE71] >> 3;
	r->retry_count = p[REQ_BYTE71] & 7;
	r->pkey = ld_be16(p + REQ_PKEY);
	r->path_mtu = p[REQ_BYTE74] >> 4;
	r->rdc_exists = (p[REQ_BYTE74] >> 3) & 1;
	r->rnr_retry_count = p[REQ_BYTE74] & 7;
	r->max_cm_retries = p[REQ_BYTE75] >> 4;
	r->srq = (p[REQ_BYTE75] >> 3) & 1;
	r->extended_transport = p[REQ_BYTE75] & 7;
	r->primary_local_lid = ld_be16(p + REQ_PRI_LOCAL_LID);
	r->primary_remote_lid = ld_be16(p + REQ_PRI_REMOTE_LID);
	memcpy(r->primary_local_gid, p + REQ_PRI_LOCAL_GID, 16);
	memcpy(r->primary_remote_gid, p + REQ_PRI_REMOTE_GID, 16);
	r->primary_flow_label = flow >> 12;
	r->primary_packet_rate = flow & 0x3f;
	r->primary_traffic_class = p[REQ_PRI_TCLASS];
	r->primary_hop_limit = p[REQ_PRI_HOP_LIMIT];
	r->primary_sl = p[REQ_PRI_BYTE118] >> 4;
	r->primary_subnet_local = (p[REQ_PRI_BYTE118] >> 3) & 1;
	r->primary_local_ack_timeout = p[REQ_PRI_BYTE119] >> 3;
}

/* p vouched for REP_FIXED_END bytes. */
static void rep_read(const uint8_t *p, struct roce_cm_rep *r)
{
	r->local_qkey = ld_be32(p + REP_LOCAL_QKEY);
	r->local_qpn = ld_be24(p + REP_LOCAL_QPN);
	r->local_eecn = ld_be24(p + REP_LOCAL_EECN);
	r->starting_psn = ld_be24(p + REP_STARTING_PSN);
	r->responder_resources = p[REP_RESPONDER_RES];
	r->initiator_depth = p[REP_INITIATOR_DEPTH];
	r->target_ack_delay = p[REP_BYTE50] >> 3;
	r->failover_accepted = (p[REP_BYTE50] >> 1) & 3;
	r->e2e_flow_ctrl = p[REP_BYTE50] & 1;
	r->rnr_retry_count = p[REP_BYTE51] >> 5;
	r->srq = (p[REP_BYTE51] >> 4) & 1;
	r->local_ca_guid = ld_be64(p + REP_LOCAL_CA_GUID);
}

int roce_mad_decode(const uint8_t *payload, uint32_t len, struct roce_mad *out)
{
	struct span s = {payload, payload ? len : 0};

	memset(out, 0, sizeof(*out));
	const uint8_t *h = span_at(&s, 0, ROCE_MAD_HDR_LEN);
	if (!h) {
		out->result = ROCE_MAD_TRUNC_HDR;
		out->truncated = 1;
		return 0;
	}
	hdr_read(h, &out->hdr);
	if (out->hdr.base_version != ROCE_MAD_BASE_VERSION) {
		out->result = ROCE_MAD_BAD_VERSION;
		return 0;
	}
	if (out->hdr.mgmt_class != ROCE_MGMT_CLASS_CM) {
		out->result = ROCE_MAD_NOT_CM;
		return 0;
	}
	if (out->hdr.class_version != ROCE_CM_CLASS_VERSION) {
		out->result = ROCE_MAD_BAD_CLASS_VERSION;
		return 0;
	}
	enum roce_cm_kind k = cm_kind_of(out->hdr.attr_id);
	out->cm_kind = (uint8_t)k;
	if (k == ROCE_CM_NONE) {
		out->result = ROCE_MAD_UNKNOWN_ATTR;
		return 0;
	}
	const uint8_t *p = span_at(&s, 0, cm_fixed_len(k));
	if (!p) {
		out->result = ROCE_MAD_TRUNC_CM;
		out->truncated = 1;
		return 0;
	}

	out->local_comm_id = ld_be32(p + CM_LOCAL_COMM_ID);
	if (k != ROCE_CM_REQ)
		out->remote_comm_id = ld_be32(p + CM_REMOTE_COMM_ID);
	switch (k) {
	case ROCE_CM_REQ:
		req_read(p, &out->cm.req);
		req_ip_cm(&s, &out->cm.req);
		break;
	case ROCE_CM_REP:
		rep_read(p, &out->cm.rep);
		break;
	case ROCE_CM_REJ:
		out->cm.rej.msg_rejected = p[REJ_BYTE32] >> 6;
		out->cm.rej.reject_info_len = p[REJ_BYTE33] >> 1;
		out->cm.rej.reason = ld_be16(p + REJ_REASON);
		break;
	case ROCE_CM_MRA:
		out->cm.mra.msg_mraed = p[MRA_BYTE32] >> 6;
		out->cm.mra.service_timeout = p[MRA_BYTE33] >> 3;
		break;
	case ROCE_CM_DREQ:
		out->cm.dreq.remote_qpn = ld_be24(p + DREQ_REMOTE_QPN);
		break;
	case ROCE_CM_RTU:
	case ROCE_CM_DREP:
	case ROCE_CM_NONE:
		break;
	}
	out->result = ROCE_MAD_OK;
	return 1;
}

#define OPCODE_UD_SEND_ONLY 0x64

int roce_mad_decode_pkt(const struct roce_pkt *pkt, const uint8_t *frame, struct roce_mad *out)
{
	if (!pkt->version || !pkt->op || pkt->h.bth.opcode != OPCODE_UD_SEND_ONLY ||
	    !(pkt->h.hdrs & ROCE_HDR_DETH) || pkt->h.bth.dqpn != ROCE_MAD_QP1 || !pkt->payload_off) {
		memset(out, 0, sizeof(*out));
		out->result = ROCE_MAD_NOT_QP1;
		return 0;
	}
	/* The payload's captured part: payload_off may lie at or past caplen in a truncated frame. */
	uint32_t cap = roce_readable_len(pkt->caplen);
	uint32_t avail = cap > pkt->payload_off ? cap - pkt->payload_off : 0;
	if (avail > pkt->payload_len)
		avail = pkt->payload_len;
	return roce_mad_decode(avail ? frame + pkt->payload_off : NULL, avail, out);
}
