/* analyze.h: stateful transport analysis of RoCE traffic (IBTA Vol 1 §9.4-9.7: PSN sequencing,
 * ACK/NAK and retransmission, message segmentation), fed decoded frames in capture order.
 *
 * A stream is one direction of one queue pair: (source address, destination address,
 * destination QPN). It carries the requests of its source (one PSN space) and its source's
 * responses to the destination's requests (the destination's PSN space). State per stream is
 * bounded (140 bytes, and up to 320 more as its traffic needs them); the table holds at most
 * max_streams and evicts the least recently used. A log of the last 65,536 request PSNs' first
 * sendings (2 MiB) ages timeout resends. Findings are
 * events of the one event table (events.def), added to the frame's event set, with details.
 *
 * Numbers that tie the findings to the file and to the summary:
 *   frame number  the caller's number of the frame, as the file numbers its frames (1-based,
 *                 tshark's frame.number); findings refer to earlier frames by it (ref_frame).
 *   stream id     given to a stream when the table creates it (1, 2, 3 ...), never reused, also
 *                 not after an eviction (a stream evicted and seen again gets a new one).
 *   pair id       the two directions of a queue pair share one: the stream id of the older of
 *                 the two once they are paired (by RDMA-CM or by PSN); a stream not paired (yet)
 *                 has its own stream id as its pair id.
 * A frame carries the ids its stream had when the frame was analyzed; the summary's rows
 * (roce_analyzer_foreach) carry the same ids.
 *
 * Copies: the same packet seen twice by the capture (tcpdump -i any, a pcapng of several
 * interfaces, two mirrored ports, ERSPAN ingress and egress sessions, mirror points on both sides
 * of a routed hop) is not a resend. A frame is a copy when its packet, from the IP header (or GRH)
 * on with the bytes the ICRC leaves out masked, was seen within copy_window_us and either somewhere
 * else (another p->capture_if, SLL2 interface, packet type, mirror session or direction, VLAN or
 * Ethernet addresses) or at the same place with the same non-zero IPv4 id (a network duplicate;
 * a real resend gets a new id from senders that count them). A copy gets frame.copy, with
 * ref_frame = its first sighting, and is counted on its stream (copies); it takes no further
 * part in the analysis. About the last 8,192 sightings are kept (a 4-way set-associative table
 * by content). */
#ifndef ROCE_ANALYZE_H
#define ROCE_ANALYZE_H

#include "roce/congestion.h"
#include "roce/decode.h"

