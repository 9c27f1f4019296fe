/* test_mad.c: MADs on QP1 and the CM messages decoded by analyzer/core/mad.c (IBTA Vol 1 §13.4.2,
 * §12.6): known byte vectors (REQ, REP, RTU, DREQ, DREP from captures/rxe/cm_send_bw.pcap; REJ and
 * MRA written by hand), every sub-byte field on its own, every truncation point from a heap copy
 * of exactly that many bytes, wrong versions/classes/attributes, and the QP1 check on whole frames. */
#include "roce/mad.h"   /* first: the header compiles on its own */
#include "roce/mad.h"   /* and twice (include guard) */

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "unit_util.h"

/* The MAD common header every CM message below shares: BaseVersion 1, class CM, ClassVersion 2,
 * method Send, TID 0x0000000256a117dc. */
#define MAD_HDR_CM(attr_hi, attr_lo)                                                               \
	0x01,                   /* BaseVersion 1 */                                                \
	0x07,                   /* MgmtClass: Communication Management */                          \
	0x02,                   /* ClassVersion 2 */                                               \
	0x03,                   /* R 0, Method 0x03 Send */                                        \
	0x00, 0x00,             /* Status */                                                       \
	0x00, 0x00,             /* ClassSpecific */                                                \
	0x00, 0x00, 0x00, 0x02, 0x56, 0xa1, 0x17, 0xdc, /* TransactionID */                        \
	attr_hi, attr_lo,       /* AttributeID */                                                  \
	0x00, 0x00,             /* Reserved */                                                     \
	0x00, 0x00, 0x00, 0x00  /* AttributeModifier */

/* cm_send_bw.pcap frame 1: REQ 10.77.0.2 -> 10.77.0.1 */
static const uint8_t req_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x10),                         /* 0: AttributeID 0x0010 REQ */
	0xdc, 0x17, 0xa1, 0x56,                         /* 24: Local Communication ID */
	0x00, 0x00, 0x00, 0x00,                         /* 28: Reserved */
	0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x48, 0x56, /* 32: ServiceID: IP CM prefix, TCP port space, port 0x4856 */
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x77, 0x00, 0x02, /* 40: Local CA GUID */
	0x00, 0x00, 0x00, 0x00,                         /* 48: Reserved */
	0x00, 0x00, 0x00, 0x00,                         /* 52: Local Q_Key */
	0x00, 0x00, 0x13, 0x00,                         /* 56: Local QPN 0x13, Responder Resources 0 */
	0x00, 0x00, 0x00, 0x00,                         /* 60: Local EECN 0, Initiator Depth 0 */
	0x00, 0x00, 0x00, 0xa0,                         /* 64: Remote EECN 0; RemCMTo 20, TST 0 (RC), E2E 0 */
	0xb5, 0x11, 0x8b, 0xa7,                         /* 68: Starting PSN 0xb5118b; LocCMTo 20, Retry 7 */
	0xff, 0xff,                                     /* 72: P_Key */
	0x37,                                           /* 74: Path MTU 3 (1024), RDC 0, RNR Retry 7 */
	0xf0,                                           /* 75: Max CM Retries 15, SRQ 0, ExtTransport 0 */
	0xff, 0xff, 0xff, 0xff,                         /* 76: Primary Local LID, Remote LID (0xffff: RoCE) */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x0a, 0x4d, 0x00, 0x02, /* 80: Local GID ::ffff:10.77.0.2 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x0a, 0x4d, 0x00, 0x01, /* 96: Remote GID ::ffff:10.77.0.1 */
	0x9b, 0xee, 0xf0, 0x00,                         /* 112: Flow Label 0x9beef, Packet Rate 0 */
	0x00,                                           /* 116: Traffic Class */
	0x40,                                           /* 117: Hop Limit 64 */
	0x00,                                           /* 118: SL 0, Subnet Local 0 */
	0x98,                                           /* 119: Local ACK Timeout 19 */
	[164] = 0x00,                                   /* 164: IP CM: MajV 0, MinV 0 */
	0x40,                                           /* 165: IPV 4 */
	0xd2, 0x47,                                     /* 166: Source Port 53831 */
	[180] = 0x0a, 0x4d, 0x00, 0x02,                 /* 168: Source IP (IPv4 in the last 4 of 16) */
	[196] = 0x0a, 0x4d, 0x00, 0x01,                 /* 184: Destination IP */
};

/* cm_send_bw.pcap frame 2: REP 10.77.0.1 -> 10.77.0.2 */
static const uint8_t rep_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x13),                         /* 0: AttributeID 0x0013 REP */
	0x18, 0x08, 0xba, 0xaf,                         /* 24: Local Communication ID */
	0xdc, 0x17, 0xa1, 0x56,                         /* 28: Remote Communication ID (the REQ's local) */
	0x00, 0x00, 0x00, 0x00,                         /* 32: Local Q_Key */
	0x00, 0x00, 0x13, 0x00,                         /* 36: Local QPN 0x13, Reserved */
	0x00, 0x00, 0x00, 0x00,                         /* 40: Local EECN, Reserved */
	0xbb, 0xf4, 0x20, 0x00,                         /* 44: Starting PSN 0xbbf420, Reserved */
	0x00,                                           /* 48: Responder Resources */
	0x00,                                           /* 49: Initiator Depth */
	0x78,                                           /* 50: Target ACK Delay 15, Failover 0, E2E 0 */
	0xe0,                                           /* 51: RNR Retry Count 7, SRQ 0 */
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x77, 0x00, 0x01, /* 52: Local CA GUID */
};

/* cm_send_bw.pcap frame 3: RTU */
static const uint8_t rtu_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x14),                         /* 0: AttributeID 0x0014 RTU */
	0xdc, 0x17, 0xa1, 0x56,                         /* 24: Local Communication ID */
	0x18, 0x08, 0xba, 0xaf,                         /* 28: Remote Communication ID */
};

