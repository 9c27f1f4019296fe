/* session.h: one test's session with the DUT (session.c): build a stimulus with the core's
 * builder and send it, collect the DUT's RoCE packets with timeouts, and keep every frame both
 * ways (with a note each) for the verdict's evidence and the per-test pcapng. In a dry run
 * nothing is sent or received: stimuli are only recorded. */
#ifndef CONFORM_SESSION_H
#define CONFORM_SESSION_H

#include "conform.h"
#include "link.h"
#include "roce/build.h"

/* What to send: the fields a test sets; stim_init() fills the rest from the QP. */
struct stim {                 /* (widest fields first: no padding) */
	struct roce_hdrs extra;    /* RETH / AETH / AtomicETH / DETH values (hdrs ignored) */
	const uint8_t *data;       /* the payload's bytes (payload_len of them), NULL: fill */
	uint32_t psn, dqpn;
	uint32_t payload_len;
	unsigned icrc;             /* enum roce_build_icrc */
	uint32_t icrc_value;
	uint32_t truncate_to;      /* send only this many bytes of the frame (0: all) */
	uint16_t pkey;
	uint16_t ip_id;
	uint16_t hdrs;             /* with hdrs_given */
	uint8_t opcode;
	uint8_t fill;              /* payload byte value */
	uint8_t tver, padcnt;
	uint8_t ecn;
	bool ackreq;
	bool padcnt_as_given;
	bool becn;
	bool hdrs_given;           /* use hdrs instead of the opcode's extended headers */
	bool alt_src;              /* from another source address than the advertised GID */
	bool rocev1;               /* RoCEv1: EtherType 0x8915, a GRH with the QP's GIDs */
};

/* One frame of the session, sent or received. */
struct rec_frame {
	int64_t ts_ns;
	uint8_t *bytes;
	struct stim stim;
	uint32_t len;
	bool sent;
	bool has_stim;             /* sent from this stimulus (the unit tests compare the decode to it) */
	char note[160];
};

/* A RoCE packet from the DUT, decoded. */
struct resp {
	int64_t ts_ns;
	struct roce_hdrs h;
	uint32_t payload_len;
	uint8_t icrc_status;       /* enum roce_icrc_status */
	uint8_t ecn;
	bool response;             /* an ACK, NAK, READ response or atomic ACK (else a request) */
	unsigned frame;            /* index in the session's frames */
};

struct session {
	const struct conf_opts *o;
	struct link *link;         /* NULL in a dry run */
	const struct conf_test *test;
	struct conf_result *result; /* the test's result (its t_ref is set by the first stimulus) */
	struct conf_qp qp;
	bool qp_up;                /* the setup brought the QP up */
	bool qp_dead;              /* a test put it in the error state on purpose */
	bool probe_unanswered;     /* probe_ok's last probe got no response at all (not a NAK: none) */
	uint32_t epsn;             /* the PSN the DUT expects from us next */
	uint32_t accepted;         /* messages the DUT acknowledged (its MSN) */
	uint32_t dut_msgs_acked;   /* DUT SENDs we acknowledged (our MSN) */
	int tcp_fd;                /* the setup's connection, kept open while the test runs */
	uint16_t port;             /* the setup's port (I1 brings up a second QP on the next one) */
	struct rec_frame *frames;
	size_t n_frames;
	uint32_t cap_frames;
	struct resp *resps;
	size_t n_resps;
	uint32_t cap_resps;
	struct resp *others;       /* the DUT's RoCE packets to another QP than the test's: evidence */
	size_t n_others;           /* (a CNP sent to the wrong QP, a previous run's QP retrying) */
	uint32_t cap_others;
	int64_t t_start, deadline_ns;
	uint64_t drops_at_start;
	char err[CONF_ERRLEN];     /* the last send/capture error */
	bool link_failed;
};

/* Fill st with the QP's defaults: opcode, the next PSN, AckReq on, the DUT's QPN, P_Key 0xffff. */
void stim_init(struct session *s, struct stim *st, uint8_t opcode);