#ifdef __cplusplus
extern "C" {
#endif

struct roce_analyzer;

/* Settings. roce_analyzer_config_init() fills in the defaults; a field set to 0 means what
 * rocedump's option means with 0 (copy_window_us 0: copies are not looked for), or, where the
 * option takes no 0, the default. A NULL config is the defaults. */
struct roce_analyzer_config {
	uint32_t max_streams;  /* table capacity (--max-streams); 0: ROCE_MAX_STREAMS_DEFAULT */
	uint32_t pmtu;         /* path MTU in bytes if known; 0: learn it from FIRST/MIDDLE payloads */
	const struct roce_congestion_config *congestion; /* congestion.h; NULL: its defaults */
	int64_t copy_window_us; /* a packet seen again within this many microseconds of its first
				 * sighting may be a copy (frame.copy, above; --copy-window-us);
				 * 0 or less: copies are not looked for */
};
#define ROCE_MAX_STREAMS_DEFAULT UINT32_C(2097152)   /* 1 M queue pairs, both directions */
#define ROCE_COPY_WINDOW_US_DEFAULT INT64_C(1000)

/* The defaults: ROCE_MAX_STREAMS_DEFAULT, the path MTU learned, the congestion defaults,
 * ROCE_COPY_WINDOW_US_DEFAULT. */
ROCE_API void roce_analyzer_config_init(struct roce_analyzer_config *cfg);

/* One finding on a frame. */
struct roce_finding {
	uint16_t event;        /* enum roce_event */
	bool has_psn;          /* expected_psn / seen_psn are meaningful */
	bool msn;              /* ... and hold MSNs, not PSNs (ack.msn_mismatch) */
	uint32_t qpn;          /* the frame's destination QP */
	uint32_t expected_psn, seen_psn;
	/* the stream the finding is about, and its pair id (as struct roce_findings's): a transport
	 * finding's is its frame's; cnp.*'s the stream of the CE-marked frame (cnp.missing) or of the
	 * marks a CNP was taken to answer (cnp.unexpected), 0 when not known (the CNP matched no
	 * stream, the stream was evicted); pfc.*'s 0 (a priority of a MAC, no stream) */
	uint32_t stream, pair;
	int64_t delta_ns;      /* e.g. NAK to retransmission, age of a timed-out PSN; -1 if none */
	uint64_t ref_frame;    /* the frame number the finding refers to, 0 if none: the first
				* sending of a resent PSN (psn.retransmit, retransmit.timeout), the
				* NAK or RNR NAK a restart answers (nak.restart_wrong, rnr.retry_early),
				* the timeout resend shown spurious (retransmit.spurious),
				* the CE-marked frame a CNP was due for (cnp.missing) or answers
				* (cnp.unexpected: none) */
	/* congestion events (congestion.h) */
	int8_t priority;       /* pfc.*: the priority (0-7); -1: a legacy PAUSE (all traffic) */
	uint16_t quanta;       /* pfc.pause: the pause time */
	bool expired;          /* pfc.resume: the pause timer ran out (no XON) */
	bool pause;            /* pfc.traffic_while_paused: a legacy PAUSE paused it */
	/* retransmit.retry_exceeded: the restarts of the stuck PSN (expected_psn) it counted, seen
	 * in the capture and inferred (a restart at a later PSN of the stuck PSN's run: the stuck
	 * PSN's own resend is missing from the capture) */
	uint16_t resends_seen, resends_inferred;
	/* retransmit.timeout: an ACK covering the resent PSN was seen before the resend (the PSN
	 * arrived; the ACK may have been lost after the capture point): not counted lost */
	bool acked_before;
	/* psn.gap: a mirror.gap of the frame's mirror session (mirror.h) accounts for the missing
	 * packets: lost at the mirror, not before the capture point */
	bool at_mirror;
	/* path.lost: the capture points (roce/path.h) of the hop that lost the original */
	uint16_t path_from, path_to;
};

/* A frame's findings: all of them, however many (a pause in traffic may expire a thousand due
 * CNPs on the frame after it). */
struct roce_findings {
	unsigned n;                /* findings in f[] */
	uint32_t stream, pair;     /* the frame's stream id and pair id; 0 for a frame that no stream
				    * took (not RoCE, not analyzable, a CNP, the table out of memory) */
	int64_t response_ns;       /* a response: request->response time measured on this frame (from
				    * the newest request it is the first to answer, resends excluded, as
				    * the summary's figures), in ns; -1 if none */
	/* the n findings: the analyzer's own array (grown as a frame needs, kept for the next
	 * frames), valid until the next roce_analyze() or roce_analyzer_free(); a caller that keeps
	 * them copies them. NULL or not when n is 0. */
	const struct roce_finding *f;
	/* the requester's restart after a NAK or RNR NAK (the summary's nak_recovery figures):
	 * the time from that NAK to this frame in ns, -1 if this frame is no such restart, and the
	 * NAK's frame number (0 if unknown) */
	int64_t recovery_ns;
	uint64_t recovery_ref;
	/* a CNP that answers a CE mark (congestion.h): the CE-marked frame's number and the time
	 * from it to the CNP in ns; 0 and -1 otherwise */
	uint64_t cnp_ce_frame;
	int64_t cnp_ce_ns;
};

/* Event e of frame p as text (findings.c): its name; for bth.reserved_nonzero the fields and
 * values, "bth.reserved_nonzero(resv7 0x01)"; when fi holds a finding of it with PSNs, their
 * details: "psn.gap(expected 100 seen 103)", "nak.psn_seq_err(psn 7)",
 * "retransmit.timeout(expected 9 seen 3, first sent 4.210 ms before)". Written into buf (cap
 * bytes, truncated, NUL-terminated when cap > 0); returns the length the whole text takes. The
 * CLI's text line, its -w comments and the Wireshark plugin's expert info all use it. */
ROCE_API size_t roce_event_text(char *buf, size_t cap, enum roce_event e, const struct roce_pkt *p,
				const struct roce_findings *fi);
/* roce_event_text(), which shows a congestion event's first 2 findings and "; +N more", showing
 * its first shown ones instead (0: all of them). */
ROCE_API size_t roce_event_text_n(char *buf, size_t cap, enum roce_event e, const struct roce_pkt *p,
				  const struct roce_findings *fi, unsigned shown);

/* Whether e is a congestion event (pfc.*, cnp.*): its findings refer to a priority, a MAC or a
 * CE-marked frame (ref_frame), not to the stream of the frame they are noted on. */
ROCE_API bool roce_event_is_congestion(enum roce_event e);

/* Create an analyzer; NULL with the reason in errbuf on failure. */
ROCE_API struct roce_analyzer *roce_analyzer_new(const struct roce_analyzer_config *cfg,
						 char errbuf[ROCE_ERRBUF_SIZE]);
ROCE_API void roce_analyzer_free(struct roce_analyzer *a);
/* Before the first frame: the frames will come in time order across capture points (a classic
 * pcap file, or one live interface: rocedump and the Wireshark plugin both judge it from the
 * first frame having no pcapng interface, so that they agree frame for frame). The
 * copy detection then keeps less (a ring of 1,024 packets rather than 8,192), and the path
 * analysis counts the same packets whatever it keeps. Without it, a capture point whose frames
 * come later in the file than the other points' of the same time (a pcapng read in its own order)
 * is still matched within 8,192 packets. */
ROCE_API void roce_analyzer_time_ordered(struct roce_analyzer *a);

/* Analyze one decoded frame (any frame: non-RoCE ones are ignored). number is the frame's
 * number in the file (1-based; frames filtered out before analysis still count); ts_ns is its
 * capture time (nanoseconds since 1970; taken as ±(2^62 - 1) beyond that, years 1824 and 2116).
 * Adds the transport events to p->events and, when out is not NULL, their details and the
 * frame's ids to out. */
ROCE_API void roce_analyze(struct roce_analyzer *a, struct roce_pkt *p, uint64_t number, const uint8_t *frame,
			   int64_t ts_ns, struct roce_findings *out);

/* Optional, for speed when the analyzer tracks more streams than the caches hold: call it on
 * each frame, in capture order, a few frames (rocedump: 16) before roce_analyze() sees it, and it
 * starts loading the analyzer state that frame will touch (and notes in p->stream_hint what
 * roce_analyze() then need not look up again). It changes nothing the analysis computes, whether
 * it is called on every frame, on some or on none. It returns false, doing nothing, while the
 * analyzer has too few streams to gain from it (a caller may then skip the frames after, up to a
 * batch of them, say). */
ROCE_API bool roce_analyze_prefetch(struct roce_analyzer *a, struct roce_pkt *p, const uint8_t *frame);

/* Optional, for speed when the analyzer tracks many streams: the one call that may run on another
 * thread while roce_analyze() runs (never beside roce_analyzer_free()). It faults in the pages the
 * next new streams will take, past the end of the arrays they fill, so that the analysing thread
 * does not wait while the kernel zeroes them (in a virtual machine, while the host backs them):
 * rocedump calls it from a thread of its own, once a millisecond while memory grows. It changes
 * nothing the analysis computes, and does nothing below some 100 k streams (16 MB of an array in
 * use). Returns whether it populated any pages; needs Linux 5.14 (MADV_POPULATE_WRITE), and does
 * nothing on kernels before. */
ROCE_API bool roce_analyzer_prefault(struct roce_analyzer *a);

/* How a stream was paired with the reverse direction of its connection. */
enum roce_paired { ROCE_PAIRED_NONE = 0, ROCE_PAIRED_PSN, ROCE_PAIRED_CM };

/* Per-stream totals, for summaries. */
struct roce_stream_stats {
	uint8_t addr_len;          /* 4 or 16 */
	uint8_t src[16], dst[16];
	uint32_t dqpn;
	uint8_t paired;            /* enum roce_paired */
	uint32_t peer_qpn;         /* the reverse direction's destination QP when paired */
	uint8_t transport;         /* enum roce_transport of its requests */
	uint32_t pmtu;             /* learned or configured, 0 if unknown */
	uint64_t packets, bytes;   /* all RoCE frames on the stream */
	uint64_t requests, responses;
	uint32_t first_psn, last_psn; /* of its requests */
	bool has_psn;
	uint64_t gaps, missing_psns, retransmits, out_of_order, timeouts;
	/* where its requests were lost: before the capture point (PSNs never seen: missing, less the
	 * ones that came late), after it (PSNs seen, then named by a PSN sequence NAK, or the first
	 * PSN of a timeout resend, counted once until an ACK covers them; the go-back-N resends of
	 * the PSNs after them were discarded by the responder, not lost; a timeout resend of a PSN
	 * already ACKed, or shown spurious by a second ACK, does not count) */
	uint64_t lost_before, lost_after;
	uint64_t lost_mirror;      /* missing PSNs a gap of the mirror's own sequence numbers accounts
				    * for (mirror.h): not in lost_before */
	uint64_t naks[5], rnr_naks;   /* NAKs and RNR NAKs reporting this stream's PSNs, by code (sent
				       * on the reverse stream; there when the pair is not known) */
	uint64_t messages;         /* completed request messages (LAST/ONLY) */
	uint64_t messages_send, messages_write, messages_read, messages_atomic, messages_other; /* by kind */
	/* response time of its requests at the capture point: every request asking for a response
	 * (AckReq, READ, atomic) to the first response covering it (an ACK or atomic ACK of its PSN
	 * or a later one, a READ's first response packet), resends excluded (Karn's rule), up to
	 * 64 waiting at a time; microseconds. Captured next to the requester this is the round
	 * trip through the network and the responder; next to the responder, the responder's own
	 * time. */
	uint64_t response_count;
	uint64_t response_untimed;  /* requests not timed: 64 of the stream's were waiting already */
	uint32_t response_min_us, response_mean_us, response_max_us;
	uint32_t response_p50_us, response_p99_us;  /* from a half-octave histogram: within ±19 % up
						     * to 11.9 s, the largest sample above */
	uint32_t response_p50_range_us[2], response_p99_range_us[2];  /* the samples their bucket
								       * may hold: [lo, hi] */
	/* the requester's side: from a response to its next new request (its turn: next to the
	 * requester, its own time; next to the responder, the round trip the other way) */
	uint64_t turn_count;
	uint32_t turn_mean_us, turn_max_us;
	/* NAK or RNR NAK from the responder to the requester's restart (go-back-N latency) */
	uint64_t recover_count;
	uint32_t recover_mean_us, recover_max_us;
	/* timeout resends whose original send the analyzer still knew: how long after it */
	uint64_t timeout_aged;
	uint32_t timeout_age_mean_us, timeout_age_max_us;
	uint32_t max_idle_us;      /* the longest silence between two frames of the stream */
	uint64_t copies;           /* frames that were copies of one already seen (not in the counts above) */
	uint32_t stream;           /* its stream id (as the frames' findings carry it) */
	uint32_t pair;             /* its pair id: the two directions of a paired QP share it */
	/* congestion (congestion.h) */
	uint64_t ecn[4];           /* packets by ECN codepoint: [0] Not-ECT, [1] ECT(1), [2] ECT(0), [3] CE */
	uint64_t fecn, becn;       /* BTH FECN / BECN set, on packets other than CNPs */
	uint64_t cnps;             /* CNPs from the destination answering this stream (its QP pair) */
	uint64_t cnp_unexpected;   /* of them: answering no CE mark within the timeout */
	uint64_t cnp_missing;      /* cnp.missing on this stream's CE marks */
	uint64_t cnp_pending;      /* CE marks due a CNP whose deadline the capture ended before */
	uint64_t ce_to_cnp_count;  /* CE (the first since the previous CNP) to CNP, nanoseconds: */
	int64_t ce_to_cnp_min_ns, ce_to_cnp_p50_ns, ce_to_cnp_p99_ns, ce_to_cnp_max_ns; /* quantiles ±9 % */
	int64_t ce_to_cnp_p50_range_ns[2], ce_to_cnp_p99_range_ns[2]; /* their buckets: [lo, hi] */
};

/* Call fn for every stream in the table: least recently used first, each stream followed by the
 * reverse direction of its queue pair when the two are paired with each other (both rows carry
 * the same pair id; an unpaired stream has its own stream id as its pair id). */
ROCE_API void roce_analyzer_foreach(const struct roce_analyzer *a,
				    void (*fn)(const struct roce_stream_stats *s, void *user), void *user);
/* Call fn for the stream the last frame analyzed went to (the most recently used) and, when it
 * is paired, the reverse direction of its queue pair: the rows that frame may have changed, for a
 * table kept up to date frame by frame (the Wireshark plugin's). Nothing when the table is empty. */
ROCE_API void roce_analyzer_latest(const struct roce_analyzer *a,
				   void (*fn)(const struct roce_stream_stats *s, void *user), void *user);
ROCE_API uint64_t roce_analyzer_streams(const struct roce_analyzer *a);   /* in the table now */
ROCE_API uint64_t roce_analyzer_evictions(const struct roce_analyzer *a);
/* Call fn (NULL: none) with each stream's row, as roce_analyzer_foreach() gives it, just before
 * the stream is evicted to make room past max_streams: a caller keeping every stream's figures
 * (an export) gets those of the streams the table lets go. fn must not call into the analyzer. */
ROCE_API void roce_analyzer_on_evict(struct roce_analyzer *a,
				     void (*fn)(const struct roce_stream_stats *s, void *user), void *user);
/* Frames of RoCE streams that no stream could take: the analyzer ran out of memory for a new
 * stream, or out of room for addresses (2^20 distinct ones); such frames get no stream id and no
 * transport findings. 0 on any ordinary capture: nonzero means the analysis is incomplete. */
ROCE_API uint64_t roce_analyzer_refused(const struct roce_analyzer *a);
/* The findings of event e the analyzer has made so far, on all frames (also those analyzed with
 * out NULL): the details a caller's roce_findings got, counted. A frame may carry several of one
 * event (cnp.missing: one for each CE mark whose CNP's deadline passed before it), so this may
 * be more than the number of frames with e. 0 for an event the analyzer does not find (the
 * decoder's). */
ROCE_API uint64_t roce_analyzer_findings(const struct roce_analyzer *a, enum roce_event e);
/* Packets the copy detection forgot for room (past its bound of sightings) before every capture
 * point had passed them by the copy window: a copy of one of them would not have been known. 0
 * on any ordinary capture; copies not looked for: 0. */
ROCE_API uint64_t roce_analyzer_copies_unchecked(const struct roce_analyzer *a);

#ifdef __cplusplus
}
#endif
#endif