/* cm_send_bw.pcap frame 151: DREQ */
static const uint8_t dreq_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x15),                         /* 0: AttributeID 0x0015 DREQ */
	0xdd, 0x17, 0xa1, 0x56,                         /* 24: Local Communication ID */
	0x1a, 0x08, 0xba, 0xaf,                         /* 28: Remote Communication ID */
	0x00, 0x00, 0x14, 0x00,                         /* 32: Remote QPN/EECN 0x14, Reserved */
};

/* cm_send_bw.pcap frame 152: DREP */
static const uint8_t drep_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x16),                         /* 0: AttributeID 0x0016 DREP */
	0x1a, 0x08, 0xba, 0xaf,                         /* 24: Local Communication ID */
	0xdd, 0x17, 0xa1, 0x56,                         /* 28: Remote Communication ID */
};

/* REJ of a REQ: consumer reject (reason 28) */
static const uint8_t rej_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x12),                         /* 0: AttributeID 0x0012 REJ */
	0x11, 0x22, 0x33, 0x44,                         /* 24: Local Communication ID */
	0xdc, 0x17, 0xa1, 0x56,                         /* 28: Remote Communication ID */
	0x40,                                           /* 32: Message REJected 1 (REP), Reserved 0 */
	0x0a,                                           /* 33: Reject Info Length 5, Reserved 0 */
	0x00, 0x1c,                                     /* 34: Reason 28 */
	0xaa, 0xbb, 0xcc, 0xdd, 0xee,                   /* 36: ARI */
};

/* MRA of a REQ */
static const uint8_t mra_mad[ROCE_MAD_LEN] = {
	MAD_HDR_CM(0x00, 0x11),                         /* 0: AttributeID 0x0011 MRA */
	0x55, 0x66, 0x77, 0x88,                         /* 24: Local Communication ID */
	0xdc, 0x17, 0xa1, 0x56,                         /* 28: Remote Communication ID */
	0x80,                                           /* 32: Message MRAed 2 (LAP), Reserved 0 */
	0xb8,                                           /* 33: Service Timeout 23, Reserved 0 */
};

/* Decode from a heap copy of exactly len bytes, so a read past len is a sanitizer error. */
static int decode_copy(const uint8_t *mad, uint32_t len, struct roce_mad *m)
{
	uint8_t *c = len ? malloc(len) : NULL;
	if (len) {
		cr_assert_not_null(c);
		memcpy(c, mad, len);
	}
	int r = roce_mad_decode(c, len, m);
	free(c);
	return r;
}

static void decode_ok(const uint8_t *mad, struct roce_mad *m, enum roce_cm_kind kind)
{
	cr_assert_eq(decode_copy(mad, ROCE_MAD_LEN, m), 1, "%s: %s", roce_cm_kind_name(kind),
		     roce_mad_result_name(m->result));
	cr_assert_eq(m->result, ROCE_MAD_OK);
	cr_assert_eq(m->truncated, 0);
	cr_assert_eq(m->cm_kind, kind);
	cr_assert_str_eq(roce_cm_kind_name(m->cm_kind), roce_cm_kind_name(kind));
	cr_assert_eq(m->hdr.base_version, 1);
	cr_assert_eq(m->hdr.mgmt_class, ROCE_MGMT_CLASS_CM);
	cr_assert_eq(m->hdr.class_version, 2);
	cr_assert_eq(m->hdr.method, ROCE_MAD_METHOD_SEND);
	cr_assert_eq(m->hdr.r, 0);
	cr_assert_eq(m->hdr.tid, UINT64_C(0x0000000256a117dc));
}

Test(mad, common_header)
{
	static const uint8_t perf[ROCE_MAD_LEN] = {
		0x01,                   /* BaseVersion 1 */
		0x04,                   /* MgmtClass: Performance Management */
		0x01,                   /* ClassVersion 1 */
		0x81,                   /* R 1, Method 0x01 (GetResp) */
		0x80, 0x1c,             /* Status 0x801c */
		0xbe, 0xef,             /* ClassSpecific 0xbeef */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, /* TransactionID */
		0x00, 0x12,             /* AttributeID 0x0012 (PortCounters; REJ in CM) */
		0x5a, 0xa5,             /* Reserved */
		0xde, 0xad, 0xbe, 0xef, /* AttributeModifier */
	};
	struct roce_mad m;

	cr_assert_eq(decode_copy(perf, sizeof(perf), &m), 0);
	cr_assert_eq(m.result, ROCE_MAD_NOT_CM);
	cr_assert_eq(m.truncated, 0);
	cr_assert_eq(m.cm_kind, ROCE_CM_NONE);
	cr_assert_eq(m.hdr.base_version, 1);
	cr_assert_eq(m.hdr.mgmt_class, 0x04);
	cr_assert_eq(m.hdr.class_version, 1);
	cr_assert_eq(m.hdr.r, 1);
	cr_assert_eq(m.hdr.method, 0x01);
	cr_assert_eq(m.hdr.status, 0x801c);
	cr_assert_eq(m.hdr.class_specific, 0xbeef);
	cr_assert_eq(m.hdr.tid, UINT64_C(0x0123456789abcdef));
	cr_assert_eq(m.hdr.attr_id, 0x0012);
	cr_assert_eq(m.hdr.resv, 0x5aa5);
	cr_assert_eq(m.hdr.attr_mod, 0xdeadbeef);
	/* the header alone (24 bytes) is enough to say "not CM" */
	cr_assert_eq(decode_copy(perf, ROCE_MAD_HDR_LEN, &m), 0);
	cr_assert_eq(m.result, ROCE_MAD_NOT_CM);
	cr_assert_eq(m.hdr.attr_mod, 0xdeadbeef);
}