/* The GID of address a: IPv4-mapped (::ffff:a.b.c.d) for IPv4, the address itself for IPv6. */
void addr_gid(const struct conf_addr *a, uint8_t gid[16]);

/* Build st as a complete frame into out. Returns its length or -1 (reason in s->err). */
int stim_build(struct session *s, const struct stim *st, uint8_t *out, size_t cap);

/* Build and send st (recorded with note). Returns 0, or -1 when it could not be sent. */
int sess_send(struct session *s, const struct stim *st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Send a frame made elsewhere (recorded with note). 0 or -1. */
int sess_send_raw(struct session *s, const uint8_t *frame, uint32_t len, const char *note);
/* The same at once, outside the --pps pacing: a link-level control frame (a PFC refresh). */
int sess_send_ctl(struct session *s, const uint8_t *frame, uint32_t len, const char *note);

/* Receive for up to ms, stopping early once pred(resp, arg) is true for a new packet. Returns the
 * index of that packet in s->resps, or -1 (time out, dry run, capture error). */
typedef bool (*resp_pred)(const struct resp *r, const void *arg);
long sess_wait(struct session *s, int ms, resp_pred pred, const void *arg);
/* Take one captured frame as if the link had delivered it: recorded, and decoded into s->resps
 * when it is RoCEv2 from the DUT to the tester's QP (into s->others when to another QP: the
 * result is then NULL). The DUT's bytes are untrusted input (the fuzz
 * target feeds this). Returns the response or NULL. */
const struct resp *sess_take(struct session *s, const uint8_t *data, uint32_t caplen, uint32_t len, int64_t ts_ns);

/* Receive everything for ms. */
void sess_collect(struct session *s, int ms);
/* Receive everything until the time deadline (now_ns()'s clock), to the nanosecond. */
void sess_collect_until(struct session *s, int64_t deadline);

/* Predicates. */
bool pred_response(const struct resp *r, const void *arg);   /* any ACK/NAK/READ resp/atomic ACK */
bool pred_request(const struct resp *r, const void *arg);    /* any request (the DUT's SEND) */
bool pred_psn(const struct resp *r, const void *arg);        /* response with PSN *(uint32_t *)arg */
bool pred_any(const struct resp *r, const void *arg);
bool pred_send_end(const struct resp *r, const void *arg);   /* the LAST or ONLY packet of a DUT SEND */

/* Add a note to a frame (for the pcapng comments). */
void sess_note(struct session *s, unsigned frame, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Acknowledge the DUT's request packets up to and including psn (an ACK with MSN msn). */
int sess_ack_dut(struct session *s, uint32_t psn, uint32_t msn, const char *why);
/* Send the DUT an acknowledgement packet with AETH syndrome (ACK, RNR NAK or NAK) at psn. */
int sess_aeth(struct session *s, uint32_t psn, uint8_t syndrome, uint32_t msn, const char *note);

/* Fill st with the setup's harmless request (SEND, WRITE or READ of 64 bytes, or a FETCH_ADD of 0)
 * at psn, with AckReq. */
void stim_probe(struct session *s, struct stim *st, uint32_t psn);

/* Send one harmless request the setup's QP accepts (SEND, WRITE or READ of a few bytes) at psn,
 * with AckReq. */
int sess_probe(struct session *s, uint32_t psn, const char *why);

/* Learn from the DUT's answers where its QP stands: ePSN from the highest PSN it acknowledged (or
 * the PSN of a NAK-Seq), the messages it completed from the highest MSN. For the finish step after
 * a test whose stimulus the DUT accepted against the rules. */
void sess_sync(struct session *s);

/* Free the recorded frames (the session can then be reused). */
void sess_reset(struct session *s);

/* Short text of a response ("ACK psn 0x123456 msn 1", "NAK PSN_SEQ_ERR psn ..."). */
const char *resp_str(const struct resp *r, char *buf, size_t n);

/* PSN arithmetic (24-bit). */
static inline uint32_t psn_add(uint32_t p, int32_t d) { return (uint32_t)((int64_t)p + d) & 0xffffff; }
static inline int32_t psn_diff(uint32_t a, uint32_t b) { return (int32_t)((a - b) << 8) >> 8; }

#endif
