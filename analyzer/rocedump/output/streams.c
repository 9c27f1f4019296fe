/* streams.c: the per-stream summary (see streams.h). Rows come in least-recently-used order
 * first, i.e. roughly the order the streams went quiet, the two directions of a queue pair side
 * by side. Each row carries the stream and pair ids the frames' findings carry (analyze.h).
 *
 * Text: by default a table that fits 120 columns (IPv4 addresses) with its heads spelled out,
 * then a line per stream for the times that do not fit it (NAK recovery, timeout ages, response
 * times); -v the full table, one line per stream. */
#include "output/streams.h"

#include <inttypes.h>

#include "output/congestion_out.h"
#include "output/fmt.h"

static const char *paired_name(unsigned p)
{
	return p == ROCE_PAIRED_CM ? "cm" : p == ROCE_PAIRED_PSN ? "psn" : "-";
}

static uint64_t nak_total(const struct roce_stream_stats *s)
{
	return s->naks[0] + s->naks[1] + s->naks[2] + s->naks[3] + s->naks[4];
}

/* Microseconds as milliseconds with three decimals. */
static void fmt_ms(char *buf, size_t len, uint32_t us)
{
	snprintf(buf, len, "%" PRIu32 ".%03" PRIu32 " ms", us / 1000, us % 1000);
}

/* ---- the default table ---- */

static void text_heads(FILE *out)
{
	fprintf(out, "%4s %6s %-15s   %-15s %-8s %-4s %7s %6s %6s %7s %8s %5s %6s %8s\n", "", "", "", "", "", "",
		"", "lost", "lost", "", "", "", "", "response");
	fprintf(out, "%4s %6s %-15s   %-15s %-8s %-4s %7s %6s %6s %7s %8s %5s %6s %8s\n", "pair", "stream", "source",
		"destination", "qp", "type", "packets", "before", "after", "resent", "timeouts", "NAKs", "copies",
		"p50 us");
}

static void text_row(const struct roce_stream_stats *s, void *user)
{
	FILE *out = user;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX], resp[16] = "-";
	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	if (s->response_count)
		snprintf(resp, sizeof(resp), "%" PRIu32, s->response_p50_us);
	fprintf(out, "%4" PRIu32 " %6" PRIu32 " %-15s > %-15s 0x%06" PRIx32 " %-4s %7" PRIu64 " %6" PRIu64 " %6" PRIu64
		     " %7" PRIu64 " %8" PRIu64 " %5" PRIu64 " %6" PRIu64 " %8s\n",
		s->pair, s->stream, src, dst, s->dqpn, s->requests ? roce_transport_name((enum roce_transport)s->transport) : "-",
		s->packets, s->lost_before, s->lost_after, s->retransmits, s->timeouts, nak_total(s) + s->rnr_naks,
		s->copies, resp);
}

/* One of a stream's times, on a line of its own: "stream 3 NAK recovery: 2, mean 0.357 ms, max 0.557 ms". */
static void time_line(FILE *out, uint32_t stream, const char *what, uint64_t n, const char *k1, uint32_t v1,
		      const char *k2, uint32_t v2)
{
	char a[32], b[32];
	fmt_ms(a, sizeof(a), v1);
	fmt_ms(b, sizeof(b), v2);
	fprintf(out, "stream %" PRIu32 " %s: %" PRIu64 ", %s %s, %s %s\n", stream, what, n, k1, a, k2, b);
}

/* How far a quantile v may be from the samples it stands for (its bucket [lo, hi]), in whole
 * percent rounded up: "±9 %". */
static unsigned spread_pct(uint64_t v, uint64_t lo, uint64_t hi)
{
	uint64_t d = hi > v ? hi - v : 0;
	if (v > lo && v - lo > d)
		d = v - lo;
	return v ? (unsigned)((d * 100 + v - 1) / v) : 0;
}