Test(mad, req_vector)
{
	static const uint8_t gid_local[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 2};
	static const uint8_t gid_remote[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 1};
	static const uint8_t ip_src[16] = {[12] = 10, 77, 0, 2};
	static const uint8_t ip_dst[16] = {[12] = 10, 77, 0, 1};
	struct roce_mad m;

	decode_ok(req_mad, &m, ROCE_CM_REQ);
	cr_assert_eq(m.hdr.attr_id, ROCE_CM_ATTR_REQ);
	cr_assert_eq(m.local_comm_id, 0xdc17a156);
	cr_assert_eq(m.remote_comm_id, 0);
	const struct roce_cm_req *r = &m.cm.req;
	cr_assert_eq(r->service_id, UINT64_C(0x0000000001064856));
	cr_assert_eq(r->local_ca_guid, UINT64_C(0x505400fffe770002));
	cr_assert_eq(r->local_qkey, 0);
	cr_assert_eq(r->local_qpn, 0x13);
	cr_assert_eq(r->responder_resources, 0);
	cr_assert_eq(r->local_eecn, 0);
	cr_assert_eq(r->initiator_depth, 0);
	cr_assert_eq(r->remote_eecn, 0);
	cr_assert_eq(r->remote_cm_resp_timeout, 20);
	cr_assert_eq(r->transport_service_type, 0);
	cr_assert_eq(r->e2e_flow_ctrl, 0);
	cr_assert_eq(r->starting_psn, 0xb5118b);
	cr_assert_eq(r->local_cm_resp_timeout, 20);
	cr_assert_eq(r->retry_count, 7);
	cr_assert_eq(r->pkey, 0xffff);
	cr_assert_eq(r->path_mtu, 3);
	cr_assert_eq(roce_cm_mtu_bytes(r->path_mtu), 1024);
	cr_assert_eq(r->rdc_exists, 0);
	cr_assert_eq(r->rnr_retry_count, 7);
	cr_assert_eq(r->max_cm_retries, 15);
	cr_assert_eq(r->srq, 0);
	cr_assert_eq(r->extended_transport, 0);
	cr_assert_eq(r->primary_local_lid, 0xffff);
	cr_assert_eq(r->primary_remote_lid, 0xffff);
	cr_assert(memcmp(r->primary_local_gid, gid_local, 16) == 0);
	cr_assert(memcmp(r->primary_remote_gid, gid_remote, 16) == 0);
	cr_assert_eq(r->primary_flow_label, 0x9beef);
	cr_assert_eq(r->primary_packet_rate, 0);
	cr_assert_eq(r->primary_traffic_class, 0);
	cr_assert_eq(r->primary_hop_limit, 64);
	cr_assert_eq(r->primary_sl, 0);
	cr_assert_eq(r->primary_subnet_local, 0);
	cr_assert_eq(r->primary_local_ack_timeout, 19);
	cr_assert_eq(r->has_ip_cm, 1);
	cr_assert_eq(r->ip_cm_major, 0);
	cr_assert_eq(r->ip_cm_minor, 0);
	cr_assert_eq(r->ip_cm_ip_version, 4);
	cr_assert_eq(r->ip_cm_src_port, 0xd247);
	cr_assert(memcmp(r->ip_cm_src, ip_src, 16) == 0);
	cr_assert(memcmp(r->ip_cm_dst, ip_dst, 16) == 0);
}

/* The RDMA IP CM header is read only under its ServiceID prefix and when captured. */
Test(mad, req_ip_cm_conditions)
{
	uint8_t b[ROCE_MAD_LEN];
	struct roce_mad m;

	memcpy(b, req_mad, sizeof(b));
	b[36] = 0x02;               /* ServiceID 0x0000000002064856: not the IP CM prefix */
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	cr_assert_eq(m.cm.req.has_ip_cm, 0);
	cr_assert_eq(m.cm.req.ip_cm_src_port, 0);

	/* the fixed part (164 bytes) captured, the IP CM header (36 more) not */
	for (uint32_t len = 164; len < 164 + 36; len++) {
		cr_assert_eq(decode_copy(req_mad, len, &m), 1, "len %u", len);
		cr_assert_eq(m.cm.req.has_ip_cm, 0, "len %u", len);
		cr_assert_eq(m.cm.req.local_qpn, 0x13);
	}
	cr_assert_eq(decode_copy(req_mad, 164 + 36, &m), 1);
	cr_assert_eq(m.cm.req.has_ip_cm, 1);
	cr_assert_eq(m.cm.req.ip_cm_src_port, 0xd247);

	/* IPv6 RDMA IP CM header */
	memcpy(b, req_mad, sizeof(b));
	b[164] = 0x12;              /* MajV 1, MinV 2 */
	b[165] = 0x6f;              /* IPV 6, Reserved 0xf */
	for (unsigned i = 0; i < 16; i++) {
		b[168 + i] = (uint8_t)(0xf0 + i);  /* Source IP */
		b[184 + i] = (uint8_t)(0x10 + i);  /* Destination IP */
	}
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	cr_assert_eq(m.cm.req.ip_cm_major, 1);
	cr_assert_eq(m.cm.req.ip_cm_minor, 2);
	cr_assert_eq(m.cm.req.ip_cm_ip_version, 6);
	cr_assert(memcmp(m.cm.req.ip_cm_src, b + 168, 16) == 0);
	cr_assert(memcmp(m.cm.req.ip_cm_dst, b + 184, 16) == 0);
}

/* Extremes of every multi-byte REQ field: all ones reads as the field's maximum, 24-bit fields do
 * not take in the byte after them. */
