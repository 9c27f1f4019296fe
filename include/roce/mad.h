/* mad.h: management datagrams on QP1 (IBTA Vol 1 §13.4 MAD common header) and the Communication
 * Management class 0x07 messages that set up and tear down connections (IBTA Vol 1 §12.6: REQ, MRA,
 * REJ, REP, RTU, DREQ, DREP), enough to pair an RDMA-CM connection with its data flows.
 *
 * On RoCE a MAD is the 256-byte payload of a UD SEND_ONLY to destination QP 1 (with a DETH).
 * roce_mad_decode() reads it from the payload bytes; roce_mad_decode_pkt() first checks that a
 * decoded frame is such a packet. Nothing here allocates or reads past the length given.
 *
 * Pairing (Linux ib_cm, seen in captures/rxe/cm_send_bw.pcap and rping.pcap): the active side sends
 * REQ, the passive side answers REP. The data flow active -> passive goes to QP REP.local_qpn
 * starting at PSN REP.starting_psn; passive -> active goes to QP REQ.local_qpn starting at PSN
 * REQ.starting_psn. REP.remote_comm_id == REQ.local_comm_id; RTU/DREQ/DREP/REJ/MRA carry both IDs. */
#ifndef ROCE_MAD_H
#define ROCE_MAD_H

#include "roce/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_MAD_LEN 256            /* a MAD on QP1 is always 256 bytes */
#define ROCE_MAD_HDR_LEN 24         /* the common header; the class data follows it */
#define ROCE_MAD_QP1 1              /* the General Services Interface QP */
#define ROCE_MAD_BASE_VERSION 1
#define ROCE_MGMT_CLASS_CM 0x07
#define ROCE_CM_CLASS_VERSION 2
#define ROCE_MAD_METHOD_SEND 0x03   /* the method every CM message uses */

/* CM AttributeIDs (IBTA Vol 1 Table 104) */
#define ROCE_CM_ATTR_REQ 0x0010
#define ROCE_CM_ATTR_MRA 0x0011
#define ROCE_CM_ATTR_REJ 0x0012
#define ROCE_CM_ATTR_REP 0x0013
#define ROCE_CM_ATTR_RTU 0x0014
#define ROCE_CM_ATTR_DREQ 0x0015
#define ROCE_CM_ATTR_DREP 0x0016

enum roce_cm_kind {
	ROCE_CM_NONE = 0, ROCE_CM_REQ, ROCE_CM_MRA, ROCE_CM_REJ, ROCE_CM_REP, ROCE_CM_RTU,
	ROCE_CM_DREQ, ROCE_CM_DREP,
};
/* "REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP"; "none" for ROCE_CM_NONE and unknown values */
ROCE_API const char *roce_cm_kind_name(enum roce_cm_kind k);

/* The message's name as Wireshark shows it: "ConnectRequest", "MsgRcptAck", "ConnectReject",
 * "ConnectReply", "ReadyToUse", "DisconnectRequest", "DisconnectReply"; NULL for ROCE_CM_NONE. */
ROCE_API const char *roce_cm_message_name(enum roce_cm_kind k);

/* REJ reasons (IBTA Vol 1 Table 109), those Linux ib_cm names. */
#define ROCE_CM_REJ_CONSUMER 28
/* The reason's name ("consumer reject", "invalid service ID", ...); NULL for codes Table 109
 * leaves reserved. */
ROCE_API const char *roce_cm_rej_reason_name(unsigned reason);

/* What roce_mad_decode() made of the bytes. Truncated (the bytes ran out) and invalid (the bytes
 * are there but are not a CM message this decoder knows) are different outcomes. */
enum roce_mad_result {
	ROCE_MAD_OK = 0,            /* a CM message, every field below decoded */
	ROCE_MAD_NOT_QP1,           /* (roce_mad_decode_pkt) not a UD SEND_ONLY with DETH to QP 1 */
	ROCE_MAD_TRUNC_HDR,         /* fewer than 24 bytes: no header */
	ROCE_MAD_BAD_VERSION,       /* BaseVersion != 1 */
	ROCE_MAD_NOT_CM,            /* another management class (header decoded) */
	ROCE_MAD_BAD_CLASS_VERSION, /* CM with ClassVersion != 2 */
	ROCE_MAD_UNKNOWN_ATTR,      /* CM, but not one of the seven attributes above (LAP, APR, SIDR...) */
	ROCE_MAD_TRUNC_CM,          /* a known CM message cut before the end of its fixed fields */
};
/* "ok", "not_qp1", "truncated_header", "bad_base_version", "not_cm", "bad_class_version",
 * "unknown_attribute", "truncated_cm" */
ROCE_API const char *roce_mad_result_name(enum roce_mad_result r);

/* MAD common header (IBTA Vol 1 §13.4.2, Figure 147). */
struct roce_mad_hdr {
	uint8_t base_version, mgmt_class, class_version;
	uint8_t r;                  /* byte 3 bit 7: response */
	uint8_t method;             /* byte 3 bits 6:0 */
	uint16_t status, class_specific;
	uint64_t tid;
	uint16_t attr_id, resv;
	uint32_t attr_mod;
};