/* "stream 3 response time: 13, min 0.012 ms, p50 431 µs (±19 %), p99 980 µs (±2 %), max 1.002 ms"
 * (and how many were not timed, if any) */
static void response_line(FILE *out, const struct roce_stream_stats *s)
{
	char mn[32], mx[32];
	fmt_ms(mn, sizeof(mn), s->response_min_us);
	fmt_ms(mx, sizeof(mx), s->response_max_us);
	fprintf(out, "stream %" PRIu32 " response time: %" PRIu64 ", min %s, p50 %" PRIu32 " µs (±%u %%), p99 %" PRIu32
		     " µs (±%u %%), max %s",
		s->stream, s->response_count, mn, s->response_p50_us,
		spread_pct(s->response_p50_us, s->response_p50_range_us[0], s->response_p50_range_us[1]),
		s->response_p99_us, spread_pct(s->response_p99_us, s->response_p99_range_us[0], s->response_p99_range_us[1]),
		mx);
	if (s->response_untimed)
		fprintf(out, ", untimed %" PRIu64, s->response_untimed);
	fputc('\n', out);
}

/* The times of a stream that the table has no room for. */
static void text_times(const struct roce_stream_stats *s, void *user)
{
	FILE *out = user;
	if (s->response_count)
		response_line(out, s);
	if (s->turn_count)
		time_line(out, s->stream, "requester's turn", s->turn_count, "mean", s->turn_mean_us, "max", s->turn_max_us);
	if (s->recover_count)
		time_line(out, s->stream, "NAK recovery", s->recover_count, "mean", s->recover_mean_us, "max",
			  s->recover_max_us);
	if (s->timeout_aged)
		time_line(out, s->stream, "timeout resends aged", s->timeout_aged, "mean", s->timeout_age_mean_us, "max",
			  s->timeout_age_max_us);
	if (s->lost_mirror)
		fprintf(out, "stream %" PRIu32 " lost at the mirror: %" PRIu64 " (its sequence numbers skipped them; not in "
			     "\"lost before\")\n", s->stream, s->lost_mirror);
}

/* ---- -v: the full table ---- */

static void full_heads(FILE *out)
{
	fprintf(out, "%4s %6s %-15s   %-15s %-8s %-12s %-4s %5s %8s %10s %7s %7s %7s %-13s %-17s %12s %6s %4s %5s "
		     "%11s %9s %4s %6s %s\n",
		"pair", "stream", "source", "destination", "qp", "peer/paired", "type", "pmtu", "packets", "bytes",
		"reqs", "resps", "msgs", "s/w/r/a/other", "psn range", "gaps/missing", "resent", "ooo", "tmout",
		"lost bef/aft", "naks0-4", "rnr", "copies", "response us min/p50/p99/max (n)");
}

static void full_row(const struct roce_stream_stats *s, void *user)
{
	FILE *out = user;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX], psns[40] = "-", resp[64] = "-", kinds[64], lost[32], naks[64];
	if (s->response_count)
		snprintf(resp, sizeof(resp), "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 " (%" PRIu64 ")",
			 s->response_min_us, s->response_p50_us, s->response_p99_us, s->response_max_us, s->response_count);
	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	snprintf(kinds, sizeof(kinds), "%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64, s->messages_send,
		 s->messages_write, s->messages_read, s->messages_atomic, s->messages_other);
	if (s->has_psn)
		snprintf(psns, sizeof(psns), "%" PRIu32 "-%" PRIu32, s->first_psn, s->last_psn);
	snprintf(lost, sizeof(lost), "%" PRIu64 "/%" PRIu64, s->lost_before, s->lost_after);
	snprintf(naks, sizeof(naks), "%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64, s->naks[0],
		 s->naks[1], s->naks[2], s->naks[3], s->naks[4]);
	char peer[16] = "-";
	if (s->paired)
		snprintf(peer, sizeof(peer), "0x%06" PRIx32 "/%s", s->peer_qpn, paired_name(s->paired));
	fprintf(out, "%4" PRIu32 " %6" PRIu32 " %-15s > %-15s 0x%06" PRIx32 " %-12s %-4s %5" PRIu32 " %8" PRIu64
		     " %10" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %-13s %-17s %5" PRIu64 "/%-6" PRIu64 " %6" PRIu64
		     " %4" PRIu64 " %5" PRIu64 " %11s %9s %4" PRIu64 " %6" PRIu64 " %s\n",
		s->pair, s->stream, src, dst, s->dqpn, peer,
		s->requests ? roce_transport_name((enum roce_transport)s->transport) : "-", s->pmtu, s->packets, s->bytes,
		s->requests, s->responses, s->messages, kinds, psns, s->gaps, s->missing_psns, s->retransmits,
		s->out_of_order, s->timeouts, lost, naks, s->rnr_naks, s->copies, resp);
}