Test(mad, req_all_ones)
{
	uint8_t b[ROCE_MAD_LEN];
	struct roce_mad m;

	memcpy(b, req_mad, ROCE_MAD_HDR_LEN);
	memset(b + ROCE_MAD_HDR_LEN, 0xff, sizeof(b) - ROCE_MAD_HDR_LEN);
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	const struct roce_cm_req *r = &m.cm.req;
	cr_assert_eq(m.local_comm_id, 0xffffffff);
	cr_assert_eq(m.remote_comm_id, 0);          /* reserved in a REQ: not read */
	cr_assert_eq(r->service_id, UINT64_MAX);
	cr_assert_eq(r->local_qpn, 0xffffff);
	cr_assert_eq(r->responder_resources, 0xff);
	cr_assert_eq(r->local_eecn, 0xffffff);
	cr_assert_eq(r->initiator_depth, 0xff);
	cr_assert_eq(r->remote_eecn, 0xffffff);
	cr_assert_eq(r->remote_cm_resp_timeout, 31);
	cr_assert_eq(r->transport_service_type, 3);
	cr_assert_eq(r->e2e_flow_ctrl, 1);
	cr_assert_eq(r->starting_psn, 0xffffff);
	cr_assert_eq(r->local_cm_resp_timeout, 31);
	cr_assert_eq(r->retry_count, 7);
	cr_assert_eq(r->pkey, 0xffff);
	cr_assert_eq(r->path_mtu, 15);
	cr_assert_eq(roce_cm_mtu_bytes(r->path_mtu), 0);
	cr_assert_eq(r->rdc_exists, 1);
	cr_assert_eq(r->rnr_retry_count, 7);
	cr_assert_eq(r->max_cm_retries, 15);
	cr_assert_eq(r->srq, 1);
	cr_assert_eq(r->extended_transport, 7);
	cr_assert_eq(r->primary_flow_label, 0xfffff);
	cr_assert_eq(r->primary_packet_rate, 0x3f);
	cr_assert_eq(r->primary_sl, 15);
	cr_assert_eq(r->primary_subnet_local, 1);
	cr_assert_eq(r->primary_local_ack_timeout, 31);
	cr_assert_eq(r->has_ip_cm, 0);              /* ServiceID all ones: not IP CM */
}

/* One bit pattern at a time in the bytes that hold several REQ fields: each lands in exactly the
 * field it belongs to (bit positions per ibta_vol1_c12.h: CM_FIELD_BLOC byte, bit from the MSB). */
Test(mad, req_bit_positions)
{
	struct { uint32_t off; uint8_t val; const char *field; unsigned want; } cases[] = {
		{67, 0xf8, "remote_cm_resp_timeout", 31}, /* byte 43[0..4] */
		{67, 0x08, "remote_cm_resp_timeout", 1},
		{67, 0x06, "transport_service_type", 3},  /* byte 43[5..6] */
		{67, 0x02, "transport_service_type", 1},
		{67, 0x01, "e2e_flow_ctrl", 1},           /* byte 43[7] */
		{71, 0xf8, "local_cm_resp_timeout", 31},  /* byte 47[0..4] */
		{71, 0x07, "retry_count", 7},             /* byte 47[5..7] */
		{71, 0x01, "retry_count", 1},
		{74, 0xf0, "path_mtu", 15},               /* byte 50[0..3] */
		{74, 0x50, "path_mtu", 5},
		{74, 0x08, "rdc_exists", 1},              /* byte 50[4] */
		{74, 0x07, "rnr_retry_count", 7},         /* byte 50[5..7] */
		{75, 0xf0, "max_cm_retries", 15},         /* byte 51[0..3] */
		{75, 0x08, "srq", 1},                     /* byte 51[4] */
		{75, 0x07, "extended_transport", 7},      /* byte 51[5..7] */
		{59, 0xff, "responder_resources", 255},
		{63, 0xff, "initiator_depth", 255},
		{118, 0xf0, "primary_sl", 15},
		{118, 0x08, "primary_subnet_local", 1},
		{119, 0xf8, "primary_local_ack_timeout", 31},
		{115, 0x3f, "primary_packet_rate", 63},
		{114, 0xf0, "primary_flow_label", 0xf},   /* the low 4 bits of the 20 */
		{112, 0x80, "primary_flow_label", 0x80000},
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint8_t b[ROCE_MAD_LEN] = {MAD_HDR_CM(0x00, 0x10)};
		struct roce_mad m;
		b[cases[k].off] = cases[k].val;
		cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
		const struct roce_cm_req *r = &m.cm.req;
		struct { const char *name; unsigned v; } got[] = {
			{"remote_cm_resp_timeout", r->remote_cm_resp_timeout},
			{"transport_service_type", r->transport_service_type},
			{"e2e_flow_ctrl", r->e2e_flow_ctrl},
			{"local_cm_resp_timeout", r->local_cm_resp_timeout},
			{"retry_count", r->retry_count},
			{"path_mtu", r->path_mtu},
			{"rdc_exists", r->rdc_exists},
			{"rnr_retry_count", r->rnr_retry_count},
			{"max_cm_retries", r->max_cm_retries},
			{"srq", r->srq},
			{"extended_transport", r->extended_transport},
			{"responder_resources", r->responder_resources},
			{"initiator_depth", r->initiator_depth},
			{"primary_sl", r->primary_sl},
			{"primary_subnet_local", r->primary_subnet_local},
			{"primary_local_ack_timeout", r->primary_local_ack_timeout},
			{"primary_packet_rate", r->primary_packet_rate},
			{"primary_flow_label", r->primary_flow_label},
			{"local_qpn", r->local_qpn},
			{"local_eecn", r->local_eecn},
			{"remote_eecn", r->remote_eecn},
			{"starting_psn", r->starting_psn},
			{"pkey", r->pkey},
		};
		for (unsigned g = 0; g < sizeof(got) / sizeof(got[0]); g++) {
			unsigned want = strcmp(got[g].name, cases[k].field) == 0 ? cases[k].want : 0;
			cr_assert_eq(got[g].v, want, "byte %u = 0x%02x: %s is %u, want %u", cases[k].off,
				     cases[k].val, got[g].name, got[g].v, want);
		}
	}
}