/* REQ (Table 106). Bit fields are right-aligned values. */
struct roce_cm_req {
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;             /* 24 */
	uint8_t responder_resources, initiator_depth;
	uint32_t local_eecn, remote_eecn; /* 24 */
	uint8_t remote_cm_resp_timeout; /* 5 */
	uint8_t transport_service_type; /* 2: 0 RC, 1 UC, 3 XRC (with extended_transport) */
	uint8_t e2e_flow_ctrl;          /* 1 */
	uint32_t starting_psn;          /* 24 */
	uint8_t local_cm_resp_timeout;  /* 5 */
	uint8_t retry_count;            /* 3 */
	uint16_t pkey;
	uint8_t path_mtu;               /* 4: 1=256 2=512 3=1024 4=2048 5=4096 */
	uint8_t rdc_exists;             /* 1 */
	uint8_t rnr_retry_count;        /* 3 */
	uint8_t max_cm_retries;         /* 4 */
	uint8_t srq;                    /* 1 */
	uint8_t extended_transport;     /* 3 */
	/* primary path */
	uint16_t primary_local_lid, primary_remote_lid;
	uint8_t primary_local_gid[16], primary_remote_gid[16]; /* RoCE: ::ffff:a.b.c.d for IPv4 */
	uint32_t primary_flow_label;    /* 20 */
	uint8_t primary_packet_rate;    /* 6 */
	uint8_t primary_traffic_class, primary_hop_limit;
	uint8_t primary_sl;             /* 4 */
	uint8_t primary_subnet_local;   /* 1 */
	uint8_t primary_local_ack_timeout; /* 5 */
	/* RDMA IP CM Service private data (Annex A11), when service_id is 0x0000000001xxxxxx */
	uint8_t has_ip_cm;
	uint8_t ip_cm_major, ip_cm_minor; /* 4, 4 */
	uint8_t ip_cm_ip_version;       /* 4: 4 or 6 */
	uint16_t ip_cm_src_port;
	uint8_t ip_cm_src[16], ip_cm_dst[16]; /* IPv4: the address in the last 4 bytes */
};

/* REP (Table 110). */
struct roce_cm_rep {
	uint32_t local_qkey;
	uint32_t local_qpn;             /* 24 */
	uint32_t local_eecn;            /* 24 */
	uint32_t starting_psn;          /* 24 */
	uint8_t responder_resources, initiator_depth;
	uint8_t target_ack_delay;       /* 5 */
	uint8_t failover_accepted;      /* 2 */
	uint8_t e2e_flow_ctrl;          /* 1 */
	uint8_t rnr_retry_count;        /* 3 */
	uint8_t srq;                    /* 1 */
	uint64_t local_ca_guid;
};

/* REJ (Table 108). */
struct roce_cm_rej {
	uint8_t msg_rejected;           /* 2: 0 REQ, 1 REP, 2 other */
	uint8_t reject_info_len;        /* 7 */
	uint16_t reason;                /* Table 109; 28 = consumer reject */
};

/* MRA (Table 107). */
struct roce_cm_mra {
	uint8_t msg_mraed;              /* 2: 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout;        /* 5 */
};

/* DREQ (Table 112). */
struct roce_cm_dreq {
	uint32_t remote_qpn;            /* 24: Remote QPN/EECN, the receiver's QP */
};

/* One decoded MAD. hdr is valid unless result is NOT_QP1 or TRUNC_HDR; cm_kind is set from the
 * AttributeID as soon as the header says CM (so a truncated REQ still says REQ); the
 * communication IDs and the per-kind fields are valid only when result is ROCE_MAD_OK. */
struct roce_mad {
	uint8_t result;                 /* enum roce_mad_result */
	uint8_t truncated;              /* result is TRUNC_HDR or TRUNC_CM */
	uint8_t cm_kind;                /* enum roce_cm_kind */
	struct roce_mad_hdr hdr;
	uint32_t local_comm_id;         /* every CM message */
	uint32_t remote_comm_id;        /* all but REQ (0 there: the field is reserved) */
	union {
		struct roce_cm_req req;
		struct roce_cm_rep rep;
		struct roce_cm_rej rej;
		struct roce_cm_mra mra;
		struct roce_cm_dreq dreq;
	} cm;                           /* RTU and DREP have only the two IDs */
};

/* Decode the MAD at payload (len captured bytes, normally 256). Returns 1 when it is a CM message
 * this decoder understands and all its fixed fields were captured (out->result == ROCE_MAD_OK),
 * 0 otherwise with out->result saying why. Never reads past len; out is always written. */
ROCE_API int roce_mad_decode(const uint8_t *payload, uint32_t len, struct roce_mad *out);

/* The same for a frame roce_decode() has decoded: checks that it is a UD SEND_ONLY with a DETH to
 * QP 1 (else 0 with ROCE_MAD_NOT_QP1), then decodes the captured part of its payload. */
ROCE_API int roce_mad_decode_pkt(const struct roce_pkt *pkt, const uint8_t *frame, struct roce_mad *out);

/* Path MTU code to bytes (1..5 -> 256..4096), 0 for reserved codes. */
ROCE_API unsigned roce_cm_mtu_bytes(unsigned code);

#ifdef __cplusplus
}
#endif
#endif