/* The congestion table after the stream table, headed at its first row. */
struct cong_listing {
	FILE *out;
	bool headed;
};

static void congestion_row(const struct roce_stream_stats *s, void *user)
{
	struct cong_listing *l = user;
	if (!congestion_stream_has(s))
		return;
	if (!l->headed) {
		congestion_stream_text_header(l->out);
		l->headed = true;
	}
	congestion_stream_text_row(l->out, s);
}

void streams_print_text(const struct roce_analyzer *a, const struct capstats *cs, bool verbose, FILE *out)
{
	char drops[160];
	capstats_describe(cs, drops, sizeof(drops));
	fprintf(out, "streams: %" PRIu64 " (evicted %" PRIu64 "); %s\n", roce_analyzer_streams(a),
		roce_analyzer_evictions(a), drops);
	struct cong_listing c = {out, false};
	if (verbose) {
		full_heads(out);
		roce_analyzer_foreach(a, full_row, out);
	} else {
		text_heads(out);
		roce_analyzer_foreach(a, text_row, out);
		roce_analyzer_foreach(a, text_times, out);
	}
	roce_analyzer_foreach(a, congestion_row, &c);
}

/* ---- JSON ---- */

struct json_ctx {
	FILE *out;
	const char *sep;
	bool (*keep)(const struct roce_stream_stats *s, void *user);  /* the rows to print */
	void *user;
};