Test(mad, rep_vector)
{
	struct roce_mad m;

	decode_ok(rep_mad, &m, ROCE_CM_REP);
	cr_assert_eq(m.local_comm_id, 0x1808baaf);
	cr_assert_eq(m.remote_comm_id, 0xdc17a156);
	const struct roce_cm_rep *r = &m.cm.rep;
	cr_assert_eq(r->local_qkey, 0);
	cr_assert_eq(r->local_qpn, 0x13);
	cr_assert_eq(r->local_eecn, 0);
	cr_assert_eq(r->starting_psn, 0xbbf420);
	cr_assert_eq(r->responder_resources, 0);
	cr_assert_eq(r->initiator_depth, 0);
	cr_assert_eq(r->target_ack_delay, 15);
	cr_assert_eq(r->failover_accepted, 0);
	cr_assert_eq(r->e2e_flow_ctrl, 0);
	cr_assert_eq(r->rnr_retry_count, 7);
	cr_assert_eq(r->srq, 0);
	cr_assert_eq(r->local_ca_guid, UINT64_C(0x505400fffe770001));
}

Test(mad, rep_bit_positions)
{
	struct { uint32_t off; uint8_t val; unsigned ackd, fo, e2e, rnr, srq, qpn, psn; } cases[] = {
		/* off  val   ackdelay failover e2e rnr srq qpn psn */
		{50, 0xf8, 31, 0, 0, 0, 0, 0, 0},       /* byte 26[0..4] Target ACK Delay */
		{50, 0x06, 0, 3, 0, 0, 0, 0, 0},        /* byte 26[5..6] Failover Accepted */
		{50, 0x02, 0, 1, 0, 0, 0, 0, 0},
		{50, 0x01, 0, 0, 1, 0, 0, 0, 0},        /* byte 26[7] End-to-End Flow Control */
		{51, 0xe0, 0, 0, 0, 7, 0, 0, 0},        /* byte 27[0..2] RNR Retry Count */
		{51, 0x20, 0, 0, 0, 1, 0, 0, 0},
		{51, 0x10, 0, 0, 0, 0, 1, 0, 0},        /* byte 27[3] SRQ */
		{51, 0x0f, 0, 0, 0, 0, 0, 0, 0},        /* byte 27[4..7] Reserved */
		{39, 0xff, 0, 0, 0, 0, 0, 0, 0},        /* the byte after Local QPN: reserved */
		{38, 0x01, 0, 0, 0, 0, 0, 1, 0},        /* Local QPN low bit */
		{47, 0xff, 0, 0, 0, 0, 0, 0, 0},        /* the byte after Starting PSN: reserved */
		{44, 0x80, 0, 0, 0, 0, 0, 0, 0x800000}, /* Starting PSN high bit */
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint8_t b[ROCE_MAD_LEN] = {MAD_HDR_CM(0x00, 0x13)};
		struct roce_mad m;
		b[cases[k].off] = cases[k].val;
		cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
		const struct roce_cm_rep *r = &m.cm.rep;
		cr_assert_eq(r->target_ack_delay, cases[k].ackd, "case %u", k);
		cr_assert_eq(r->failover_accepted, cases[k].fo, "case %u", k);
		cr_assert_eq(r->e2e_flow_ctrl, cases[k].e2e, "case %u", k);
		cr_assert_eq(r->rnr_retry_count, cases[k].rnr, "case %u", k);
		cr_assert_eq(r->srq, cases[k].srq, "case %u", k);
		cr_assert_eq(r->local_qpn, cases[k].qpn, "case %u", k);
		cr_assert_eq(r->starting_psn, cases[k].psn, "case %u", k);
	}
}

Test(mad, rtu_vector)
{
	struct roce_mad m;

	decode_ok(rtu_mad, &m, ROCE_CM_RTU);
	cr_assert_eq(m.local_comm_id, 0xdc17a156);
	cr_assert_eq(m.remote_comm_id, 0x1808baaf);
}

Test(mad, dreq_vector)
{
	struct roce_mad m;

	decode_ok(dreq_mad, &m, ROCE_CM_DREQ);
	cr_assert_eq(m.local_comm_id, 0xdd17a156);
	cr_assert_eq(m.remote_comm_id, 0x1a08baaf);
	cr_assert_eq(m.cm.dreq.remote_qpn, 0x14);

	uint8_t b[ROCE_MAD_LEN];
	memcpy(b, dreq_mad, sizeof(b));
	b[32] = 0xab, b[33] = 0xcd, b[34] = 0xef; /* Remote QPN 0xabcdef */
	b[35] = 0xff;                             /* Reserved: not part of the QPN */
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	cr_assert_eq(m.cm.dreq.remote_qpn, 0xabcdef);
}

Test(mad, drep_vector)
{
	struct roce_mad m;

	decode_ok(drep_mad, &m, ROCE_CM_DREP);
	cr_assert_eq(m.local_comm_id, 0x1a08baaf);
	cr_assert_eq(m.remote_comm_id, 0xdd17a156);
}

