/* congestion.h: congestion analysis, part of the analyzer (analyze.h): PFC/PAUSE accounting per
 * source MAC and priority (IEEE 802.1Qbb, 802.3 Annex 31B), ECN codepoints per stream, and CE
 * marks matched to the CNPs that answer them (RoCEv2, IBTA Annex A17.9).
 *
 * Topology: a capture of one link (or a mirror of one switch port, both directions). A PFC frame
 * from MAC S pauses traffic toward S; a RoCE frame whose destination MAC is S, of a paused
 * priority, inside the pause, is pfc.traffic_while_paused. A CE mark on stream A→B is answered
 * by a CNP B→A whose BTH names A's QP. */
#ifndef ROCE_CONGESTION_H
#define ROCE_CONGESTION_H

#include "roce/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct roce_analyzer;

/* Settings. roce_congestion_config_init() fills in the defaults; a field set to 0 means what
 * rocedump's option means with 0 (cnp_interval_ns 0: no rate limit), or, where the option takes
 * no 0, the default. */
struct roce_congestion_config {
	uint64_t link_bps;         /* the link's speed, for pause quanta (512 bit times); 0: default */
	int64_t pfc_storm_ns;      /* one continuous pause longer than this is pfc.storm; 0: default */
	int64_t cnp_interval_ns;   /* a NIC's least time between CNPs on a QP; 0: no rate limit,
				    * every CE mark is due a CNP */
	int64_t cnp_timeout_ns;    /* a CNP later than this after a due CE mark is missing; 0: default */
	bool dscp_map;             /* dscp_prio holds the priority of each DSCP of untagged traffic; */
	uint8_t dscp_prio[64];     /* without it, priority = DSCP >> 3 */
};
#define ROCE_LINK_BPS_DEFAULT UINT64_C(100000000000)     /* 100 Gb/s ... */
#define ROCE_LINK_SPEED_DEFAULT "100G"                    /* ... as roce_parse_link_speed() takes it */
#define ROCE_PFC_STORM_NS_DEFAULT INT64_C(100000000)     /* 100 ms */
#define ROCE_CNP_INTERVAL_NS_DEFAULT INT64_C(50000)      /* 50 us */
#define ROCE_CNP_TIMEOUT_NS_DEFAULT INT64_C(1000000)     /* 1 ms */

/* The defaults above, no DSCP map. */
ROCE_API void roce_congestion_config_init(struct roce_congestion_config *c);

/* The settings from their text forms (rocedump's options, the plugin's preferences); false,
 * and nothing changed, when arg is not one. A link speed: bits per second, with an optional K, M,
 * G or T (decimal) suffix, 1 Mb/s to 1 Pb/s ("25G", "400G"). A DSCP map: DSCP=PRIORITY pairs,
 * comma-separated (0-63=0-7: "26=3,48=6"); the DSCPs not named keep DSCP >> 3; sets dscp_map. */
ROCE_API bool roce_parse_link_speed(const char *arg, uint64_t *bps);
ROCE_API bool roce_parse_dscp_map(const char *arg, struct roce_congestion_config *c);

/* PFC or PAUSE totals of one source MAC and priority. */
struct roce_pfc_row {
	uint8_t src[6];
	int8_t priority;           /* 0-7; -1: legacy PAUSE (all traffic) */
	uint64_t frames;           /* well-formed frames of the source naming this priority */
	uint64_t xoff, xon;        /* pause time > 0; pause time 0 */
	uint64_t storms;
	int64_t paused_ns;         /* the union of the pause intervals, clipped at the capture's end */
	int64_t longest_ns;        /* the longest continuous pause */
	bool open;                 /* a pause not ended by a frame (no XON, and no later frame of the */
	int64_t open_start_ns, open_end_ns; /* source after its timer ran out): [start, end), its end the
				    * timer's or the capture's, whichever came first (in paused_ns) */
	bool open_storm;           /* ... and it was a storm */
};

/* Call fn for each source MAC's priorities in order of first sight, PFC priorities 0-7 then its
 * PAUSE row, each only if the source named it. */
ROCE_API void roce_analyzer_pfc_foreach(const struct roce_analyzer *a,
					void (*fn)(const struct roce_pfc_row *r, void *user), void *user);
/* From the first frame analyzed to the last (the denominator of a paused fraction). */
ROCE_API int64_t roce_analyzer_span_ns(const struct roce_analyzer *a);
/* Source MACs whose PFC/PAUSE frames were not accounted for lack of room (4096 are). */
ROCE_API uint64_t roce_analyzer_pfc_untracked(const struct roce_analyzer *a);

/* CNPs that answered no one stream: sent src → dst (addresses), none or several of the streams
 * dst → src having unanswered CE marks. */
struct roce_cnp_pair_row {
	uint8_t addr_len;
	uint8_t src[16], dst[16];
	uint64_t cnps;
	uint64_t ambiguous;        /* of them: several streams could have been answered */
};
ROCE_API void roce_analyzer_cnp_pairs_foreach(const struct roce_analyzer *a,
					      void (*fn)(const struct roce_cnp_pair_row *r, void *user), void *user);

/* Congestion outcomes one by one, as the analysis reaches them, for a caller that plots them over
 * time (rocedump --report): the totals above and in roce_stream_stats count the same outcomes. */
enum roce_cong_kind {
	ROCE_CONG_CNP,      /* a CNP answering a stream (roce_stream_stats.cnps) */
	ROCE_CONG_MISSING,  /* a CE mark whose CNP did not come in time (cnp_missing) */
	ROCE_CONG_PAUSE,    /* a PFC/PAUSE interval that ended (XON, or its timer ran out) */
};
struct roce_cong_outcome {
	uint8_t kind;              /* enum roce_cong_kind */
	uint32_t stream, pair;     /* CNP, MISSING: the CE-marked stream's ids (analyze.h) */
	uint64_t frame;            /* CNP: the CNP's frame number; MISSING: the CE-marked frame's */
	int64_t ts;                /* CNP: the CNP's time; MISSING: the CE mark's; PAUSE: its start */
	int64_t ns;                /* CNP: CE-to-CNP latency (ce_to_cnp_*), -1 if none was measured;
				    * PAUSE: its length; MISSING: the timeout it exceeded */
	bool unexpected;           /* CNP: answering no CE mark within the timeout (cnp_unexpected) */
	uint8_t src[6];            /* PAUSE: the source MAC (the paused traffic goes toward it) */
	int8_t priority;           /* PAUSE: 0-7, -1 legacy PAUSE */
	bool storm, expired;       /* PAUSE: it was a storm; it ended by its timer, without XON */
};
typedef void (*roce_cong_fn)(const struct roce_cong_outcome *o, void *user);
/* fn (NULL: none) gets every outcome from the next frame analyzed on, in capture order; pauses
 * no frame ended are in roce_analyzer_pfc_foreach's rows (open). */
ROCE_API void roce_analyzer_on_congestion(struct roce_analyzer *a, roce_cong_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