static void json_row(const struct roce_stream_stats *s, void *user)
{
	struct json_ctx *j = user;
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];
	if (j->keep && !j->keep(s, j->user))
		return;

	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	char peer[16] = "null";  /* unpaired */
	if (s->paired)
		snprintf(peer, sizeof(peer), "%" PRIu32, s->peer_qpn);
	fprintf(j->out, "%s{\"pair\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"src\":\"%s\",\"dst\":\"%s\",\"dqpn\":%" PRIu32
		",\"paired\":\"%s\",\"peer_qpn\":%s,\"transport\":%s%s%s,\"pmtu\":%" PRIu32
		     ",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"requests\":%" PRIu64 ",\"responses\":%" PRIu64
		     ",\"messages\":%" PRIu64 ",\"messages_by_op\":{\"send\":%" PRIu64 ",\"write\":%" PRIu64
		     ",\"read\":%" PRIu64 ",\"atomic\":%" PRIu64 ",\"other\":%" PRIu64 "}",
		j->sep, s->pair, s->stream, src, dst, s->dqpn, s->paired ? paired_name(s->paired) : "none", peer,
		/* of its requests: none for a stream of responses only */
		s->requests ? "\"" : "", s->requests ? roce_transport_name((enum roce_transport)s->transport) : "null",
		s->requests ? "\"" : "",
		s->pmtu, s->packets, s->bytes, s->requests, s->responses, s->messages, s->messages_send, s->messages_write,
		s->messages_read, s->messages_atomic, s->messages_other);
	if (s->has_psn)
		fprintf(j->out, ",\"first_psn\":%" PRIu32 ",\"last_psn\":%" PRIu32, s->first_psn, s->last_psn);
	fprintf(j->out, ",\"gaps\":%" PRIu64 ",\"missing_psns\":%" PRIu64 ",\"retransmits\":%" PRIu64
			",\"out_of_order\":%" PRIu64 ",\"timeouts\":%" PRIu64 ",\"lost_before_capture\":%" PRIu64
			",\"lost_after_capture\":%" PRIu64 ",\"copies\":%" PRIu64 ",\"naks\":{\"psn_seq_err\":%" PRIu64
			",\"invalid_request\":%" PRIu64 ",\"remote_access\":%" PRIu64 ",\"remote_op\":%" PRIu64
			",\"invalid_rd\":%" PRIu64 "},\"rnr_naks\":%" PRIu64,
		s->gaps, s->missing_psns, s->retransmits, s->out_of_order, s->timeouts, s->lost_before, s->lost_after,
		s->copies, s->naks[0], s->naks[1], s->naks[2], s->naks[3], s->naks[4], s->rnr_naks);
	if (s->lost_mirror)  /* mirror.h: only a mirrored capture has them */
		fprintf(j->out, ",\"lost_at_mirror\":%" PRIu64, s->lost_mirror);
	if (s->response_count)
		fprintf(j->out, ",\"response_time_us\":{\"count\":%" PRIu64 ",\"untimed\":%" PRIu64 ",\"min\":%" PRIu32
				",\"mean\":%" PRIu32 ",\"p50\":%" PRIu32 ",\"p50_range_us\":[%" PRIu32 ",%" PRIu32
				"],\"p99\":%" PRIu32 ",\"p99_range_us\":[%" PRIu32 ",%" PRIu32 "],\"max\":%" PRIu32 "}",
			s->response_count, s->response_untimed, s->response_min_us, s->response_mean_us, s->response_p50_us,
			s->response_p50_range_us[0], s->response_p50_range_us[1], s->response_p99_us,
			s->response_p99_range_us[0], s->response_p99_range_us[1], s->response_max_us);
	if (s->turn_count)
		fprintf(j->out, ",\"requester_turn_us\":{\"count\":%" PRIu64 ",\"mean\":%" PRIu32 ",\"max\":%" PRIu32 "}",
			s->turn_count, s->turn_mean_us, s->turn_max_us);
	if (s->recover_count)
		fprintf(j->out, ",\"nak_recovery_us\":{\"count\":%" PRIu64 ",\"mean\":%" PRIu32 ",\"max\":%" PRIu32 "}",
			s->recover_count, s->recover_mean_us, s->recover_max_us);
	if (s->timeout_aged)
		fprintf(j->out, ",\"timeout_age_us\":{\"count\":%" PRIu64 ",\"mean\":%" PRIu32 ",\"max\":%" PRIu32 "}",
			s->timeout_aged, s->timeout_age_mean_us, s->timeout_age_max_us);
	fprintf(j->out, ",\"max_idle_us\":%" PRIu32, s->max_idle_us);
	congestion_stream_json(s, j->out);
	fputs("}", j->out);
	j->sep = ",";
}

void streams_print_json(const struct roce_analyzer *a, const struct capstats *cs, FILE *out)
{
	streams_print_json_some(a, cs, out, NULL, NULL);
}

void streams_print_json_some(const struct roce_analyzer *a, const struct capstats *cs, FILE *out,
			     bool (*keep)(const struct roce_stream_stats *s, void *user), void *user)
{
	struct json_ctx j = {out, "", keep, user};
	fprintf(out, "{\"streams\":{\"count\":%" PRIu64 ",\"evicted\":%" PRIu64 ",", roce_analyzer_streams(a),
		roce_analyzer_evictions(a));
	capstats_print_json(cs, out);
	fprintf(out, ",\"rows\":[");
	roce_analyzer_foreach(a, json_row, &j);
	fprintf(out, "]}}\n");
}