Test(mad, rej_vector)
{
	struct roce_mad m;

	decode_ok(rej_mad, &m, ROCE_CM_REJ);
	cr_assert_eq(m.local_comm_id, 0x11223344);
	cr_assert_eq(m.remote_comm_id, 0xdc17a156);
	cr_assert_eq(m.cm.rej.msg_rejected, 1);
	cr_assert_eq(m.cm.rej.reject_info_len, 5);
	cr_assert_eq(m.cm.rej.reason, 28);

	uint8_t b[ROCE_MAD_LEN];
	memcpy(b, rej_mad, sizeof(b));
	b[32] = 0xff;               /* Message REJected 3, Reserved all ones */
	b[33] = 0xff;               /* Reject Info Length 127, Reserved 1 */
	b[34] = 0xff, b[35] = 0xfe; /* Reason 0xfffe */
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	cr_assert_eq(m.cm.rej.msg_rejected, 3);
	cr_assert_eq(m.cm.rej.reject_info_len, 127);
	cr_assert_eq(m.cm.rej.reason, 0xfffe);
}

Test(mad, mra_vector)
{
	struct roce_mad m;

	decode_ok(mra_mad, &m, ROCE_CM_MRA);
	cr_assert_eq(m.local_comm_id, 0x55667788);
	cr_assert_eq(m.remote_comm_id, 0xdc17a156);
	cr_assert_eq(m.cm.mra.msg_mraed, 2);
	cr_assert_eq(m.cm.mra.service_timeout, 23);

	uint8_t b[ROCE_MAD_LEN];
	memcpy(b, mra_mad, sizeof(b));
	b[32] = 0x3f;               /* Message MRAed 0, Reserved all ones */
	b[33] = 0x07;               /* Service Timeout 0, Reserved all ones */
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	cr_assert_eq(m.cm.mra.msg_mraed, 0);
	cr_assert_eq(m.cm.mra.service_timeout, 0);
}

/* Every length 0..256 of every message: below 24 bytes no header; below the message's fixed part a
 * truncated CM message of the right kind with no fields; from there on, the same decode as the
 * whole MAD. Each decode reads a heap copy of exactly len bytes. */
Test(mad, every_truncation_point)
{
	struct { const uint8_t *mad; enum roce_cm_kind kind; uint32_t need; } v[] = {
		{req_mad, ROCE_CM_REQ, 164}, {rep_mad, ROCE_CM_REP, 60}, {rtu_mad, ROCE_CM_RTU, 32},
		{dreq_mad, ROCE_CM_DREQ, 35}, {drep_mad, ROCE_CM_DREP, 32}, {rej_mad, ROCE_CM_REJ, 36},
		{mra_mad, ROCE_CM_MRA, 34},
	};
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *name = roce_cm_kind_name(v[i].kind);
		struct roce_mad full;
		cr_assert_eq(decode_copy(v[i].mad, ROCE_MAD_LEN, &full), 1);
		for (uint32_t len = 0; len <= ROCE_MAD_LEN; len++) {
			struct roce_mad m;
			int r = decode_copy(v[i].mad, len, &m);
			if (len < ROCE_MAD_HDR_LEN) {
				cr_assert_eq(r, 0, "%s len %u", name, len);
				cr_assert_eq(m.result, ROCE_MAD_TRUNC_HDR, "%s len %u", name, len);
				cr_assert_eq(m.truncated, 1);
				cr_assert_eq(m.cm_kind, ROCE_CM_NONE);
				cr_assert_eq(m.hdr.mgmt_class, 0);
			} else if (len < v[i].need) {
				cr_assert_eq(r, 0, "%s len %u", name, len);
				cr_assert_eq(m.result, ROCE_MAD_TRUNC_CM, "%s len %u: %s", name, len,
					     roce_mad_result_name(m.result));
				cr_assert_eq(m.truncated, 1);
				cr_assert_eq(m.cm_kind, v[i].kind, "%s len %u", name, len);
				cr_assert_eq(m.hdr.tid, full.hdr.tid);
				cr_assert_eq(m.local_comm_id, 0, "%s len %u: no fields", name, len);
			} else {
				cr_assert_eq(r, 1, "%s len %u", name, len);
				cr_assert_eq(m.truncated, 0);
				cr_assert_eq(m.local_comm_id, full.local_comm_id);
				cr_assert_eq(m.remote_comm_id, full.remote_comm_id);
				/* the REQ's IP CM part comes later; byte for byte on purpose: roce_mad_decode
				 * zeroes its output and stores members, so padding compares equal */
				if (v[i].kind != ROCE_CM_REQ)
					cr_assert(memcmp(&m, &full, sizeof(m)) == 0, "%s len %u", name, len);  // NOLINT(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
			}
		}
	}
	/* no bytes at all, with and without a pointer */
	struct roce_mad m;
	cr_assert_eq(roce_mad_decode(NULL, 0, &m), 0);
	cr_assert_eq(m.result, ROCE_MAD_TRUNC_HDR);
	cr_assert_eq(roce_mad_decode(NULL, 256, &m), 0);
	cr_assert_eq(m.result, ROCE_MAD_TRUNC_HDR);
	cr_assert_eq(roce_mad_decode(req_mad, 0, &m), 0);
	cr_assert_eq(m.result, ROCE_MAD_TRUNC_HDR);
}

Test(mad, wrong_version_class_attribute)
{
	struct { uint32_t off; uint8_t val; enum roce_mad_result want; const char *what; } cases[] = {
		{0, 0x02, ROCE_MAD_BAD_VERSION, "BaseVersion 2"},
		{0, 0x80, ROCE_MAD_BAD_VERSION, "BaseVersion 0x80 (OPA)"},
		{0, 0x00, ROCE_MAD_BAD_VERSION, "BaseVersion 0"},
		{1, 0x01, ROCE_MAD_NOT_CM, "class SM LID routed"},
		{1, 0x03, ROCE_MAD_NOT_CM, "class SA"},
		{1, 0x04, ROCE_MAD_NOT_CM, "class PerfMgt"},
		{1, 0x87, ROCE_MAD_NOT_CM, "class 0x87"},
		{2, 0x01, ROCE_MAD_BAD_CLASS_VERSION, "CM ClassVersion 1"},
		{2, 0x03, ROCE_MAD_BAD_CLASS_VERSION, "CM ClassVersion 3"},
		{17, 0x17, ROCE_MAD_UNKNOWN_ATTR, "SIDR_REQ 0x0017"},
		{17, 0x18, ROCE_MAD_UNKNOWN_ATTR, "SIDR_REP 0x0018"},
		{17, 0x19, ROCE_MAD_UNKNOWN_ATTR, "LAP 0x0019"},
		{17, 0x1a, ROCE_MAD_UNKNOWN_ATTR, "APR 0x001A"},
		{17, 0x0f, ROCE_MAD_UNKNOWN_ATTR, "0x000F"},
		{17, 0x00, ROCE_MAD_UNKNOWN_ATTR, "0x0000"},
		{16, 0x01, ROCE_MAD_UNKNOWN_ATTR, "0x0110"},
	};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint8_t b[ROCE_MAD_LEN];
		struct roce_mad m;
		memcpy(b, req_mad, sizeof(b));
		b[cases[k].off] = cases[k].val;
		/* whole, and cut to the header alone: the verdict needs only the header */
		for (uint32_t len = ROCE_MAD_HDR_LEN; len <= ROCE_MAD_LEN; len += ROCE_MAD_LEN - ROCE_MAD_HDR_LEN) {
			cr_assert_eq(decode_copy(b, len, &m), 0, "%s", cases[k].what);
			cr_assert_eq(m.result, cases[k].want, "%s: %s", cases[k].what,
				     roce_mad_result_name(m.result));
			cr_assert_eq(m.truncated, 0, "%s", cases[k].what);
			cr_assert_eq(m.cm_kind, ROCE_CM_NONE, "%s", cases[k].what);
			cr_assert_eq(m.local_comm_id, 0, "%s", cases[k].what);
			cr_assert_eq(m.cm.req.local_qpn, 0, "%s", cases[k].what);
		}
	}
	/* the method and the R bit do not matter to the decoder */
	uint8_t b[ROCE_MAD_LEN];
	struct roce_mad m;
	memcpy(b, rep_mad, sizeof(b));
	b[3] = 0x81;                /* R 1, Method 0x01 */
	cr_assert_eq(decode_copy(b, sizeof(b), &m), 1);
	cr_assert_eq(m.hdr.r, 1);
	cr_assert_eq(m.hdr.method, 1);
	cr_assert_eq(m.cm.rep.local_qpn, 0x13);
}

Test(mad, names)
{
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_REQ), "REQ");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_MRA), "MRA");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_REJ), "REJ");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_REP), "REP");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_RTU), "RTU");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_DREQ), "DREQ");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_DREP), "DREP");
	cr_assert_str_eq(roce_cm_kind_name(ROCE_CM_NONE), "none");
	cr_assert_str_eq(roce_cm_kind_name((enum roce_cm_kind)99), "none");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_OK), "ok");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_NOT_QP1), "not_qp1");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_TRUNC_HDR), "truncated_header");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_BAD_VERSION), "bad_base_version");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_NOT_CM), "not_cm");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_BAD_CLASS_VERSION), "bad_class_version");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_UNKNOWN_ATTR), "unknown_attribute");
	cr_assert_str_eq(roce_mad_result_name(ROCE_MAD_TRUNC_CM), "truncated_cm");
	cr_assert_str_eq(roce_mad_result_name((enum roce_mad_result)99), "unknown");
	unsigned want[] = {0, 256, 512, 1024, 2048, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	for (unsigned c = 0; c < 16; c++)
		cr_assert_eq(roce_cm_mtu_bytes(c), want[c], "code %u", c);
}

/* A whole RoCEv2 frame: UD SEND_ONLY with DETH to QP 1 carrying the REQ. */
static uint32_t build_mad_frame(uint8_t *f, uint8_t opcode, uint32_t dqpn, const uint8_t *mad)
{
	struct roce_build b;
	u_base(&b);
	b.h.bth.opcode = opcode;
	b.h.bth.dqpn = dqpn;
	b.h.deth.qkey = 0x80010000;     /* the well-known GSI Q_Key */
	b.h.deth.srcqp = 1;
	b.payload = mad;
	b.payload_len = ROCE_MAD_LEN;
	return u_build(&b, f);
}

Test(mad, decode_pkt)
{
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_mad m;

	uint32_t len = build_mad_frame(f, 0x64, 1, req_mad);
	cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
	cr_assert_eq(roce_mad_decode_pkt(&p, f, &m), 1);
	cr_assert_eq(m.cm_kind, ROCE_CM_REQ);
	cr_assert_eq(m.cm.req.local_qpn, 0x13);
	cr_assert_eq(m.cm.req.starting_psn, 0xb5118b);

	/* not to QP 1, not UD SEND_ONLY (UD SEND_ONLY_WITH_IMMEDIATE, RC SEND_ONLY, UC SEND_ONLY) */
	struct { uint8_t opcode; uint32_t dqpn; } no[] = {{0x64, 2}, {0x64, 0}, {0x64, 0x800001},
							 {0x65, 1}, {0x04, 1}, {0x24, 1}};
	for (unsigned k = 0; k < sizeof(no) / sizeof(no[0]); k++) {
		len = build_mad_frame(f, no[k].opcode, no[k].dqpn, req_mad);
		cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
		cr_assert_eq(roce_mad_decode_pkt(&p, f, &m), 0, "case %u", k);
		cr_assert_eq(m.result, ROCE_MAD_NOT_QP1, "case %u", k);
		cr_assert_eq(m.cm_kind, ROCE_CM_NONE);
	}

	/* not RoCE at all */
	memset(&p, 0, sizeof(p));
	cr_assert_eq(roce_mad_decode_pkt(&p, f, &m), 0);
	cr_assert_eq(m.result, ROCE_MAD_NOT_QP1);
}

/* The whole frame cut at every length: the MAD is decoded from the captured part of the payload
 * only (a heap copy of exactly caplen bytes), and fully once its 164 fixed bytes are in. */
Test(mad, decode_pkt_truncated_frame)
{
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_mad m;

	uint32_t len = build_mad_frame(f, 0x64, 1, req_mad);
	cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
	uint32_t payload_off = p.payload_off;
	cr_assert_eq(payload_off, 14 + 20 + 8 + 12 + 8);
	for (uint32_t cap = 0; cap <= len; cap++) {
		uint8_t *c = malloc(cap ? cap : 1);
		cr_assert_not_null(c);
		memcpy(c, f, cap);
		roce_decode(NULL, c, cap, len, ROCE_LINK_ETHERNET, &p);
		int r = roce_mad_decode_pkt(&p, c, &m);
		if (cap < payload_off + 164) {
			cr_assert_eq(r, 0, "cap %u", cap);
			/* before the BTH: not a MAD; from then on the bytes ran out */
			if (cap >= payload_off)
				cr_assert(m.result == ROCE_MAD_TRUNC_HDR || m.result == ROCE_MAD_TRUNC_CM,
					  "cap %u: %s", cap, roce_mad_result_name(m.result));
			else
				cr_assert(m.result == ROCE_MAD_NOT_QP1 || m.result == ROCE_MAD_TRUNC_HDR,
					  "cap %u: %s", cap, roce_mad_result_name(m.result));
			cr_assert_eq(m.local_comm_id, 0);
		} else {
			cr_assert_eq(r, 1, "cap %u", cap);
			cr_assert_eq(m.cm.req.local_qpn, 0x13);
			cr_assert_eq(m.cm.req.has_ip_cm, cap >= payload_off + 164 + 36, "cap %u", cap);
		}
		free(c);
	}
}

/* A frame larger than the decoder looks at (ROCE_DECODE_MAX_CAPLEN): a caller may keep only
 * those bytes, so a MAD whose payload runs past them is cut there, not read on from the frame's
 * full caplen (rocedump's batches keep 65,535 bytes of a 100,000-byte frame). */
Test(mad, decode_pkt_stops_at_decoder_limit)
{
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;
	struct roce_mad m;

	uint32_t len = build_mad_frame(f, 0x64, 1, req_mad);
	cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
	uint32_t kept = 100;  /* payload bytes below the limit */
	uint8_t *c = malloc(ROCE_DECODE_MAX_CAPLEN);
	cr_assert_not_null(c);
	memset(c, 0, ROCE_DECODE_MAX_CAPLEN);
	memcpy(c + ROCE_DECODE_MAX_CAPLEN - kept, f + p.payload_off, kept);
	p.payload_off = ROCE_DECODE_MAX_CAPLEN - kept;
	p.caplen = p.wirelen = 100000;
	cr_assert_eq(roce_mad_decode_pkt(&p, c, &m), 0);
	cr_assert(m.result == ROCE_MAD_TRUNC_CM, "%s", roce_mad_result_name(m.result));
	free(c);
}

/* A stream's counts add up: requests and responses are its packets. */
static void counts_add_up(const struct roce_stream_stats *st, void *user)
{
	unsigned *n = user;
	cr_assert_leq(st->requests, st->packets, "qp 0x%x: %llu requests, %llu packets", st->dqpn,
		      (unsigned long long)st->requests, (unsigned long long)st->packets);
	cr_assert_eq(st->requests + st->responses, st->packets, "qp 0x%x", st->dqpn);
	if (st->paired == ROCE_PAIRED_CM)
		++*n;
}

/* RDMA-CM pairing under a cap of 2 streams: the two it pairs evict the QP 1 stream whose REP
 * made them, and that REP is counted on no other stream. */
Test(mad, cm_pairing_evicts_the_qp1_stream)
{
	char err[ROCE_ERRBUF_SIZE];
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.max_streams = 2;
	struct roce_analyzer *a = roce_analyzer_new(&cfg, err);
	cr_assert_not_null(a, "%s", err);
	uint8_t f[FRAME_CAP];
	struct roce_pkt p;

	uint32_t len = build_mad_frame(f, 0x64, 1, req_mad);  /* 10.0.0.1 -> 10.0.0.2 */
	cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
	roce_analyze(a, &p, 1, f, 1000, NULL);

	struct roce_build b;
	u_base(&b);
	uint8_t t[16];
	memcpy(t, b.src, 16);
	memcpy(b.src, b.dst, 16);
	memcpy(b.dst, t, 16);
	b.h.bth.opcode = 0x64;
	b.h.bth.dqpn = 1;
	b.h.deth.qkey = 0x80010000;
	b.h.deth.srcqp = 1;
	b.payload = rep_mad;
	b.payload_len = ROCE_MAD_LEN;
	len = u_build(&b, f);  /* 10.0.0.2 -> 10.0.0.1 */
	cr_assert_eq(u_decode(f, len, ROCE_LINK_ETHERNET, &p), 1);
	roce_analyze(a, &p, 2, f, 2000, NULL);

	unsigned paired = 0;
	roce_analyzer_foreach(a, counts_add_up, &paired);
	cr_assert_eq(paired, 2, "the two directions paired from CM");
	cr_assert_eq(roce_analyzer_streams(a), 2);
	cr_assert_eq(roce_analyzer_evictions(a), 2);
	roce_analyzer_free(a);
}
